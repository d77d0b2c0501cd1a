//! `rop create api --image ...`: the options of kubebuilder's deploy-image plugin, checked
//! before anything is rendered, and handed to the templates of a controller that runs the
//! image as a Deployment owned by the custom resource, or (`--workload statefulset`) as a
//! StatefulSet with its headless Service, PodDisruptionBudget and ConfigMap, rolled out one
//! ordinal at a time.

use anyhow::bail;
use serde::{Deserialize, Serialize};

use crate::project::Project;
use crate::scaffold::kind::KindNames;

/// Key of the deploy-image options in PROJECT's `plugins:` (kubebuilder records its
/// plugin's under `deploy-image.go.kubebuilder.io/v1-alpha`, in the same shape).
pub const PLUGIN_KEY: &str = "deploy-image.rop.dev/v1-alpha";

/// A container image to run for every object of the kind, and how to run it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DeployImage {
    /// Image reference, e.g. `memcached:1.6.26-alpine`.
    pub image: String,
    /// Port the container listens on; also the default of the spec's `containerPort`.
    pub container_port: Option<u16>,
    /// The container's command, one element per argument.
    pub container_command: Vec<String>,
    /// User id the container runs as.
    pub run_as_user: Option<i64>,
    /// What runs the image.
    pub workload: Workload,
}

/// The workload that runs a deployed image (`--workload`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Workload {
    /// A Deployment: interchangeable replicas (kubebuilder's deploy-image).
    #[default]
    Deployment,
    /// A StatefulSet: replicas with a stable name and volume each, a headless Service, a
    /// PodDisruptionBudget, zone spread, and an update the controller rolls one ordinal at a
    /// time, highest first, within the budget.
    StatefulSet,
}

impl Workload {
    /// The `--workload` value.
    fn name(self) -> &'static str {
        match self {
            Workload::Deployment => "deployment",
            Workload::StatefulSet => "statefulset",
        }
    }
}

/// The deploy-image flags as typed on the command line.
#[derive(Clone, Copy, Debug, Default)]
pub struct Flags<'a> {
    pub image: Option<&'a str>,
    pub container_port: Option<&'a str>,
    pub container_command: Option<&'a str>,
    pub run_as_user: Option<&'a str>,
    pub workload: Option<&'a str>,
}

/// The options of one kind as PROJECT records them: the flags' text, as kubebuilder keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Options {
    pub image: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_command: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_port: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_as_user: Option<String>,
    /// `statefulset`, or absent for a Deployment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<String>,
}

