//! The one trait every encryptor implements, so callers and benches swap them.

use helib_rs::{Ciphertext, Context, Plaintext};
use num_bigint::BigUint;

use crate::error::{Error, Result};

/// Whether a construction is a secure public-key encryption.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Security {
    /// IND-CPA secure under RLWE, like fresh public-key encryption.
    Secure,
    /// Kept for comparison only; the reason says what breaks it.
    Insecure(&'static str),
}

/// Encrypts integers mod t under one public key.
///
/// A value v is encrypted as the constant polynomial v — with batching, v in
/// every slot — one value per ciphertext, which is the setting of the Rache
/// and Smuche papers. Packed plaintexts (many values per ciphertext) are the
/// business of [`PlaintextEncryptor`], which only the secure encryptors
/// support: the cached constructions build ciphertexts by scalar operations
/// and so cannot put different values in different slots.
pub trait Encryptor: Send + Sync {
    /// A short label for tables, e.g. `"rache(r=16,k=64)"`.
    fn name(&self) -> String;

    /// Whether the construction is secure.
    fn security(&self) -> Security;

    /// The context of the key it encrypts under.
    fn context(&self) -> &Context;

    /// Encrypts `value` (which must be below t).
    ///
    /// # Errors
    /// [`Error::ValueNotBelowModulus`] for a value ≥ t; the construction's own
    /// limits (e.g. [`Error::ValueTooLarge`] for Rache) and engine failures.
    fn encrypt_value(&self, value: &BigUint) -> Result<Ciphertext>;

    /// Encrypts each of `values`, one ciphertext each, in order.
    ///
    /// # Errors
    /// The first error of [`encrypt_value`](Self::encrypt_value).
    fn encrypt_values(&self, values: &[BigUint]) -> Result<Vec<Ciphertext>> {
        values.iter().map(|v| self.encrypt_value(v)).collect()
    }
}

/// An encryptor of whole plaintext polynomials (e.g. N batched values).
pub trait PlaintextEncryptor: Encryptor {
    /// Encrypts `plaintext`.
    ///
    /// # Errors
    /// [`helib_rs::Error::ContextMismatch`] (as [`Error::Engine`]) for a
    /// plaintext of another context, and engine failures.
    fn encrypt_plaintext(&self, plaintext: &Plaintext) -> Result<Ciphertext>;
}

/// `Ok` when `value < t`, else [`Error::ValueNotBelowModulus`].
pub(crate) fn check_value(context: &Context, value: &BigUint) -> Result<()> {
    let modulus = context.plaintext_modulus();
    if value < modulus {
        Ok(())
    } else {
        Err(Error::ValueNotBelowModulus {
            value: value.clone(),
            modulus: modulus.clone(),
        })
    }
}
