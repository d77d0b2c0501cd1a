//! The self-managed webhook certificates as their Secret holds them, and what to write next.
//!
//! The Secret (type `kubernetes.io/tls`, like cert-manager's) holds:
//!
//! - `ca.crt`: the CAs the API server must trust, newest first (PEM); an older CA stays until
//!   it expires, so a replica still serving a certificate it signed is trusted throughout a CA
//!   rollover;
//! - `ca.key`: the CAs' private keys (PEM), in the same order: the newest signs the next
//!   serving certificate, and during a rollover the older one can still renew the certificate
//!   it signed while the new CA is not trusted everywhere yet;
//! - `tls.crt`, `tls.key`: the serving certificate and its key (PEM), what every replica serves;
//! - annotations with the times and names the renewal decisions need (so nothing parses X.509
//!   beyond what rustls verifies): each CA's expiry, the serving certificate's expiry, hosts
//!   and the CA that signed it.
//!
//! Renewal follows cert-manager's rule, at two thirds of a certificate's life. The CA lives ten
//! serving lifetimes. A new CA is written into `ca.crt` first, and a serving certificate it
//! signs only once every `caBundle` trusts it, so the API server never meets a certificate it
//! cannot verify.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::jiff::Timestamp;
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair, KeyUsagePurpose,
    SerialNumber,
};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};

use crate::webhook::tls::ring_provider;
use crate::webhook::{CERT_FILE, KEY_FILE};

/// Key of the trusted CAs' certificates (PEM, newest first), as cert-manager names it.
pub(crate) const CA_FILE: &str = "ca.crt";
/// Key of the CAs' private keys (PEM), in the order of `ca.crt`.
pub(crate) const CA_KEY_FILE: &str = "ca.key";
/// Each CA's expiry (RFC 3339), comma-separated, in the order of `ca.crt`.
const CA_NOT_AFTER: &str = "webhook-certificates.rop.rs/ca-not-after";
/// The serving certificate's expiry (RFC 3339).
const CERT_NOT_AFTER: &str = "webhook-certificates.rop.rs/cert-not-after";
/// The serving certificate's host names and IP addresses, comma-separated.
const CERT_HOSTS: &str = "webhook-certificates.rop.rs/cert-hosts";
/// The expiry of the CA that signed the serving certificate: which CA it is.
const CERT_CA: &str = "webhook-certificates.rop.rs/cert-ca-not-after";

/// A CA certificate is valid this many serving lifetimes.
const CA_LIFETIMES: u32 = 10;
/// Certificates are valid from this long before they are made, for clocks that lag.
const BACKDATE: Duration = Duration::from_secs(60 * 60);

/// What the certificates must be: the names they serve and how long they live.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Want {
    /// DNS names or IP addresses the serving certificate is for; the first is its common name.
    pub(crate) hosts: Vec<String>,
    /// How long a serving certificate is valid (`--webhook-cert-lifetime`).
    pub(crate) lifetime: Duration,
}

impl Want {
    fn ca_lifetime(&self) -> Duration {
        self.lifetime * CA_LIFETIMES
    }
}

/// One trusted CA.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Ca {
    pem: String,
    key_pem: String,
    /// Unix seconds.
    not_after: i64,
}

/// The certificates of a Secret that passed [`Stored::from_secret`]'s checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Stored {
    /// Newest first; never empty.
    cas: Vec<Ca>,
    pub(crate) cert_pem: String,
    pub(crate) key_pem: String,
    /// Unix seconds.
    cert_not_after: i64,
    cert_hosts: Vec<String>,
    /// `not_after` of the CA that signed the serving certificate.
    cert_ca: i64,
}

/// What the Secret should hold next.
#[derive(Debug)]
pub(crate) enum Plan {
    /// It is right as it is.
    Keep,
    /// Write `stored` into it; `why` is for the log.
    Write { stored: Box<Stored>, why: String },
    /// A certificate could not be made (the crypto backend failed).
    Cannot { why: String },
}

