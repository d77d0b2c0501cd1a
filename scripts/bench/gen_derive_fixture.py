#!/usr/bin/env python3
"""Writes the derive-cost fixture for scripts/bench.sh: one Cargo workspace with three crates
holding the same 20 custom-resource kinds (nested structs, unit enums, maps, lists, schemars
validation), so that only the derive differs:

  baseline/  the spec and status types alone (serde + schemars derives, no CustomResource)
  rop/       the same types with rop's #[derive(CustomResource)] and #[rop(...)]
  kube/      the same types with kube-derive's #[derive(CustomResource)] and #[kube(...)]

Each crate's types are in src/types.rs (the file the benchmark touches). Usage:

  gen_derive_fixture.py OUT_DIR ROP_RUNTIME_DIR [--kube-version 5 --k8s-openapi 0.29 --k8s-feature v1_37]

With --kube-only the workspace holds the kube crate alone.
"""

import argparse
import os

KINDS = [
    "Memcached", "Redis", "Postgres", "Kafka", "Etcd", "Minio", "Nginx", "Grafana", "Prometheus", "Loki",
    "Vault", "Consul", "Rabbitmq", "Mongo", "Cassandra", "Elastic", "Keycloak", "Jenkins", "Gitea", "Harbor",
]


def kind_types(kind: str, derive: str) -> str:
    lower = kind.lower()
    short = lower[:2] + str(KINDS.index(kind))
    if derive == "baseline":
        head = "#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]\n"
    else:
        attr = derive  # "rop" or "kube"
        head = (
            "#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]\n"
            f'#[{attr}(group = "bench.example.com", version = "v1", kind = "{kind}", plural = "{lower}s")]\n'
            f'#[{attr}(namespaced, status = "{kind}Status", shortname = "{short}", derive = "Default", derive = "PartialEq")]\n'
            f'#[{attr}(printcolumn(name = "Replicas", type_ = "integer", json_path = ".spec.replicas"))]\n'
        )
    return f'''
/// {kind}Spec defines the desired state of {kind}.
{head}#[serde(rename_all = "camelCase")]
pub struct {kind}Spec {{
    /// Number of instances.
    #[schemars(range(min = 0, max = 100))]
    pub replicas: i32,
    /// Container image.
    #[schemars(length(min = 1, max = 255))]
    pub image: String,
    /// Name of the cluster; a DNS-1123 label.
    #[schemars(regex(pattern = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"))]
    pub cluster_name: String,
    /// How instances are arranged.
    #[serde(default)]
    pub mode: {kind}Mode,
    /// Compute resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<{kind}Resources>,
    /// Ports to expose.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<{kind}Port>,
    /// Labels added to every object the operator creates.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// Persistent storage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage: Option<{kind}Storage>,
    /// Pause reconciliation.
    #[serde(default)]
    pub paused: bool,
}}

/// How {kind} instances are arranged.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, JsonSchema)]
pub enum {kind}Mode {{
    /// One instance.
    #[default]
    Standalone,
    /// Replicas of one primary.
    Replicated,
    /// Data split across instances.
    Sharded,
}}

/// Compute resources of one {kind} instance.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct {kind}Resources {{
    /// CPU request, e.g. `500m`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<String>,
    /// Memory request, e.g. `256Mi`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    /// Limits by resource name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub limits: BTreeMap<String, String>,
}}

/// A port of {kind}.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct {kind}Port {{
    /// Port name.
    #[schemars(length(min = 1, max = 15))]
    pub name: String,
    /// Port number.
    #[schemars(range(min = 1, max = 65535))]
    pub port: i32,
    /// Protocol.
    #[serde(default)]
    pub protocol: {kind}Protocol,
}}

/// Network protocol.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum {kind}Protocol {{
    /// TCP.
    #[default]
    Tcp,
    /// UDP.
    Udp,
}}

/// Persistent storage of {kind}.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct {kind}Storage {{
    /// Volume size, e.g. `10Gi`.
    pub size: String,
    /// Storage class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class_name: Option<String>,
    /// Keep the volume when the {kind} is deleted.
    #[serde(default)]
    pub retain: bool,
}}

/// {kind}Status defines the observed state of {kind}.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct {kind}Status {{
    /// Conditions of the {kind}.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// The generation this status was computed from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// Ready instances.
    #[serde(default)]
    pub ready_replicas: i32,
}}
'''


def types_rs(derive: str) -> str:
    imports = {
        "baseline": "",
        "rop": "use rop::CustomResource;\n",
        "kube": "use kube::CustomResource;\n",
    }[derive]
    out = [
        f"//! 20 custom-resource kinds ({derive}); generated by scripts/bench/gen_derive_fixture.py.\n",
        "#![allow(clippy::all)]\n\n",
        "use std::collections::BTreeMap;\n\n",
        "use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;\n",
        imports,
        "use schemars::JsonSchema;\n",
        "use serde::{Deserialize, Serialize};\n",
    ]
    out += [kind_types(k, derive) for k in KINDS]
    if derive != "baseline":
        # Use every root type so nothing is dead code; both derives provide crd().
        ext = "rop::__private::kube_core::CustomResourceExt" if derive == "rop" else "kube::CustomResourceExt"
        out.append("\n/// The CRDs of all kinds (keeps every generated item used).\npub fn crds() -> Vec<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition> {\n")
        out.append(f"    use {ext};\n    vec![\n")
        out += [f"        {k}::crd(),\n" for k in KINDS]
        out.append("    ]\n}\n")
    return "".join(out)


def write(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("rop_runtime")
    ap.add_argument("--kube-version", default="5")
    ap.add_argument("--k8s-openapi", default="0.29")
    ap.add_argument("--k8s-feature", default="v1_37")
    ap.add_argument("--kube-only", action="store_true")
    a = ap.parse_args()

    members = ["kube"] if a.kube_only else ["baseline", "rop", "kube"]
    write(
        os.path.join(a.out, "Cargo.toml"),
        "[workspace]\nresolver = \"3\"\nmembers = [" + ", ".join(f'"{m}"' for m in members) + "]\n\n"
        "[workspace.dependencies]\n"
        f'k8s-openapi = {{ version = "{a.k8s_openapi}", default-features = false, features = ["std", "schemars", "{a.k8s_feature}"] }}\n'
        'schemars = "1"\nserde = { version = "1", features = ["derive"] }\nserde_json = "1"\n'
        f'kube = {{ version = "{a.kube_version}", default-features = false, features = ["derive"] }}\n'
        f'rop = {{ path = "{os.path.abspath(a.rop_runtime)}" }}\n\n'
        "",
    )
    extra = {"baseline": "", "rop": "rop.workspace = true\n", "kube": "kube.workspace = true\nserde_json.workspace = true\n"}
    for m in members:
        write(
            os.path.join(a.out, m, "Cargo.toml"),
            f'[package]\nname = "bench-{m}"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n\n'
            "[dependencies]\nk8s-openapi.workspace = true\nschemars.workspace = true\nserde.workspace = true\n" + extra[m],
        )
        write(os.path.join(a.out, m, "src", "lib.rs"), "//! Derive-cost fixture.\npub mod types;\n")
        write(os.path.join(a.out, m, "src", "types.rs"), types_rs(m))


if __name__ == "__main__":
    main()
