//! Bad input: a one-line error saying what is wrong and what to do, exit code 1 for a refused
//! command or 2 for a malformed command line, and the tree left exactly as it was (every file
//! compared before and after).

mod common;

use std::path::{Path, PathBuf};

use common::{rop, rop_ok, tree};

/// What the folder holds before the command runs.
#[derive(Clone, Copy)]
enum Setup {
    /// An empty folder.
    Empty,
    /// `rop init` + `rop create api --group cache --version v1alpha1 --kind Memcached`.
    Project,
    /// The project, then a change made by `edit` (a user editing or breaking files).
    Edited(fn(&Path)),
    /// An empty folder with what `make` puts there (no project).
    EmptyWith(fn(&Path)),
}

struct Case {
    args: &'static [&'static str],
    setup: Setup,
    code: i32,
    /// The exact error for code 1 (`{dir}` stands for the folder); a fragment for code 2
    /// (clap's usage errors).
    message: &'static str,
}

/// A controller for the built-in v1 ServiceAccount, added to the project.
fn service_account_controller(dir: &Path) {
    rop_ok(
        dir,
        &["create", "api", "--group", "core", "--version", "v1", "--kind", "ServiceAccount", "--resource=false"],
    );
}

fn project(dir: &Path) {
    rop_ok(dir, &["init", "--domain", "example.com", "--repo", "github.com/example/op", "--rop-version", "0.1.0"]);
    rop_ok(dir, &["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
}

fn replace_in(dir: &Path, file: &str, from: &str, to: &str) {
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{file} lacks {from:?}");
    std::fs::write(&path, text.replace(from, to)).unwrap();
}

const API: &[&str] = &["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind"];

fn api(tail: &'static [&'static str]) -> &'static [&'static str] {
    Box::leak([API, tail].concat().into_boxed_slice())
}

const WEBHOOK: &[&str] = &["create", "webhook", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"];

fn webhook(tail: &'static [&'static str]) -> &'static [&'static str] {
    Box::leak([WEBHOOK, tail].concat().into_boxed_slice())
}

/// The project with a defaulting webhook on Memcached.
fn with_defaulting(dir: &Path) {
    rop_ok(dir, webhook(&["--defaulting"]));
}