impl Stored {
    /// The Secret's certificates, `None` when it holds none yet (a Secret deployed empty for the
    /// manager to fill), or why they cannot be used: a key missing, text that is not PEM, an
    /// annotation that does not parse, a serving certificate that the CA did not sign, that has
    /// expired or is not for its recorded hosts, a CA key that does not belong to the newest CA.
    pub(crate) fn from_secret(secret: &Secret, now: i64) -> Option<Result<Stored, String>> {
        let data = secret.data.clone().unwrap_or_default();
        let annotations = secret.metadata.annotations.clone().unwrap_or_default();
        let empty =
            [CA_FILE, CA_KEY_FILE, CERT_FILE, KEY_FILE].iter().all(|key| data.get(*key).is_none_or(|v| v.0.is_empty()))
                && !annotations.contains_key(CA_NOT_AFTER);
        if empty {
            return None;
        }
        Some(parse(&data, &annotations).and_then(|stored| stored.verify(now).map(|()| stored)))
    }

    /// The PEM of every trusted CA: the `caBundle` of the webhook configurations and CRDs.
    pub(crate) fn ca_bundle(&self) -> ByteString {
        ByteString(self.cas.iter().map(|ca| ca.pem.as_str()).collect::<String>().into_bytes())
    }

    /// The Secret's `data` and the annotations it carries.
    pub(crate) fn to_secret(&self) -> (BTreeMap<String, ByteString>, BTreeMap<String, String>) {
        let bytes = |s: &str| ByteString(s.as_bytes().to_vec());
        let data = [
            (CA_FILE, bytes(&self.ca_bundle_text())),
            (CA_KEY_FILE, bytes(&self.cas.iter().map(|ca| ca.key_pem.as_str()).collect::<String>())),
            (CERT_FILE, bytes(&self.cert_pem)),
            (KEY_FILE, bytes(&self.key_pem)),
        ];
        let times = self.cas.iter().map(|ca| rfc3339(ca.not_after)).collect::<Vec<_>>().join(",");
        let annotations = [
            (CA_NOT_AFTER, times),
            (CERT_NOT_AFTER, rfc3339(self.cert_not_after)),
            (CERT_HOSTS, self.cert_hosts.join(",")),
            (CERT_CA, rfc3339(self.cert_ca)),
        ];
        (
            data.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
            annotations.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        )
    }

    fn ca_bundle_text(&self) -> String {
        self.cas.iter().map(|ca| ca.pem.as_str()).collect()
    }

    /// Checks what parsing cannot: rustls verifies the serving certificate against the CAs for
    /// its first host (as the API server will), and a certificate signed with each key of
    /// `ca.key` verifies against its CA. Each is checked at `now`, or within its recorded
    /// lifetime when that has ended: an expired certificate from a sound CA is renewed by
    /// [`plan`] from that CA (whose `caBundle`s stay right), not replaced with a new CA.
    fn verify(&self, now: i64) -> Result<(), String> {
        let host = self.cert_hosts.first().ok_or("it names no host")?;
        let chain = CertificateDer::pem_slice_iter(self.cert_pem.as_bytes())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("{CERT_FILE} is not PEM: {e}"))?;
        let (leaf, intermediates) = chain.split_first().ok_or(format!("{CERT_FILE} holds no certificate"))?;
        let roots: Vec<&str> = self.cas.iter().map(|ca| ca.pem.as_str()).collect();
        let at = now.min(self.cert_not_after - 1);
        verify_server(&roots, leaf, intermediates, host, at).map_err(|e| format!("{CERT_FILE}: {e}"))?;
        for ca in &self.cas {
            let at = now.min(ca.not_after - 1);
            let probe =
                sign(ca, std::slice::from_ref(host), at, ca.not_after).map_err(|e| format!("{CA_KEY_FILE}: {e}"))?;
            let probe = CertificateDer::from_pem_slice(probe.0.as_bytes()).map_err(|e| e.to_string())?;
            verify_server(&[ca.pem.as_str()], &probe, &[], host, at)
                .map_err(|_| format!("{CA_KEY_FILE} does not hold the keys of the CAs in {CA_FILE}, in their order"))?;
        }
        crate::webhook::tls::from_pem(self.cert_pem.as_bytes(), self.key_pem.as_bytes(), None)
            .map_err(|e| format!("{CERT_FILE} and {KEY_FILE}: {e}"))?;
        Ok(())
    }
}

