//! Collective key switching: each party's smudged shares towards a target
//! public key, and the switched ciphertext from their sums.

use helib_sys as sys;

use super::secret::sealed::RawSecret;
use super::secret::PartySecret;
use super::shares::chain_share_len;
use super::smudging::Smudging;
use crate::ciphertext::Ciphertext;
use crate::error::{Error, Result};
use crate::ffi::check;
use crate::keys::PublicKey;

#[cfg(doc)]
use super::decryption::decrypt_share;

/// A party's collective key-switching shares `(h0, h1)` towards `target`.
///
/// # Errors
/// As [`decrypt_share`].
pub fn key_switch_share<K: PartySecret + ?Sized>(
    sk: &K,
    ciphertext: &Ciphertext,
    target: &PublicKey,
    smudging: &Smudging,
) -> Result<(Vec<u64>, Vec<u64>)> {
    let context = sk.secret_context();
    context.ensure_same(ciphertext.context())?;
    context.ensure_same(target.context())?;
    let len = chain_share_len(context, ciphertext.level());
    let (mut h0, mut h1) = (vec![0u64; len], vec![0u64; len]);
    let (ct, pk, p0, p1) = (
        ciphertext.as_ptr(),
        target.as_ptr(),
        h0.as_mut_ptr(),
        h1.as_mut_ptr(),
    );
    let raw = smudging.to_raw();
    // SAFETY: all handles are live; h0 and h1 hold `len` values.
    check(unsafe {
        match sk.raw_secret() {
            RawSecret::Key(k) => {
                sys::helib_threshold_key_switch_share(k, ct, pk, &raw, p0, p1, len)
            }
            RawSecret::Residues(r) => {
                sys::helib_threshold_key_switch_share_residues(r, ct, pk, &raw, p0, p1, len)
            }
        }
    })?;
    Ok((h0, h1))
}

/// The ciphertext under the target key from the sums of the key-switching shares.
///
/// # Errors
/// [`Error::InvalidArgument`] for wrong lengths or unreduced residues; as [`decrypt_share`].
pub fn key_switch_assemble(
    ciphertext: &Ciphertext,
    smudging: &Smudging,
    h0_sum: &[u64],
    h1_sum: &[u64],
) -> Result<Ciphertext> {
    if h0_sum.len() != h1_sum.len() {
        return Err(Error::InvalidArgument(
            "the key-switching sums differ in length".into(),
        ));
    }
    let ct = ciphertext.as_ptr();
    Ciphertext::produce(ciphertext.context(), |dst| {
        let raw = smudging.to_raw();
        // SAFETY: both handles are live and distinct; the sums hold `len` values each.
        unsafe {
            sys::helib_threshold_key_switch_assemble(
                ct,
                &raw,
                h0_sum.as_ptr(),
                h1_sum.as_ptr(),
                h0_sum.len(),
                dst,
            )
        }
    })
}
