//! Smuche (Zhao, arXiv:2312.16352): one cached pivot times a scalar, plus the
//! public-key mask as "constant-time randomization". **Insecure**; kept for comparison.

use helib_rs::{Ciphertext, Context};
use num_bigint::BigUint;

use crate::algebra::{Algebra, Engine};
use crate::encryptor::{check_value, Encryptor, Security};
use crate::error::Result;
use crate::radix::Radix;

/// Smuche's cache: encryptions c_i of the pivots r^i (i < k).
///
/// A value m is split as m = z · r^i with the largest cached power r^i that
/// divides it (the paper's "nearest pivot": the smallest scalar, hence the
/// least noise), and encrypted as
///
/// ```text
/// z ⊙ c_i + (b·ξ, a·ξ),     ξ ternary from the OS CSPRNG, (b, a) the public key
/// ```
///
/// (Algorithm 2 and eq. 7 of the paper). The scalar product costs about
/// log2 |z| bits of noise budget, where z is taken centred mod t: up to
/// log2(t/2) — 253 bits for t = BN254 Fr — for values spread over Z_t, and
/// nothing for t − 1 (z = −1).
///
/// # Security
/// **Not IND-CPA secure**, despite the paper's proof. The mask adds no fresh
/// error terms: for the public key (b, a), the map
/// P(c0, c1) = c0·a − c1·b kills it, so every output satisfies
/// P(ct) = z · P(c_i). One ciphertext of 0 is recognized (P = 0), and two
/// ciphertexts built from the same pivot reveal z1/z2 mod q — the plaintext
/// ratio, exactly, for small messages. See the `he-cache-analysis` crate.
#[derive(Debug)]
pub struct InsecureSmuche<A: Algebra = Engine> {
    algebra: A,
    radix: Radix,
    pivots: Vec<A::Ciphertext>,
}

impl<A: Algebra> InsecureSmuche<A> {
    /// Encrypts the pivots (the offline phase: k fresh encryptions).
    ///
    /// # Errors
    /// Engine failures while encrypting.
    pub fn new(algebra: A, radix: Radix) -> Result<Self> {
        let pivots = crate::algebra::encrypt_powers(&algebra, &radix)?;
        Ok(Self {
            algebra,
            radix,
            pivots,
        })
    }

    /// The radix and pivot count.
    pub fn radix(&self) -> Radix {
        self.radix
    }

    /// The arithmetic it runs on.
    pub fn algebra(&self) -> &A {
        &self.algebra
    }

    /// Which pivot and scalar encrypt `value`: `(i, z)` with value = z · r^i.
    pub fn pivot_for(&self, value: &BigUint) -> (usize, BigUint) {
        self.radix.split_power(value)
    }

    /// Builds the encryption of `value`: one scalar product and one mask.
    ///
    /// # Errors
    /// [`helib_rs::Error::NoiseBudgetExhausted`] (as
    /// [`Error::Engine`](crate::Error::Engine)) when the scalar product would
    /// not decrypt; randomness and engine failures.
    pub fn encrypt(&self, value: &BigUint) -> Result<A::Ciphertext> {
        let (index, scalar) = self.pivot_for(value);
        let mut ct = self.algebra.mul_scalar(&self.pivots[index], &scalar)?;
        self.algebra.add_mask_insecure(&mut ct)?;
        Ok(ct)
    }
}

impl Encryptor for InsecureSmuche<Engine> {
    fn name(&self) -> String {
        format!("smuche(r={},k={})", self.radix.radix(), self.radix.pivots())
    }

    fn security(&self) -> Security {
        Security::Insecure("two outputs of one pivot reveal their plaintext ratio")
    }

    fn context(&self) -> &Context {
        self.algebra.context()
    }

    fn encrypt_value(&self, value: &BigUint) -> Result<Ciphertext> {
        check_value(self.context(), value)?;
        self.encrypt(value)
    }
}
