//! The checksum every format of this crate ends with: BLAKE3 (32 bytes) of
//! the bytes before it, against corruption (not a MAC: anyone can recompute
//! it). A round-1 commitment covers a share message's checksum, so its
//! binding rests on BLAKE3's collision resistance.
//!
//! BLAKE3 hashes the large messages of a key session (a round-1 share of
//! 38 MB at N = 2^16) about twice as fast as SHA-256 on one core of a
//! processor with SHA extensions, and its hasher is wiped when dropped (the
//! dealings and exports it reads are secret). The formats moved from
//! SHA-256 at the versions [`check_version`] names: a reader refuses an
//! older version by name, before looking at its checksum.

use zeroize::Zeroize;

use crate::error::{Error, Result};

/// Bytes of a checksum trailer.
pub(crate) const CHECKSUM_BYTES: usize = 32;

/// The incremental form of [`checksum`], for an encoding hashed in pieces.
/// Its state (which holds the last bytes it read, possibly secret) is wiped
/// when it is dropped.
pub(crate) struct Hasher(blake3::Hasher);

impl Hasher {
    /// A hasher that has read nothing.
    pub(crate) fn new() -> Self {
        Self(blake3::Hasher::new())
    }

    /// Reads `bytes`.
    pub(crate) fn update(&mut self, bytes: &[u8]) -> &mut Self {
        self.0.update(bytes);
        self
    }

    /// The checksum of everything read so far.
    pub(crate) fn finalize(&self) -> [u8; CHECKSUM_BYTES] {
        self.0.finalize().into()
    }
}

impl Drop for Hasher {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

/// The checksum of `bytes`.
pub(crate) fn checksum(bytes: &[u8]) -> [u8; CHECKSUM_BYTES] {
    Hasher::new().update(bytes).finalize()
}

/// Appends the checksum of everything in `out`. Reserve its 32 bytes
/// beforehand for a secret buffer (no reallocation then leaves a copy).
pub(crate) fn append_checksum(out: &mut Vec<u8>) {
    let digest = checksum(out);
    out.extend_from_slice(&digest);
}

/// The body of `bytes` and its trailer, once the trailer is the body's
/// checksum.
///
/// # Errors
/// [`Error::MalformedMessage`] naming `what` for fewer than 32 bytes or a
/// wrong checksum.
pub(crate) fn checked_split<'a>(
    what: &str,
    bytes: &'a [u8],
) -> Result<(&'a [u8], [u8; CHECKSUM_BYTES])> {
    let split = bytes
        .len()
        .checked_sub(CHECKSUM_BYTES)
        .ok_or_else(|| Error::MalformedMessage(format!("{what}: shorter than its checksum")))?;
    let (body, trailer) = bytes.split_at(split);
    let expected = checksum(body);
    if expected.as_slice() != trailer {
        return Err(Error::MalformedMessage(format!(
            "{what}: checksum mismatch (corrupted in transit or in storage)"
        )));
    }
    Ok((body, expected))
}

/// Checks the magic and version of an encoding of `what` before its
/// checksum is looked at, so an encoding from an older build is named as
/// such rather than as corrupted. `current` is the format's version, the
/// first whose checksum is BLAKE3 (every earlier one ended with SHA-256).
///
/// # Errors
/// [`Error::MalformedMessage`] naming `what`: for fewer than 5 bytes, a
/// wrong magic, an earlier version (named, with the advice that every role
/// must run the same version), or a later one.
pub(crate) fn check_version(what: &str, bytes: &[u8], magic: &[u8; 4], current: u8) -> Result<()> {
    let bad = |detail: String| Error::MalformedMessage(format!("{what}: {detail}"));
    let (Some(found_magic), Some(&found)) = (bytes.get(..4), bytes.get(4)) else {
        return Err(bad("shorter than its magic and version".into()));
    };
    if found_magic != magic {
        return Err(bad("wrong magic (not this kind of object)".into()));
    }
    if found == current {
        Ok(())
    } else if found < current {
        Err(bad(format!(
            "version {found} is no longer read (it ended with a SHA-256 checksum; \
             version {current} ends with BLAKE3); every party and the server must run \
             the same version"
        )))
    } else {
        Err(bad(format!(
            "unsupported version {found} (this build reads {current})"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAGIC: &[u8; 4] = b"TEST";
    const V: u8 = 3;

    #[test]
    fn checksum_is_blake3_of_the_body() {
        // The BLAKE3 test vector for the empty input (from its specification).
        let empty = "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262";
        let hex: String = checksum(b"").iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, empty);
        let mut out = b"some body".to_vec();
        append_checksum(&mut out);
        let (body, sum) = checked_split("object", &out).unwrap();
        assert_eq!(body, b"some body");
        assert_eq!(sum, checksum(b"some body"));
        let mut pieces = Hasher::new();
        pieces.update(b"some ").update(b"body");
        assert_eq!(pieces.finalize(), sum);
    }

    #[test]
    fn a_changed_byte_or_a_short_input_is_refused_by_name() {
        let mut out = b"some body".to_vec();
        append_checksum(&mut out);
        for i in 0..out.len() {
            let mut changed = out.clone();
            changed[i] ^= 1;
            let err = checked_split("object", &changed).unwrap_err().to_string();
            assert!(err.contains("object: checksum mismatch"), "{err}");
        }
        let err = checked_split("object", &out[..31]).unwrap_err().to_string();
        assert!(err.contains("shorter than its checksum"), "{err}");
    }

    #[test]
    fn versions_are_named() {
        assert!(check_version("thing", b"TEST\x03rest", MAGIC, V).is_ok());
        let old = check_version("thing", b"TEST\x02", MAGIC, V)
            .unwrap_err()
            .to_string();
        assert!(old.contains("thing: version 2 is no longer read"), "{old}");
        assert!(old.contains("SHA-256"), "{old}");
        let new = check_version("thing", b"TEST\x04", MAGIC, V)
            .unwrap_err()
            .to_string();
        assert!(
            new.contains("unsupported version 4 (this build reads 3)"),
            "{new}"
        );
        let magic = check_version("thing", b"TSET\x03", MAGIC, V)
            .unwrap_err()
            .to_string();
        assert!(magic.contains("wrong magic"), "{magic}");
        let short = check_version("thing", b"TES", MAGIC, V)
            .unwrap_err()
            .to_string();
        assert!(short.contains("shorter than its magic"), "{short}");
    }
}
