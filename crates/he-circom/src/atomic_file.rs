//! Atomic file replacement: the bytes go to a fresh temporary file in the
//! target's directory, are flushed to disk, and the temporary file is
//! renamed over the target, so a reader sees the old file or the whole new
//! one, never a partial file.
//!
//! [`write_atomic`] writes bytes held in memory; [`AtomicFile`] streams a
//! file too big to hold (a powers-of-tau file) and is committed at the end.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Writes `bytes` to `path` atomically: a temporary file in the same
/// directory (created exclusively), `fsync`, rename over `path`, then an
/// `fsync` of the directory (where the platform allows opening one). On
/// any failure the temporary file is removed and `path` is untouched.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("he-circom-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("proof.json");
/// he_circom::atomic_file::write_atomic(&path, b"{}")?;
/// assert_eq!(std::fs::read(&path)?, b"{}");
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
///
/// # Errors
/// Any I/O error of the steps; `path` must name a file (not end in `..`
/// or a root).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = AtomicFile::create(path)?;
    file.write_all(bytes)?;
    file.commit()
}

/// A file written in pieces that appears at its path only whole: the
/// writes go (buffered) to a temporary file in the target's directory,
/// and [`commit`](Self::commit) flushes it to disk and renames it over the
/// target. Dropped without a successful commit (an error on the way, a
/// panic), it removes the temporary file and leaves the target untouched.
///
/// ```
/// use std::io::Write;
/// use he_circom::atomic_file::AtomicFile;
///
/// let dir = std::env::temp_dir().join(format!("he-circom-doc-stream-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("big.bin");
/// let mut file = AtomicFile::create(&path)?;
/// for chunk in 0..4u8 {
///     file.write_all(&[chunk; 1024])?;
/// }
/// assert!(!path.exists()); // not before the commit
/// file.commit()?;
/// assert_eq!(std::fs::read(&path)?.len(), 4096);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct AtomicFile {
    target: PathBuf,
    dir: PathBuf,
    tmp: PathBuf,
    /// `None` once committed (or while committing).
    file: Option<BufWriter<File>>,
    /// Whether the temporary file has been renamed over the target.
    renamed: bool,
}

/// The buffer between the writes and the temporary file.
const BUFFER_BYTES: usize = 1 << 20;

impl AtomicFile {
    /// Creates the temporary file for `path` (exclusively, next to it).
    ///
    /// # Errors
    /// The creation's I/O error; [`io::ErrorKind::InvalidInput`] when
    /// `path` does not name a file (ends in `..` or is a root).
    pub fn create(path: &Path) -> io::Result<Self> {
        let name = path.file_name().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} does not name a file", path.display()),
            )
        })?;
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        loop {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let mut tmp_name = std::ffi::OsString::from(".");
            tmp_name.push(name);
            tmp_name.push(format!(".tmp.{}.{n}", std::process::id()));
            let tmp = dir.join(tmp_name);
            match OpenOptions::new().write(true).create_new(true).open(&tmp) {
                Ok(file) => {
                    return Ok(AtomicFile {
                        target: path.to_path_buf(),
                        dir,
                        tmp,
                        file: Some(BufWriter::with_capacity(BUFFER_BYTES, file)),
                        renamed: false,
                    })
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// The path the file will have once committed.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Flushes the buffered bytes, `fsync`s the temporary file, renames it
    /// over the target and `fsync`s the directory (where the platform
    /// allows opening one).
    ///
    /// # Errors
    /// Any I/O error of the steps; the temporary file is then removed and
    /// the target untouched.
    pub fn commit(mut self) -> io::Result<()> {
        let writer = self.file.take().ok_or_else(closed)?;
        let file = writer.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        fs::rename(&self.tmp, &self.target)?;
        self.renamed = true;
        // Make the rename itself durable; not every platform can open a
        // directory, and the file is complete either way.
        if let Ok(d) = File::open(&self.dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }

    fn writer(&mut self) -> io::Result<&mut BufWriter<File>> {
        self.file.as_mut().ok_or_else(closed)
    }
}

fn closed() -> io::Error {
    io::Error::other("the atomic file is already committed")
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer()?.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.writer()?.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer()?.flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.renamed {
            // Close first (dropping the buffer may try a last write).
            drop(self.file.take());
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("he-circom-atomic-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn replaces_and_leaves_no_temporary_file() {
        let dir = scratch("replace");
        let path = dir.join("out.json");
        write_atomic(&path, b"first").unwrap();
        write_atomic(&path, b"second").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"second");
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("out.json")]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failed_write_leaves_the_old_file() {
        let dir = scratch("fail");
        // The target is a non-empty directory: the rename fails.
        let path = dir.join("busy");
        fs::create_dir_all(path.join("inside")).unwrap();
        assert!(write_atomic(&path, b"data").is_err());
        assert!(path.join("inside").is_dir());
        assert_eq!(
            fs::read_dir(&dir).unwrap().count(),
            1,
            "temporary file left"
        );
        assert!(write_atomic(Path::new("/"), b"x").is_err());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_dropped_atomic_file_leaves_nothing() {
        let dir = scratch("dropped");
        let path = dir.join("big.bin");
        write_atomic(&path, b"old").unwrap();
        {
            let mut file = AtomicFile::create(&path).unwrap();
            assert_eq!(file.target(), path.as_path());
            file.write_all(&[7u8; 3 * BUFFER_BYTES]).unwrap();
            // Not committed: as if writing had failed half-way.
        }
        assert_eq!(fs::read(&path).unwrap(), b"old");
        assert_eq!(
            fs::read_dir(&dir).unwrap().count(),
            1,
            "temporary file left"
        );
        let mut file = AtomicFile::create(&path).unwrap();
        file.write_all(&[7u8; 3 * BUFFER_BYTES]).unwrap();
        file.commit().unwrap();
        assert_eq!(fs::read(&path).unwrap().len(), 3 * BUFFER_BYTES);
        assert_eq!(
            fs::read_dir(&dir).unwrap().count(),
            1,
            "temporary file left"
        );
        fs::remove_dir_all(&dir).unwrap();
    }
}
