//! Where the bits of several stochastic numbers (lanes) sit in the slots of one ciphertext.
//!
//! A block of segment length `seg` holds, for every lane i, the bits
//! `offset .. offset + seg` of that lane's stream in slots `i·seg .. (i+1)·seg`.
//! A stream longer than N / lanes bits spans several blocks, which is the
//! same as the concatenation of its pieces.

use ark_ff::PrimeField;

use crate::bits::BitStream;
use crate::error::{Error, Result};

/// The segment length for `lanes` streams of `len` bits in `slots` slots.
pub(crate) fn segment_length(len: usize, lanes: usize, slots: usize) -> Result<usize> {
    if lanes == 0 || len == 0 {
        return Err(Error::InvalidArgument("nothing to encrypt".into()));
    }
    if lanes > slots {
        return Err(Error::InvalidArgument(format!(
            "{lanes} lanes do not fit in {slots} slots"
        )));
    }
    Ok(len.min(slots / lanes))
}

/// The slot values (0/1) of the block holding bits `offset .. offset + seg` of every lane.
pub(crate) fn block_slots<F: PrimeField>(
    lanes: &[&BitStream],
    offset: usize,
    seg: usize,
) -> Vec<F> {
    let mut slots = vec![F::zero(); lanes.len() * seg];
    for (i, lane) in lanes.iter().enumerate() {
        for j in 0..seg {
            if lane.get(offset + j) == Some(true) {
                slots[i * seg + j] = F::one();
            }
        }
    }
    slots
}

/// Appends, for every lane, the parities of its segment of `values` (the
/// decrypted slot values of one block) to that lane's stream.
pub(crate) fn append_parities(lanes: &mut [BitStream], values: &[u64], seg: usize) {
    for (i, lane) in lanes.iter_mut().enumerate() {
        let bits = BitStream::from_fn(seg, |j| values.get(i * seg + j).is_some_and(|v| v & 1 == 1));
        lane.extend(&bits);
    }
}

/// A field element as a u64, when it is below 2^64.
pub(crate) fn small_value<F: PrimeField>(value: &F) -> Option<u64> {
    let repr = value.into_bigint();
    let limbs = repr.as_ref();
    limbs[1..].iter().all(|&l| l == 0).then_some(limbs[0])
}
