//! Shares to encryption: each party's share of a fresh encryption of its
//! additive share, and the ciphertext of their sum.

use helib_sys as sys;

use super::secret::sealed::RawSecret;
use super::secret::PartySecret;
use super::seed::Seed;
use super::shares::{chain_moduli, chain_share_len};
use crate::ciphertext::Ciphertext;
use crate::context::Context;
use crate::error::Result;
use crate::ffi::check;
use crate::plaintext::Plaintext;

#[cfg(doc)]
use super::shamir::ResidueShare;
#[cfg(doc)]
use crate::error::Error;

/// A party's shares-to-encryption share `−a·s_i + t·e + f·S_i` of its
/// additive share `share` at `level` (`s_i` an N-out-of-N secret key or
/// `λ_j(T)·S_j` of an activated [`ResidueShare`]: the shares of all parties,
/// or of an active set, sum to a fresh encryption under the collective key).
///
/// # Errors
/// [`Error::ContextMismatch`] for a plaintext of another context; an invalid level.
pub fn s2e_share<K: PartySecret + ?Sized>(
    sk: &K,
    seed: &Seed,
    level: usize,
    share: &Plaintext,
) -> Result<Vec<u64>> {
    let context = sk.secret_context();
    context.ensure_same(share.context())?;
    chain_moduli(context, level)?;
    let limbs = share.limbs();
    let mut out = vec![0u64; chain_share_len(context, level)];
    let (seed, plain, n, width) = (
        seed.as_ptr(),
        limbs.as_ptr(),
        context.ring_degree(),
        context.plain_limbs(),
    );
    let (o, o_len) = (out.as_mut_ptr(), out.len());
    // SAFETY: the secret handle is live; `limbs` holds N · plain_limbs values; `out` holds `o_len`.
    check(unsafe {
        match sk.raw_secret() {
            RawSecret::Key(k) => {
                sys::helib_threshold_s2e_share(k, seed, level, plain, n, width, o, o_len)
            }
            RawSecret::Residues(r) => {
                sys::helib_threshold_s2e_share_residues(r, seed, level, plain, n, width, o, o_len)
            }
        }
    })?;
    Ok(out)
}

/// The ciphertext of the sum of the parties' additive shares.
///
/// # Errors
/// [`Error::InvalidArgument`] for a wrong length or unreduced residues.
pub fn s2e_assemble(
    context: &Context,
    seed: &Seed,
    level: usize,
    parties: u32,
    sum: &[u64],
) -> Result<Ciphertext> {
    chain_moduli(context, level)?;
    let ctx = context.as_ptr();
    Ciphertext::produce(context, |dst| {
        // SAFETY: the context and destination handles are live; `sum` holds `sum.len()` values.
        unsafe {
            sys::helib_threshold_s2e_assemble(
                ctx,
                seed.as_ptr(),
                level,
                parties,
                sum.as_ptr(),
                sum.len(),
                dst,
            )
        }
    })
}
