//! `rop testenv install` downloading envtest's archive from an index served on loopback, as
//! controller-tools publishes it: the newest release of the wanted minor is unpacked, a warm
//! run downloads nothing, and every bad download (404, no server, wrong SHA-512, a corrupt or
//! incomplete archive) is refused with its reason and leaves the install folder as it was.
//!
//! The archives hold small scripts named `etcd` and `kube-apiserver` that print versions;
//! `downloaded_binaries_run_the_test_api_server` runs the real binaries from a downloaded archive.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha512};

/// A loopback HTTP/1.1 server answering GETs from a map of paths to bodies (404 otherwise),
/// noting each path asked for.
struct Server {
    base: String,
    files: Arc<Mutex<BTreeMap<String, Vec<u8>>>>,
    asked: Arc<Mutex<Vec<String>>>,
}

impl Server {
    fn start() -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let files: Arc<Mutex<BTreeMap<String, Vec<u8>>>> = Arc::default();
        let asked: Arc<Mutex<Vec<String>>> = Arc::default();
        let (served, noted) = (files.clone(), asked.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut request = String::new();
                reader.read_line(&mut request).unwrap();
                let path = request.split_whitespace().nth(1).unwrap_or("/").to_string();
                let mut header = String::new();
                while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
                    header.clear();
                }
                noted.lock().unwrap().push(path.clone());
                let body = served.lock().unwrap().get(&path).cloned();
                let (status, body) = match body {
                    Some(body) => ("200 OK", body),
                    None => ("404 Not Found", b"404: Not Found".to_vec()),
                };
                let head = format!("HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
                let _ = stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(&body));
            }
        });
        Server { base, files, asked }
    }

    fn serve(&self, path: &str, body: Vec<u8>) {
        self.files.lock().unwrap().insert(path.to_string(), body);
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn asked(&self) -> Vec<String> {
        std::mem::take(&mut *self.asked.lock().unwrap())
    }
}

/// A `.tar.gz` laid out as envtest's: each binary under `controller-tools/envtest/`, with
/// `kubectl` beside them.
fn archive(binaries: &[(&str, &str)]) -> Vec<u8> {
    let mut tar = tar::Builder::new(flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast()));
    for (name, text) in binaries.iter().chain([&("kubectl", "#!/bin/sh\n")]) {
        let mut header = tar::Header::new_gnu();
        header.set_size(text.len() as u64);
        header.set_mode(0o755);
        header.set_cksum();
        tar.append_data(&mut header, format!("controller-tools/envtest/{name}"), text.as_bytes()).unwrap();
    }
    tar.into_inner().unwrap().finish().unwrap()
}

