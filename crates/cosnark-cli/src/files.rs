//! Reading and writing the session's files: public ones replaced
//! atomically, secret ones created readable by their owner only (and
//! refused when others can read them), their bytes wiped after use.

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

use zeroize::Zeroizing;

use crate::error::{CliError, CliResult};

/// The bytes of `path`.
///
/// # Errors
/// A file error naming `path`.
pub fn read(path: &Path) -> CliResult<Vec<u8>> {
    std::fs::read(path).map_err(|e| CliError::file(path, e))
}

/// Replaces `path` with `bytes` atomically (a reader never sees a partial
/// file).
///
/// # Errors
/// A file error naming `path`.
pub fn write_public(path: &Path, bytes: &[u8]) -> CliResult<()> {
    he_circom::atomic_file::write_atomic(path, bytes).map_err(|e| CliError::file(path, e))
}

/// Creates `path` (it must not exist) readable and writable by its owner
/// only, and writes `bytes` to it.
///
/// # Errors
/// A file error naming `path`, also when it exists.
pub fn write_secret(path: &Path, bytes: &[u8]) -> CliResult<()> {
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| CliError::file(path, e))?;
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| {
            let _ = std::fs::remove_file(path);
            CliError::file(path, e)
        })
}

/// The bytes of the secret file `path`, which only its owner may read.
///
/// # Errors
/// A file error naming `path`; [`CliError::Malformed`] when the group or
/// others may read or write it.
pub fn read_secret(path: &Path) -> CliResult<Zeroizing<Vec<u8>>> {
    let metadata = std::fs::metadata(path).map_err(|e| CliError::file(path, e))?;
    let mode = metadata.permissions().mode();
    if mode & 0o077 != 0 {
        return Err(CliError::malformed(
            path,
            format!(
                "a secret file must be readable by its owner only (mode {mode:o}; run chmod 600)"
            ),
        ));
    }
    Ok(Zeroizing::new(read(path)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_files_are_private_new_and_checked() {
        let dir = std::env::temp_dir().join(format!("cosnark-files-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("party-0.key");
        write_secret(&path, b"secret").unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(read_secret(&path).unwrap().as_slice(), b"secret");
        // No overwrite.
        assert!(write_secret(&path, b"other").is_err());
        // Readable by others: refused.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let error = read_secret(&path).unwrap_err().to_string();
        assert!(error.contains("owner only"), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
