//! A real Kubernetes API server for tests: `envtest` for Rust.
//!
//! [`TestEnv::start`] runs `etcd` and `kube-apiserver` (Kubernetes 1.37, the version of the
//! k8s-openapi 0.29 / kube 5 stack rop uses) on free loopback ports with a temporary data
//! folder, generates the certificates they need in Rust (a CA, the serving certificate, an
//! admin client certificate in `system:masters`, the service-account key), writes a
//! kubeconfig, waits until the server is ready and hands out a [`kube::Client`]. Dropping the
//! [`TestEnv`] stops both processes (the API server first, then etcd), also when a test
//! panics; if the test process dies without unwinding, the kernel kills them (Linux).
//!
//! There are no controllers: no kube-controller-manager, no scheduler, no nodes. Objects are
//! stored and validated, watches and server-side apply work, but nothing reconciles them (a
//! Deployment never gets Pods). CRDs are established by the API server itself.
//!
//! The binaries are found, in this order, in `$ROP_TESTENV_DIR`, in `$KUBEBUILDER_ASSETS`
//! (the layout of controller-runtime's `setup-envtest`: `etcd` and `kube-apiserver` in one
//! folder), in `~/.cache/rop-testenv/bin` (where `rop testenv install` puts them), in
//! setup-envtest's store ([`setup_envtest_store`]) and on `PATH`. When they are missing, [`TestEnv::start`] returns [`Error::NotInstalled`], so a
//! test can skip itself; [`TestEnv::start_or_skip`] does exactly that.
//!
//! ```no_run
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kube::Api;
//!
//! let Some(env) = rop_testenv::TestEnv::start_or_skip() else { return };
//! let names = env.block_on(async {
//!     let cms: Api<ConfigMap> = Api::namespaced(env.client(), "default");
//!     cms.list(&Default::default()).await.unwrap().items.len()
//! });
//! println!("{names} config maps");
//! ```
//!
//! Environment variables:
//!
//! | variable | effect |
//! |---|---|
//! | `ROP_TESTENV_DIR` | folder with `etcd` and `kube-apiserver` (searched first) |
//! | `KUBEBUILDER_ASSETS` | the same, as `setup-envtest use -p path` prints it |
//! | `ROP_TESTENV_REQUIRE=1` | [`TestEnv::start_or_skip`] panics instead of skipping (for CI) |
//! | `ROP_TESTENV_KEEP=1` | keep the temporary folder (logs, certificates, etcd data) |
//! | `ROP_TESTENV_READY_TIMEOUT` | seconds to wait for `/readyz` (default 60) |

#![deny(missing_docs)]

mod audit;
mod binaries;
mod controller;
mod denials;
mod diff;
mod env;
mod error;
mod kubelet;
mod manifests;
mod pki;
mod process;
mod rbac;
mod status;
mod wait;
mod webhooks;

pub use audit::Write;
pub use binaries::{Binaries, ETCD, KUBE_APISERVER, KUBERNETES_VERSION, setup_envtest_store};
pub use controller::{ControllerTest, TEST_NAMESPACE, check_controller};
pub use diff::{diff, lost};
pub use env::{Options, TestEnv};
pub use error::Error;
pub use kubelet::Kubelet;
pub use manifests::{ManifestError, install_crd, install_crds, object_from_file};
pub use rbac::{MANAGER_NAMESPACE, MANAGER_SERVICE_ACCOUNT, install_manager_rbac};
pub use status::{caught_up, condition, find_condition, rolled_out};
pub use wait::{WAIT, wait_for, wait_until, wait_until_gone};
pub use webhooks::Webhooks;
