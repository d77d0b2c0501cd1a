//! `rop create api --image ...` (kubebuilder's deploy-image plugin): the exact tree it writes,
//! the PROJECT record that `delete api` and `alpha generate` replay, and every bad flag
//! combination refused with one line and no change on disk.

mod common;

use std::path::PathBuf;

use common::{assert_golden_tree, changes, rop, rop_ok, tree};

const MEMCACHED: &[&str] = &[
    "create",
    "api",
    "--group",
    "cache",
    "--version",
    "v1alpha1",
    "--kind",
    "Memcached",
    "--image",
    "memcached:1.6.26-alpine",
    "--image-container-port",
    "11211",
    "--image-container-command",
    "memcached,-m=64,-o,modern,-v",
    "--run-as-user",
    "1001",
];

/// A fresh project, as the golden trees' `rop init`.
fn project() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memcached-operator");
    std::fs::create_dir(&dir).unwrap();
    rop_ok(
        &dir,
        &[
            "init",
            "--domain",
            "example.com",
            "--repo",
            "github.com/example/memcached-operator",
            "--owner",
            "The Memcached Authors",
            "--rop-version",
            "0.1.0",
        ],
    );
    (tmp, dir)
}

#[test]
fn create_api_with_an_image_writes_the_golden_tree() {
    let (_tmp, dir) = project();
    let before = tree(&dir);
    rop_ok(&dir, MEMCACHED);
    // The files `create api --image` writes or changes; the rest is `rop init`'s golden tree.
    assert_golden_tree("create-api-deploy-image", &changes(&before, &tree(&dir)));
    let project = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    assert!(
        project.ends_with(
            "plugins:\n  deploy-image.rop.dev/v1-alpha:\n    resources:\n    - domain: example.com\n      group: cache\n      version: v1alpha1\n      kind: Memcached\n      options:\n        image: memcached:1.6.26-alpine\n        containerCommand: memcached,-m=64,-o,modern,-v\n        containerPort: '11211'\n        runAsUser: '1001'\n"
        ),
        "{project}"
    );
}

/// `--workload statefulset`: the StatefulSet variant, as `create api` writes it.
const REDIS: &[&str] = &[
    "create",
    "api",
    "--group",
    "cache",
    "--version",
    "v1alpha1",
    "--kind",
    "Redis",
    "--image",
    "redis:7.2-alpine",
    "--image-container-port",
    "6379",
    "--workload",
    "statefulset",
];