fn sha512(bytes: &[u8]) -> String {
    Sha512::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

fn script(version: &str) -> String {
    format!("#!/bin/sh\necho '{version}'\n")
}

/// An index of entries `(release, archive name, url, hash)`, grouped by release.
fn index(entries: &[(&str, &str, String, String)]) -> Vec<u8> {
    let mut releases: BTreeMap<&str, String> = BTreeMap::new();
    for (release, name, url, hash) in entries {
        let archives = releases.entry(release).or_default();
        archives.push_str(&format!("    {name}:\n      hash: {hash}\n      selfLink: {url}\n"));
    }
    let mut text = String::from("releases:\n");
    for (release, archives) in releases {
        text.push_str(&format!("  {release}:\n{archives}"));
    }
    text.into_bytes()
}

/// Runs `rop testenv install` with no Go on PATH and none of the variables that choose a folder.
fn install(args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rop"));
    command
        .args(["testenv", "install"])
        .args(args)
        .env("PATH", "/usr/bin:/bin")
        .env_remove("ROP_TESTENV_DIR")
        .env_remove("KUBEBUILDER_ASSETS")
        .env_remove("ROP_TESTENV_INDEX")
        .env_remove("ROP_TESTENV_KUBERNETES_VERSION")
        .env_remove("XDG_DATA_HOME");
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = match std::fs::read_dir(dir) {
        Ok(entries) => entries.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect(),
        Err(_) => return vec!["<no folder>".to_string()],
    };
    names.sort();
    names
}

#[test]
fn downloads_checks_and_refuses_as_setup_envtest_would() {
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        eprintln!("skipped: the served archives are named for linux/amd64");
        return;
    }
    let server = Server::start();
    let good = archive(&[("etcd", &script("etcd Version: 3.6.99")), ("kube-apiserver", &script("Kubernetes v1.37.9"))]);
    let old = archive(&[("etcd", &script("etcd Version: 3.6.1")), ("kube-apiserver", &script("Kubernetes v1.37.1"))]);
    server.serve("/envtest-v1.37.9-linux-amd64.tar.gz", good.clone());
    server.serve("/envtest-v1.37.1-linux-amd64.tar.gz", old.clone());
    server.serve(
        "/envtest-releases.yaml",
        index(&[
            (
                "v1.37.1",
                "envtest-v1.37.1-linux-amd64.tar.gz",
                server.url("/envtest-v1.37.1-linux-amd64.tar.gz"),
                sha512(&old),
            ),
            (
                "v1.37.9",
                "envtest-v1.37.9-linux-amd64.tar.gz",
                server.url("/envtest-v1.37.9-linux-amd64.tar.gz"),
                sha512(&good),
            ),
            ("v1.38.0", "envtest-v1.38.0-linux-amd64.tar.gz", server.url("/none"), sha512(b"")),
            ("v1.37.9", "envtest-v1.37.9-darwin-arm64.tar.gz", server.url("/none"), sha512(b"")),
        ]),
    );
    let tmp = tempfile::tempdir().unwrap();
    let index_url = server.url("/envtest-releases.yaml");

    // The newest 1.37 for this platform, unpacked with no Go on PATH. A staging folder of a
    // killed download goes; a running one's (this test's process stands for it) stays.
    let bin = tmp.path().join("bin");
    let running = format!(".envtest-download-{}-x", std::process::id());
    std::fs::create_dir_all(bin.join(&running)).unwrap();
    std::fs::create_dir_all(bin.join(".envtest-download-999999999-x/more")).unwrap();
    let out = install(&["--dir", bin.to_str().unwrap(), "--index", &index_url], &[]);
    let installed = format!(
        "bin dir: {0}\netcd Version: 3.6.99\nKubernetes v1.37.9\nthe tests find them with ROP_TESTENV_DIR={0}\n",
        bin.display()
    );
    assert_eq!(text(&out.stdout), installed);
    let stderr = text(&out.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert_eq!(lines[0], "downloading envtest-v1.37.9-linux-amd64.tar.gz ...");
    assert!(
        lines[1].starts_with("downloading envtest-v1.37.9-linux-amd64.tar.gz: done, SHA-512 matches ("),
        "{stderr}"
    );
    assert!(out.status.success());
    assert_eq!(listing(&bin), [".envtest", running.as_str(), "etcd", "kube-apiserver"]);
    std::fs::remove_dir(bin.join(&running)).unwrap();
    assert_eq!(std::fs::read_to_string(bin.join(".envtest")).unwrap(), "envtest-v1.37.9-linux-amd64.tar.gz\n");
    assert_eq!(server.asked(), ["/envtest-releases.yaml", "/envtest-v1.37.9-linux-amd64.tar.gz"]);

    // Warm: nothing is downloaded, not even the index.
    let out = install(&["--dir", bin.to_str().unwrap(), "--index", &index_url], &[]);
    assert_eq!(text(&out.stdout), installed);
    assert_eq!(text(&out.stderr), "");
    assert_eq!(server.asked(), Vec::<String>::new());

    // An exact release, from the environment variables a mirror sets.
    let exact = tmp.path().join("exact");
    let mut cmd_env = vec![("ROP_TESTENV_DIR", exact.as_path())];
    let index_path = std::path::PathBuf::from(&index_url);
    cmd_env.push(("ROP_TESTENV_INDEX", index_path.as_path()));
    let version = std::path::PathBuf::from("v1.37.1");
    cmd_env.push(("ROP_TESTENV_KUBERNETES_VERSION", version.as_path()));
    let out = install(&["--quiet"], &cmd_env);
    assert_eq!((text(&out.stdout), text(&out.stderr)), (String::new(), String::new()));
    assert_eq!(std::fs::read_to_string(exact.join(".envtest")).unwrap(), "envtest-v1.37.1-linux-amd64.tar.gz\n");

    // $KUBEBUILDER_ASSETS holding both binaries: nothing to install.
    let out = install(&["--index", &index_url], &[("KUBEBUILDER_ASSETS", bin.as_path()), ("HOME", tmp.path())]);
    assert_eq!(
        text(&out.stdout),
        format!("etcd and kube-apiserver are in $KUBEBUILDER_ASSETS ({}): nothing to install\n", bin.display())
    );
    server.asked();

    // Every bad download: refused with its reason, and the folder as it was.
    let broken = tmp.path().join("broken");
    std::fs::create_dir(&broken).unwrap();
    std::fs::write(broken.join("notes.txt"), "mine").unwrap();
    let truncated = good[..good.len() / 2].to_vec();
    let no_apiserver = archive(&[("etcd", &script("etcd Version: 3.6.99"))]);
    server.serve("/truncated.tar.gz", truncated.clone());
    server.serve("/no-apiserver.tar.gz", no_apiserver.clone());
    server.serve("/not-gzip.tar.gz", b"<html>moved</html>".to_vec());
    let name = "envtest-v1.37.9-linux-amd64.tar.gz";
    let one = |path: &str, url: String, hash: String| {
        server.serve(path, index(&[("v1.37.9", name, url, hash)]));
        server.url(path)
    };
    let closed = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        format!("http://127.0.0.1:{port}/envtest-releases.yaml")
    };
    let hint = "Other ways: an index on a mirror or on disk with --index (or ROP_TESTENV_INDEX), a build from source with `--from build` (needs Go), or ROP_TESTENV_DIR pointing at a folder that holds etcd and kube-apiserver";
    let cases: Vec<(String, String)> = vec![
        (server.url("/missing.yaml"), format!("{} answered 404", server.url("/missing.yaml"))),
        (closed.clone(), format!("cannot reach {closed}: ")),
        (
            one("/bad-sum.yaml", server.url("/envtest-v1.37.9-linux-amd64.tar.gz"), sha512(b"something else")),
            format!(
                "{name} does not match the index's SHA-512 (expected {}, got {}): refused",
                sha512(b"something else"),
                sha512(&good)
            ),
        ),
        (
            one("/archive-404.yaml", server.url("/gone.tar.gz"), sha512(&good)),
            format!("{} answered 404", server.url("/gone.tar.gz")),
        ),
        (
            one("/truncated.yaml", server.url("/truncated.tar.gz"), sha512(&truncated)),
            format!("{name} is not a readable .tar.gz ("),
        ),
        (
            one("/not-gzip.yaml", server.url("/not-gzip.tar.gz"), sha512(b"<html>moved</html>")),
            format!("{name} is not a readable .tar.gz ("),
        ),
        (
            one("/no-apiserver.yaml", server.url("/no-apiserver.tar.gz"), sha512(&no_apiserver)),
            format!("{name} holds no kube-apiserver: refused"),
        ),
        (
            server.url("/envtest-v1.37.9-linux-amd64.tar.gz"),
            format!(
                "the envtest index {}: it is not an envtest release index (",
                server.url("/envtest-v1.37.9-linux-amd64.tar.gz")
            ),
        ),
    ];
    for (index_url, reason) in cases {
        for dir in [broken.clone(), tmp.path().join("never-made")] {
            let before = listing(&dir);
            let out = install(&["--from", "download", "--dir", dir.to_str().unwrap(), "--index", &index_url], &[]);
            assert_eq!(out.status.code(), Some(1), "{index_url}");
            let stderr = text(&out.stderr);
            let error = stderr.lines().last().unwrap_or_default();
            let expected = format!("error: cannot download the test API server: {reason}");
            assert!(error.starts_with(&expected), "{index_url}:\n{error}\ndoes not start with\n{expected}");
            assert!(error.ends_with(&format!(". {hint}")), "{error}");
            assert_eq!(listing(&dir), before, "{index_url} left files in {}", dir.display());
        }
    }
    assert_eq!(std::fs::read_to_string(broken.join("notes.txt")).unwrap(), "mine");

    // Binaries that do not run, or an archive with a binary twice, never replace good ones.
    let failing =
        archive(&[("etcd", "#!/bin/sh\necho broken >&2\nexit 1\n"), ("kube-apiserver", &script("Kubernetes v1.37.9"))]);
    let twice = archive(&[
        ("etcd", &script("etcd Version: 3.6.99")),
        ("etcd", &script("etcd Version: 3.6.98")),
        ("kube-apiserver", &script("Kubernetes v1.37.9")),
    ]);
    server.serve("/failing.tar.gz", failing.clone());
    server.serve("/twice.tar.gz", twice.clone());
    for (path, url, hash, reason) in [
        (
            "/failing.yaml",
            server.url("/failing.tar.gz"),
            sha512(&failing),
            format!("{name}: its etcd does not run here (broken): refused"),
        ),
        ("/twice.yaml", server.url("/twice.tar.gz"), sha512(&twice), format!("{name} holds etcd twice: refused")),
    ] {
        let index_url = one(path, url, hash);
        std::fs::remove_file(bin.join(".envtest")).unwrap();
        let out = install(&["--from", "download", "--dir", bin.to_str().unwrap(), "--index", &index_url], &[]);
        assert_eq!(out.status.code(), Some(1));
        let error = text(&out.stderr).lines().last().unwrap_or_default().to_string();
        assert!(error.starts_with(&format!("error: cannot download the test API server: {reason}. ")), "{error}");
        assert_eq!(listing(&bin), ["etcd", "kube-apiserver"]);
        std::fs::write(bin.join(".envtest"), "envtest-v1.37.9-linux-amd64.tar.gz\n").unwrap();
        assert_eq!(text(&install(&["--dir", bin.to_str().unwrap()], &[]).stdout), installed);
    }

    // An index on disk, as a path or a file:// URL, whose archive is on disk too.
    let mirror = tmp.path().join("mirror");
    std::fs::create_dir(&mirror).unwrap();
    std::fs::write(mirror.join(name), &good).unwrap();
    let on_disk = mirror.join(name).display().to_string();
    std::fs::write(mirror.join("index.yaml"), index(&[("v1.37.9", name, on_disk, sha512(&good))])).unwrap();
    for (i, index_url) in
        [mirror.join("index.yaml").display().to_string(), format!("file://{}", mirror.join("index.yaml").display())]
            .into_iter()
            .enumerate()
    {
        let dir = tmp.path().join(format!("from-disk-{i}"));
        let out = install(&["--quiet", "--dir", dir.to_str().unwrap(), "--index", &index_url], &[]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(listing(&dir), [".envtest", "etcd", "kube-apiserver"]);
    }

    // What the caller must fix is said, with no build from source: a location that is not
    // one, a folder that cannot be, a release only downloads have, an empty KUBEBUILDER_ASSETS.
    let a_file = tmp.path().join("a-file");
    std::fs::write(&a_file, "").unwrap();
    for (args, env, expected) in [
        (
            vec!["--dir", broken.to_str().unwrap(), "--index", "ftp://mirror.example/envtest-releases.yaml"],
            vec![],
            "error: cannot download the test API server: ftp://mirror.example/envtest-releases.yaml: only http://, https:// and file:// URLs, or file paths, are read\n".to_string(),
        ),
        (
            vec!["--dir", broken.to_str().unwrap(), "--index", "/no/such/index.yaml"],
            vec![],
            "error: cannot download the test API server: /no/such/index.yaml: cannot read it (No such file or directory (os error 2))\n".to_string(),
        ),
        (
            vec!["--dir", a_file.to_str().unwrap(), "--index", &index_url],
            vec![],
            format!("error: cannot install into {}: it is a file, not a folder; pass --dir with a folder\n", a_file.display()),
        ),
        (
            vec!["--from", "build", "--kubernetes-version", "1.36", "--dir", broken.to_str().unwrap()],
            vec![],
            "error: the build from source makes Kubernetes 1.37.2 only; --kubernetes-version 1.36 is for downloads (drop `--from build`)\n".to_string(),
        ),
        (
            vec!["--index", &index_url],
            vec![("KUBEBUILDER_ASSETS", broken.as_path()), ("HOME", tmp.path())],
            format!("error: KUBEBUILDER_ASSETS={} holds no executable etcd, and rop-testenv would refuse it: point it at a folder holding etcd and kube-apiserver, or unset it to install into ~/.cache/rop-testenv/bin\n", broken.display()),
        ),
    ] {
        let out = install(&args, &env);
        assert_eq!((out.status.code(), text(&out.stderr)), (Some(1), expected));
    }
    assert_eq!(listing(&broken), ["notes.txt"]);

    // A folder holding the build's binaries at the versions the build pins is current for the
    // default; asking for a download (or another release) downloads.
    server.asked();
    let built = tmp.path().join("built");
    std::fs::create_dir(&built).unwrap();
    for (binary, version, said) in
        [("etcd", "v3.6.16", "etcd Version: 3.6.16"), ("kube-apiserver", "v1.37.2", "Kubernetes v1.37.2")]
    {
        std::fs::write(built.join(binary), script(said)).unwrap();
        std::fs::set_permissions(built.join(binary), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        std::fs::write(built.join(format!(".{binary}.version")), format!("{version}\n")).unwrap();
    }
    let out = install(&["--dir", built.to_str().unwrap(), "--index", &index_url], &[]);
    assert_eq!(
        text(&out.stdout),
        format!(
            "bin dir: {0}\netcd Version: 3.6.16\nKubernetes v1.37.2\nthe tests find them with ROP_TESTENV_DIR={0}\n",
            built.display()
        )
    );
    assert_eq!(server.asked(), Vec::<String>::new());
    let out = install(&["--from", "download", "--dir", built.to_str().unwrap(), "--index", &index_url], &[]);
    assert!(text(&out.stdout).contains("Kubernetes v1.37.9\n"), "{}", text(&out.stdout));
    assert_eq!(listing(&built), [".envtest", "etcd", "kube-apiserver"]);

    // Binaries put in a folder by hand (no stamp) are used as they are, named by
    // ROP_TESTENV_DIR (so no reminder), and the index is not read.
    let by_hand = tmp.path().join("by-hand");
    std::fs::create_dir(&by_hand).unwrap();
    for binary in ["etcd", "kube-apiserver"] {
        std::fs::copy(built.join(binary), by_hand.join(binary)).unwrap();
    }
    server.asked();
    let out = install(&["--index", &index_url], &[("ROP_TESTENV_DIR", by_hand.as_path())]);
    assert_eq!(
        text(&out.stdout),
        format!("bin dir: {}\netcd Version: 3.6.99\nKubernetes v1.37.9\n", by_hand.display())
    );
    assert_eq!(server.asked(), Vec::<String>::new());
    assert_eq!(listing(&by_hand), ["etcd", "kube-apiserver"]);

    // Without --from download a failed download falls back to building, which needs Go: the
    // warning says why the download failed and the build says what it needs.
    let out = install(&["--dir", broken.to_str().unwrap(), "--index", &server.url("/missing.yaml")], &[]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with(&format!(
            "warning: cannot download the test API server: {} answered 404. Building it from source instead, which needs Go 1.26 or newer and takes about 8 minutes once\n",
            server.url("/missing.yaml")
        )),
        "{stderr}"
    );
    assert!(stderr.contains("install-testenv: error: Go is required to build etcd and kube-apiserver"), "{stderr}");
}

/// The check a newcomer cares about: binaries that arrived by download, with no Go on PATH,
/// run the test API server. The locally installed etcd and kube-apiserver are packed as
/// envtest's archive (stored, not compressed: packing is not what is tested), served,
/// installed by `rop testenv install`, and a ConfigMap goes through the server they start.
#[test]
fn downloaded_binaries_run_the_test_api_server() {
    let found = match rop_testenv::Binaries::find() {
        Ok(found) => found,
        Err(err) if err.is_not_installed() && std::env::var("ROP_TESTENV_REQUIRE").as_deref() != Ok("1") => {
            eprintln!("skipped: {err}");
            return;
        }
        Err(err) => panic!("{err}"),
    };
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        eprintln!("skipped: the served archive is named for linux/amd64");
        return;
    }
    let mut tar = tar::Builder::new(flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::none()));
    for (name, path) in [("etcd", &found.etcd), ("kube-apiserver", &found.kube_apiserver)] {
        tar.append_path_with_name(path, format!("controller-tools/envtest/{name}")).unwrap();
    }
    let packed = tar.into_inner().unwrap().finish().unwrap();
    let server = Server::start();
    let name = "envtest-v1.37.2-linux-amd64.tar.gz";
    server.serve(&format!("/{name}"), packed.clone());
    server.serve("/index.yaml", index(&[("v1.37.2", name, server.url(&format!("/{name}")), sha512(&packed))]));
    drop(packed);

    let tmp = tempfile::tempdir().unwrap();
    let bin = tmp.path().join("bin");
    let out = install(&["--quiet", "--dir", bin.to_str().unwrap(), "--index", &server.url("/index.yaml")], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(listing(&bin), [".envtest", "etcd", "kube-apiserver"]);

    let binaries = rop_testenv::Binaries { etcd: bin.join("etcd"), kube_apiserver: bin.join("kube-apiserver") };
    let mut options = rop_testenv::Options::default();
    options.binaries = Some(binaries);
    let env = options.start().unwrap();
    let data = env.block_on(async {
        use rop::k8s_openapi::api::core::v1::ConfigMap;
        let config_maps: rop::kube::Api<ConfigMap> = rop::kube::Api::namespaced(env.client(), "default");
        let object: ConfigMap = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "downloaded"}, "data": {"from": "envtest archive"}
        }))
        .unwrap();
        config_maps.create(&Default::default(), &object).await.unwrap();
        config_maps.get("downloaded").await.unwrap().data
    });
    assert_eq!(data, Some([("from".to_string(), "envtest archive".to_string())].into()));
}