/// The plugin's state in PROJECT: one entry per kind and version that deploys an image.
#[derive(Debug, Default, Serialize, Deserialize)]
struct PluginState {
    #[serde(default)]
    resources: Vec<Record>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Record {
    domain: String,
    group: String,
    version: String,
    kind: String,
    options: Options,
}

fn load_state(project: &Project) -> anyhow::Result<PluginState> {
    let Some(value) = project.plugins.get(PLUGIN_KEY) else { return Ok(PluginState::default()) };
    serde_yaml::from_value(value.clone()).map_err(|e| {
        anyhow::anyhow!(
            "PROJECT's plugins.{PLUGIN_KEY} is not valid: {e}; fix it by hand or restore it from version control"
        )
    })
}

/// The options recorded for `group`/`version`/`kind`, if it was created with `--image`.
///
/// # Errors
/// The plugin's entry in PROJECT is not of the expected shape.
pub fn recorded(project: &Project, group: &str, version: &str, kind: &str) -> anyhow::Result<Option<Options>> {
    let state = load_state(project)?;
    Ok(state
        .resources
        .into_iter()
        .find(|r| r.group == group && r.version == version && r.kind == kind)
        .map(|r| r.options))
}

/// Records `image` as the options of `k` in PROJECT (or, `None`, forgets them).
///
/// # Errors
/// The plugin's entry in PROJECT is not of the expected shape.
pub fn record(project: &mut Project, k: &KindNames, image: Option<&DeployImage>) -> anyhow::Result<()> {
    let mut state = load_state(project)?;
    state.resources.retain(|r| !(r.group == k.group && r.version == k.version && r.kind == k.kind));
    if let Some(image) = image {
        state.resources.push(Record {
            domain: project.domain.clone(),
            group: k.group.clone(),
            version: k.version.clone(),
            kind: k.kind.clone(),
            options: image.options(),
        });
    }
    if state.resources.is_empty() {
        project.plugins.remove(PLUGIN_KEY);
    } else {
        let value = serde_yaml::to_value(&state).expect("the plugin state always serialises");
        project.plugins.insert(PLUGIN_KEY.into(), value);
    }
    Ok(())
}

impl DeployImage {
    /// The deploy-image options of a `create api` run, `None` without `--image`.
    ///
    /// `namespaced`, `resource` and `controller` are the run's other flags: the Deployment lives
    /// in the custom resource's namespace, and the plugin writes both the types and the
    /// controller.
    ///
    /// # Errors
    /// An option without `--image`, a malformed image reference, a port outside 1–65535, an
    /// empty command element, a negative user id, or a flag combination the plugin cannot serve.
    pub fn from_flags(
        flags: Flags,
        namespaced: bool,
        resource: bool,
        controller: bool,
    ) -> anyhow::Result<Option<Self>> {
        let Some(image) = flags.image else {
            let given = [
                ("--image-container-port", flags.container_port),
                ("--image-container-command", flags.container_command),
                ("--run-as-user", flags.run_as_user),
                ("--workload", flags.workload),
            ];
            if let Some((flag, _)) = given.iter().find(|(_, value)| value.is_some()) {
                bail!("{flag} only applies to a deployed image: add --image, e.g. --image memcached:1.6.26-alpine");
            }
            return Ok(None);
        };
        check_image(image)?;
        if !namespaced {
            bail!(
                "--image needs a namespaced kind (its workload lives in the custom resource's namespace): drop --namespaced=false"
            );
        }
        if !resource || !controller {
            let flag = if resource { "--controller=false" } else { "--resource=false" };
            bail!("--image scaffolds both the types and the controller that deploys the image: drop {flag}");
        }
        let container_port = flags.container_port.map(parse_port).transpose()?;
        let container_command = flags.container_command.map(parse_command).transpose()?.unwrap_or_default();
        let run_as_user = flags.run_as_user.map(parse_user).transpose()?;
        let workload = flags.workload.map(parse_workload).transpose()?.unwrap_or_default();
        Ok(Some(DeployImage { image: image.to_string(), container_port, container_command, run_as_user, workload }))
    }
}

impl DeployImage {
    /// What the options leave to chance on a real cluster, one sentence each: an image run
    /// without `--run-as-user` runs as its own user, which `runAsNonRoot` refuses when that is
    /// root; a StatefulSet without `--image-container-port` has no readiness probe, so its
    /// rollout takes a running Pod for a ready one.
    pub fn warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        if self.run_as_user.is_none() {
            warnings.push(format!(
                "no --run-as-user: the Pods run as {}'s own user, and their `runAsNonRoot: true` refuses one that starts as root (most official images do); give the user id the image is built to run as (its Dockerfile's USER: 11211 for memcached's alpine images, 101 for nginxinc/nginx-unprivileged), or set RUN_AS_USER in the controller. An image that needs root (the official nginx) cannot run under the restricted policy: use its unprivileged variant",
                self.image
            ));
        }
        if self.workload == Workload::StatefulSet && self.container_port.is_none() {
            warnings.push(
                "no --image-container-port: the Pods get no readiness probe, so the rollout takes a running Pod for a ready one; give the port, e.g. --image-container-port 6379, or give the container a readiness probe in the controller".to_string(),
            );
        }
        warnings
    }

    /// The options as PROJECT records them.
    pub fn options(&self) -> Options {
        Options {
            image: self.image.clone(),
            container_command: Some(self.container_command.join(",")).filter(|c| !c.is_empty()),
            container_port: self.container_port.map(|p| p.to_string()),
            run_as_user: self.run_as_user.map(|u| u.to_string()),
            workload: Some(self.workload.name().to_string()).filter(|_| self.workload != Workload::Deployment),
        }
    }

