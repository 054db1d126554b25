//! Rache (Tawose et al., SIGMOD 2023): radix pivots combined by additions,
//! then "randomized" with cached encryptions of zero. **Insecure**; kept for comparison.

use helib_rs::{Ciphertext, Context};
use num_bigint::BigUint;
use rand::{rngs::OsRng, RngCore};

use crate::algebra::{Algebra, Engine};
use crate::encryptor::{check_value, Encryptor, Security};
use crate::error::{Error, Result};
use crate::radix::Radix;

/// Rache's cache: encryptions c_i of the pivots r^i (i < k), one encryption
/// of zero as the base, and the k − 1 encryptions of zero
/// z_i = c_(i+1) − r·c_i its randomization adds.
///
/// A value m = Σ d_i r^i (digits d_i < r) is encrypted as
///
/// ```text
/// base + Σ_i d_i ⊙ c_i + Σ_i ρ_i · z_i,     ρ_i ∈ {0, 1} from the OS CSPRNG,
/// ```
///
/// with d ⊙ c an addition for d = 1 and a scalar multiplication (the same as
/// d − 1 additions, in one pass) for larger digits. The cost grows linearly
/// with the pivot count k — the scaling limit the Smuche paper points out.
/// The paper randomizes over the first ⌈log_r m⌉ pivots only; this version
/// uses all k − 1 so that neither the time nor the randomness depends on m's size.
///
/// # Security
/// **Not IND-CPA secure.** No fresh randomness enters an encryption: every
/// output is a small-integer combination of the same k + 1 cached
/// ciphertexts. Anyone holding the public key can map ciphertexts to a
/// (k + 1)-dimensional space (see the `he-cache-analysis` crate), which
/// tells Rache outputs from fresh ones once k + 2 of them are seen, and after
/// k + 1 known plaintexts decrypts every further output.
#[derive(Debug)]
pub struct InsecureRache<A: Algebra = Engine> {
    algebra: A,
    radix: Radix,
    base: A::Ciphertext,
    pivots: Vec<A::Ciphertext>,
    zeros: Vec<A::Ciphertext>,
}

impl<A: Algebra> InsecureRache<A> {
    /// Encrypts the pivots and the zeros (the offline phase: k + 1 fresh
    /// encryptions and k − 1 scalar products).
    ///
    /// # Errors
    /// Engine failures while encrypting or combining the pivots.
    pub fn new(algebra: A, radix: Radix) -> Result<Self> {
        let pivots = crate::algebra::encrypt_powers(&algebra, &radix)?;
        let r = BigUint::from(radix.radix());
        let zeros = pivots
            .windows(2)
            .map(|pair| {
                let mut zero = algebra.duplicate(&pair[1])?;
                algebra.sub_assign(&mut zero, &algebra.mul_scalar(&pair[0], &r)?)?;
                Ok(zero)
            })
            .collect::<Result<Vec<_>>>()?;
        let base = algebra.encrypt_fresh(&BigUint::default())?;
        Ok(Self {
            algebra,
            radix,
            base,
            pivots,
            zeros,
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

    /// Builds the encryption of `value` from the cache.
    ///
    /// # Errors
    /// [`Error::ValueTooLarge`] when `value ≥ r^k`; [`Error::Randomness`];
    /// engine failures.
    pub fn encrypt(&self, value: &BigUint) -> Result<A::Ciphertext> {
        let digits = self.radix.digits(value)?;
        let algebra = &self.algebra;
        let mut acc = algebra.duplicate(&self.base)?;
        for (digit, pivot) in digits.iter().zip(&self.pivots) {
            match digit {
                0 => {}
                1 => algebra.add_assign(&mut acc, pivot)?,
                d => {
                    algebra.add_assign(&mut acc, &algebra.mul_scalar(pivot, &BigUint::from(*d))?)?
                }
            }
        }
        for (zero, take) in self.zeros.iter().zip(random_bits(self.zeros.len())?) {
            if take {
                algebra.add_assign(&mut acc, zero)?;
            }
        }
        Ok(acc)
    }
}

/// `count` uniform bits from the OS CSPRNG.
fn random_bits(count: usize) -> Result<Vec<bool>> {
    let mut bytes = vec![0u8; count.div_ceil(8)];
    OsRng
        .try_fill_bytes(&mut bytes)
        .map_err(|e| Error::Randomness(e.to_string()))?;
    Ok((0..count)
        .map(|i| bytes[i / 8] >> (i % 8) & 1 == 1)
        .collect())
}

impl Encryptor for InsecureRache<Engine> {
    fn name(&self) -> String {
        format!("rache(r={},k={})", self.radix.radix(), self.radix.pivots())
    }

    fn security(&self) -> Security {
        Security::Insecure("outputs are small combinations of k+1 cached ciphertexts")
    }

    fn context(&self) -> &Context {
        self.algebra.context()
    }

    fn encrypt_value(&self, value: &BigUint) -> Result<Ciphertext> {
        check_value(self.context(), value)?;
        self.encrypt(value)
    }
}