#[test]
fn create_api_with_a_statefulset_writes_the_golden_tree() {
    let (_tmp, dir) = project();
    let before = tree(&dir);
    rop_ok(&dir, REDIS);
    assert_golden_tree("create-api-statefulset", &changes(&before, &tree(&dir)));
    let project = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    assert!(
        project.ends_with(
            "      options:\n        image: redis:7.2-alpine\n        containerPort: '6379'\n        workload: statefulset\n"
        ),
        "{project}"
    );
    // Replayed and removed like the Deployment variant.
    rop_ok(&dir, &["alpha", "generate", "--output-dir", "../next"]);
    pretty_assertions::assert_eq!(tree(&dir.join("../next")), tree(&dir));
    rop_ok(&dir, &["delete", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Redis"]);
    pretty_assertions::assert_eq!(tree(&dir), before);
}

#[test]
fn only_the_image_is_required() {
    let (_tmp, dir) = project();
    rop_ok(&dir, &MEMCACHED[..10]);
    let types = std::fs::read_to_string(dir.join("api/src/v1alpha1/memcached.rs")).unwrap();
    assert!(!types.contains("container_port"), "{types}");
    let controller = std::fs::read_to_string(dir.join("src/controller/memcached.rs")).unwrap();
    for absent in ["COMMAND", "ContainerPort {"] {
        assert!(!controller.contains(absent), "{absent} in {controller}");
    }
    assert!(controller.contains("const RUN_AS_USER: Option<i64> = None;"), "{controller}");
    let sample = std::fs::read_to_string(dir.join("config/samples/cache_v1alpha1_memcached.yaml")).unwrap();
    assert!(sample.ends_with("  size: 1\n"), "{sample}");
}

#[test]
fn what_an_image_alone_leaves_to_chance_is_said_after_the_files() {
    let (_tmp, dir) = project();
    let image = ["--kind", "Redis", "--image", "redis:7.2-alpine", "--workload", "statefulset"];
    // A dry run, for trying options, says the same and writes nothing.
    let before = tree(&dir);
    let dry_run = rop(&dir, &[&MEMCACHED[..6], &image[..], &["--dry-run"]].concat());
    assert!(dry_run.status.success(), "{dry_run:?}");
    assert_eq!(before, tree(&dir));
    let out = rop(&dir, &[&MEMCACHED[..6], &image[..]].concat());
    assert!(out.status.success(), "{out:?}");
    assert_eq!(dry_run.stderr, out.stderr);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr,
        "warning: no --run-as-user: the Pods run as redis:7.2-alpine's own user, and their `runAsNonRoot: true` refuses one that starts as root (most official images do); give the user id the image is built to run as (its Dockerfile's USER: 11211 for memcached's alpine images, 101 for nginxinc/nginx-unprivileged), or set RUN_AS_USER in the controller. An image that needs root (the official nginx) cannot run under the restricted policy: use its unprivileged variant\n\
         warning: no --image-container-port: the Pods get no readiness probe, so the rollout takes a running Pod for a ready one; give the port, e.g. --image-container-port 6379, or give the container a readiness probe in the controller\n"
    );
    // A Deployment without a port has nothing to wait for; with a user, nothing is said.
    let out = rop(&dir, &[&MEMCACHED[..10], &["--run-as-user", "1001"]].concat());
    assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
}

#[test]
fn delete_api_removes_a_deployed_image_kind_and_its_record() {
    let (_tmp, dir) = project();
    let before = tree(&dir);
    rop_ok(&dir, MEMCACHED);
    rop_ok(&dir, &["delete", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    pretty_assertions::assert_eq!(tree(&dir), before);
}

#[test]
fn alpha_generate_replays_the_image_options() {
    let (_tmp, dir) = project();
    rop_ok(&dir, MEMCACHED);
    rop_ok(&dir, &["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Plain"]);
    rop_ok(&dir, &["alpha", "generate", "--output-dir", "../next"]);
    pretty_assertions::assert_eq!(tree(&dir.join("../next")), tree(&dir));
}

#[test]
fn recreating_without_the_image_forgets_it() {
    let (_tmp, dir) = project();
    rop_ok(&dir, MEMCACHED);
    rop_ok(&dir, &[&MEMCACHED[..8], &["--force"][..]].concat());
    let project = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    assert!(!project.contains("plugins"), "{project}");
}

/// One refused command line: its exact one-line error.
struct Case {
    extra: &'static [&'static str],
    message: &'static str,
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            extra: &["--image-container-port", "11211"],
            message: "--image-container-port only applies to a deployed image: add --image, e.g. --image memcached:1.6.26-alpine",
        },
        Case {
            extra: &["--image-container-command", "memcached"],
            message: "--image-container-command only applies to a deployed image: add --image, e.g. --image memcached:1.6.26-alpine",
        },
        Case {
            extra: &["--run-as-user", "1001"],
            message: "--run-as-user only applies to a deployed image: add --image, e.g. --image memcached:1.6.26-alpine",
        },
        Case {
            extra: &["--workload", "statefulset"],
            message: "--workload only applies to a deployed image: add --image, e.g. --image memcached:1.6.26-alpine",
        },
        Case {
            extra: &["--image", "memcached", "--workload", "daemonset"],
            message: "--workload \"daemonset\" is not a workload rop can run an image as: use deployment or statefulset",
        },
        Case {
            extra: &["--image", "memcached", "--image-container-port", "0"],
            message: "--image-container-port \"0\" is not a port number from 1 to 65535, e.g. --image-container-port 11211",
        },
        Case {
            extra: &["--image", "memcached", "--image-container-port", "65536"],
            message: "--image-container-port \"65536\" is not a port number from 1 to 65535, e.g. --image-container-port 11211",
        },
        Case {
            extra: &["--image", "memcached", "--image-container-port", "http"],
            message: "--image-container-port \"http\" is not a port number from 1 to 65535, e.g. --image-container-port 11211",
        },
        Case {
            extra: &["--image", "memcached", "--run-as-user", "-1"],
            message: "--run-as-user \"-1\" is not a user id (an integer from 1), e.g. --run-as-user 1001",
        },
        Case {
            extra: &["--image", "memcached", "--run-as-user", "0"],
            message: "--run-as-user 0 is root, which the Pods' `runAsNonRoot: true` (the \"restricted\" Pod Security Standard) refuses: give a user id the image can run as, e.g. --run-as-user 1001",
        },
        Case {
            extra: &["--image", "memcached", "--image-container-command", "memcached,,-v"],
            message: "--image-container-command \"memcached,,-v\" has an empty element: separate the command's words with single commas, e.g. \"memcached,-m=64,-v\"",
        },
        Case {
            extra: &["--image", "Memcached:1.6"],
            message: "--image \"Memcached:1.6\" is not an image reference (path components are lower-case letters and digits, separated by '.', '_', '__' or '-'), e.g. --image memcached:1.6.26-alpine",
        },
        Case {
            extra: &["--image", "memcached:"],
            message: "--image \"memcached:\" is not an image reference (a tag is at most 128 letters, digits, '_', '.' and '-', not starting with '.' or '-'), e.g. --image memcached:1.6.26-alpine",
        },
        Case {
            extra: &["--image", "memcached", "--namespaced=false"],
            message: "--image needs a namespaced kind (its workload lives in the custom resource's namespace): drop --namespaced=false",
        },
        Case {
            extra: &["--image", "memcached", "--controller=false"],
            message: "--image scaffolds both the types and the controller that deploys the image: drop --controller=false",
        },
    ]
}

#[test]
fn bad_flags_are_refused_with_one_line_and_change_nothing() {
    let (_tmp, dir) = project();
    let before = tree(&dir);
    let mut failures = Vec::new();
    for case in cases() {
        let args = [&MEMCACHED[..8], case.extra].concat();
        let out = rop(&dir, &args);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        if out.status.code() != Some(1) || stderr != format!("error: {}\n", case.message) {
            failures.push(format!(
                "rop {args:?}\n  exit {:?}: {stderr}\n  expected: {}",
                out.status.code(),
                case.message
            ));
        }
        if tree(&dir) != before {
            failures.push(format!("rop {args:?} changed files"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_second_version_with_an_image_is_refused() {
    let (_tmp, dir) = project();
    rop_ok(&dir, MEMCACHED);
    let before = tree(&dir);
    let out = rop(
        &dir,
        &["create", "api", "--group", "cache", "--version", "v1beta1", "--kind", "Memcached", "--image", "memcached"],
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: --image scaffolds a kind's controller, and kind Memcached already has version v1alpha1: create v1beta1 without --image\n"
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(tree(&dir), before);
}

#[test]
fn resource_false_with_an_image_is_refused() {
    let (_tmp, dir) = project();
    rop_ok(&dir, &MEMCACHED[..8]);
    let before = tree(&dir);
    let out = rop(&dir, &[&MEMCACHED[..8], &["--resource=false", "--image", "memcached"][..]].concat());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: --image scaffolds both the types and the controller that deploys the image: drop --resource=false\n"
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(tree(&dir), before);
}