    /// The options PROJECT recorded, checked as the flags were.
    ///
    /// # Errors
    /// A recorded value the flags would refuse (PROJECT edited by hand).
    pub fn from_options(options: &Options) -> anyhow::Result<Self> {
        let flags = Flags {
            image: Some(&options.image),
            container_port: options.container_port.as_deref(),
            container_command: options.container_command.as_deref(),
            run_as_user: options.run_as_user.as_deref(),
            workload: options.workload.as_deref(),
        };
        Ok(Self::from_flags(flags, true, true, true)?.expect("an image is given"))
    }
}

/// The templates of a kind's own files: those of kubebuilder's types, controller, sample and
/// controller test, or of a kind that runs an image as `workload`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KindTemplates {
    pub types: &'static str,
    pub controller: &'static str,
    pub sample: &'static str,
    pub test: &'static str,
}

impl KindTemplates {
    /// The templates of a kind that deploys an image as `workload`, or (`None`) of one that
    /// does not.
    pub fn of(workload: Option<Workload>) -> KindTemplates {
        match workload {
            None => KindTemplates {
                types: "api/api/src/version/kind.rs.tera",
                controller: "api/src/controller/kind.rs.tera",
                sample: "api/config/samples/sample.yaml",
                test: "api/tests/controller.rs.tera",
            },
            Some(Workload::Deployment) => KindTemplates {
                types: "api/api/src/version/kind_image.rs.tera",
                controller: "api/src/controller/kind_image.rs.tera",
                sample: "api/config/samples/sample_image.yaml",
                test: "api/tests/controller.rs.tera",
            },
            Some(Workload::StatefulSet) => KindTemplates {
                types: "api/api/src/version/kind_statefulset.rs.tera",
                controller: "api/src/controller/kind_statefulset.rs.tera",
                sample: "api/config/samples/sample_statefulset.yaml",
                test: "api/tests/controller_statefulset.rs.tera",
            },
        }
    }
}

fn parse_workload(text: &str) -> anyhow::Result<Workload> {
    match text {
        "deployment" => Ok(Workload::Deployment),
        "statefulset" => Ok(Workload::StatefulSet),
        _ => bail!("--workload \"{text}\" is not a workload rop can run an image as: use deployment or statefulset"),
    }
}

fn parse_port(text: &str) -> anyhow::Result<u16> {
    match text.parse::<i64>() {
        Ok(port @ 1..=65535) => Ok(u16::try_from(port).expect("in range")),
        _ => bail!(
            "--image-container-port \"{text}\" is not a port number from 1 to 65535, e.g. --image-container-port 11211"
        ),
    }
}

fn parse_user(text: &str) -> anyhow::Result<i64> {
    match text.parse::<i64>() {
        Ok(0) => bail!(
            "--run-as-user 0 is root, which the Pods' `runAsNonRoot: true` (the \"restricted\" Pod Security Standard) refuses: give a user id the image can run as, e.g. --run-as-user 1001"
        ),
        Ok(uid) if uid > 0 => Ok(uid),
        _ => bail!("--run-as-user \"{text}\" is not a user id (an integer from 1), e.g. --run-as-user 1001"),
    }
}

/// Splits kubebuilder's comma-separated command, `memcached,-m=64,-o,modern,-v`.
fn parse_command(text: &str) -> anyhow::Result<Vec<String>> {
    let parts: Vec<String> = text.split(',').map(str::to_string).collect();
    if parts.iter().any(|p| p.trim().is_empty()) {
        bail!(
            "--image-container-command \"{text}\" has an empty element: separate the command's words with single commas, e.g. \"memcached,-m=64,-v\""
        );
    }
    Ok(parts)
}