/// Reads the Secret's keys and annotations, without verifying.
fn parse(data: &BTreeMap<String, ByteString>, annotations: &BTreeMap<String, String>) -> Result<Stored, String> {
    let text = |key: &str| -> Result<String, String> {
        let value = data.get(key).ok_or(format!("it has no {key}"))?;
        String::from_utf8(value.0.clone()).map_err(|_| format!("{key} is not text"))
    };
    let annotation = |key: &str| annotations.get(key).ok_or(format!("it has no annotation {key}"));
    let time = |key: &str, value: &str| {
        value.trim().parse::<Timestamp>().map(|t| t.as_second()).map_err(|e| format!("annotation {key}: {e}"))
    };
    let ca_pems = pem_blocks(&text(CA_FILE)?, "CERTIFICATE");
    let ca_keys = pem_blocks(&text(CA_KEY_FILE)?, "PRIVATE KEY");
    let ca_times =
        annotation(CA_NOT_AFTER)?.split(',').map(|t| time(CA_NOT_AFTER, t)).collect::<Result<Vec<_>, _>>()?;
    if ca_pems.is_empty() || ca_pems.len() != ca_times.len() {
        return Err(format!(
            "{CA_FILE} holds {} certificates and annotation {CA_NOT_AFTER} {} times",
            ca_pems.len(),
            ca_times.len()
        ));
    }
    if ca_keys.len() != ca_pems.len() {
        return Err(format!("{CA_FILE} holds {} certificates and {CA_KEY_FILE} {} keys", ca_pems.len(), ca_keys.len()));
    }
    let cas = ca_pems
        .into_iter()
        .zip(ca_keys)
        .zip(ca_times)
        .map(|((pem, key_pem), not_after)| Ca { pem, key_pem, not_after })
        .collect();
    Ok(Stored {
        cas,
        cert_pem: text(CERT_FILE)?,
        key_pem: text(KEY_FILE)?,
        cert_not_after: time(CERT_NOT_AFTER, annotation(CERT_NOT_AFTER)?)?,
        cert_hosts: annotation(CERT_HOSTS)?.split(',').map(str::to_string).filter(|h| !h.is_empty()).collect(),
        cert_ca: time(CERT_CA, annotation(CERT_CA)?)?,
    })
}

/// The `label` blocks of a PEM text (`CERTIFICATE`, `PRIVATE KEY`), each with its final
/// newline.
fn pem_blocks(text: &str, label: &str) -> Vec<String> {
    let (begin, end) = (format!("-----BEGIN {label}-----"), format!("-----END {label}-----"));
    let mut blocks = Vec::new();
    let mut rest = text;
    while let (Some(start), Some(stop)) = (rest.find(&begin), rest.find(&end)) {
        if stop < start {
            break;
        }
        blocks.push(format!("{}\n", &rest[start..stop + end.len()]));
        rest = &rest[stop + end.len()..];
    }
    blocks
}

