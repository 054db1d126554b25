//! Shares as residues: their lengths, their residue-wise sums, and the
//! digest that binds shares to their ciphertext.

use helib_sys as sys;

use crate::ciphertext::Ciphertext;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::ffi::{check, query};
use crate::relin_key::ensure_key_switching;

/// Residues of a chain share at `level`.
pub fn chain_share_len(context: &Context, level: usize) -> usize {
    context.ring_degree() * (level + 1)
}

/// Residues of a key share of `context`.
///
/// # Errors
/// [`Error::InvalidParameters`] when the context has no special primes.
pub fn key_share_len(context: &Context) -> Result<usize> {
    ensure_key_switching(context)?;
    let ctx = context.as_ptr();
    // SAFETY: the context handle is live and `out` is a valid out-pointer.
    query(|out| unsafe { sys::helib_threshold_key_share_len(ctx, out) })
}

/// The primes of residue block `i` of a share: chain primes `q_0..q_level`.
pub(super) fn chain_moduli(context: &Context, level: usize) -> Result<&[u64]> {
    context
        .chain_primes()
        .get(..=level)
        .ok_or(Error::InvalidLevel {
            level,
            max: context.max_level(),
        })
}

/// Sums chain shares at `level` into `acc` residue-wise.
///
/// # Errors
/// [`Error::InvalidArgument`] when a length is wrong or a residue is not reduced.
pub fn add_chain_shares(
    context: &Context,
    level: usize,
    acc: &mut [u64],
    share: &[u64],
) -> Result<()> {
    let moduli = chain_moduli(context, level)?.to_vec();
    add_blocks(context.ring_degree(), &moduli, acc, share)
}

/// Sums key shares into `acc` residue-wise.
///
/// # Errors
/// [`Error::InvalidArgument`] when a length is wrong or a residue is not reduced.
pub fn add_key_shares(context: &Context, acc: &mut [u64], share: &[u64]) -> Result<()> {
    let mut moduli: Vec<u64> = Vec::new();
    let digits = context.key_switching_digits()?;
    for _ in 0..digits {
        moduli.extend_from_slice(context.chain_primes());
        moduli.extend_from_slice(context.special_primes());
    }
    add_blocks(context.ring_degree(), &moduli, acc, share)
}

/// Whether every residue of a share is below its prime (and its length fits).
pub fn share_is_reduced(context: &Context, moduli_per_block: &[u64], share: &[u64]) -> bool {
    let n = context.ring_degree();
    share.len() == n * moduli_per_block.len()
        && share
            .chunks_exact(n)
            .zip(moduli_per_block)
            .all(|(block, &q)| block.iter().all(|&x| x < q))
}

fn add_blocks(n: usize, moduli: &[u64], acc: &mut [u64], share: &[u64]) -> Result<()> {
    let expected = n * moduli.len();
    if acc.len() != expected || share.len() != expected {
        return Err(Error::InvalidArgument(format!(
            "a share has {} residues and the sum {}, expected {expected}",
            share.len(),
            acc.len()
        )));
    }
    for ((a, s), &q) in acc
        .chunks_exact_mut(n)
        .zip(share.chunks_exact(n))
        .zip(moduli)
    {
        for (x, &y) in a.iter_mut().zip(s) {
            if y >= q || *x >= q {
                return Err(Error::InvalidArgument(
                    "a share residue is not reduced modulo its prime".into(),
                ));
            }
            // q < 2^62, so the sum cannot overflow.
            let sum = *x + y;
            *x = if sum >= q { sum - q } else { sum };
        }
    }
    Ok(())
}

/// A 32-byte digest identifying `ciphertext` (level, size, correction factor
/// and a polynomial hash of every residue), to bind shares to the ciphertext
/// they were computed on. It tells ciphertexts apart; it is not a commitment
/// against someone building colliding ciphertexts on purpose.
///
/// # Errors
/// The engine's error for an empty ciphertext.
pub fn ciphertext_digest(ciphertext: &Ciphertext) -> Result<[u8; 32]> {
    let mut out = [0u8; 32];
    // SAFETY: the ciphertext handle is live and `out` holds 32 bytes.
    check(unsafe {
        sys::helib_threshold_ciphertext_digest(ciphertext.as_ptr(), out.as_mut_ptr(), out.len())
    })?;
    Ok(out)
}
