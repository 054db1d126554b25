//! The collective public key: each party's share and their assembly.

use helib_sys as sys;

use super::seed::Seed;
use super::shares::chain_share_len;
use crate::context::Context;
use crate::error::Result;
use crate::ffi::{check, Owned};
use crate::keys::{PublicKey, SecretKey};

#[cfg(doc)]
use crate::error::Error;

/// A party's share of the collective public key: `-a·s_i + t·e_i`, `a` from `seed`.
///
/// # Errors
/// [`Error::Randomness`] when the OS random source fails.
pub fn public_key_share(sk: &SecretKey, seed: &Seed) -> Result<Vec<u64>> {
    let context = sk.context();
    let mut out = vec![0u64; chain_share_len(context, context.max_level())];
    // SAFETY: the key handle is live, the seed holds SEED_BYTES bytes and `out` holds `out.len()` values.
    check(unsafe {
        sys::helib_threshold_public_key_share(
            sk.as_ptr(),
            seed.as_ptr(),
            out.as_mut_ptr(),
            out.len(),
        )
    })?;
    Ok(out)
}

/// The collective public key from the sum of all parties' shares.
///
/// # Errors
/// [`Error::InvalidArgument`] for a wrong length or unreduced residues.
pub fn public_key_assemble(context: &Context, seed: &Seed, sum: &[u64]) -> Result<PublicKey> {
    let ctx = context.as_ptr();
    // SAFETY: the context handle is live; `sum` holds `sum.len()` values; `out` is a valid out-pointer.
    let raw = Owned::create(|out| unsafe {
        sys::helib_threshold_public_key_assemble(ctx, seed.as_ptr(), sum.as_ptr(), sum.len(), out)
    })?;
    Ok(PublicKey::from_raw(raw, context))
}
