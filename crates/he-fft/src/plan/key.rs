//! The plan key: a per-user secret that lets a loader recognize plan files
//! it wrote itself, and where it is kept.
//!
//! See [`PlanKey`] for the key, its file and what it vouches for.

use crate::error::{Error, Result};
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use zeroize::Zeroize;

/// Bytes of a plan key.
pub const PLAN_KEY_BYTES: usize = 32;

/// A per-user secret key that authenticates the plan files its owner
/// saves: 32 bytes from the operating system's CSPRNG. Saving a plan with
/// a key ([`FftPlan::write_to_with_key`](crate::FftPlan::write_to_with_key)) stores the key's id, a fresh
/// nonce and a GMAC-AES-256 tag over the whole file, under a key derived
/// from this one with HKDF-SHA256; loading with the same key
/// ([`FftPlanBuilder::load_with_key`](crate::FftPlanBuilder::load_with_key)) accepts a file whose tag verifies
/// without recomputing it, and verifies any other file. Wiped from memory
/// on drop; its `Debug` shows only its id.
///
/// # The key file
/// [`PlanKey::user`] reads the user's key from [`PlanKey::default_path`]
/// (`$HE_PLAN_KEY`, else `$XDG_CONFIG_HOME/big-t-bgv/plan.key`, else
/// `$HOME/.config/big-t-bgv/plan.key`), creating it on first need. The file
/// holds the 32 bytes and nothing else, belongs to the user and is readable
/// by the user alone (mode 0600); any other file there is refused with an
/// error, never replaced, so a key is never lost silently (plans saved with
/// a lost key still load, by verification). A new key is written to a
/// temporary file of mode 0600 in the same directory (created 0700 if
/// missing), synced, then hard-linked to the key's name: unlike a rename,
/// a link never replaces a file created meanwhile, so two processes or
/// threads creating the key at once end with the same one (the loser of
/// the race reads the winner's).
///
/// The key never leaves the machine: nothing writes it but this type, and
/// a plan file holds only its id (16 bytes of a SHA-256 of the key with a
/// label, which tell nothing of it) and tags. Servers and tests that must
/// not depend on `$HOME` pass their own: [`generate`](Self::generate),
/// [`load`](Self::load), [`from_bytes`](Self::from_bytes).
#[derive(Clone)]
pub struct PlanKey {
    bytes: [u8; PLAN_KEY_BYTES],
}

impl Drop for PlanKey {
    fn drop(&mut self) {
        self.bytes.zeroize();
    }
}

impl std::fmt::Debug for PlanKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let id: String = self.id().iter().map(|b| format!("{b:02x}")).collect();
        f.debug_struct("PlanKey").field("id", &id).finish()
    }
}

impl PlanKey {
    /// A fresh key from the operating system's CSPRNG.
    ///
    /// # Errors
    /// [`Error::He`] with [`helib_rs::Error::Randomness`] when the random
    /// source fails.
    pub fn generate() -> Result<Self> {
        let mut bytes = [0u8; PLAN_KEY_BYTES];
        getrandom::getrandom(&mut bytes)
            .map_err(|e| Error::He(helib_rs::Error::Randomness(e.to_string())))?;
        Ok(Self { bytes })
    }

    /// The key with these bytes (the caller keeps them secret and wipes its
    /// copy).
    pub fn from_bytes(bytes: [u8; PLAN_KEY_BYTES]) -> Self {
        Self { bytes }
    }

    /// The key's id, stored in the files it tags: the first 16 bytes of
    /// SHA-256("plan key id" ‖ key). It names the key without telling
    /// anything about it.
    pub fn id(&self) -> [u8; 16] {
        let digest = Sha256::new()
            .chain_update(b"plan key id")
            .chain_update(self.bytes)
            .finalize();
        let mut id = [0u8; 16];
        id.copy_from_slice(&digest[..16]);
        id
    }

    /// The key's bytes, for the MAC.
    pub(super) fn secret(&self) -> &[u8; PLAN_KEY_BYTES] {
        &self.bytes
    }

