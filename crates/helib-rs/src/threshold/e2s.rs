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

#[cfg(doc)]
use super::decryption::decrypt_share;

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
    let context = sk.secret_context();
    context.ensure_same(ciphertext.context())?;
    let mut mask = vec![0u64; context.ring_degree() * context.plain_limbs()];
    let mut out = vec![0u64; chain_share_len(context, ciphertext.level())];
    let (ct, m, m_len) = (ciphertext.as_ptr(), mask.as_mut_ptr(), mask.len());
    let (o, o_len) = (out.as_mut_ptr(), out.len());
    let raw = smudging.to_raw();
    // SAFETY: the secret and ciphertext handles are live; `mask` and `out` hold `m_len` and `o_len` values.
    check(unsafe {
        match sk.raw_secret() {
            RawSecret::Key(k) => sys::helib_threshold_e2s_share(k, ct, &raw, m, m_len, o, o_len),
            RawSecret::Residues(r) => {
                sys::helib_threshold_e2s_share_residues(r, ct, &raw, m, m_len, o, o_len)
            }
        }
    })?;
    Ok((Plaintext::from_engine_limbs(context, mask), out))
}
