//! The online step of the secure encryptor: one prepared encryption of zero
//! plus the message.

use num_bigint::BigUint;

use crate::algebra::Algebra;
use crate::error::Result;

/// One offline preparation: a fresh encryption of zero, used once.
#[derive(Debug)]
pub struct Prepared<C> {
    zero: C,
}

impl<C> Prepared<C> {
    /// Prepares one item: a fresh encryption of zero.
    ///
    /// # Errors
    /// Engine failures (randomness, memory).
    pub fn new<A: Algebra<Ciphertext = C>>(algebra: &A) -> Result<Self> {
        Ok(Self {
            zero: algebra.encrypt_fresh(&BigUint::default())?,
        })
    }

    /// The encryption of zero (e.g. to add a packed plaintext to it).
    pub fn into_zero(self) -> C {
        self.zero
    }

    /// The online step: `zero + (value, 0)`, consuming the item so its
    /// encryption of zero can never be used twice.
    ///
    /// The result is bit for bit the fresh encryption of zero with `value`
    /// added to its constant term — what adding the encoded plaintext would
    /// give — but costs one pass over c_0 instead of encoding the plaintext
    /// (an NTT per prime).
    ///
    /// # Errors
    /// Engine failures.
    pub fn encrypt<A: Algebra<Ciphertext = C>>(self, algebra: &A, value: &BigUint) -> Result<C> {
        let Self { mut zero } = self;
        algebra.add_constant_assign(&mut zero, value)?;
        Ok(zero)
    }
}
