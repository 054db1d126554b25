//! Encryption to shares: each party's additive share and public share
//! ([`decrypt_combine`](super::decrypt_combine) decodes their sum).

use helib_sys as sys;

use super::secret::sealed::RawSecret;
use super::secret::PartySecret;
use super::shares::chain_share_len;
use super::smudging::Smudging;
use crate::ciphertext::Ciphertext;
use crate::error::Result;
use crate::ffi::check;
use crate::plaintext::Plaintext;
use crate::relin_key::RelinKey;

#[cfg(doc)]
use super::decryption::{decrypt_combine_product, decrypt_share};
#[cfg(doc)]
use crate::error::Error;

/// A party's encryption-to-shares step: its additive share `S_i` (uniform
/// mod t, secret) and the public share `c_1·s_i + t·E − f·S_i`.
///
/// # Errors
/// As [`decrypt_share`].
pub fn e2s_share<K: PartySecret + ?Sized>(
    sk: &K,
    ciphertext: &Ciphertext,
    smudging: &Smudging,
) -> Result<(Plaintext, Vec<u64>)> {
    let (ct, raw) = (ciphertext.as_ptr(), smudging.to_raw());
    e2s_with(sk, ciphertext, |secret, m, m_len, o, o_len| {
        // SAFETY: the secret and ciphertext handles are live; `m` and `o` hold `m_len` and `o_len` values.
        unsafe {
            match secret {
                RawSecret::Key(k) => {
                    sys::helib_threshold_e2s_share(k, ct, &raw, m, m_len, o, o_len)
                }
                RawSecret::Residues(r) => {
                    sys::helib_threshold_e2s_share_residues(r, ct, &raw, m, m_len, o, o_len)
                }
            }
        }
    })
}

/// [`e2s_share`] for the relinearization by `relin_key` of a size-3
/// `product`, which the party computes itself (`smudging`'s noise bound
/// applies to the relinearization's estimate). Exactly one participant
/// passes `adds_public_part` and adds the public part `k_0` of the
/// relinearized `c_0` to its share, so that [`decrypt_combine_product`]
/// decodes `m − Σ S_i` on the product's own `c_0`: whoever combines the
/// shares never relinearizes.
///
/// # Errors
/// As [`e2s_share`]; [`Error::InvalidArgument`] for a ciphertext not of
/// size 3; [`Error::ContextMismatch`] for a key of another context.
pub fn e2s_share_of_product<K: PartySecret + ?Sized>(
    sk: &K,
    product: &Ciphertext,
    relin_key: &RelinKey,
    smudging: &Smudging,
    adds_public_part: bool,
) -> Result<(Plaintext, Vec<u64>)> {
    let (ct, rk, raw) = (product.as_ptr(), relin_key.as_ptr(), smudging.to_raw());
    let adds = i32::from(adds_public_part);
    e2s_with(sk, product, |secret, m, m_len, o, o_len| {
        // SAFETY: the secret, ciphertext and key handles are live; `m` and `o` hold `m_len` and `o_len` values.
        unsafe {
            match secret {
                RawSecret::Key(k) => sys::helib_threshold_e2s_share_product(
                    k, ct, rk, &raw, adds, m, m_len, o, o_len,
                ),
                RawSecret::Residues(r) => sys::helib_threshold_e2s_share_product_residues(
                    r, ct, rk, &raw, adds, m, m_len, o, o_len,
                ),
            }
        }
    })
}

/// The buffers of an encryption-to-shares step on `ciphertext`, filled by
/// `call` (the secret, then the mask's and the share's pointers and lengths).
fn e2s_with<K: PartySecret + ?Sized>(
    sk: &K,
    ciphertext: &Ciphertext,
    call: impl FnOnce(RawSecret, *mut u64, usize, *mut u64, usize) -> sys::helib_status,
) -> Result<(Plaintext, Vec<u64>)> {
    let context = sk.secret_context();
    context.ensure_same(ciphertext.context())?;
    let mut mask = vec![0u64; context.ring_degree() * context.plain_limbs()];
    let mut out = vec![0u64; chain_share_len(context, ciphertext.level())];
    check(call(
        sk.raw_secret(),
        mask.as_mut_ptr(),
        mask.len(),
        out.as_mut_ptr(),
        out.len(),
    ))?;
    Ok((Plaintext::from_engine_limbs(context, mask), out))
}