/// What rop-testenv takes for setup-envtest's store, printed when this test binary runs itself
/// with `ROP_PRINT_SETUP_ENVTEST_STORE=1` in the environment under test; a no-op otherwise.
#[test]
fn print_setup_envtest_store() {
    if std::env::var_os("ROP_PRINT_SETUP_ENVTEST_STORE").is_some() {
        let store = rop_testenv::setup_envtest_store().expect("HOME is set");
        println!("STORE={}", store.display());
    }
}

/// The CLI and rop-testenv compute setup-envtest's store each (the `rop` binary does not link
/// rop-testenv): with and without `XDG_DATA_HOME`, a release `rop testenv install` finds there
/// is in the folder rop-testenv searches.
#[test]
fn the_cli_finds_binaries_in_the_setup_envtest_store_rop_testenv_searches() {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        other => other,
    };
    if std::env::consts::OS != "linux" {
        return;
    }
    for xdg in [None, Some("data")] {
        let home = tempfile::tempdir().unwrap();
        let mut env: Vec<(&str, std::path::PathBuf)> = vec![("HOME", home.path().to_path_buf())];
        if let Some(dir) = xdg {
            env.push(("XDG_DATA_HOME", home.path().join(dir)));
        }
        let printed = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "print_setup_envtest_store", "--nocapture", "--test-threads=1"])
            .env("ROP_PRINT_SETUP_ENVTEST_STORE", "1")
            .env_remove("XDG_DATA_HOME")
            .envs(env.iter().map(|(k, v)| (*k, v.as_os_str())))
            .output()
            .unwrap();
        let printed = text(&printed.stdout);
        // libtest prints the test's name on the same line.
        let store =
            printed.lines().find_map(|l| l.split_once("STORE=")).map(|(_, s)| s).unwrap_or_else(|| panic!("{printed}"));
        let folder = Path::new(store).join(format!("1.37.2-linux-{arch}"));
        std::fs::create_dir_all(&folder).unwrap();
        for binary in ["etcd", "kube-apiserver"] {
            let path = folder.join(binary);
            std::fs::write(&path, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        }
        let env: Vec<(&str, &Path)> = env.iter().map(|(k, v)| (*k, v.as_path())).collect();
        let output = install(&[], &env);
        let said = format!("{}{}", text(&output.stdout), text(&output.stderr));
        let expected = format!(
            "setup-envtest's store holds etcd and kube-apiserver in {}, where rop-testenv finds them",
            folder.display()
        );
        assert!(output.status.success() && said.contains(&expected), "XDG_DATA_HOME {xdg:?}: {said}");
    }
}
