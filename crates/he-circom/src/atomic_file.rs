//! Atomic file replacement: the bytes go to a fresh temporary file in the
//! target's directory, are flushed to disk, and the temporary file is
//! renamed over the target, so a reader sees the old file or the whole new
//! one, never a partial file.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
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
    let (tmp, mut file) = loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(name);
        tmp_name.push(format!(".tmp.{}.{n}", std::process::id()));
        let tmp = dir.join(tmp_name);
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(file) => break (tmp, file),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    };
    let result = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| {
            drop(file);
            fs::rename(&tmp, path)
        });
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    // Make the rename itself durable; not every platform can open a
    // directory, and the file is complete either way.
    if let Ok(d) = File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
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
}
