//! One module per `rop` command.

pub mod alpha_generate;
pub mod args;
pub mod create_api;
pub mod create_webhook;
pub mod delete_api;
pub mod delete_webhook;
pub mod edit;
pub mod generate;
pub mod generate_compat;
pub mod helm;
pub mod init;
pub mod testenv;
pub mod verify;
pub mod verify_against;

/// An error in how `rop` was called (a missing or unreadable input, a bad option value):
/// `rop` exits with code 2 for it, as for a command-line parse error, and 1 for findings.
#[derive(Debug)]
pub struct UsageError(String);

impl UsageError {
    /// An error with this message (what was wrong and how to fix it).
    pub fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// The text of an input named on the command line: standard input for `-` (as `kubectl apply
/// -f -` reads it), else the file `path` (where `shown`, as the user wrote it, points).
pub fn read_input(path: &std::path::Path, shown: &str) -> std::io::Result<String> {
    if shown == "-" { std::io::read_to_string(std::io::stdin()) } else { std::fs::read_to_string(path) }
}

/// The copyright header put on top of generated Rust files, from `--owner` and `--license`
/// (kubebuilder's `hack/boilerplate.go.txt`), or empty for `--license none`. The year comes
/// from `SOURCE_DATE_EPOCH` when set (reproducible output), else from the clock.
pub fn header(license: init::License, owner: &str) -> String {
    let Some(spdx) = license.spdx() else { return String::new() };
    let owner = if owner.is_empty() { String::new() } else { format!(" {owner}") };
    format!("// Copyright {}{owner}.\n// SPDX-License-Identifier: {spdx}\n\n", current_year())
}

fn current_year() -> i64 {
    let secs = std::env::var("SOURCE_DATE_EPOCH").ok().and_then(|s| s.parse::<i64>().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
    });
    year_of(secs)
}

/// The UTC year of `secs` seconds after the Unix epoch.
fn year_of(secs: i64) -> i64 {
    // Civil year from days since 1970-01-01 (Howard Hinnant's days_from_civil, inverted).
    let z = secs.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    yoe + era * 400 + i64::from(month <= 2)
}

#[cfg(test)]
mod tests {
    #[test]
    fn year_from_epoch() {
        // 2026-11-29T00:00:00Z, 2024-02-29T12:00:00Z, 1970-01-01, 2023-12-31T23:59:59Z
        for (secs, year) in [(1_795_910_400_i64, 2026), (1_709_208_000, 2024), (0, 1970), (1_704_067_199, 2023)] {
            assert_eq!(super::year_of(secs), year, "{secs}");
        }
    }
}
