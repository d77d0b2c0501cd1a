//! `make docker-build` for a project that depends on rop's crates by a path outside it (what
//! `rop init` writes by default): `make docker-context` stages the crates into the build
//! context, and the Dockerfile's build stage builds the manager from the build context alone.
//!
//! No container engine runs on the test machines, so the test plays the build stage: it copies
//! what the Dockerfile's COPY lines copy (`.rop-crates/` to `/`, after the crates' own folder is
//! gone, so only the staged copy can be built), then runs the Dockerfile's `cargo build` line
//! in that copy — for the musl target when it is installed, else for the host's.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{copy_tree, rop_ok};

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

/// The musl target of this machine when rustup has it, else the host's own.
fn target() -> String {
    let rustc = Command::new("rustc").arg("-vV").output().unwrap();
    let host = String::from_utf8_lossy(&rustc.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .expect("rustc -vV names the host");
    let musl = host.replace("-gnu", "-musl");
    let installed = Command::new("rustup").args(["target", "list", "--installed"]).output();
    if installed.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).lines().any(|t| t == musl)) {
        return musl;
    }
    eprintln!("the musl target {musl} is not installed: building for {host} instead");
    host
}

#[test]
fn the_manager_builds_from_the_staged_build_context_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let repository = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let crates = tmp.path().join("rop-src");
    for crate_dir in ["runtime", "core", "macros", "names", "testenv"] {
        copy_tree(&repository.join(crate_dir), &crates.join(crate_dir));
    }
    let project = tmp.path().join("op");
    std::fs::create_dir(&project).unwrap();
    let runtime = crates.join("runtime");
    rop_ok(&project, &["init", "--domain", "example.com", "--rop-path", runtime.to_str().unwrap()]);
    rop_ok(&project, &["create", "api", "--group", "cache", "--version", "v1", "--kind", "Memcached"]);
    let makefile = std::fs::read_to_string(project.join("Makefile")).unwrap();
    assert!(makefile.contains(&format!("\nROP_CRATES ?= {}\n", crates.display())), "{makefile}");

    let staged = Command::new("make").arg("docker-context").current_dir(&project).output().unwrap();
    assert!(staged.status.success(), "{}", String::from_utf8_lossy(&staged.stderr));
    assert_eq!(
        String::from_utf8_lossy(&staged.stdout),
        format!("docker-context: rop's crates from {} staged in .rop-crates/\n", crates.display())
    );
    let staged_crates = PathBuf::from(format!("{}/.rop-crates{}", project.display(), crates.display()));
    assert_eq!(listing(&staged_crates), ["core", "macros", "names", "runtime", "testenv"]);
    // A ROP_CRATES that cannot be staged is refused before the staged copy goes.
    for (crates, error) in [
        ("../rop-src", "docker-context: ROP_CRATES=../rop-src is not an absolute path: give the folder holding rop's runtime/ as Cargo.toml names it, from /\n".to_string()),
        ("/nonexistent", "docker-context: no crate /nonexistent/runtime (set ROP_CRATES to the folder holding rop's runtime/)\n".to_string()),
    ] {
        let out = Command::new("make").args(["docker-context", &format!("ROP_CRATES={crates}")]).current_dir(&project).output().unwrap();
        assert!(!out.status.success(), "{crates}");
        assert!(String::from_utf8_lossy(&out.stderr).starts_with(&error), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(listing(&staged_crates), ["core", "macros", "names", "runtime", "testenv"]);
    }

    // The build stage: WORKDIR /workspace and the COPY lines, as the Dockerfile has them.
    let dockerfile = std::fs::read_to_string(project.join("Dockerfile")).unwrap();
    let copies: Vec<&str> = dockerfile.lines().filter(|l| l.starts_with("COPY")).collect();
    assert_eq!(
        copies,
        [
            "COPY Cargo.toml Cargo.lock* ./",
            "COPY api/ api/",
            "COPY src/ src/",
            "COPY .rop-crates/ /",
            "COPY --from=builder /manager ."
        ]
    );
    let build_line = "    && cargo build --release --package op --bin manager --target \"${target}\" \\\n";
    assert!(dockerfile.contains(build_line), "{dockerfile}");
    // A static binary on a distroless image, run as a user that is not root.
    for line in
        ["target=\"$(uname -m)-unknown-linux-musl\"", "FROM gcr.io/distroless/static:nonroot", "USER 65532:65532"]
    {
        assert!(dockerfile.contains(line), "{line} in {dockerfile}");
    }
    std::fs::remove_dir_all(&crates).unwrap();
    let workspace = tmp.path().join("workspace");
    std::fs::create_dir(&workspace).unwrap();
    std::fs::copy(project.join("Cargo.toml"), workspace.join("Cargo.toml")).unwrap();
    copy_tree(&project.join("api"), &workspace.join("api"));
    copy_tree(&project.join("src"), &workspace.join("src"));
    copy_tree(&staged_crates, &crates); // COPY .rop-crates/ / — the same path as on the host

    // The Dockerfile's cargo line. The release profile is made cheap here (this checks that the
    // build context suffices, not the optimiser), and the target folder is the one the other
    // generated-project tests share.
    let target = target();
    let out = Command::new("cargo")
        .args(["build", "--release", "--package", "op", "--bin", "manager", "--target", &target])
        .current_dir(&workspace)
        .env("CARGO_TARGET_DIR", repository.join("target/e2e-projects"))
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0")
        .env("CARGO_PROFILE_RELEASE_LTO", "false")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "256")
        .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    assert!(out.status.success(), "the build stage's cargo build failed:\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(repository.join(format!("target/e2e-projects/{target}/release/manager")).is_file());
}

#[test]
fn a_project_on_a_published_rop_stages_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    rop_ok(tmp.path(), &["init", "--domain", "example.com", "--project-name", "op", "--rop-version", "0.1.0"]);
    let makefile = std::fs::read_to_string(tmp.path().join("Makefile")).unwrap();
    assert!(makefile.contains("\nROP_CRATES ?=\n"), "{makefile}");
    let staged = Command::new("make").arg("docker-context").current_dir(tmp.path()).output().unwrap();
    assert!(staged.status.success(), "{}", String::from_utf8_lossy(&staged.stderr));
    assert_eq!(String::from_utf8_lossy(&staged.stdout), "");
    assert_eq!(listing(&tmp.path().join(".rop-crates")), Vec::<String>::new());
}
