//! Residues as bytes: every format of this crate writes a residue as a
//! little-endian `u64`, and this module is where residues become bytes and
//! back.
//!
//! On a little-endian processor the bytes of a `&[u64]` in memory already
//! are that encoding, so writing and hashing a polynomial of megabytes reads
//! it in place (no staging copy, and no copy of a secret left behind), and
//! reading one is a single copy into an aligned buffer. A big-endian
//! processor gets the same bytes through a small staging buffer, wiped
//! afterwards.

use zerocopy::byteorder::little_endian::U64;
use zerocopy::{FromBytes, IntoBytes};
use zeroize::Zeroizing;

/// Hands `values` to `f` as little-endian bytes: all at once on a
/// little-endian processor, a few KiB at a time otherwise (as many calls as
/// it takes, in order).
pub(crate) fn with_le_bytes(values: &[u64], mut f: impl FnMut(&[u8])) {
    if cfg!(target_endian = "little") {
        f(values.as_bytes());
        return;
    }
    const VALUES: usize = 2048;
    let mut staging = Zeroizing::new([0u8; 8 * VALUES]);
    for chunk in values.chunks(VALUES) {
        let bytes = &mut staging[..8 * chunk.len()];
        for (out, v) in bytes.chunks_exact_mut(8).zip(chunk) {
            out.copy_from_slice(&v.to_le_bytes());
        }
        f(bytes);
    }
}

/// Appends the residues `bytes` encode (little-endian `u64`s) to `out`,
/// which gains `bytes.len() / 8` values in one pass; `bytes.len()` must be
/// a multiple of 8 (a trailing partial residue is not read). `out` grows at
/// most once, by exactly that many, so a secret buffer with the room
/// reserved leaves no copy behind.
pub(crate) fn extend_from_le_bytes(out: &mut Vec<u64>, bytes: &[u8]) {
    debug_assert_eq!(bytes.len() % 8, 0, "whole residues");
    let whole = &bytes[..bytes.len() / 8 * 8];
    // An unaligned little-endian view: a plain load per residue on a
    // little-endian processor. It cannot fail on whole residues.
    if let Ok(words) = <[U64]>::ref_from_bytes(whole) {
        out.extend(words.iter().map(|w| w.get()));
    }
}

/// The residues `bytes` encode (little-endian `u64`s); `bytes.len()` must
/// be a multiple of 8.
pub(crate) fn from_le_bytes(bytes: &[u8]) -> Vec<u64> {
    let mut out = Vec::with_capacity(bytes.len() / 8);
    extend_from_le_bytes(&mut out, bytes);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_little_endian_and_read_back() {
        let values = [0x0102_0304_0506_0708u64, u64::MAX, 0, 1 << 63];
        let mut bytes = Vec::new();
        with_le_bytes(&values, |b| bytes.extend_from_slice(b));
        let expected: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(bytes, expected);
        assert_eq!(from_le_bytes(&bytes), values);
        let mut grown = vec![9u64];
        extend_from_le_bytes(&mut grown, &bytes[8..]);
        assert_eq!(grown, [9, u64::MAX, 0, 1 << 63]);
    }

    #[test]
    fn many_values_and_none() {
        let values: Vec<u64> = (0..10_000u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        let mut bytes = Vec::new();
        let mut calls = 0;
        with_le_bytes(&values, |b| {
            calls += 1;
            bytes.extend_from_slice(b)
        });
        assert!(calls >= 1);
        assert_eq!(bytes.len(), 8 * values.len());
        assert_eq!(from_le_bytes(&bytes), values);
        with_le_bytes(&[], |b| assert!(b.is_empty()));
        assert!(from_le_bytes(&[]).is_empty());
    }
}
