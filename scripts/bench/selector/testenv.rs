// A rop-testenv API server for scripts/bench.sh's operator-selector section, as an example of
// the generated project (rop-testenv is its dev-dependency): `testenv OUT` starts etcd and
// kube-apiserver with an audit log, writes OUT (shell assignments: the admin kubeconfig, one
// that acts as the ServiceAccount default/controller-manager, the audit log), then runs until
// its standard input closes, and stops both processes.

use std::io::Read;

use anyhow::Context;

fn main() -> anyhow::Result<()> {
    let out = std::env::args().nth(1).context("usage: testenv OUT")?;
    let mut options = rop_testenv::Options::default();
    options.audit_log = true;
    let env = options.start()?;
    let manager = env.kubeconfig_as_service_account("default", "controller-manager")?;
    let audit = env.audit_log().context("no audit log")?;
    let text = format!(
        "ADMIN_KUBECONFIG='{}'\nMANAGER_KUBECONFIG='{}'\nAUDIT_LOG='{}'\nSTARTUP_SECONDS={:.2}\n",
        env.kubeconfig().display(),
        manager.display(),
        audit.display(),
        env.startup_time().as_secs_f64()
    );
    std::fs::write(format!("{out}.tmp"), text)?;
    std::fs::rename(format!("{out}.tmp"), &out)?;
    let _ = std::io::stdin().read_to_end(&mut Vec::new());
    Ok(())
}