fn cases() -> Vec<Case> {
    use Setup::*;
    vec![
        // init
        Case {
            args: &["init", "--domain", "Example.com"],
            setup: Empty,
            code: 1,
            message: "domain \"Example.com\" is not a DNS-1123 subdomain (lower-case labels separated by '.'), e.g. --domain example.com",
        },
        Case {
            args: &["init", "--domain", "example.com."],
            setup: Empty,
            code: 1,
            message: "domain \"example.com.\" is not a DNS-1123 subdomain (lower-case labels separated by '.'), e.g. --domain example.com",
        },
        Case {
            args: &["init", "--domain", "exa_mple.com"],
            setup: Empty,
            code: 1,
            message: "domain \"exa_mple.com\" is not a DNS-1123 subdomain (lower-case labels separated by '.'), e.g. --domain example.com",
        },
        Case {
            args: &["init", "--project-name", "My_Operator"],
            setup: Empty,
            code: 1,
            message: "project name \"My_Operator\" is not a DNS-1123 label (lower-case letters, digits and '-', at most 63 characters): use --project-name my-operator",
        },
        Case {
            args: &["init", "--project-name=-op"],
            setup: Empty,
            code: 1,
            message: "project name \"-op\" is not a DNS-1123 label (lower-case letters, digits and '-', at most 63 characters): use --project-name op",
        },
        Case {
            args: &["init", "--project-name", "a-project-name-that-is-far-too-long-to-be-a-kubernetes-label-xyz"],
            setup: Empty,
            code: 1,
            message: "project name \"a-project-name-that-is-far-too-long-to-be-a-kubernetes-label-xyz\" is not a DNS-1123 label (lower-case letters, digits and '-', at most 63 characters): use --project-name a-project-name-that-is-far-too-long-to-be-a-kubernetes-label-xy",
        },
        Case {
            args: &["init", "--project-name", "ünï-operator"],
            setup: Empty,
            code: 1,
            message: "project name \"ünï-operator\" is not a DNS-1123 label (lower-case letters, digits and '-', at most 63 characters): use --project-name uni-operator",
        },
        Case {
            args: &["init", "--project-name", "__"],
            setup: Empty,
            code: 1,
            message: "project name \"__\" is not a DNS-1123 label (lower-case letters, digits and '-', at most 63 characters): choose one with --project-name, e.g. --project-name my-operator",
        },
        Case {
            args: &["init", "--license", "gpl"],
            setup: Empty,
            code: 2,
            message: "invalid value 'gpl' for '--license <LICENSE>'",
        },
        Case {
            args: &["init", "--rop-path", "/x", "--rop-version", "1"],
            setup: Empty,
            code: 2,
            message: "the argument '--rop-path <ROP_PATH>' cannot be used with '--rop-version <ROP_VERSION>'",
        },
        Case {
            args: &["init", "--rop-version", "v0.1.0"],
            setup: Empty,
            code: 1,
            message: "--rop-version \"v0.1.0\" is not a version requirement: unexpected character 'v' while parsing major version number",
        },
        Case {
            args: &["init", "--rop-path", "/nonexistent/runtime"],
            setup: Empty,
            code: 1,
            message: "the rop runtime crate is not at /nonexistent/runtime: pass --rop-path <checkout>/runtime or --rop-version <version>",
        },
        Case {
            args: &["init", "--rop-path", "vendor/runtime"],
            setup: EmptyWith(|d| {
                std::fs::create_dir_all(d.join("vendor/runtime")).unwrap();
                std::fs::write(d.join("vendor/runtime/Cargo.toml"), "[package]\nname = \"rop-core\"\n").unwrap();
            }),
            code: 1,
            message: "vendor/runtime holds the package \"rop-core\", not rop's runtime crate: --rop-path must point at <checkout>/runtime",
        },
        Case {
            args: &["init", "--rop-path", "vendor/runtime"],
            setup: EmptyWith(|d| {
                std::fs::create_dir_all(d.join("vendor/runtime")).unwrap();
                std::fs::write(d.join("vendor/runtime/Cargo.toml"), "[package]\nname = \"rop\"\n").unwrap();
            }),
            code: 1,
            message: "vendor/runtime has no rop-testenv beside it (vendor/testenv/Cargo.toml): a project's tests depend on it; give the runtime folder of a whole rop checkout, or copy its testenv folder there too",
        },
        Case {
            args: &["init", "--domian", "example.com"],
            setup: Empty,
            code: 2,
            message: "unexpected argument '--domian' found",
        },
        Case {
            args: &["init", "--domain", "example.com"],
            setup: Project,
            code: 1,
            message: "{dir} already holds a project (PROJECT exists): run `rop init` in an empty directory, or use `rop create api` to extend this one",
        },
        Case {
            args: &["init"],
            setup: Edited(|d| std::fs::write(d.join("Cargo.toml"), "[package]\n").unwrap()),
            code: 1,
            message: "{dir} already holds a project (PROJECT exists): run `rop init` in an empty directory, or use `rop create api` to extend this one",
        },
        // create controller, which is `create api`'s
        Case {
            args: &["create", "controller", "--group", "apps", "--version", "v1", "--kind", "Deployment"],
            setup: Project,
            code: 2,
            message: "rop has no `create controller`: a controller comes with `rop create api --group G --version V --kind K` (with its types), or alone with `--resource=false` for a kind that exists already",
        },
        // create api: names
        Case {
            args: api(&["memcached"]),
            setup: Project,
            code: 1,
            message: "kind \"memcached\" is not UpperCamelCase (letters and digits): use --kind Memcached",
        },
        Case {
            args: api(&["Mem_Cached"]),
            setup: Project,
            code: 1,
            message: "kind \"Mem_Cached\" is not UpperCamelCase (letters and digits): use --kind MemCached",
        },
        Case {
            args: api(&["9Lives"]),
            setup: Project,
            code: 1,
            message: "kind \"9Lives\" is not UpperCamelCase (letters and digits): start it with an upper-case letter, e.g. --kind Memcached",
        },
        Case {
            args: api(&["List"]),
            setup: Project,
            code: 1,
            message: "kind \"List\" is reserved or ends in \"List\", which Kubernetes uses for list types: choose another kind",
        },
        Case {
            args: api(&["MemcachedList"]),
            setup: Project,
            code: 1,
            message: "kind \"MemcachedList\" is reserved or ends in \"List\", which Kubernetes uses for list types: choose another kind",
        },
        Case {
            args: &["create", "api", "--group", "cache.example.com", "--version", "v1", "--kind", "Foo"],
            setup: Project,
            code: 1,
            message: "group \"cache.example.com\" repeats the project domain \"example.com\", which rop appends itself: use --group cache",
        },
        Case {
            args: &["create", "api", "--group", "Cache", "--version", "v1", "--kind", "Foo"],
            setup: Project,
            code: 1,
            message: "group \"Cache\" is not a DNS-1123 subdomain (lower-case letters, digits, '-' and '.'), e.g. --group cache",
        },
        Case {
            args: &["create", "api", "--group", "ca_che", "--version", "v1", "--kind", "Foo"],
            setup: Project,
            code: 1,
            message: "group \"ca_che\" is not a DNS-1123 subdomain (lower-case letters, digits, '-' and '.'), e.g. --group cache",
        },
        Case {
            args: &["create", "api", "--group", "cache", "--version", "1beta", "--kind", "Foo"],
            setup: Project,
            code: 1,
            message: "version \"1beta\" is not a DNS-1035 label (a lower-case letter, then letters, digits, '-'), e.g. --version v1alpha1",
        },
        Case {
            args: &["create", "api", "--group", "cache", "--version", "V1", "--kind", "Foo"],
            setup: Project,
            code: 1,
            message: "version \"V1\" is not a DNS-1035 label (a lower-case letter, then letters, digits, '-'): use --version v1",
        },
        Case {
            args: &["create", "api", "--group", "cache", "--version", "v1_beta", "--kind", "Foo"],
            setup: Project,
            code: 1,
            message: "version \"v1_beta\" is not a DNS-1035 label (a lower-case letter, then letters, digits, '-'), e.g. --version v1alpha1",
        },
        Case {
            args: api(&["Foo", "--plural", "Foos"]),
            setup: Project,
            code: 1,
            message: "plural \"Foos\" must be lower-case letters, digits and '-', starting with a letter, e.g. --plural memcacheds",
        },
        Case {
            args: api(&["Client"]),
            setup: Project,
            code: 1,
            message: "kind \"Client\" is a name the generated Rust code already uses (from kube, serde or the manager): choose another kind, e.g. ClientSet",
        },
        Case {
            args: api(&["Condition"]),
            setup: Project,
            code: 1,
            message: "kind \"Condition\" is a name the generated Rust code already uses (from kube, serde or the manager): choose another kind, e.g. ConditionSet",
        },
        Case {
            args: api(&["Option"]),
            setup: Project,
            code: 1,
            message: "kind \"Option\" is a name of Rust's prelude or of a type the kind's fields use, which the kind's own type would shadow: choose another kind, e.g. OptionSet",
        },
        Case {
            args: api(&["Match"]),
            setup: Project,
            code: 1,
            message: "kind \"Match\" becomes the Rust module `match`, a keyword: choose another kind, e.g. MatchSet",
        },
        Case {
            args: &["init", "--project-name", "1op"],
            setup: Empty,
            code: 1,
            message: "project name \"1op\" starts with a digit, which Cargo refuses in package names: use --project-name op-1op",
        },
        Case {
            args: &["init", "--project-name", "rop"],
            setup: Empty,
            code: 1,
            message: "project name \"rop\" is the name of a rop crate the project depends on: use --project-name rop-operator",
        },
        Case {
            args: &["init", "--project-name", "gen"],
            setup: Empty,
            code: 1,
            message: "project name \"gen\" becomes the Rust crate `gen`, a Rust keyword, so `use gen::...` in the project would not compile: use --project-name gen-operator",
        },
        Case {
            args: &["init", "--project-name", "proc-macro"],
            setup: Empty,
            code: 1,
            message: "project name \"proc-macro\" becomes the Rust crate `proc_macro`, the name of a crate of the standard library, so `use proc_macro::...` in the project would not compile: use --project-name proc-macro-operator",
        },
        // create api: contradictions with the project
        Case {
            args: api(&["Memcached"]),
            setup: Project,
            code: 1,
            message: "API cache/v1alpha1 Memcached already exists in PROJECT: pass --force to scaffold its types and controller again (their edits are lost)",
        },
        Case {
            args: &["create", "api", "--group", "apps", "--version", "v1", "--kind", "Foo"],
            setup: Project,
            code: 1,
            message: "this project already has group \"cache\" and is not multigroup: use --group cache, or run `rop edit --multigroup` first to add group \"apps\"",
        },
        Case {
            args: api(&["Other", "--plural", "memcacheds"]),
            setup: Project,
            code: 1,
            message: "plural \"memcacheds\" is already the plural of kind Memcached in group cache.example.com: pass another --plural",
        },
        Case {
            args: &[
                "create",
                "api",
                "--group",
                "cache",
                "--version",
                "v1",
                "--kind",
                "Memcached",
                "--plural",
                "mcs",
                "--controller=false",
            ],
            setup: Project,
            code: 1,
            message: "kind Memcached already has plural \"memcacheds\" in version v1alpha1: every version of a kind has the same plural, use --plural memcacheds",
        },
        Case {
            args: &[
                "create",
                "api",
                "--group",
                "cache",
                "--version",
                "v1",
                "--kind",
                "Memcached",
                "--namespaced=false",
                "--controller=false",
            ],
            setup: Project,
            code: 1,
            message: "kind Memcached is namespaced in version v1alpha1: every version of a kind has the same scope, pass --namespaced",
        },
        Case {
            args: &["create", "api", "--group", "cache", "--version", "v1", "--kind", "Memcached"],
            setup: Project,
            code: 1,
            message: "kind Memcached already has a controller (scaffolded with version v1alpha1): one controller reconciles every version, pass --controller=false",
        },
        Case {
            args: api(&["Foo", "--resource=false", "--controller=false"]),
            setup: Project,
            code: 1,
            message: "--resource=false and --controller=false leave nothing to scaffold: drop one of them",
        },
        Case {
            args: api(&["Foo", "--resource=false"]),
            setup: Project,
            code: 1,
            message: "--resource=false needs existing types for cache/v1alpha1 Foo: run `rop create api` without --resource=false first",
        },
        Case {
            args: &["create", "api", "--group", "core", "--version", "v1", "--kind", "Endpoint", "--resource=false"],
            setup: Project,
            code: 1,
            message: "core/v1 Endpoint is not a built-in kind rop scaffolds controllers for; it knows core/v1 Pod, core/v1 Service, core/v1 ConfigMap, core/v1 Secret, core/v1 Namespace, core/v1 ServiceAccount, core/v1 PersistentVolumeClaim, core/v1 PersistentVolume, core/v1 Node, core/v1 Endpoints, core/v1 LimitRange, core/v1 ResourceQuota, apps/v1 Deployment, apps/v1 StatefulSet, apps/v1 DaemonSet, apps/v1 ReplicaSet, batch/v1 Job, batch/v1 CronJob, networking.k8s.io/v1 Ingress, networking.k8s.io/v1 NetworkPolicy, networking.k8s.io/v1 IngressClass, rbac.authorization.k8s.io/v1 Role, rbac.authorization.k8s.io/v1 RoleBinding, rbac.authorization.k8s.io/v1 ClusterRole, rbac.authorization.k8s.io/v1 ClusterRoleBinding, storage.k8s.io/v1 StorageClass, autoscaling/v2 HorizontalPodAutoscaler, coordination.k8s.io/v1 Lease, discovery.k8s.io/v1 EndpointSlice, policy/v1 PodDisruptionBudget",
        },
        Case {
            args: &[
                "create",
                "api",
                "--group",
                "core",
                "--version",
                "v1",
                "--kind",
                "Endpoints",
                "--resource=false",
                "--plural",
                "endpointses",
            ],
            setup: Project,
            code: 1,
            message: "the plural of Endpoints is \"endpoints\" (k8s_openapi::api::core::v1::Endpoints says so): drop --plural endpointses",
        },
        Case {
            args: &[
                "create",
                "api",
                "--group",
                "core",
                "--version",
                "v1",
                "--kind",
                "ServiceAccount",
                "--resource=false",
            ],
            setup: Edited(service_account_controller),
            code: 1,
            message: "core/v1 ServiceAccount already has a controller: pass --force to scaffold it again (its edits are lost)",
        },
        Case {
            args: api(&["Foo", "--namespaced=maybe"]),
            setup: Project,
            code: 2,
            message: "invalid value 'maybe' for '--namespaced [<NAMESPACED>]'",
        },
        Case {
            args: &["create", "api", "--group", "cache", "--version", "v1"],
            setup: Project,
            code: 2,
            message: "the following required arguments were not provided:\n  --kind <KIND>",
        },
        // outside a project, and broken projects
        Case {
            args: api(&["Foo"]),
            setup: Empty,
            code: 1,
            message: "no PROJECT file in {dir}: run this inside a project created by `rop init`, or create one with `rop init --domain example.com --repo github.com/you/your-operator`",
        },
        Case {
            args: &["generate"],
            setup: Empty,
            code: 1,
            message: "no PROJECT file in {dir}: run this inside a project created by `rop init`, or create one with `rop init --domain example.com --repo github.com/you/your-operator`",
        },
        Case {
            args: api(&["Foo"]),
            setup: Edited(|d| std::fs::write(d.join("PROJECT"), "version: [\n").unwrap()),
            code: 1,
            message: "PROJECT is not valid: version: invalid type: sequence, expected a string at line 1 column 10; fix it by hand or restore it from version control",
        },
        Case {
            args: api(&["Foo"]),
            setup: Edited(|d| replace_in(d, "PROJECT", "version: '3'", "version: '4'")),
            code: 1,
            message: "PROJECT has version \"4\" and layout [\"rust.rop.dev/v1\"]; this rop understands version \"3\" with layout rust.rop.dev/v1: upgrade rop",
        },
        Case {
            args: api(&["Foo"]),
            setup: Edited(|d| replace_in(d, "PROJECT", "rust.rop.dev/v1", "go.kubebuilder.io/v4")),
            code: 1,
            message: "PROJECT has version \"3\" and layout [\"go.kubebuilder.io/v4\"]; this rop understands version \"3\" with layout rust.rop.dev/v1: upgrade rop",
        },
        Case {
            args: api(&["Foo"]),
            setup: Edited(|d| std::fs::remove_file(d.join("api/src/v1alpha1/memcached.rs")).unwrap()),
            code: 1,
            message: "PROJECT lists cache/v1alpha1 Memcached but api/src/v1alpha1/memcached.rs is missing: restore it from version control, or remove the resource from PROJECT",
        },
        Case {
            args: api(&["Foo"]),
            setup: Edited(|d| std::fs::remove_file(d.join("src/controller/memcached.rs")).unwrap()),
            code: 1,
            message: "PROJECT lists cache/v1alpha1 Memcached but src/controller/memcached.rs is missing: restore it from version control, or remove the resource from PROJECT",
        },
        Case {
            args: api(&["Foo"]),
            setup: Edited(|d| replace_in(d, "src/main.rs", "// +rop:scaffold:controllers", "")),
            code: 1,
            message: "src/main.rs has no `+rop:scaffold:controllers` marker line, where rop adds code: put the line back where it was (see a freshly scaffolded project), then run the command again",
        },
        Case {
            args: api(&["Foo"]),
            setup: Edited(|d| replace_in(d, "config/crd/kustomization.yaml", "# +rop:scaffold:crd-resources", "")),
            code: 1,
            message: "config/crd/kustomization.yaml has no `+rop:scaffold:crd-resources` marker line, where rop adds code: put the line back where it was (see a freshly scaffolded project), then run the command again",
        },
        Case {
            args: api(&["Foo"]),
            setup: Edited(|d| std::fs::remove_file(d.join("api/src/lib.rs")).unwrap()),
            code: 1,
            message: "api/src/lib.rs is missing; rop adds code to it at `+rop:scaffold:api-versions`: restore it from version control or a fresh `rop init`",
        },
        Case {
            args: api(&["Foo"]),
            setup: Edited(|d| std::fs::write(d.join("config/samples/cache_v1alpha1_foo.yaml"), "mine\n").unwrap()),
            code: 1,
            message: "refusing to overwrite config/samples/cache_v1alpha1_foo.yaml (already exists and differs): pass --force to replace it, losing its edits",
        },
        Case {
            args: api(&["Memcached", "--resource=false"]),
            setup: Project,
            code: 1,
            message: "cache/v1alpha1 Memcached already has a controller: pass --force to scaffold it again (its edits are lost)",
        },
        // create webhook
        Case {
            args: webhook(&[]),
            setup: Project,
            code: 1,
            message: "rop create webhook needs at least one of --defaulting, --programmatic-validation and --conversion",
        },
        Case {
            args: &[
                "create",
                "webhook",
                "--group",
                "cache",
                "--version",
                "v1alpha1",
                "--kind",
                "Redis",
                "--defaulting",
            ],
            setup: Project,
            code: 1,
            message: "no API cache/v1alpha1 Redis in PROJECT: webhooks are for kinds created with rop (run `rop create api --group cache --version v1alpha1 --kind Redis` first) and for the built-in kinds core/v1 Pod, core/v1 Service, core/v1 ConfigMap, core/v1 Secret, core/v1 Namespace, core/v1 ServiceAccount, core/v1 PersistentVolumeClaim, core/v1 PersistentVolume, core/v1 Node, core/v1 Endpoints, core/v1 LimitRange, core/v1 ResourceQuota, apps/v1 Deployment, apps/v1 StatefulSet, apps/v1 DaemonSet, apps/v1 ReplicaSet, batch/v1 Job, batch/v1 CronJob, networking.k8s.io/v1 Ingress, networking.k8s.io/v1 NetworkPolicy, networking.k8s.io/v1 IngressClass, rbac.authorization.k8s.io/v1 Role, rbac.authorization.k8s.io/v1 RoleBinding, rbac.authorization.k8s.io/v1 ClusterRole, rbac.authorization.k8s.io/v1 ClusterRoleBinding, storage.k8s.io/v1 StorageClass, autoscaling/v2 HorizontalPodAutoscaler, coordination.k8s.io/v1 Lease, discovery.k8s.io/v1 EndpointSlice, policy/v1 PodDisruptionBudget",
        },
        Case {
            args: &[
                "create",
                "webhook",
                "--group",
                "apps",
                "--version",
                "v1",
                "--kind",
                "Deployment",
                "--conversion",
                "--spoke",
                "v1beta1",
            ],
            setup: Project,
            code: 1,
            message: "Deployment is a built-in kind: the API server converts its versions itself; --conversion is for kinds of this project",
        },
        Case {
            args: &["create", "webhook", "--group", "apps", "--version", "v1", "--kind", "Deployment", "--conversion"],
            setup: Project,
            code: 1,
            message: "Deployment is a built-in kind: the API server converts its versions itself; --conversion is for kinds of this project",
        },
        Case {
            args: webhook(&["--defaulting", "--defaulting-path", "/Mutate_Memcached"]),
            setup: Project,
            code: 1,
            message: "--defaulting-path \"/Mutate_Memcached\": each segment of a webhook path must be lower-case letters, digits, '-' and '.', as the API server requires, e.g. /mutate-memcached",
        },
        Case {
            args: &[
                "create",
                "webhook",
                "--group",
                "cache",
                "--version",
                "v1",
                "--kind",
                "Memcached",
                "--conversion",
                "--spoke",
                "v1alpha1",
            ],
            setup: Edited(|d| {
                rop_ok(
                    d,
                    &[
                        "create",
                        "api",
                        "--group",
                        "cache",
                        "--version",
                        "v1",
                        "--kind",
                        "Memcached",
                        "--controller=false",
                    ],
                );
            }),
            code: 1,
            message: "v1 is not the storage version of Memcached, v1alpha1 is (its #[rop(...)] says `storage`): the hub of a conversion is the storage version; pass --version v1alpha1 and the others as --spoke, or move `storage` to v1 first",
        },
        // The storage version need not be among the spokes to be the hub's rival.
        Case {
            args: &[
                "create",
                "webhook",
                "--group",
                "cache",
                "--version",
                "v1",
                "--kind",
                "Memcached",
                "--conversion",
                "--spoke",
                "v2",
            ],
            setup: Edited(|d| {
                for version in ["v1", "v2"] {
                    rop_ok(
                        d,
                        &[
                            "create",
                            "api",
                            "--group",
                            "cache",
                            "--version",
                            version,
                            "--kind",
                            "Memcached",
                            "--controller=false",
                        ],
                    );
                }
            }),
            code: 1,
            message: "v1 is not the storage version of Memcached, v1alpha1 is (its #[rop(...)] says `storage`): the hub of a conversion is the storage version; pass --version v1alpha1 and the others as --spoke, or move `storage` to v1 first",
        },
        // After `storage` moved to v1, the old hub must give way: the message says how.
        Case {
            args: &[
                "create",
                "webhook",
                "--group",
                "cache",
                "--version",
                "v1",
                "--kind",
                "Memcached",
                "--conversion",
                "--spoke",
                "v1alpha1",
            ],
            setup: Edited(|d| {
                rop_ok(
                    d,
                    &[
                        "create",
                        "api",
                        "--group",
                        "cache",
                        "--version",
                        "v1",
                        "--kind",
                        "Memcached",
                        "--controller=false",
                    ],
                );

                let hub = ["create", "webhook", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"];
                rop_ok(d, &[&hub[..], &["--conversion", "--spoke", "v1"]].concat());
                let move_storage = |version: &str, from: &str, to: &str| {
                    let path = d.join(format!("api/src/{version}/memcached.rs"));
                    let text = std::fs::read_to_string(&path).unwrap();
                    assert!(text.contains(from), "{text}");
                    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
                };
                move_storage("v1alpha1", "    storage,\n", "");
                move_storage("v1", "    namespaced,\n    status", "    namespaced,\n    storage,\n    status");
            }),
            code: 1,
            message: "Memcached converts through hub v1alpha1, which is no longer its storage version (v1 is): the hub of a conversion is the storage version, so move the webhook: `rop delete webhook --group cache --version v1alpha1 --kind Memcached --conversion` (edited conversion code needs --force there: keep a copy of it), then run this again",
        },
        Case {
            args: webhook(&["--conversion"]),
            setup: Edited(|d| {
                rop_ok(
                    d,
                    &[
                        "create",
                        "api",
                        "--group",
                        "cache",
                        "--version",
                        "v1",
                        "--kind",
                        "Memcached",
                        "--controller=false",
                    ],
                );
            }),
            code: 1,
            message: "--conversion needs --spoke with the other versions of Memcached: --spoke v1",
        },
        Case {
            args: &[
                "create",
                "webhook",
                "--group",
                "cache",
                "--version",
                "v1alpha1",
                "--kind",
                "Memcached",
                "--defaulting",
            ],
            setup: Empty,
            code: 1,
            message: "no PROJECT file in {dir}: run this inside a project created by `rop init`, or create one with `rop init --domain example.com --repo github.com/you/your-operator`",
        },
        Case {
            args: webhook(&["--defaulting"]),
            setup: Edited(with_defaulting),
            code: 1,
            message: "cache/v1alpha1 Memcached already has a defaulting webhook: pass --force with --defaulting to scaffold that one again (remove its type first if you edited it; other webhook types keep theirs)",
        },
        Case {
            args: webhook(&["--spoke", "v1"]),
            setup: Project,
            code: 1,
            message: "--spoke names the versions of a conversion webhook: add --conversion, or drop --spoke",
        },
        Case {
            args: webhook(&["--conversion"]),
            setup: Project,
            code: 1,
            message: "--conversion needs --spoke with the other versions of Memcached, and it has none yet: add one with `rop create api --group cache --version <version> --kind Memcached --controller=false`",
        },
        Case {
            args: webhook(&["--conversion", "--spoke", "v2"]),
            setup: Project,
            code: 1,
            message: "--spoke v2: Memcached has no version v2 in PROJECT; create it first with `rop create api --group cache --version v2 --kind Memcached --controller=false`",
        },
        Case {
            args: webhook(&["--conversion", "--spoke", "v1alpha1"]),
            setup: Project,
            code: 1,
            message: "--spoke v1alpha1 is the hub version itself: list the other versions of Memcached",
        },
        Case {
            args: webhook(&["--programmatic-validation", "--defaulting-path", "/x"]),
            setup: Project,
            code: 1,
            message: "--defaulting-path is for a defaulting webhook: add --defaulting, or drop it",
        },
        Case {
            args: webhook(&["--programmatic-validation", "--validation-path", "validate me"]),
            setup: Project,
            code: 1,
            message: "--validation-path \"validate me\" is not a URL path: start it with '/' and leave out spaces and quotes",
        },
        Case {
            args: webhook(&["--defaulting", "--defaulting-path", "/convert"]),
            setup: Project,
            code: 1,
            message: "--defaulting-path \"/convert\" is the conversion webhook's path: choose another",
        },
        Case {
            args: webhook(&["--programmatic-validation"]),
            setup: Edited(|d| {
                replace_in(d, "api/src/v1alpha1/memcached.rs", "pub struct MemcachedSpec", "pub struct CacheSpec")
            }),
            code: 1,
            message: "api/src/v1alpha1/memcached.rs has no `pub struct MemcachedSpec` line to put the webhook attribute on: add #[rop(webhook(validating))] to your spec type yourself, or restore the line",
        },
        Case {
            args: webhook(&["--defaulting"]),
            setup: Edited(|d| replace_in(d, "src/webhook/mod.rs", "// +rop:scaffold:webhooks", "")),
            code: 1,
            message: "src/webhook/mod.rs has no `+rop:scaffold:webhooks` marker line, where rop adds code: put the line back where it was (see a freshly scaffolded project), then run the command again",
        },
        Case {
            args: webhook(&["--defaulting"]),
            setup: Edited(|d| std::fs::write(d.join("src/webhook/memcached_v1alpha1.rs"), "// mine\n").unwrap()),
            code: 1,
            message: "refusing to overwrite src/webhook/memcached_v1alpha1.rs (already exists and differs): pass --force to replace it, losing its edits",
        },
        Case {
            args: &[
                "create",
                "webhook",
                "--group",
                "cache",
                "--version",
                "v1alpha1",
                "--kind",
                "Memcached",
                "--defaulting",
                "--flavour",
            ],
            setup: Project,
            code: 2,
            message: "unexpected argument '--flavour'",
        },
    ]
}

/// Runs `rop init` without `--project-name` in a new folder `name`: the error, and the folder.
fn init_refused_in_folder(tmp: &Path, name: &str) -> (String, PathBuf) {
    let dir = tmp.join(name);
    std::fs::create_dir(&dir).unwrap();
    let out = rop(&dir, &["init", "--domain", "example.com"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "nothing written");
    (String::from_utf8_lossy(&out.stderr).trim_end().to_string(), dir)
}

#[test]
fn a_folder_name_that_is_no_project_name_gets_a_valid_one() {
    let tmp = tempfile::tempdir().unwrap();
    let (error, dir) = init_refused_in_folder(tmp.path(), "ünï-operator");
    assert_eq!(
        error,
        "error: project name \"ünï-operator\" is not a DNS-1123 label (lower-case letters, digits and '-', at most 63 characters): use --project-name uni-operator (without --project-name, the project is named after its folder)"
    );
    let out =
        rop(&dir, &["init", "--domain", "example.com", "--project-name", "uni-operator", "--rop-version", "0.1.0"]);
    assert!(out.status.success(), "the suggested name is accepted: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_folder_named_as_a_rust_keyword_is_refused_with_the_flag_to_pass() {
    let tmp = tempfile::tempdir().unwrap();
    let (error, _) = init_refused_in_folder(tmp.path(), "gen");
    assert_eq!(
        error,
        "error: project name \"gen\" becomes the Rust crate `gen`, a Rust keyword, so `use gen::...` in the project would not compile: use --project-name gen-operator (without --project-name, the project is named after its folder)"
    );
}

#[test]
fn every_bad_input_is_refused_with_its_message_and_changes_nothing() {
    let cases = cases();
    assert!(cases.len() >= 40, "{} cases", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("op");
        std::fs::create_dir(&dir).unwrap();
        match case.setup {
            Setup::Empty => {}
            Setup::EmptyWith(make) => make(&dir),
            Setup::Project => project(&dir),
            Setup::Edited(edit) => {
                project(&dir);
                edit(&dir);
            }
        }
        let before = tree(&dir);
        let out = rop(&dir, case.args);
        let stderr = String::from_utf8_lossy(&out.stderr).trim_end().to_string();
        let expected = case.message.replace("{dir}", &dir.display().to_string());
        let message_ok =
            if case.code == 1 { stderr == format!("error: {expected}") } else { stderr.contains(&expected) };
        if out.status.code() != Some(case.code) || !message_ok {
            failures.push(format!(
                "rop {:?}\n  exit {:?}, stderr: {stderr}\n  expected exit {}: {expected}",
                case.args,
                out.status.code(),
                case.code
            ));
        }
        if tree(&dir) != before {
            failures.push(format!("rop {:?} changed files", case.args));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

#[test]
fn a_version_of_another_form_is_accepted_with_a_warning() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("op");
    std::fs::create_dir(&dir).unwrap();
    project(&dir);
    let out = rop(&dir, &["create", "api", "--group", "cache", "--version", "stable", "--kind", "Foo"]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "warning: version \"stable\" is not of the form v1, v1alpha1 or v2beta3: the API server will sort it after every such version\n"
    );
}
