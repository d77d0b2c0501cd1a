//! The file operations a plan performs, behind a trait so tests can fail any one of them.

use std::io;
use std::path::Path;

/// The mutating operations `Plan::write` needs.
pub trait Filesystem {
    fn create_dir(&mut self, path: &Path) -> io::Result<()>;
    fn write(&mut self, path: &Path, content: &[u8]) -> io::Result<()>;
    fn rename(&mut self, from: &Path, to: &Path) -> io::Result<()>;
    fn remove_file(&mut self, path: &Path) -> io::Result<()>;
    fn remove_dir(&mut self, path: &Path) -> io::Result<()>;
}

/// The real disk. New files get the permissions of the file they replace.
pub struct Disk;

impl Filesystem for Disk {
    fn create_dir(&mut self, path: &Path) -> io::Result<()> {
        std::fs::create_dir(path)
    }
    fn write(&mut self, path: &Path, content: &[u8]) -> io::Result<()> {
        std::fs::write(path, content)
    }
    fn rename(&mut self, from: &Path, to: &Path) -> io::Result<()> {
        if let Ok(meta) = std::fs::metadata(to) {
            std::fs::set_permissions(from, meta.permissions())?;
        }
        std::fs::rename(from, to)
    }
    fn remove_file(&mut self, path: &Path) -> io::Result<()> {
        std::fs::remove_file(path)
    }
    fn remove_dir(&mut self, path: &Path) -> io::Result<()> {
        std::fs::remove_dir(path)
    }
}

/// The disk, except that the `fail_at`-th mutating operation (counting from 0) fails as a full
/// disk would; operations after a failure (the rollback) succeed.
#[cfg(test)]
pub struct FailingDisk {
    pub fail_at: usize,
    pub count: usize,
}

#[cfg(test)]
impl FailingDisk {
    fn step(&mut self) -> io::Result<()> {
        let n = self.count;
        self.count += 1;
        if n == self.fail_at { Err(io::Error::other("no space left on device (injected)")) } else { Ok(()) }
    }
}

#[cfg(test)]
impl Filesystem for FailingDisk {
    fn create_dir(&mut self, path: &Path) -> io::Result<()> {
        self.step()?;
        Disk.create_dir(path)
    }
    fn write(&mut self, path: &Path, content: &[u8]) -> io::Result<()> {
        self.step()?;
        Disk.write(path, content)
    }
    fn rename(&mut self, from: &Path, to: &Path) -> io::Result<()> {
        self.step()?;
        Disk.rename(from, to)
    }
    fn remove_file(&mut self, path: &Path) -> io::Result<()> {
        Disk.remove_file(path)
    }
    fn remove_dir(&mut self, path: &Path) -> io::Result<()> {
        Disk.remove_dir(path)
    }
}
