//! Arguments several commands share, flattened into their flags (`#[command(flatten)]`).

/// `--group`, `--version` and `--kind`: the kind version a command acts on. The help below is
/// the common one; a command whose flag means more says so with `mut_arg` on its own struct.
#[derive(Clone, Debug, clap::Args)]
pub struct KindArgs {
    /// API group without the domain, e.g. `cache`.
    #[arg(long)]
    pub group: String,
    /// API version, e.g. `v1alpha1`.
    #[arg(long)]
    pub version: String,
    /// Kind, e.g. `Memcached`.
    #[arg(long)]
    pub kind: String,
}

impl KindArgs {
    /// The three values, for a command built from a PROJECT entry rather than a command line.
    pub fn new(group: &str, version: &str, kind: &str) -> KindArgs {
        KindArgs { group: group.into(), version: version.into(), kind: kind.into() }
    }
}
