//! The online step of the secure encryptor: one prepared encryption of zero
//! plus the message.

use num_bigint::BigUint;

use crate::algebra::Algebra;
use crate::error::Result;

/// One offline preparation: a fresh encryption of zero, used once, and a
/// private copy of the noiseless unit (1, 0) to carry the message.
#[derive(Debug)]
pub struct Prepared<C> {
    zero: C,
    unit: C,
}

impl<C> Prepared<C> {
    /// Prepares one item: a fresh encryption of zero and a copy of `unit`,
    /// which must be [`Algebra::unit`] (the item adds `value · unit`).
    ///
    /// # Errors
    /// Engine failures (randomness, memory).
    pub fn new<A: Algebra<Ciphertext = C>>(algebra: &A, unit: &C) -> Result<Self> {
        Ok(Self {
            zero: algebra.encrypt_fresh(&BigUint::default())?,
            unit: algebra.duplicate(unit)?,
        })
    }

    /// The encryption of zero (e.g. to add a packed plaintext to it).
    pub fn into_zero(self) -> C {
        self.zero
    }

    /// The online step: `zero + value · (1, 0)`, consuming the item so its
    /// encryption of zero can never be used twice.
    ///
    /// `value · (1, 0) = (value, 0)` exactly, so the result is bit for bit
    /// the fresh encryption of zero with `value` added to its constant term —
    /// what adding the encoded plaintext would give — but costs two pointwise
    /// passes instead of encoding the plaintext (an NTT per prime).
    ///
    /// # Errors
    /// Engine failures.
    pub fn encrypt<A: Algebra<Ciphertext = C>>(self, algebra: &A, value: &BigUint) -> Result<C> {
        let Self { mut zero, mut unit } = self;
        algebra.mul_scalar_assign(&mut unit, value)?;
        algebra.add_assign(&mut zero, &unit)?;
        Ok(zero)
    }
}
