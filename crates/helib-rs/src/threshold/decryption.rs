//! Threshold decryption: each party's smudged decryption share, and the
//! decoding of their sum (which also finishes encryption to shares).

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
use crate::error::Error;

/// A party's decryption share `c_1·s_i + t·E` (chain share at the
/// ciphertext's level), `E` as wide as `smudging` asks.
///
/// # Errors
/// [`Error::ContextMismatch`] for another context; [`Error::LevelMismatch`]
/// for a ciphertext not at `smudging`'s level; [`Error::NoiseBudgetExhausted`]
/// for one claiming more noise than its bound; as [`Smudging::width_bits`].
pub fn decrypt_share<K: PartySecret + ?Sized>(
    sk: &K,
    ciphertext: &Ciphertext,
    smudging: &Smudging,
) -> Result<Vec<u64>> {
    let context = sk.secret_context();
    context.ensure_same(ciphertext.context())?;
    let mut out = vec![0u64; chain_share_len(context, ciphertext.level())];
    let (ct, ptr, len) = (ciphertext.as_ptr(), out.as_mut_ptr(), out.len());
    let raw = smudging.to_raw();
    // SAFETY: the secret and ciphertext handles are live and `out` holds `len` values.
    check(unsafe {
        match sk.raw_secret() {
            RawSecret::Key(k) => sys::helib_threshold_decrypt_share(k, ct, &raw, ptr, len),
            RawSecret::Residues(r) => {
                sys::helib_threshold_decrypt_share_residues(r, ct, &raw, ptr, len)
            }
        }
    })?;
    Ok(out)
}

/// Decodes `c_0 + sum`: the plaintext for decryption shares, `m − Σ S_i` for
/// encryption-to-shares shares.
///
/// # Errors
/// [`Error::Malformed`] when the noise left is more than honest shares made
/// for `smudging` can leave (a share missing, repeated or forged); as
/// [`decrypt_share`] for the ciphertext.
pub fn decrypt_combine(
    ciphertext: &Ciphertext,
    smudging: &Smudging,
    sum: &[u64],
) -> Result<Plaintext> {
    let (ct, raw) = (ciphertext.as_ptr(), smudging.to_raw());
    combine_with(ciphertext, |out, out_len| {
        // SAFETY: the ciphertext handle is live; `sum` and `out` hold as many values as their lengths say.
        unsafe {
            sys::helib_threshold_decrypt_combine(ct, &raw, sum.as_ptr(), sum.len(), out, out_len)
        }
    })
}

/// [`decrypt_combine`] for the shares of
/// [`e2s_share_of_product`](super::e2s_share_of_product) on the size-3
/// `product`: decodes `c_0 + sum` with the product's own `c_0`, which the
/// participant that added the relinearization's public part completed.
///
/// # Errors
/// As [`decrypt_combine`]; as [`e2s_share_of_product`](super::e2s_share_of_product)
/// for the product and the key.
pub fn decrypt_combine_product(
    product: &Ciphertext,
    relin_key: &RelinKey,
    smudging: &Smudging,
    sum: &[u64],
) -> Result<Plaintext> {
    let (ct, rk, raw) = (product.as_ptr(), relin_key.as_ptr(), smudging.to_raw());
    combine_with(product, |out, out_len| {
        // SAFETY: the ciphertext and key handles are live; `sum` and `out` hold as many values as their lengths say.
        unsafe {
            sys::helib_threshold_decrypt_combine_product(
                ct,
                rk,
                &raw,
                sum.as_ptr(),
                sum.len(),
                out,
                out_len,
            )
        }
    })
}

/// The plaintext of `ciphertext`'s context that `call` writes (its pointer and length).
fn combine_with(
    ciphertext: &Ciphertext,
    call: impl FnOnce(*mut u64, usize) -> sys::helib_status,
) -> Result<Plaintext> {
    let context = ciphertext.context();
    let mut out = vec![0u64; context.ring_degree() * context.plain_limbs()];
    check(call(out.as_mut_ptr(), out.len()))?;
    Ok(Plaintext::from_engine_limbs(context, out))
}