/// Checks `image` against the grammar of image references (distribution's `reference`
/// package): `[registry[:port]/]path[:tag][@algorithm:digest]`, path components lower-case.
fn check_image(image: &str) -> anyhow::Result<()> {
    let bad = |why: &str| {
        anyhow::anyhow!("--image \"{image}\" is not an image reference ({why}), e.g. --image memcached:1.6.26-alpine")
    };
    let (rest, digest) = match image.split_once('@') {
        Some((rest, digest)) => (rest, Some(digest)),
        None => (image, None),
    };
    if let Some(digest) = digest {
        let valid = digest.split_once(':').is_some_and(|(algorithm, hex)| {
            !algorithm.is_empty()
                && algorithm.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "+.-_".contains(c))
                && hex.len() >= 32
                && hex.chars().all(|c| c.is_ascii_hexdigit())
        });
        if !valid {
            return Err(bad("the digest after '@' must be algorithm:hex, e.g. sha256:<64 hex digits>"));
        }
    }
    // A tag follows the last ':' of the last path segment; a ':' before a '/' is a registry port.
    let last_slash = rest.rfind('/').map_or(0, |i| i + 1);
    let (name, tag) = match rest[last_slash..].rfind(':') {
        Some(i) => (&rest[..last_slash + i], Some(&rest[last_slash + i + 1..])),
        None => (rest, None),
    };
    if let Some(tag) = tag {
        let valid = tag.len() <= 128
            && tag.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
            && tag.chars().all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c));
        if !valid {
            return Err(bad("a tag is at most 128 letters, digits, '_', '.' and '-', not starting with '.' or '-'"));
        }
    }
    if name.is_empty() {
        return Err(bad("the name is empty"));
    }
    let mut components: Vec<&str> = name.split('/').collect();
    // The first component is a registry when it has a '.' or a ':' or is localhost.
    if components.len() > 1 && (components[0].contains(['.', ':']) || components[0] == "localhost") {
        let registry = components.remove(0);
        let (host, port) = registry.split_once(':').unwrap_or((registry, "1"));
        let host_ok = !host.is_empty()
            && host.split('.').all(|label| {
                !label.is_empty()
                    && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                    && !label.starts_with('-')
                    && !label.ends_with('-')
            });
        if !host_ok || port.parse::<u16>().is_err() {
            return Err(bad("the registry must be a host name with an optional :port"));
        }
    }
    let component_ok = |c: &str| {
        let alnum = |ch: char| ch.is_ascii_lowercase() || ch.is_ascii_digit();
        !c.is_empty()
            && c.starts_with(alnum)
            && c.ends_with(alnum)
            && c.chars().all(|ch| alnum(ch) || "._-".contains(ch))
            && !c.contains("..")
            && !c.contains("._")
            && !c.contains("_.")
            && !c.contains("___")
    };
    if !components.iter().all(|c| component_ok(c)) {
        return Err(bad("path components are lower-case letters and digits, separated by '.', '_', '__' or '-'"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(text: &str) -> anyhow::Result<Option<DeployImage>> {
        DeployImage::from_flags(Flags { image: Some(text), ..Flags::default() }, true, true, true)
    }

    #[test]
    fn accepts_the_usual_image_references() {
        for good in [
            "memcached",
            "memcached:1.6.26-alpine",
            "library/memcached:latest",
            "docker.io/library/redis:7.2",
            "localhost:5000/team/app:v1",
            "registry.example.com:8443/a/b__c/d-e:1.0_rc",
            "quay.io/org/app@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        ] {
            assert!(image(good).is_ok(), "{good}: {:?}", image(good));
        }
    }

    #[test]
    fn refuses_malformed_image_references() {
        for (bad, why) in [
            ("Memcached:1", "path components"),
            ("memcached:", "a tag is"),
            ("memcached:-1", "a tag is"),
            ("memcached image", "path components"),
            ("", "the name is empty"),
            (":1.0", "the name is empty"),
            ("app@sha256:xyz", "the digest"),
            ("bad_host.:5000/app", "the registry"),
            ("example.com:port/app", "the registry"),
        ] {
            let err = image(bad).unwrap_err().to_string();
            assert!(err.contains(why), "{bad}: {err}");
        }
    }

    #[test]
    fn splits_the_command_and_parses_numbers() {
        let flags = Flags {
            image: Some("memcached:1.6.26-alpine"),
            container_port: Some("11211"),
            container_command: Some("memcached,-m=64,-o,modern,-v"),
            run_as_user: Some("1001"),
            workload: Some("statefulset"),
        };
        assert_eq!(
            DeployImage::from_flags(flags, true, true, true).unwrap(),
            Some(DeployImage {
                image: "memcached:1.6.26-alpine".into(),
                container_port: Some(11211),
                container_command: ["memcached", "-m=64", "-o", "modern", "-v"].map(String::from).to_vec(),
                run_as_user: Some(1001),
                workload: Workload::StatefulSet,
            })
        );
        assert_eq!(DeployImage::from_flags(Flags::default(), true, true, true).unwrap(), None);
    }
}
