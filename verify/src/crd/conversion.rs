//! `spec.preserveUnknownFields` and `spec.conversion` (R20–R29, R109).

use std::collections::BTreeSet;

use base64::Engine;
use serde_json::{Map, Value};

use crate::dns::{DNS1035_MSG, DNS1123_SUBDOMAIN_MSG, is_dns1035_label, is_dns1123_subdomain};
use crate::report::{Report, unknown_keys};
use crate::rules::Rule;

const WEBHOOK: &str = "spec.conversion.webhook";
const CLIENT_CONFIG: &str = "spec.conversion.webhook.clientConfig";

pub(crate) fn check(spec: &Map<String, Value>, report: &mut Report) {
    let preserve = spec.get("preserveUnknownFields").and_then(Value::as_bool) == Some(true);
    if preserve {
        report.add(
            Rule::ConversionPreserveUnknownFields,
            "spec.preserveUnknownFields",
            "Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
            "remove spec.preserveUnknownFields and put x-kubernetes-preserve-unknown-fields: true on the schema nodes that need it",
        );
    }
    let Some(conversion) = spec.get("conversion").and_then(Value::as_object) else {
        check_none_schemas(spec, report);
        return;
    };
    unknown_keys(conversion, &["strategy", "webhook"], "spec.conversion", report);
    let strategy = conversion.get("strategy").and_then(Value::as_str).unwrap_or("None");
    let webhook = conversion.get("webhook").and_then(Value::as_object);
    if let Some(webhook) = webhook {
        unknown_keys(webhook, &["clientConfig", "conversionReviewVersions"], WEBHOOK, report);
    }
    let client_config = webhook.and_then(|w| w.get("clientConfig")).and_then(Value::as_object);
    let review_versions = webhook.and_then(|w| w.get("conversionReviewVersions"));
    match strategy {
        "None" => {
            if client_config.is_some() {
                report.add(
                    Rule::ConversionWebhookForbidden,
                    CLIENT_CONFIG,
                    "Forbidden: should not be set when strategy is not set to Webhook",
                    "remove spec.conversion.webhook, or set strategy: Webhook",
                );
            }
            if review_versions.is_some() {
                report.add(
                    Rule::ConversionWebhookForbidden,
                    format!("{WEBHOOK}.conversionReviewVersions"),
                    "Forbidden: should not be set when strategy is not set to Webhook",
                    "remove spec.conversion.webhook, or set strategy: Webhook",
                );
            }
            check_none_schemas(spec, report);
        }
        "Webhook" => {
            match client_config {
                None => report.add(
                    Rule::ConversionWebhookRequired,
                    CLIENT_CONFIG,
                    "Required value: required when strategy is set to Webhook",
                    "add webhook.clientConfig with a service (name, namespace, path) or an https url",
                ),
                Some(cc) => check_client_config(cc, report),
            }
            check_review_versions(review_versions, report);
            if preserve {
                report.add(
                    Rule::ConversionWebhookPreserveUnknownFields,
                    "spec.conversion.strategy",
                    "Invalid value: \"Webhook\": must be None if spec.preserveUnknownFields is true",
                    "remove spec.preserveUnknownFields",
                );
            }
        }
        other => report.add(
            Rule::ConversionStrategy,
            "spec.conversion.strategy",
            format!("Unsupported value: {other:?}: supported values: \"None\", \"Webhook\""),
            "use exactly None or Webhook (case-sensitive)",
        ),
    }
}

/// R23–R26.
fn check_client_config(cc: &Map<String, Value>, report: &mut Report) {
    unknown_keys(cc, &["url", "service", "caBundle"], CLIENT_CONFIG, report);
    let url = cc.get("url").and_then(Value::as_str);
    let service = cc.get("service").and_then(Value::as_object);
    if url.is_some() == service.is_some() {
        report.add(
            Rule::ConversionClientConfig,
            CLIENT_CONFIG,
            "Required value: exactly one of url or service is required",
            "keep either clientConfig.url or clientConfig.service",
        );
    }
    if let Some(url) = url {
        check_url(url, report);
    }
    if let Some(service) = service {
        check_service(service, report);
    }
    if let Some(ca) = cc.get("caBundle").and_then(Value::as_str) {
        let pem = base64::engine::general_purpose::STANDARD.decode(ca.trim()).ok();
        let is_pem = pem.as_deref().is_some_and(|b| String::from_utf8_lossy(b).contains("-----BEGIN CERTIFICATE-----"));
        if !is_pem {
            report.add(
                Rule::ConversionCaBundle,
                format!("{CLIENT_CONFIG}.caBundle"),
                "unable to load root certificates: unable to parse bytes as PEM block (not checked on create, but updates after the CRD is Established are rejected)",
                "put the base64 of a PEM certificate here, or leave caBundle out and let cert-manager inject it",
            );
        }
    }
}

