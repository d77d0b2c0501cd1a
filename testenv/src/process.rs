//! The two processes: ports, logs, spawning and stopping them.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Once;
use std::time::{Duration, Instant};

use crate::Error;
use crate::error::io_err;

/// A free TCP port on 127.0.0.1, chosen by the kernel.
pub(crate) fn free_port() -> Result<u16, Error> {
    let listener = TcpListener::bind(("127.0.0.1", 0)).map_err(io_err("finding a free port"))?;
    Ok(listener.local_addr().map_err(io_err("finding a free port"))?.port())
}

/// The last `lines` lines of a log file.
pub(crate) fn log_tail(path: &Path, lines: usize) -> String {
    let Ok(mut file) = File::open(path) else { return format!("({} is missing)", path.display()) };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let _ = file.seek(SeekFrom::Start(len.saturating_sub(64 * 1024)));
    let mut bytes = Vec::new();
    let _ = file.read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes);
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// The two running processes. Shared with the supervisor thread that spawned them.
#[derive(Default)]
pub(crate) struct Processes {
    pub(crate) etcd: Option<Child>,
    pub(crate) kube_apiserver: Option<Child>,
}

/// Sends SIGTERM (SIGKILL where there are no signals), waits up to `grace`, then kills.
pub(crate) fn stop(child: &mut Child, grace: Duration) {
    if let Ok(Some(_)) = child.try_wait() {
        return;
    }
    #[cfg(unix)]
    {
        if let Ok(pid) = libc::pid_t::try_from(child.id()) {
            // SAFETY: kill(2) with a pid we spawned and have not reaped yet.
            unsafe { libc::kill(pid, libc::SIGTERM) };
        }
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    #[cfg(not(unix))]
    let _ = grace;
    let _ = child.kill();
    let _ = child.wait();
}

impl Processes {
    /// The API server first: with etcd gone it hangs in its shutdown (lease cleanup).
    pub(crate) fn stop_all(&mut self) {
        if let Some(mut child) = self.kube_apiserver.take() {
            stop(&mut child, Duration::from_secs(5));
        }
        if let Some(mut child) = self.etcd.take() {
            stop(&mut child, Duration::from_secs(5));
        }
    }
}

/// Spawns `command` so that it dies with the thread that spawned it (Linux: the parent-death
/// signal), which is the supervisor thread, which lives as long as the [`TestEnv`] or the
/// test process.
pub(crate) fn spawn(mut command: Command, log: &Path) -> Result<Child, Error> {
    // Appended to: a process started again (`TestEnv::restart_api_server`) goes on in its log.
    let out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .map_err(io_err(format!("creating {}", log.display())))?;
    let err = out.try_clone().map_err(io_err(format!("opening {}", log.display())))?;
    command.stdin(Stdio::null()).stdout(out).stderr(err);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: prctl is async-signal-safe; nothing else runs between fork and exec.
        unsafe {
            command.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    let program = command.get_program().to_owned();
    command.spawn().map_err(io_err(format!("starting {}", Path::new(&program).display())))
}

/// Installs rustls' ring crypto provider as the process default, once.
pub(crate) fn install_crypto_provider() {
    static ONCE: Once = Once::new();
    // rustls 0.23.48 deprecated ring's provider (no post-quantum key exchange); kube's `ring`
    // feature still uses it, and a test server needs nothing more.
    #[allow(deprecated)]
    ONCE.call_once(|| {
        // Err means another provider was installed first, which serves as well.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}