    /// Where the user's key is kept: `$HE_PLAN_KEY` if set (a file path),
    /// else `$XDG_CONFIG_HOME/big-t-bgv/plan.key`, else
    /// `$HOME/.config/big-t-bgv/plan.key` (empty variables count as unset).
    ///
    /// # Errors
    /// [`Error::PlanKeyLocation`] when none of the three is set.
    pub fn default_path() -> Result<PathBuf> {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        if let Some(path) = var("HE_PLAN_KEY") {
            return Ok(PathBuf::from(path));
        }
        let config = var("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .or_else(|| var("HOME").map(|home| PathBuf::from(home).join(".config")))
            .ok_or(Error::PlanKeyLocation)?;
        Ok(config.join("big-t-bgv").join("plan.key"))
    }

    /// The user's key: [`load_or_create`](Self::load_or_create) at
    /// [`default_path`](Self::default_path).
    ///
    /// # Errors
    /// As [`default_path`](Self::default_path) and
    /// [`load_or_create`](Self::load_or_create).
    pub fn user() -> Result<Self> {
        Self::load_or_create(&Self::default_path()?)
    }

    /// Reads the key file at `path`, which must be a regular file of exactly
    /// 32 bytes, owned by this process's user and readable by that user
    /// only.
    ///
    /// # Errors
    /// [`Error::PlanKeyPermissions`] for a file the group or others may
    /// read or write; [`Error::PlanKeySize`] for a file of another size;
    /// [`Error::PlanKeyFile`] for a file that is missing, not a regular
    /// file, owned by another user or that cannot be read.
    pub fn load(path: &Path) -> Result<Self> {
        let file = File::open(path).map_err(|e| key_file(path, e.to_string()))?;
        Self::read_checked(path, file)
    }

    /// Reads the key file at `path` as [`load`](Self::load) does, or, when
    /// there is none, creates it with a fresh key (see [the key
    /// file](Self#the-key-file): mode 0600, created whole or not at all,
    /// never over an existing file).
    ///
    /// # Errors
    /// As [`load`](Self::load) for an existing file (it is never replaced);
    /// [`Error::PlanKeyFile`] when the directory or the file cannot be
    /// created; as [`generate`](Self::generate).
    pub fn load_or_create(path: &Path) -> Result<Self> {
        match File::open(path) {
            Ok(file) => return Self::read_checked(path, file),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(key_file(path, e.to_string())),
        }
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
            .map_err(|e| key_file(&dir, format!("cannot create its directory: {e}")))?;
        let key = Self::generate()?;
        let temporary = dir.join(format!(
            ".plan.key.{}.{:016x}",
            std::process::id(),
            temporary_suffix()?
        ));
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temporary)
            .and_then(|mut file| {
                file.write_all(&key.bytes)?;
                file.sync_all()
            })
            .and_then(|()| std::fs::hard_link(&temporary, path));
        let _ = std::fs::remove_file(&temporary);
        match written {
            Ok(()) => {
                // The new name must survive a crash, like the bytes.
                if let Ok(d) = File::open(&dir) {
                    let _ = d.sync_all();
                }
                Ok(key)
            }
            // Another process or thread created it first: use theirs.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Self::load(path),
            Err(e) => Err(key_file(path, format!("cannot create it: {e}"))),
        }
    }