/// What to write into the Secret, given what it holds (`None`: nothing yet; `Err`: unusable),
/// the time (Unix seconds) and whether every `caBundle` already trusts all of `current`'s CAs.
/// Only a serving certificate from a CA newer than the one that signed the current certificate
/// waits for that: a renewal from the same CA changes no `caBundle`, so it goes ahead while
/// they cannot be written (a rule missing). A Secret with nothing usable gets a new CA and
/// certificate at once (nothing it holds can be served anyway).
pub(crate) fn plan(current: Option<&Result<Stored, String>>, now: i64, want: &Want, bundle_injected: bool) -> Plan {
    let stored = match current {
        None => return fresh(now, want, "no certificate yet: issuing a CA and a serving certificate".into()),
        Some(Err(why)) => return fresh(now, want, format!("the Secret cannot be used ({why}): replacing it")),
        Some(Ok(stored)) => stored,
    };
    let lifetime = secs(want.lifetime);
    let ca_lifetime = secs(want.ca_lifetime());
    let newest = &stored.cas[0];
    let ca_why = if newest.not_after - now < ca_lifetime / 3 {
        Some(format!("the CA expires at {}", rfc3339(newest.not_after)))
    } else if newest.not_after - now > ca_lifetime + 60 {
        Some("the CA outlives ten certificate lifetimes (--webhook-cert-lifetime was shortened)".to_string())
    } else {
        None
    };
    if let Some(why) = ca_why {
        return match new_ca(now, want) {
            Ok(ca) => {
                let mut next = stored.clone();
                next.cas.retain(|old| old.not_after > now);
                next.cas.insert(0, ca);
                Plan::Write { stored: Box::new(next), why: format!("{why}: adding a new CA to {CA_FILE}") }
            }
            Err(e) => Plan::Cannot { why: format!("cannot make a CA: {e}") },
        };
    }
    let from_older_ca = stored.cert_ca != newest.not_after;
    let renew_why = if stored.cert_hosts != want.hosts {
        Some(format!("the certificate is for {}, not {}", stored.cert_hosts.join(", "), want.hosts.join(", ")))
    } else if stored.cert_not_after - now < lifetime / 3 {
        Some(format!("the certificate expires at {}", rfc3339(stored.cert_not_after)))
    } else if stored.cert_not_after - now > lifetime + 60 {
        Some("the certificate outlives --webhook-cert-lifetime".to_string())
    } else {
        None
    };
    // The CA to sign a renewal with: the newest once every caBundle trusts it; until then the
    // one that signed the current certificate, which they still trust.
    let (signer, why) = match (renew_why, from_older_ca) {
        (why, true) if bundle_injected => (0, why.unwrap_or_else(|| "the certificate is signed by an older CA".into())),
        (Some(why), false) => (0, why),
        (Some(why), true) => match stored.cas.iter().position(|ca| ca.not_after == stored.cert_ca) {
            Some(at) => (at, format!("{why} (from its own CA: not every caBundle trusts the new one yet)")),
            None => return Plan::Keep,
        },
        (None, _) => {
            if stored.cas.iter().skip(1).any(|ca| ca.not_after <= now) {
                let mut next = stored.clone();
                next.cas.retain(|ca| ca.not_after > now);
                return Plan::Write { stored: Box::new(next), why: format!("dropping expired CAs from {CA_FILE}") };
            }
            return Plan::Keep;
        }
    };
    match serving(stored, signer, now, want) {
        Ok(next) => Plan::Write { stored: Box::new(next), why: format!("{why}: renewing it") },
        Err(e) => Plan::Cannot { why: format!("cannot renew the certificate: {e}") },
    }
}

/// A new CA and a serving certificate it signs.
fn fresh(now: i64, want: &Want, why: String) -> Plan {
    let made = new_ca(now, want).and_then(|ca| {
        let empty = Stored {
            cas: vec![ca],
            cert_pem: String::new(),
            key_pem: String::new(),
            cert_not_after: 0,
            cert_hosts: Vec::new(),
            cert_ca: 0,
        };
        serving(&empty, 0, now, want)
    });
    match made {
        Ok(stored) => Plan::Write { stored: Box::new(stored), why },
        Err(e) => Plan::Cannot { why: format!("cannot make a certificate: {e}") },
    }
}

/// `stored` with a new serving certificate from its CA at `signer` (0: the newest), valid for
/// the lifetime or until the CA expires, whichever comes first.
fn serving(stored: &Stored, signer: usize, now: i64, want: &Want) -> Result<Stored, String> {
    let ca = &stored.cas[signer];
    let not_after = (now + secs(want.lifetime)).min(ca.not_after);
    let (cert_pem, key_pem) = sign(ca, &want.hosts, now, not_after)?;
    Ok(Stored {
        cert_pem,
        key_pem,
        cert_not_after: not_after,
        cert_hosts: want.hosts.clone(),
        cert_ca: ca.not_after,
        ..stored.clone()
    })
}

/// The parameters of the CA that expires at `not_after`: the same ones sign its certificate
/// and, with its key, every serving certificate later, so they must be rebuilt identically.
fn ca_params(not_after: i64) -> Result<CertificateParams, String> {
    let mut params = CertificateParams::new(Vec::<String>::new()).map_err(|e| e.to_string())?;
    params.distinguished_name.push(DnType::CommonName, format!("webhook CA {not_after}"));
    params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
    params.not_after = datetime(not_after)?;
    Ok(params)
}