/// R24.
fn check_url(raw: &str, report: &mut Report) {
    let path = format!("{CLIENT_CONFIG}.url");
    const FIX: &str = "use https://host[:port]/path with no user info, query or fragment";
    let parsed = match url::Url::parse(raw) {
        Ok(u) => u,
        Err(e) => {
            report.add(Rule::ConversionWebhookUrl, path, format!("Invalid value: {raw:?}: {e}"), FIX);
            return;
        }
    };
    let detail = if parsed.scheme() != "https" {
        format!(
            "Invalid value: {:?}: 'https' is the only allowed URL scheme; desired format: https://host[/path]",
            parsed.scheme()
        )
    } else if parsed.host_str().is_none_or(str::is_empty) {
        "Invalid value: \"\": host must be specified; desired format: https://host[/path]".to_string()
    } else if !parsed.username().is_empty() || parsed.password().is_some() {
        format!("Invalid value: {raw:?}: user information is not permitted in the URL")
    } else if parsed.query().is_some() {
        format!("Invalid value: {raw:?}: query parameters are not permitted in the URL")
    } else if parsed.fragment().is_some() {
        format!("Invalid value: {raw:?}: fragments are not permitted in the URL")
    } else {
        return;
    };
    report.add(Rule::ConversionWebhookUrl, path, detail, FIX);
}

/// R25 (including the upstream quirk: a missing name is reported at `namespace` and vice versa).
fn check_service(service: &Map<String, Value>, report: &mut Report) {
    let base = format!("{CLIENT_CONFIG}.service");
    unknown_keys(service, &["name", "namespace", "path", "port"], &base, report);
    const FIX: &str =
        "set service.name, service.namespace, and optionally port (1-65535) and a lower-case path starting with /";
    for (key, reported_at) in [("name", "namespace"), ("namespace", "name")] {
        if service.get(key).and_then(Value::as_str).is_none_or(str::is_empty) {
            report.add(
                Rule::ConversionWebhookService,
                format!("{base}.{reported_at}"),
                format!("Required value: service {key} is required"),
                FIX,
            );
        }
    }
    if let Some(port) = service.get("port") {
        let p = port.as_i64().unwrap_or(0);
        if !(1..=65535).contains(&p) {
            report.add(
                Rule::ConversionWebhookService,
                format!("{base}.port"),
                format!("Invalid value: {port}: port is not valid: must be between 1 and 65535, inclusive"),
                FIX,
            );
        }
    }
    if let Some(p) = service.get("path").and_then(Value::as_str) {
        let detail = if !p.starts_with('/') {
            Some("must start with a '/'".to_string())
        } else {
            let trimmed = p.strip_suffix('/').filter(|s| !s.is_empty()).unwrap_or(p);
            trimmed[1..].split('/').enumerate().find_map(|(i, seg)| {
                if p == "/" {
                    None
                } else if seg.is_empty() {
                    Some(format!("segment[{i}] may not be empty"))
                } else if !is_dns1123_subdomain(seg) {
                    Some(format!("segment[{i}]: {DNS1123_SUBDOMAIN_MSG}"))
                } else {
                    None
                }
            })
        };
        if let Some(detail) = detail {
            report.add(
                Rule::ConversionWebhookService,
                format!("{base}.path"),
                format!("Invalid value: {p:?}: {detail}"),
                FIX,
            );
        }
    }
}

/// R27.
fn check_review_versions(versions: Option<&Value>, report: &mut Report) {
    let path = format!("{WEBHOOK}.conversionReviewVersions");
    const FIX: &str = "set conversionReviewVersions: [v1]";
    let list = versions.and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
    if list.is_empty() {
        report.add(Rule::ConversionReviewVersions, path, "Required value", FIX);
        return;
    }
    let mut seen = BTreeSet::new();
    for (i, v) in list.iter().enumerate() {
        let s = v.as_str().unwrap_or("");
        if !is_dns1035_label(s) {
            report.add(
                Rule::ConversionReviewVersions,
                format!("{path}[{i}]"),
                format!("Invalid value: {s:?}: {DNS1035_MSG}"),
                FIX,
            );
        } else if !seen.insert(s) {
            report.add(
                Rule::ConversionReviewVersions,
                format!("{path}[{i}]"),
                format!("Invalid value: {s:?}: duplicate version"),
                FIX,
            );
        }
    }
    if !seen.contains("v1") && !seen.contains("v1beta1") {
        let listed: Vec<String> = list.iter().map(|v| format!("{:?}", v.as_str().unwrap_or(""))).collect();
        report.add(
            Rule::ConversionReviewVersions,
            path,
            format!("Invalid value: []string{{{}}}: must include at least one of v1, v1beta1", listed.join(", ")),
            FIX,
        );
    }
}

/// R29/R109: strategy None with differing schemas only rewrites `apiVersion`, so fields that
/// one version has and another lacks are lost (pruned) when read through the other version.
fn check_none_schemas(spec: &Map<String, Value>, report: &mut Report) {
    let Some(versions) = spec.get("versions").and_then(Value::as_array) else { return };
    let schemas: Vec<Option<&Value>> =
        versions.iter().map(|v| v.get("schema").and_then(|s| s.get("openAPIV3Schema"))).collect();
    if let Some(first) = schemas.first().copied().flatten()
        && let Some(i) = schemas.iter().position(|s| s.is_some_and(|s| s != first))
    {
        report.add(
                Rule::ConversionNoneSchemasDiffer,
                format!("spec.versions[{i}].schema.openAPIV3Schema"),
                "conversion strategy None with versions whose schemas differ: the API server only rewrites apiVersion, so fields missing from one version are pruned when objects are read or written through it",
                "keep the versions' schemas identical, or add a conversion webhook (strategy: Webhook)",
            );
    }
}
