//! controller-tools' envtest release index (`envtest-releases.yaml`), the file setup-envtest
//! reads: one `.tar.gz` per Kubernetes version and platform, each with its SHA-512.
//!
//! ```yaml
//! releases:
//!   v1.37.2:
//!     envtest-v1.37.2-linux-amd64.tar.gz:
//!       hash: <128 hex digits, SHA-512 of the archive>
//!       selfLink: https://.../envtest-v1.37.2-linux-amd64.tar.gz
//! ```

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;

/// Where setup-envtest reads the index by default (its `--index` flag's default).
pub const DEFAULT_INDEX_URL: &str =
    "https://raw.githubusercontent.com/kubernetes-sigs/controller-tools/HEAD/envtest-releases.yaml";

#[derive(Debug, Deserialize)]
struct Index {
    releases: BTreeMap<String, BTreeMap<String, Entry>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    hash: String,
    self_link: String,
}

/// A Kubernetes release, `1.37.2`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Release {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// The release wanted: `1.37` takes the index's newest `1.37.x`, `1.37.2` exactly that one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wanted {
    pub major: u32,
    pub minor: u32,
    pub patch: Option<u32>,
}

impl Wanted {
    /// Parses `1.37`, `v1.37`, `1.37.2` or `v1.37.2`.
    ///
    /// # Errors
    /// Anything else, with an example of what is accepted.
    pub fn parse(text: &str) -> Result<Wanted, String> {
        let bad = || {
            format!(
                "`{text}` is not a Kubernetes version: write MAJOR.MINOR (1.37, the newest patch) or MAJOR.MINOR.PATCH (1.37.2)"
            )
        };
        let parts: Vec<&str> = text.strip_prefix('v').unwrap_or(text).split('.').collect();
        let number = |part: &str| part.parse::<u32>().map_err(|_| bad());
        match parts.as_slice() {
            [major, minor] => Ok(Wanted { major: number(major)?, minor: number(minor)?, patch: None }),
            [major, minor, patch] => {
                Ok(Wanted { major: number(major)?, minor: number(minor)?, patch: Some(number(patch)?) })
            }
            _ => Err(bad()),
        }
    }

    /// Whether `release` is the one wanted (any patch when none was given).
    pub fn matches(&self, release: Release) -> bool {
        release.major == self.major && release.minor == self.minor && self.patch.is_none_or(|p| p == release.patch)
    }
}

impl fmt::Display for Wanted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.patch {
            Some(patch) => write!(f, "{}.{}.{patch}", self.major, self.minor),
            None => write!(f, "{}.{}", self.major, self.minor),
        }
    }
}

/// An operating system and CPU in Go's words, as the archive names spell them (`linux`,
/// `amd64`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Platform {
    pub os: String,
    pub arch: String,
}

impl Platform {
    /// This machine's platform, or `None` for one envtest publishes no binaries for.
    pub fn current() -> Option<Platform> {
        let os = match std::env::consts::OS {
            "linux" => "linux",
            "macos" => "darwin",
            "windows" => "windows",
            _ => return None,
        };
        let arch = match std::env::consts::ARCH {
            "x86_64" => "amd64",
            "aarch64" => "arm64",
            "powerpc64" => "ppc64le",
            "s390x" => "s390x",
            _ => return None,
        };
        Some(Platform { os: os.to_string(), arch: arch.to_string() })
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.os, self.arch)
    }
}

/// One archive of the index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Archive {
    /// Its file name, `envtest-v1.37.2-linux-amd64.tar.gz`.
    pub name: String,
    pub release: Release,
    /// Where to download it (the index's `selfLink`).
    pub url: String,
    /// The SHA-512 of the archive, lower-case hex.
    pub sha512: String,
}

/// Reads the name of an archive: `envtest-v1.37.2-linux-amd64.tar.gz`.
fn parse_name(name: &str) -> Option<(Release, Platform)> {
    let rest = name.strip_prefix("envtest-v")?.strip_suffix(".tar.gz")?;
    let mut parts = rest.splitn(3, '-');
    let release = parse_release(parts.next()?)?;
    let (os, arch) = (parts.next()?, parts.next()?);
    Some((release, Platform { os: os.to_string(), arch: arch.to_string() }))
}

/// Reads `1.37.2`.
pub fn parse_release(text: &str) -> Option<Release> {
    let numbers: Vec<u32> = text.split('.').map(|n| n.parse().ok()).collect::<Option<_>>()?;
    let [major, minor, patch] = numbers[..] else { return None };
    Some(Release { major, minor, patch })
}

