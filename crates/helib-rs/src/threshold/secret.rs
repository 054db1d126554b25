//! A party's secret in the protocols on a ciphertext, in either form, and
//! the collective secret for tests and audits.

use helib_sys as sys;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::ffi::Owned;
use crate::keys::SecretKey;

pub(super) mod sealed {
    use helib_sys as sys;

    /// The engine handle of a party's secret, in either form.
    pub enum RawSecret {
        Key(*const sys::helib_secret_key),
        Residues(*const sys::helib_secret_share),
    }

    pub trait Sealed {
        fn raw_secret(&self) -> RawSecret;
    }
}

use sealed::RawSecret;

/// A party's additive secret share in the protocols on a ciphertext
/// (decryption, encryption to shares, key switching): an N-out-of-N
/// [`SecretKey`] or a [`ResidueShare`](super::ResidueShare) activated for an
/// active set.
pub trait PartySecret: sealed::Sealed {
    /// The context of the secret.
    fn secret_context(&self) -> &Context;
}

impl sealed::Sealed for SecretKey {
    fn raw_secret(&self) -> RawSecret {
        RawSecret::Key(self.as_ptr())
    }
}

impl PartySecret for SecretKey {
    fn secret_context(&self) -> &Context {
        self.context()
    }
}

/// The collective secret `s = Σ s_i` of 1 to 127 secret shares as a secret
/// key, to measure the exact noise of ciphertexts under collective keys in
/// tests and audits. Forming it defeats the threshold: no protocol step
/// calls it.
///
/// # Errors
/// [`Error::InvalidArgument`] for no shares or more than 127;
/// [`Error::ContextMismatch`] for shares of different contexts.
pub fn secret_key_sum(shares: &[&SecretKey]) -> Result<SecretKey> {
    let first = shares
        .first()
        .ok_or_else(|| Error::InvalidArgument("no secret shares to sum".into()))?;
    for share in shares {
        first.context().ensure_same(share.context())?;
    }
    let ptrs: Vec<*const sys::helib_secret_key> = shares.iter().map(|k| k.as_ptr()).collect();
    // SAFETY: every handle in `ptrs` is live for the call; `out` is a valid out-pointer.
    let raw = Owned::create(|out| unsafe {
        sys::helib_threshold_secret_key_sum(ptrs.as_ptr(), ptrs.len(), out)
    })?;
    Ok(SecretKey::from_raw(raw, first.context()))
}