    /// Checks the open key file's owner, mode and size, and reads it.
    fn read_checked(path: &Path, mut file: File) -> Result<Self> {
        let meta = file.metadata().map_err(|e| key_file(path, e.to_string()))?;
        if !meta.is_file() {
            return Err(key_file(path, "it is not a regular file".into()));
        }
        // SAFETY: geteuid has no preconditions and cannot fail.
        let user = unsafe { libc::geteuid() };
        if meta.uid() != user {
            return Err(key_file(
                path,
                format!("it belongs to user {}, not to user {user}", meta.uid()),
            ));
        }
        let mode = meta.mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(Error::PlanKeyPermissions {
                path: path.to_path_buf(),
                mode,
            });
        }
        if meta.len() != PLAN_KEY_BYTES as u64 {
            return Err(Error::PlanKeySize {
                path: path.to_path_buf(),
                size: meta.len(),
            });
        }
        let mut bytes = [0u8; PLAN_KEY_BYTES];
        let mut extra = [0u8; 1];
        let read = file
            .read_exact(&mut bytes)
            .and_then(|()| file.read(&mut extra));
        match read {
            Ok(0) => Ok(Self { bytes }),
            Ok(_) => {
                bytes.zeroize();
                Err(key_file(path, "it grew while being read".into()))
            }
            Err(e) => {
                bytes.zeroize();
                Err(key_file(path, e.to_string()))
            }
        }
    }
}

/// A random suffix for a temporary file's name.
fn temporary_suffix() -> Result<u64> {
    let mut b = [0u8; 8];
    getrandom::getrandom(&mut b)
        .map_err(|e| Error::He(helib_rs::Error::Randomness(e.to_string())))?;
    Ok(u64::from_le_bytes(b))
}

/// The error for a key file that cannot be used, with why.
fn key_file(path: &Path, problem: String) -> Error {
    Error::PlanKeyFile {
        path: path.to_path_buf(),
        problem,
    }
}

/// HMAC-SHA256 (RFC 2104) with a key of at most one block: the inner hash
/// of (key ⊕ ipad) ‖ message, the outer of (key ⊕ opad) ‖ inner digest.
/// The padded keys are wiped; the two hash states derived from them are
/// not (the hash type offers no way to).
#[derive(Clone)]
pub(super) struct HmacSha256 {
    inner: Sha256,
    outer: Sha256,
}

impl HmacSha256 {
    /// SHA-256's block size in bytes.
    const BLOCK: usize = 64;

    /// A MAC under `key` (at most 64 bytes).
    pub(super) fn new(key: &[u8]) -> Self {
        debug_assert!(key.len() <= Self::BLOCK);
        let mut padded = [0u8; Self::BLOCK];
        padded[..key.len()].copy_from_slice(key);
        let mut pad = [0u8; Self::BLOCK];
        let mut keyed = |byte: u8| {
            for (p, k) in pad.iter_mut().zip(&padded) {
                *p = k ^ byte;
            }
            let state = Sha256::new().chain_update(pad);
            pad.zeroize();
            state
        };
        let inner = keyed(0x36);
        let outer = keyed(0x5c);
        padded.zeroize();
        Self { inner, outer }
    }

    /// Feeds `data` to the MAC.
    pub(super) fn update(&mut self, data: &[u8]) {
        self.inner.update(data);
    }

    /// The tag of everything fed.
    pub(super) fn finalize(self) -> [u8; 32] {
        let inner = self.inner.finalize();
        self.outer.chain_update(inner).finalize().into()
    }
}

/// Whether two tags are equal, in time independent of where they differ.
pub(super) fn tags_equal<const N: usize>(a: &[u8; N], b: &[u8; N]) -> bool {
    let diff = a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y));
    std::hint::black_box(diff) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// RFC 4231's test cases 1 and 2 (keys shorter than a block, as plan
    /// keys are).
    #[test]
    fn hmac_matches_rfc_4231() {
        let cases: [(&[u8], &[u8], &str); 2] = [
            (
                &[0x0b; 20],
                b"Hi There",
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
            ),
            (
                b"Jefe",
                b"what do ya want for nothing?",
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
            ),
        ];
        for (key, data, want) in cases {
            let mut mac = HmacSha256::new(key);
            // In two pieces: the MAC is streamed.
            mac.update(&data[..3]);
            mac.update(&data[3..]);
            assert_eq!(hex(&mac.finalize()), want);
        }
    }

    #[test]
    fn tags_compare() {
        let a = [7u8; 32];
        let mut b = a;
        assert!(tags_equal(&a, &b));
        b[31] ^= 1;
        assert!(!tags_equal(&a, &b));
    }
}
