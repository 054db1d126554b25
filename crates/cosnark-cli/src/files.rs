//! Reading and writing the session's files: public ones replaced
//! atomically, secret ones created readable by their owner only (and
//! refused when others can read them), their bytes wiped after use; and
//! the circom / snarkjs files, every refusal naming the file.

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

use ark_bn254::{Bn254, Fr};
use ark_groth16::{Proof, VerifyingKey};
use he_circom::{snarkjs_json, R1cs, Witness, Zkey, ZkeyWithoutQueries};
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

/// The circom constraint system `path`.
///
/// # Errors
/// [`CliError::Circom`] naming `path`, the section and the field.
pub fn read_r1cs(path: &Path) -> CliResult<R1cs> {
    R1cs::read(path).map_err(|e| CliError::circom(path, e))
}

/// The snarkjs Groth16 proving key `path`.
///
/// # Errors
/// As [`read_r1cs`].
pub fn read_zkey(path: &Path) -> CliResult<Zkey> {
    Zkey::read(path).map_err(|e| CliError::circom(path, e))
}

/// The snarkjs Groth16 proving key `path`, read without its query points.
///
/// # Errors
/// As [`read_r1cs`].
pub fn read_zkey_without_queries(path: &Path) -> CliResult<ZkeyWithoutQueries> {
    ZkeyWithoutQueries::read(path).map_err(|e| CliError::circom(path, e))
}

/// The snarkjs witness `path`.
///
/// # Errors
/// As [`read_r1cs`].
pub fn read_witness(path: &Path) -> CliResult<Witness> {
    Witness::read(path).map_err(|e| CliError::circom(path, e))
}

/// The public inputs in the snarkjs `public.json` `path`.
///
/// # Errors
/// As [`read_r1cs`].
pub fn read_public_json(path: &Path) -> CliResult<Vec<Fr>> {
    snarkjs_json::read_public(path).map_err(|e| CliError::circom(path, e))
}

/// The proof in the snarkjs `proof.json` `path`.
///
/// # Errors
/// As [`read_r1cs`].
pub fn read_proof_json(path: &Path) -> CliResult<Proof<Bn254>> {
    snarkjs_json::read_proof(path).map_err(|e| CliError::circom(path, e))
}

/// The verifying key in the snarkjs `verification_key.json` `path`.
///
/// # Errors
/// As [`read_r1cs`].
pub fn read_vk_json(path: &Path) -> CliResult<VerifyingKey<Bn254>> {
    snarkjs_json::read_verifying_key(path).map_err(|e| CliError::circom(path, e))
}

/// Replaces `path` with the snarkjs `public.json` of `values` atomically.
///
/// # Errors
/// A file error naming `path`.
pub fn write_public_json(path: &Path, values: &[Fr]) -> CliResult<()> {
    snarkjs_json::write_public(path, values).map_err(|e| CliError::circom(path, e))
}

/// Replaces `path` with the snarkjs `proof.json` of `proof` atomically (a
/// reader sees no file, the previous one, or the whole new one).
///
/// # Errors
/// A file error naming `path`.
pub fn write_proof_json(path: &Path, proof: &Proof<Bn254>) -> CliResult<()> {
    snarkjs_json::write_proof(path, proof).map_err(|e| CliError::circom(path, e))
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
