//! The collective relinearization key: two rounds of shares with an
//! ephemeral secret, and the assembly.

use helib_sys as sys;

use super::seed::Seed;
use super::shares::key_share_len;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::ffi::{check, Owned};
use crate::keys::SecretKey;
use crate::relin_key::RelinKey;

/// Round 1 of the collective relinearization key with the party's ephemeral
/// secret `ephemeral` (kept until round 2): the shares `(h0, h1)`.
///
/// # Errors
/// [`Error::ContextMismatch`] when the keys belong to different contexts.
pub fn relin_key_round1(
    sk: &SecretKey,
    ephemeral: &SecretKey,
    seed: &Seed,
) -> Result<(Vec<u64>, Vec<u64>)> {
    sk.context().ensure_same(ephemeral.context())?;
    let len = key_share_len(sk.context())?;
    let (mut h0, mut h1) = (vec![0u64; len], vec![0u64; len]);
    // SAFETY: both key handles are live, the seed holds SEED_BYTES bytes, h0 and h1 hold `len` values.
    check(unsafe {
        sys::helib_threshold_relin_key_round1(
            sk.as_ptr(),
            ephemeral.as_ptr(),
            seed.as_ptr(),
            h0.as_mut_ptr(),
            h1.as_mut_ptr(),
            len,
        )
    })?;
    Ok((h0, h1))
}

/// Round 2 of the collective relinearization key from the round-1 sums.
///
/// # Errors
/// [`Error::InvalidArgument`] for wrong lengths or unreduced residues.
pub fn relin_key_round2(
    sk: &SecretKey,
    ephemeral: &SecretKey,
    h0_sum: &[u64],
    h1_sum: &[u64],
) -> Result<Vec<u64>> {
    sk.context().ensure_same(ephemeral.context())?;
    if h0_sum.len() != h1_sum.len() {
        return Err(Error::InvalidArgument(
            "the round-1 sums differ in length".into(),
        ));
    }
    let mut out = vec![0u64; h0_sum.len()];
    // SAFETY: both key handles are live; the sums hold `len` values each and `out` as many.
    check(unsafe {
        sys::helib_threshold_relin_key_round2(
            sk.as_ptr(),
            ephemeral.as_ptr(),
            h0_sum.as_ptr(),
            h1_sum.as_ptr(),
            h0_sum.len(),
            out.as_mut_ptr(),
            out.len(),
        )
    })?;
    Ok(out)
}

/// The collective relinearization key of `parties` parties from the round-2
/// sum and the round-1 `h1` sum.
///
/// The key works like any other; its noise estimate accounts for the larger
/// error of a collective key (`s·e0 + u·e1 + e2` summed over the parties),
/// and it serializes (its `a` polynomials are not expanded from seeds, so
/// they are stored in full: about twice the size of a single-party key).
///
/// # Errors
/// [`Error::InvalidArgument`] for wrong lengths, unreduced residues or
/// `parties` outside `[1, 4096]`.
pub fn relin_key_assemble(
    context: &Context,
    parties: u32,
    b_sum: &[u64],
    h1_sum: &[u64],
) -> Result<RelinKey> {
    if b_sum.len() != h1_sum.len() {
        return Err(Error::InvalidArgument(
            "the key sums differ in length".into(),
        ));
    }
    let ctx = context.as_ptr();
    // SAFETY: the context handle is live; the sums hold `len` values each; `out` is a valid out-pointer.
    let raw = Owned::create(|out| unsafe {
        sys::helib_threshold_relin_key_assemble(
            ctx,
            parties,
            b_sum.as_ptr(),
            h1_sum.as_ptr(),
            b_sum.len(),
            out,
        )
    })?;
    RelinKey::from_raw(raw, context)
}
