//! Importing an encoding's residues straight into the engine's buffer,
//! checked piece by piece.

use helib_sys as sys;
use num_bigint::BigUint;
use num_traits::Zero;

use super::plaintext::EncodedPlaintext;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::ffi::{check, Owned};

/// An encoding being filled from raw residues straight into the engine's
/// buffer ([`EncodedPlaintext::from_residues`] without its copy): the words
/// are written through [`buffer`](Self::buffer), checked range by range with
/// [`check`](Self::check) while they are in cache, and
/// [`finish`](Self::finish) checks the rest and the metadata. No residue
/// reaches an [`EncodedPlaintext`] unchecked.
pub struct ResidueImport {
    raw: Owned<sys::helib_residue_import>,
    words: *mut u64,
    len: usize,
    context: Context,
    level: usize,
    extended: bool,
}

// SAFETY: the import and its buffer are owned solely by this value (no other
// handle refers to them), and the engine keeps no thread-local state for
// them, so they may move to another thread.
unsafe impl Send for ResidueImport {}

impl ResidueImport {
    /// A fresh import for an encoding at `level` (extended with the special
    /// primes when `extended`) of stride `stride`
    /// ([`EncodedPlaintext::stride`]); its words hold unspecified values
    /// until written.
    ///
    /// # Errors
    /// [`Error::InvalidLevel`] for a level above the top;
    /// [`Error::Malformed`] for the extended form without special primes or
    /// a stride that is not a power of two from 1 to N / 16.
    pub(crate) fn begin(
        context: &Context,
        level: usize,
        extended: bool,
        stride: usize,
    ) -> Result<Self> {
        let mut words: *mut u64 = std::ptr::null_mut();
        let mut len = 0usize;
        let raw = Owned::create(|out| {
            // SAFETY: the context handle is live and every out-pointer is a
            // valid place.
            unsafe {
                sys::helib_residue_import_begin(
                    context.as_ptr(),
                    level,
                    i32::from(extended),
                    stride,
                    out,
                    &mut words,
                    &mut len,
                )
            }
        })?;
        if len == 0 || words.is_null() {
            // A zero-sized buffer: nothing will be written.
            words = std::ptr::NonNull::dangling().as_ptr();
        }
        Ok(Self {
            raw,
            words,
            len,
            context: context.clone(),
            level,
            extended,
        })
    }

    /// The buffer to fill.
    pub(crate) fn buffer(&mut self) -> &mut [u64] {
        // SAFETY: the engine's buffer holds `len` words (or `words` is
        // dangling and `len` 0), is owned by the import, which outlives the
        // borrow, and nothing else reads or writes it meanwhile. The engine
        // hands out initialized words (of unspecified values), and every bit
        // pattern is a valid u64.
        unsafe { std::slice::from_raw_parts_mut(self.words, self.len) }
    }

    /// Checks words `[0, upto)` not checked yet against their primes.
    ///
    /// # Errors
    /// [`Error::Malformed`] for a residue at or above its prime.
    pub(crate) fn check(&mut self, upto: usize) -> Result<()> {
        // SAFETY: the import handle is live.
        check(unsafe { sys::helib_residue_import_check(self.raw.as_mut_ptr(), upto) })
    }

    /// The encoding, once the remaining residues, the factor and the norms
    /// pass the checks of [`EncodedPlaintext::from_residues`].
    ///
    /// # Errors
    /// [`Error::Malformed`] for residues, norms or a factor that fail them.
    pub(crate) fn finish(
        mut self,
        factor: &BigUint,
        norms: (f64, f64),
    ) -> Result<EncodedPlaintext> {
        if factor.is_zero() || factor >= self.context.plaintext_modulus() {
            return Err(Error::Malformed(
                "the correction factor of an encoding is not in [1, t)".into(),
            ));
        }
        let factor_limbs = self.context.reduced_limbs(factor);
        let import = self.raw.as_mut_ptr();
        let raw = Owned::create(|out| {
            // SAFETY: the import handle is live; the factor is a live slice of
            // the length passed; `out` is a valid out-pointer.
            unsafe {
                sys::helib_residue_import_finish(
                    import,
                    factor_limbs.as_ptr(),
                    factor_limbs.len(),
                    norms.0,
                    norms.1,
                    out,
                )
            }
        })?;
        Ok(EncodedPlaintext {
            raw,
            context: self.context.clone(),
            level: self.level,
            correction_factor: factor.clone(),
            extended: self.extended,
        })
    }
}
