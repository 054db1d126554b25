//! The ciphertext operations the cached constructions are written against,
//! and their implementation by the BGV engine.
//!
//! Rache, Smuche and the pool's online step are generic over [`Algebra`], so
//! the very same construction code runs on the engine (through
//! [`Engine`]) and on the transparent model of the security analysis
//! (`ToyBgv` in the `he-cache-analysis` crate), whose ciphertext
//! polynomials an attacker can read.

use std::sync::Arc;

use helib_rs::{Ciphertext, Context, Plaintext, PublicKey};
use num_bigint::BigUint;

use crate::error::Result;

/// Public-key BGV ciphertext arithmetic: what a cached encryptor may use.
///
/// Every operation acts on ciphertexts of one key; the scalar arguments are
/// integers taken mod t.
pub trait Algebra {
    /// The ciphertext type.
    type Ciphertext;

    /// The plaintext modulus t.
    fn plaintext_modulus(&self) -> &BigUint;

    /// A fresh public-key encryption of the constant polynomial `value`
    /// (randomness from the OS CSPRNG).
    ///
    /// # Errors
    /// When the value is not below t or the backend fails.
    fn encrypt_fresh(&self, value: &BigUint) -> Result<Self::Ciphertext>;

    /// `ciphertext += (k, 0)`: adds the constant k to the plaintext without
    /// any randomness (used only on top of a fresh encryption of zero).
    ///
    /// # Errors
    /// When the backend fails.
    fn add_constant_assign(&self, ciphertext: &mut Self::Ciphertext, k: &BigUint) -> Result<()>;

    /// A copy of `ciphertext`.
    ///
    /// # Errors
    /// When the backend cannot allocate it.
    fn duplicate(&self, ciphertext: &Self::Ciphertext) -> Result<Self::Ciphertext>;

    /// `acc += other`.
    ///
    /// # Errors
    /// When the operands do not match (context, level, factor).
    fn add_assign(&self, acc: &mut Self::Ciphertext, other: &Self::Ciphertext) -> Result<()>;

    /// `acc -= other`.
    ///
    /// # Errors
    /// As for [`add_assign`](Self::add_assign).
    fn sub_assign(&self, acc: &mut Self::Ciphertext, other: &Self::Ciphertext) -> Result<()>;

    /// `k · ciphertext` into a new ciphertext.
    ///
    /// # Errors
    /// When the noise budget would be exhausted or the backend fails.
    fn mul_scalar(&self, ciphertext: &Self::Ciphertext, k: &BigUint) -> Result<Self::Ciphertext>;

    /// `ciphertext *= k`.
    ///
    /// # Errors
    /// As for [`mul_scalar`](Self::mul_scalar).
    fn mul_scalar_assign(&self, ciphertext: &mut Self::Ciphertext, k: &BigUint) -> Result<()>;

    /// Smuche's public-key mask `ct += (b·ξ, a·ξ)` for a fresh ternary ξ —
    /// **not** a secure re-randomization (see [`PublicKey::add_mask_insecure`]).
    ///
    /// # Errors
    /// When the randomness or the backend fails.
    fn add_mask_insecure(&self, ciphertext: &mut Self::Ciphertext) -> Result<()>;
}

/// Fresh encryptions of the radix powers r^0, …, r^(k−1) (each mod t): the
/// pivots both cached constructions start from.
///
/// # Errors
/// Engine failures while encrypting.
pub(crate) fn encrypt_powers<A: Algebra>(
    algebra: &A,
    radix: &crate::radix::Radix,
) -> Result<Vec<A::Ciphertext>> {
    let t = algebra.plaintext_modulus();
    radix
        .powers()
        .iter()
        .map(|power| algebra.encrypt_fresh(&(power % t)))
        .collect()
}

/// The BGV engine under one public key: the [`Algebra`] of `helib-rs` ciphertexts.
#[derive(Debug, Clone)]
pub struct Engine {
    pk: Arc<PublicKey>,
}

impl Engine {
    /// The engine's arithmetic under `pk`.
    pub fn new(pk: Arc<PublicKey>) -> Self {
        Self { pk }
    }

    /// The public key.
    pub fn public_key(&self) -> &Arc<PublicKey> {
        &self.pk
    }

    /// The context of the key.
    pub fn context(&self) -> &Context {
        self.pk.context()
    }
}

impl Algebra for Engine {
    type Ciphertext = Ciphertext;

    fn plaintext_modulus(&self) -> &BigUint {
        self.context().plaintext_modulus()
    }

    fn encrypt_fresh(&self, value: &BigUint) -> Result<Ciphertext> {
        let plaintext = Plaintext::from_biguints(self.context(), std::slice::from_ref(value))?;
        Ok(self.pk.encrypt(&plaintext)?)
    }

    fn add_constant_assign(&self, ciphertext: &mut Ciphertext, k: &BigUint) -> Result<()> {
        Ok(ciphertext.add_scalar_assign(k)?)
    }

    fn duplicate(&self, ciphertext: &Ciphertext) -> Result<Ciphertext> {
        Ok(ciphertext.try_clone()?)
    }

    fn add_assign(&self, acc: &mut Ciphertext, other: &Ciphertext) -> Result<()> {
        Ok(acc.add_assign(other)?)
    }

    fn sub_assign(&self, acc: &mut Ciphertext, other: &Ciphertext) -> Result<()> {
        Ok(acc.sub_assign(other)?)
    }

    fn mul_scalar(&self, ciphertext: &Ciphertext, k: &BigUint) -> Result<Ciphertext> {
        Ok(ciphertext.mul_scalar(k)?)
    }

    fn mul_scalar_assign(&self, ciphertext: &mut Ciphertext, k: &BigUint) -> Result<()> {
        Ok(ciphertext.mul_scalar_assign(k)?)
    }

    fn add_mask_insecure(&self, ciphertext: &mut Ciphertext) -> Result<()> {
        Ok(self.pk.add_mask_insecure(ciphertext)?)
    }
}
