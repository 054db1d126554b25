//! What a prepared transform ([`FftPlan`](crate::FftPlan) or
//! [`ConversionPlan`](crate::ConversionPlan)) requires of its inputs and
//! keys, checked before any work, so that a wrong input is refused with its
//! cause instead of failing at decryption.

use crate::error::{Error, Result};
use crate::plan::level_cost_bits;
use helib_rs::{Ciphertext, Context, GaloisKeys};

/// `Ok` when `other` is `context`.
///
/// # Errors
/// [`Error::ContextMismatch`] otherwise.
pub(crate) fn ensure_same_context(context: &Context, other: &Context) -> Result<()> {
    if context.same_as(other) {
        Ok(())
    } else {
        Err(Error::ContextMismatch)
    }
}

/// The inputs a transform accepts: ciphertexts of its context, relinearized,
/// at its input level, with budget for its depth, and the Galois keys it
/// rotates by.
pub(crate) struct Admission<'a> {
    /// The transform's context.
    pub context: &'a Context,
    /// The level every input must be at.
    pub level: usize,
    /// The plaintext-multiplication levels the transform consumes.
    pub depth: usize,
    /// The Galois elements whose keys the transform uses.
    pub elements: &'a [u64],
}

impl Admission<'_> {
    /// Checks `inputs` and `keys`, in this order: the keys' and inputs'
    /// context, every input of two parts, every input at the level, every
    /// key present, and the smallest estimated budget among the inputs
    /// (key-free) enough for the depth.
    ///
    /// # Errors
    /// [`Error::ContextMismatch`], [`Error::InputNotRelinearized`],
    /// [`Error::WrongInputLevel`], [`Error::MissingGaloisKey`] or
    /// [`Error::InsufficientBudget`], the first that applies.
    pub(crate) fn check(&self, inputs: &[Ciphertext], keys: &GaloisKeys) -> Result<()> {
        ensure_same_context(self.context, keys.context())?;
        for ct in inputs {
            ensure_same_context(self.context, ct.context())?;
        }
        if let Some(ct) = inputs.iter().find(|ct| ct.size() != 2) {
            return Err(Error::InputNotRelinearized { parts: ct.size() });
        }
        if let Some(ct) = inputs.iter().find(|ct| ct.level() != self.level) {
            return Err(Error::WrongInputLevel {
                expected: self.level,
                got: ct.level(),
            });
        }
        if let Some(&element) = self.elements.iter().find(|&&e| !keys.contains(e)) {
            return Err(Error::MissingGaloisKey { element });
        }
        let per_level = level_cost_bits(self.context);
        let available = inputs
            .iter()
            .map(|ct| (ct.estimated_budget_bits() / per_level).floor().max(0.0) as usize)
            .min()
            .unwrap_or(0);
        if available < self.depth {
            return Err(Error::InsufficientBudget {
                needed: self.depth,
                available,
            });
        }
        Ok(())
    }
}