/// A new CA valid for ten serving lifetimes from `now`, with its key.
fn new_ca(now: i64, want: &Want) -> Result<Ca, String> {
    let not_after = now + secs(want.ca_lifetime());
    let mut params = ca_params(not_after)?;
    params.not_before = datetime(now - secs(BACKDATE))?;
    params.serial_number = Some(serial());
    let key = KeyPair::generate().map_err(|e| e.to_string())?;
    let cert = params.self_signed(&key).map_err(|e| e.to_string())?;
    Ok(Ca { pem: cert.pem(), key_pem: key.serialize_pem(), not_after })
}

/// A serving certificate for `hosts` signed by `ca` (with its key), and its new key.
fn sign(ca: &Ca, hosts: &[String], now: i64, not_after: i64) -> Result<(String, String), String> {
    let ca_key = KeyPair::from_pem(&ca.key_pem).map_err(|e| format!("not a private key: {e}"))?;
    let issuer = Issuer::new(ca_params(ca.not_after)?, ca_key);
    let mut params = CertificateParams::new(hosts.to_vec()).map_err(|e| e.to_string())?;
    if let Some(host) = hosts.first() {
        params.distinguished_name.push(DnType::CommonName, host.clone());
    }
    params.key_usages = vec![KeyUsagePurpose::DigitalSignature, KeyUsagePurpose::KeyEncipherment];
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    params.use_authority_key_identifier_extension = true;
    params.not_before = datetime(now - secs(BACKDATE))?;
    params.not_after = datetime(not_after)?;
    params.serial_number = Some(serial());
    let key = KeyPair::generate().map_err(|e| e.to_string())?;
    let cert = params.signed_by(&key, &issuer).map_err(|e| e.to_string())?;
    Ok((cert.pem(), key.serialize_pem()))
}

