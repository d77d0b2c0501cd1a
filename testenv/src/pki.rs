//! The certificates and kubeconfigs of a test environment, made in Rust.

use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    KeyUsagePurpose,
};

use crate::Error;
use crate::error::io_err;

/// The files [`generate_pki`] writes.
pub(crate) struct Pki {
    pub(crate) ca: PathBuf,
    pub(crate) server_cert: PathBuf,
    pub(crate) server_key: PathBuf,
    pub(crate) admin_cert: PathBuf,
    pub(crate) admin_key: PathBuf,
    pub(crate) sa_public: PathBuf,
    pub(crate) sa_private: PathBuf,
}

/// One CA signs the serving certificate (localhost, 127.0.0.1) and the admin client
/// certificate (CN=admin, O=system:masters: RBAC lets that group do anything). The
/// service-account key pair signs and verifies service-account tokens. All keys are ECDSA
/// P-256.
pub(crate) fn generate_pki(dir: &Path) -> Result<Pki, Error> {
    std::fs::create_dir_all(dir).map_err(io_err(format!("creating {}", dir.display())))?;
    let write = |name: &str, contents: &str| write_file(dir, name, contents);
    let ca = new_ca("rop-testenv-ca")?;

    let server_key = KeyPair::generate()?;
    let mut server = CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()])?;
    server.distinguished_name.push(DnType::CommonName, "localhost");
    server.key_usages = vec![KeyUsagePurpose::DigitalSignature, KeyUsagePurpose::KeyEncipherment];
    server.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let server_cert = server.signed_by(&server_key, &ca)?;

    let (admin_cert, admin_key) = client_certificate("admin", Some("system:masters"), &ca)?;

    let sa_key = KeyPair::generate()?;

    Ok(Pki {
        ca: write("ca.crt", &ca.pem())?,
        server_cert: write("server.crt", &server_cert.pem())?,
        server_key: write("server.key", &server_key.serialize_pem())?,
        admin_cert: write("admin.crt", &admin_cert.pem())?,
        admin_key: write("admin.key", &admin_key.serialize_pem())?,
        sa_public: write("sa.pub", &sa_key.public_key_pem())?,
        sa_private: write("sa.key", &sa_key.serialize_pem())?,
    })
}

/// A self-signed CA named `common_name`, with a new ECDSA P-256 key.
pub(crate) fn new_ca(common_name: &str) -> Result<CertifiedIssuer<'static, KeyPair>, Error> {
    let mut params = CertificateParams::new(Vec::<String>::new())?;
    params.distinguished_name.push(DnType::CommonName, common_name);
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
    Ok(CertifiedIssuer::self_signed(params, KeyPair::generate()?)?)
}

/// A client certificate (CN `common_name`, O `organization`: a user and a group to the API
/// server) signed by `ca`, and its new key.
pub(crate) fn client_certificate(
    common_name: &str,
    organization: Option<&str>,
    ca: &CertifiedIssuer<'static, KeyPair>,
) -> Result<(rcgen::Certificate, KeyPair), Error> {
    let key = KeyPair::generate()?;
    let mut params = CertificateParams::new(Vec::<String>::new())?;
    params.distinguished_name.push(DnType::CommonName, common_name);
    if let Some(organization) = organization {
        params.distinguished_name.push(DnType::OrganizationName, organization);
    }
    params.key_usages = vec![KeyUsagePurpose::DigitalSignature, KeyUsagePurpose::KeyEncipherment];
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
    let cert = params.signed_by(&key, ca)?;
    Ok((cert, key))
}

/// Writes `contents` to `dir/name`; returns the path.
pub(crate) fn write_file(dir: &Path, name: &str, contents: &str) -> Result<PathBuf, Error> {
    let path = dir.join(name);
    std::fs::write(&path, contents).map_err(io_err(format!("writing {}", path.display())))?;
    Ok(path)
}

pub(crate) fn kubeconfig_yaml(server_url: &str, pki: &Pki) -> String {
    // Paths are written as YAML double-quoted strings (JSON escaping is valid YAML).
    let q = |p: &Path| format!("{:?}", p.display().to_string());
    format!(
        "apiVersion: v1
kind: Config
clusters:
- name: rop-testenv
  cluster:
    server: {server_url}
    certificate-authority: {ca}
users:
- name: admin
  user:
    client-certificate: {cert}
    client-key: {key}
contexts:
- name: rop-testenv
  context:
    cluster: rop-testenv
    user: admin
    namespace: default
current-context: rop-testenv
",
        ca = q(&pki.ca),
        cert = q(&pki.admin_cert),
        key = q(&pki.admin_key),
    )
}

/// The admission configuration that gives both webhook admission plug-ins the kubeconfig
/// `{kubeconfig}` (apiserver.config.k8s.io/v1 AdmissionConfiguration).
pub(crate) fn admission_configuration(kubeconfig: &Path) -> String {
    let kubeconfig = format!("{:?}", kubeconfig.display().to_string());
    ["ValidatingAdmissionWebhook", "MutatingAdmissionWebhook"].iter().fold(
        "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n".to_string(),
        |text, plugin| {
            text + &format!(
                "- name: {plugin}\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n    kind: WebhookAdmissionConfiguration\n    kubeConfigFile: {kubeconfig}\n"
            )
        },
    )
}

/// A CA of its own and a client certificate it signs (CN=kube-apiserver-webhook-client) in
/// `dir`, and the kubeconfig that makes kube-apiserver present that certificate to every
/// webhook (user `*`). Returns the CA's and the kubeconfig's paths.
pub(crate) fn webhook_client_pki(dir: &Path) -> Result<(PathBuf, PathBuf), Error> {
    let write = |name: &str, contents: &str| write_file(dir, name, contents);
    let ca = new_ca("rop-testenv-webhook-client-ca")?;
    let (cert, key) = client_certificate("kube-apiserver-webhook-client", None, &ca)?;
    let ca = write("webhook-client-ca.crt", &ca.pem())?;
    let q = |p: &Path| format!("{:?}", p.display().to_string());
    let (cert, key) = (write("webhook-client.crt", &cert.pem())?, write("webhook-client.key", &key.serialize_pem())?);
    let kubeconfig = format!(
        "apiVersion: v1\nkind: Config\nusers:\n- name: '*'\n  user:\n    client-certificate: {}\n    client-key: {}\n",
        q(&cert),
        q(&key)
    );
    Ok((ca, write("webhook-client.kubeconfig", &kubeconfig)?))
}
