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

    // Without the variables: setup-envtest's store, the newest 1.37 release of this platform
    // that holds both binaries.
    let home = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let store = data.path().join("kubebuilder-envtest/k8s");
    let platform = "linux-amd64";
    let release = |name: &str, binaries: &[&str]| {
        let dir = store.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        for binary in binaries {
            let path = dir.join(binary);
            std::fs::write(&path, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        dir
    };
    let both = ["etcd", "kube-apiserver"];
    release(&format!("1.36.9-{platform}"), &both);
    release(&format!("1.37.0-{platform}"), &both);
    let chosen = release(&format!("1.37.1-{platform}"), &both);
    release(&format!("1.37.3-{platform}"), &["etcd"]);
    release("1.37.4-darwin-arm64", &both);
    // SAFETY: as above.
    unsafe {
        std::env::remove_var("ROP_TESTENV_DIR");
        std::env::set_var("HOME", home.path());
        std::env::set_var("XDG_DATA_HOME", data.path());
        std::env::set_var("PATH", "");
    }
    assert_eq!(rop_testenv::setup_envtest_store().unwrap(), store);
    if cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        let found = Binaries::find().unwrap();
        assert_eq!(found.etcd, chosen.join("etcd"));
        assert_eq!(found.kube_apiserver, chosen.join("kube-apiserver"));
    }

    std::fs::remove_dir_all(&store).unwrap();
    let err = Binaries::find().unwrap_err();
    assert!(err.is_not_installed(), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!(
            "etcd not found (looked in {}/.cache/rop-testenv/bin, {}, PATH); install both with `rop testenv install` (`make testenv`), or point ROP_TESTENV_DIR or KUBEBUILDER_ASSETS at a folder holding etcd and kube-apiserver",
            home.path().display(),
            store.display()
        )
    );
}