/// Verifies `leaf` for `host` against the CA certificates `roots` (PEM) at `now`, as a TLS
/// client does.
fn verify_server(
    roots: &[&str],
    leaf: &CertificateDer<'_>,
    intermediates: &[CertificateDer<'_>],
    host: &str,
    now: i64,
) -> Result<(), String> {
    let mut store = rustls::RootCertStore::empty();
    for pem in roots {
        let der = CertificateDer::from_pem_slice(pem.as_bytes()).map_err(|e| format!("{CA_FILE} is not PEM: {e}"))?;
        store.add(der).map_err(|e| format!("{CA_FILE}: {e}"))?;
    }
    let verifier =
        rustls::client::WebPkiServerVerifier::builder_with_provider(Arc::new(store), Arc::new(ring_provider()))
            .build()
            .map_err(|e| e.to_string())?;
    let name = ServerName::try_from(host.to_string()).map_err(|e| format!("{host} is not a host name: {e}"))?;
    let at = UnixTime::since_unix_epoch(Duration::from_secs(now.max(0) as u64));
    use rustls::client::danger::ServerCertVerifier as _;
    verifier.verify_server_cert(leaf, intermediates, &name, &[], at).map(drop).map_err(|e| e.to_string())
}

/// A serial number unlikely to repeat: the time in nanoseconds and a counter.
fn serial() -> SerialNumber {
    use std::sync::atomic::{AtomicU32, Ordering};
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos() as u64;
    let mut bytes = vec![0x01];
    bytes.extend(nanos.to_be_bytes());
    bytes.extend(COUNTER.fetch_add(1, Ordering::Relaxed).to_be_bytes());
    SerialNumber::from_slice(&bytes)
}

fn secs(duration: Duration) -> i64 {
    i64::try_from(duration.as_secs()).unwrap_or(i64::MAX / 4)
}

fn datetime(unix: i64) -> Result<time::OffsetDateTime, String> {
    time::OffsetDateTime::from_unix_timestamp(unix).map_err(|e| e.to_string())
}

fn rfc3339(unix: i64) -> String {
    Timestamp::from_second(unix).map(|t| t.to_string()).unwrap_or_else(|_| unix.to_string())
}

#[cfg(test)]
mod tests {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    use super::*;

    const HOUR: i64 = 3600;
    const NOW: i64 = 1_800_000_000;

    fn want() -> Want {
        Want {
            hosts: vec!["hooks-webhook-service.hooks-system.svc".into(), "127.0.0.1".into()],
            lifetime: Duration::from_secs(30 * HOUR as u64),
        }
    }

    fn written(plan: Plan) -> (Stored, String) {
        match plan {
            Plan::Write { stored, why } => (*stored, why),
            other => panic!("expected a write, got {other:?}"),
        }
    }

    fn secret(stored: &Stored) -> Secret {
        let (data, annotations) = stored.to_secret();
        Secret {
            metadata: ObjectMeta { annotations: Some(annotations), ..ObjectMeta::default() },
            data: Some(data),
            ..Secret::default()
        }
    }

    fn round_trip(stored: &Stored, now: i64) -> Result<Stored, String> {
        Stored::from_secret(&secret(stored), now).expect("a filled Secret")
    }

    #[test]
    fn a_fresh_secret_round_trips_and_verifies() {
        let (stored, why) = written(plan(None, NOW, &want(), false));
        assert_eq!(why, "no certificate yet: issuing a CA and a serving certificate");
        assert_eq!(round_trip(&stored, NOW), Ok(stored.clone()));
        assert_eq!(stored.cas.len(), 1);
        assert_eq!(stored.cert_not_after, NOW + 30 * HOUR);
        assert_eq!(stored.cas[0].not_after, NOW + 300 * HOUR);
        assert!(matches!(plan(Some(&Ok(stored.clone())), NOW + HOUR, &want(), true), Plan::Keep));
        let (_, annotations) = stored.to_secret();
        assert_eq!(annotations[CERT_NOT_AFTER], "2027-01-16T14:00:00Z");
        assert_eq!(annotations[CERT_HOSTS], "hooks-webhook-service.hooks-system.svc,127.0.0.1");
        // Served as a TLS configuration.
        crate::webhook::tls::from_pem(stored.cert_pem.as_bytes(), stored.key_pem.as_bytes(), None).unwrap();
    }

    #[test]
    fn an_empty_secret_holds_nothing_yet() {
        assert_eq!(Stored::from_secret(&Secret::default(), NOW), None);
    }

    #[test]
    fn unusable_secrets_say_why_and_are_replaced() {
        let (stored, _) = written(plan(None, NOW, &want(), false));
        let mut garbage = secret(&stored);
        garbage.data.as_mut().unwrap().insert(CERT_FILE.into(), ByteString(b"not a certificate".to_vec()));
        assert_eq!(Stored::from_secret(&garbage, NOW), Some(Err("tls.crt holds no certificate".into())));

        let mut other_key = secret(&stored);
        let (other, _) = written(plan(None, NOW, &want(), false));
        other_key
            .data
            .as_mut()
            .unwrap()
            .insert(CA_KEY_FILE.into(), ByteString(other.cas[0].key_pem.clone().into_bytes()));
        assert_eq!(
            Stored::from_secret(&other_key, NOW),
            Some(Err("ca.key does not hold the keys of the CAs in ca.crt, in their order".into()))
        );

        let mut no_annotation = secret(&stored);
        no_annotation.metadata.annotations.as_mut().unwrap().remove(CERT_HOSTS);
        assert_eq!(
            Stored::from_secret(&no_annotation, NOW),
            Some(Err("it has no annotation webhook-certificates.rop.rs/cert-hosts".into()))
        );

        let (_, why) = written(plan(Some(&Err("it has no ca.crt".into())), NOW, &want(), false));
        assert_eq!(why, "the Secret cannot be used (it has no ca.crt): replacing it");
    }

    #[test]
    fn an_expired_certificate_is_renewed_from_its_ca_even_when_no_bundle_can_be_written() {
        let (stored, _) = written(plan(None, NOW, &want(), false));
        let later = NOW + 31 * HOUR;
        let expired = Stored::from_secret(&secret(&stored), later).expect("filled");
        assert_eq!(expired, Ok(stored.clone()), "usable: its CA is sound");
        let (renewed, why) = written(plan(Some(&expired), later, &want(), false));
        assert_eq!(why, "the certificate expires at 2027-01-16T14:00:00Z: renewing it");
        assert_eq!(renewed.cas, stored.cas);
        assert_eq!(round_trip(&renewed, later), Ok(renewed));
        // A certificate its CA did not sign is unusable.
        let (other, _) = written(plan(None, NOW, &want(), false));
        let mut foreign = secret(&stored);
        foreign.data.as_mut().unwrap().insert(CERT_FILE.into(), ByteString(other.cert_pem.into_bytes()));
        let why = Stored::from_secret(&foreign, NOW).unwrap().unwrap_err();
        assert!(why.starts_with("tls.crt: "), "{why}");
    }

    #[test]
    fn the_serving_certificate_is_renewed_at_two_thirds_once_the_bundle_is_in_place() {
        let (stored, _) = written(plan(None, NOW, &want(), false));
        let current = Some(Ok(stored.clone()));
        assert!(matches!(plan(current.as_ref(), NOW + 19 * HOUR, &want(), true), Plan::Keep));
        // From the same CA: no caBundle changes, so it does not wait for them.
        let (renewed, why) = written(plan(current.as_ref(), NOW + 21 * HOUR, &want(), false));
        assert_eq!(why, "the certificate expires at 2027-01-16T14:00:00Z: renewing it");
        assert_eq!(renewed.cas, stored.cas, "same CA: no caBundle change");
        assert_ne!(renewed.cert_pem, stored.cert_pem);
        assert_eq!(renewed.cert_not_after, NOW + 51 * HOUR);
        assert_eq!(round_trip(&renewed, NOW + 21 * HOUR), Ok(renewed));
    }

    #[test]
    fn new_hosts_get_a_new_certificate() {
        let (stored, _) = written(plan(None, NOW, &want(), false));
        let moved = Want { hosts: vec!["10.0.0.7".into()], ..want() };
        let (renewed, why) = written(plan(Some(&Ok(stored)), NOW, &moved, true));
        assert_eq!(
            why,
            "the certificate is for hooks-webhook-service.hooks-system.svc, 127.0.0.1, not 10.0.0.7: renewing it"
        );
        assert_eq!(round_trip(&renewed, NOW), Ok(renewed));
    }

    #[test]
    fn a_ca_rollover_adds_the_new_ca_before_serving_from_it() {
        let (stored, _) = written(plan(None, NOW, &want(), false));
        // Two thirds of the CA's 300 hours; the certificate renewed on the way.
        let later = NOW + 201 * HOUR;
        let current = Stored { cert_not_after: later + 20 * HOUR, ..stored.clone() };
        let (rolled, why) = written(plan(Some(&Ok(current.clone())), later, &want(), true));
        assert_eq!(why, "the CA expires at 2027-01-27T20:00:00Z: adding a new CA to ca.crt");
        assert_eq!(rolled.cas.len(), 2);
        assert_eq!(rolled.cas[1], stored.cas[0]);
        assert_eq!(rolled.cert_pem, current.cert_pem, "still the old CA's certificate");
        // Not before every caBundle trusts the new CA...
        assert!(matches!(plan(Some(&Ok(rolled.clone())), later, &want(), false), Plan::Keep));
        // ...but a certificate due meanwhile is renewed by the CA they do trust.
        let due = later + 11 * HOUR;
        let (kept, why) = written(plan(Some(&Ok(rolled.clone())), due, &want(), false));
        assert_eq!(
            why,
            "the certificate expires at 2027-01-24T13:00:00Z (from its own CA: not every caBundle trusts the new one yet): renewing it"
        );
        assert_eq!((kept.cas.clone(), kept.cert_ca), (rolled.cas.clone(), stored.cas[0].not_after));
        assert_eq!(round_trip(&kept, due), Ok(kept));
        let (served, why) = written(plan(Some(&Ok(rolled.clone())), later, &want(), true));
        assert_eq!(why, "the certificate is signed by an older CA: renewing it");
        assert_eq!(served.cert_ca, served.cas[0].not_after);
        assert_eq!(served.ca_bundle(), rolled.ca_bundle());
        // The old CA goes once it has expired.
        let (pruned, why) = written(plan(Some(&Ok(served.clone())), NOW + 301 * HOUR, &want(), true));
        assert!(why.starts_with("the certificate expires at"), "{why}");
        assert_eq!(pruned.cas.len(), 2, "renewal keeps the list");
        let fresh_cert = Stored { cert_not_after: NOW + 330 * HOUR, ..served.clone() };
        let (pruned, why) = written(plan(Some(&Ok(fresh_cert)), NOW + 301 * HOUR, &want(), true));
        assert_eq!(why, "dropping expired CAs from ca.crt");
        assert_eq!(pruned.cas, served.cas[..1]);
    }
}
