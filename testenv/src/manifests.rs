//! Putting a project's manifests on the test server: its CRDs (as `make install` does) and
//! objects from YAML files such as `config/samples/`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DynamicObject, ListParams, PostParams};
use kube::core::{ApiResource, GroupVersionKind};
use serde::Deserialize;
use serde::de::DeserializeOwned;

/// How long a CRD gets to become Established and served.
const CRD_READY_WITHIN: Duration = Duration::from_secs(30);

/// Why manifests could not be put on the server.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// A file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A file is not YAML of the expected kind.
    #[error("{} is not a valid {what}: {source}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// What it should hold.
        what: &'static str,
        /// Why it does not.
        source: serde_yaml::Error,
    },
    /// The folder holds no CRD.
    #[error("{} holds no CustomResourceDefinition: generate them first (`make manifests`)", dir.display())]
    NoCrds {
        /// The folder.
        dir: PathBuf,
    },
    /// The server refused a request.
    #[error("{what}: {source}")]
    Server {
        /// What was being done.
        what: String,
        /// The server's answer (boxed: it is large).
        source: Box<kube::Error>,
    },
    /// A CRD did not become Established and served in time.
    #[error("{name} was not served {CRD_READY_WITHIN:?} after it was created")]
    NotReady {
        /// The CRD's name.
        name: String,
    },
}

/// Reads one object of type `K` from a YAML file (one document), e.g. a sample from
/// `config/samples/`.
///
/// # Errors
/// The file cannot be read or does not decode as `K`.
pub fn object_from_file<K: DeserializeOwned>(path: &Path) -> Result<K, ManifestError> {
    let text = std::fs::read_to_string(path).map_err(|source| ManifestError::Read { path: path.into(), source })?;
    serde_yaml::from_str(&text).map_err(|source| ManifestError::Parse {
        path: path.into(),
        what: std::any::type_name::<K>(),
        source,
    })
}

/// Creates every CustomResourceDefinition in the `.yaml` files of `dir` (e.g. a project's
/// `config/crd/bases`) and waits until each is Established and its resource answers a list,
/// as `make install` and envtest's `CRDDirectoryPaths` do. Returns the CRDs' names, sorted.
///
/// # Errors
/// A file that cannot be read or is not a CRD, a folder with none, a CRD the server refuses,
/// or one not served within 30 s.
pub async fn install_crds(client: &kube::Client, dir: &Path) -> Result<Vec<String>, ManifestError> {
    let crds = read_crds(dir)?;
    for crd in &crds {
        install_crd(client, crd).await?;
    }
    Ok(names(&crds))
}

/// The CRDs in the YAML files of `dir` (every document of each), as `make install` reads them.
pub(crate) fn read_crds(dir: &Path) -> Result<Vec<CustomResourceDefinition>, ManifestError> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|source| ManifestError::Read { path: dir.into(), source })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
        .collect();
    paths.sort();
    let mut crds = Vec::new();
    for path in &paths {
        let text =
            std::fs::read_to_string(path).map_err(|source| ManifestError::Read { path: path.clone(), source })?;
        for document in serde_yaml::Deserializer::from_str(&text) {
            let value = serde_yaml::Value::deserialize(document).map_err(|source| ManifestError::Parse {
                path: path.clone(),
                what: "YAML document",
                source,
            })?;
            if value.is_null() {
                continue;
            }
            let crd: CustomResourceDefinition = serde_yaml::from_value(value).map_err(|source| {
                ManifestError::Parse { path: path.clone(), what: "CustomResourceDefinition", source }
            })?;
            crds.push(crd);
        }
    }
    if crds.is_empty() {
        return Err(ManifestError::NoCrds { dir: dir.into() });
    }
    Ok(crds)
}

/// Installs the CRDs of `dir` that are not on the server yet (another step of the same test,
/// such as `serve_webhooks`, installed the others as it needed them); returns all their names.
pub(crate) async fn ensure_crds(client: &kube::Client, dir: &Path) -> Result<Vec<String>, ManifestError> {
    let crds = read_crds(dir)?;
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    for crd in &crds {
        let name = crd.metadata.name.clone().unwrap_or_default();
        let present = api.get_opt(&name).await.map_err(|source| ManifestError::Server {
            what: format!("reading CRD {name}"),
            source: Box::new(source),
        })?;
        if present.is_none() {
            install_crd(client, crd).await?;
        }
    }
    Ok(names(&crds))
}

fn names(crds: &[CustomResourceDefinition]) -> Vec<String> {
    let mut names: Vec<String> = crds.iter().filter_map(|c| c.metadata.name.clone()).collect();
    names.sort();
    names
}

/// Creates `crd` and waits until it is Established and its resource answers a list.
///
/// # Errors
/// The server refuses the CRD, or does not serve it within 30 s.
pub async fn install_crd(client: &kube::Client, crd: &CustomResourceDefinition) -> Result<(), ManifestError> {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    let name = crd.metadata.name.clone().unwrap_or_default();
    api.create(&PostParams::default(), crd)
        .await
        .map_err(|source| ManifestError::Server { what: format!("creating CRD {name}"), source: Box::new(source) })?;
    wait_served(client, &api, crd).await
}

/// Waits until `crd` is Established and a list of its storage version succeeds (Established
/// comes a moment before the handler serves).
async fn wait_served(
    client: &kube::Client,
    api: &Api<CustomResourceDefinition>,
    crd: &CustomResourceDefinition,
) -> Result<(), ManifestError> {
    let name = crd.metadata.name.clone().unwrap_or_default();
    let version = crd.spec.versions.iter().find(|v| v.storage).map(|v| v.name.clone()).unwrap_or_default();
    let gvk = GroupVersionKind::gvk(&crd.spec.group, &version, &crd.spec.names.kind);
    let resource = ApiResource::from_gvk_with_plural(&gvk, &crd.spec.names.plural);
    let objects: Api<DynamicObject> = Api::all_with(client.clone(), &resource);
    let deadline = Instant::now() + CRD_READY_WITHIN;
    loop {
        let current = api.get(&name).await.map_err(|source| ManifestError::Server {
            what: format!("reading CRD {name}"),
            source: Box::new(source),
        })?;
        let established = current
            .status
            .and_then(|s| s.conditions)
            .unwrap_or_default()
            .iter()
            .any(|c| c.type_ == "Established" && c.status == "True");
        if established && objects.list(&ListParams::default().limit(1)).await.is_ok() {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(ManifestError::NotReady { name });
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