/// Picks the archive for `wanted` on `platform` from the index's text: the newest matching
/// release. Archive names that do not read as `envtest-vX.Y.Z-OS-ARCH.tar.gz` are skipped, as
/// setup-envtest skips them.
///
/// # Errors
/// The text is not such an index, or no archive matches (the message names the newest
/// release the index has for `platform`).
pub fn choose(text: &str, wanted: Wanted, platform: &Platform) -> Result<Archive, String> {
    let index: Index = serde_yaml::from_str(text).map_err(|e| {
        // A web page given as the index would be quoted whole.
        let mut said = e.to_string();
        if let Some((cut, _)) = said.char_indices().nth(160) {
            said.truncate(cut);
            said.push_str("...");
        }
        format!("it is not an envtest release index ({said})")
    })?;
    let mut for_platform: Vec<Archive> = Vec::new();
    for (name, entry) in index.releases.into_values().flatten() {
        let Some((release, archive_platform)) = parse_name(&name) else { continue };
        if archive_platform == *platform {
            let sha512 = entry.hash.to_ascii_lowercase();
            for_platform.push(Archive { name, release, url: entry.self_link, sha512 });
        }
    }
    for_platform.sort_by_key(|archive| archive.release);
    let newest = for_platform.last().map(|archive| archive.release);
    match for_platform.into_iter().rev().find(|archive| wanted.matches(archive.release)) {
        Some(archive) => Ok(archive),
        None => Err(match newest {
            Some(newest) => {
                format!("it has no Kubernetes {wanted} for {platform} (its newest for {platform} is {newest})")
            }
            None => format!("it has no archive for {platform}"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INDEX: &str = "releases:
  v1.36.0:
    envtest-v1.36.0-linux-amd64.tar.gz:
      hash: AA
      selfLink: https://example.test/envtest-v1.36.0-linux-amd64.tar.gz
  v1.37.0:
    envtest-v1.37.0-linux-amd64.tar.gz:
      hash: bb
      selfLink: https://example.test/envtest-v1.37.0-linux-amd64.tar.gz
    envtest-v1.37.0-darwin-arm64.tar.gz:
      hash: cc
      selfLink: https://example.test/envtest-v1.37.0-darwin-arm64.tar.gz
  v1.37.2:
    envtest-v1.37.2-linux-amd64.tar.gz:
      hash: dd
      selfLink: https://example.test/envtest-v1.37.2-linux-amd64.tar.gz
    notes.txt:
      hash: ee
      selfLink: https://example.test/notes.txt
";

    fn linux() -> Platform {
        Platform { os: "linux".into(), arch: "amd64".into() }
    }

    #[test]
    fn a_minor_takes_its_newest_patch_and_a_patch_itself() {
        let newest = choose(INDEX, Wanted::parse("1.37").unwrap(), &linux()).unwrap();
        assert_eq!(newest.name, "envtest-v1.37.2-linux-amd64.tar.gz");
        assert_eq!(newest.url, "https://example.test/envtest-v1.37.2-linux-amd64.tar.gz");
        assert_eq!(newest.sha512, "dd");
        let exact = choose(INDEX, Wanted::parse("v1.37.0").unwrap(), &linux()).unwrap();
        assert_eq!(exact.release, Release { major: 1, minor: 37, patch: 0 });
        assert_eq!(choose(INDEX, Wanted::parse("1.36").unwrap(), &linux()).unwrap().sha512, "aa");
    }

    #[test]
    fn what_the_index_lacks_is_said() {
        assert_eq!(
            choose(INDEX, Wanted::parse("1.38").unwrap(), &linux()).unwrap_err(),
            "it has no Kubernetes 1.38 for linux/amd64 (its newest for linux/amd64 is 1.37.2)"
        );
        let s390x = Platform { os: "linux".into(), arch: "s390x".into() };
        assert_eq!(
            choose(INDEX, Wanted::parse("1.37").unwrap(), &s390x).unwrap_err(),
            "it has no archive for linux/s390x"
        );
        assert!(
            choose("<html>not found</html>", Wanted::parse("1.37").unwrap(), &linux())
                .unwrap_err()
                .starts_with("it is not an envtest release index (")
        );
    }

    #[test]
    fn versions_read_as_written() {
        assert_eq!(Wanted::parse("v1.37").unwrap(), Wanted { major: 1, minor: 37, patch: None });
        assert_eq!(Wanted::parse("1.37.2").unwrap().to_string(), "1.37.2");
        assert_eq!(
            Wanted::parse("latest").unwrap_err(),
            "`latest` is not a Kubernetes version: write MAJOR.MINOR (1.37, the newest patch) or MAJOR.MINOR.PATCH (1.37.2)"
        );
        assert_eq!(parse_name("envtest-v1.37.2-linux-ppc64le.tar.gz").unwrap().1.arch, "ppc64le");
        assert_eq!(parse_name("envtest-v1.37-linux-amd64.tar.gz"), None);
    }
}
