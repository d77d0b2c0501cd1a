//! Where rop-testenv looks for etcd and kube-apiserver: a folder named by `ROP_TESTENV_DIR` is
//! used or refused, never passed over for another.
//!
//! One test in its own binary: it sets environment variables, which no other test may see.

use std::os::unix::fs::PermissionsExt;

use rop_testenv::{Binaries, Error};

#[test]
fn a_named_folder_is_used_or_refused() {
    let empty = tempfile::tempdir().unwrap();
    // SAFETY: the only test of this binary; no other thread reads the environment.
    unsafe {
        std::env::remove_var("KUBEBUILDER_ASSETS");
        std::env::set_var("ROP_TESTENV_DIR", empty.path());
    }
    let err = Binaries::find().unwrap_err();
    assert!(matches!(err, Error::NotInFolder { binary: "etcd", .. }), "{err:?}");
    assert!(!err.is_not_installed(), "a wrong folder fails the test instead of skipping it");
    assert_eq!(
        err.to_string(),
        format!(
            "ROP_TESTENV_DIR={} holds no executable etcd: point it at a folder holding etcd and kube-apiserver, or unset it to use ~/.cache/rop-testenv/bin",
            empty.path().display()
        )
    );

    let full = tempfile::tempdir().unwrap();
    for binary in ["etcd", "kube-apiserver"] {
        let path = full.path().join(binary);
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    // SAFETY: as above.
    unsafe { std::env::set_var("ROP_TESTENV_DIR", full.path()) };
    let found = Binaries::find().unwrap();
    assert_eq!(found.etcd, full.path().join("etcd"));
    assert_eq!(found.kube_apiserver, full.path().join("kube-apiserver"));
}
