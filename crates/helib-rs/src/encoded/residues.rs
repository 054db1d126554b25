//! An encoding's residues as the engine holds them: exported, viewed in
//! place, and imported back with every check.

use helib_sys as sys;
use num_bigint::BigUint;
use num_traits::Zero;

use super::plaintext::EncodedPlaintext;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::ffi::{check, Owned};

impl EncodedPlaintext {
    /// Words [`export_residues`](Self::export_residues) writes: N /
    /// [`stride`](Self::stride) per prime the plaintext is encoded for.
    ///
    /// # Errors
    /// Only if the engine fails internally.
    pub fn residue_words(&self) -> Result<usize> {
        let mut words = 0usize;
        // SAFETY: the handle is live and `words` is a valid place.
        check(unsafe { sys::helib_encoded_plaintext_word_count(self.as_ptr(), &mut words) })?;
        Ok(words)
    }

    /// Copies the residues into `out` exactly as the engine holds them (NTT
    /// and Montgomery form; the chain primes 0..=level, then the special
    /// primes when [extended](Self::is_extended); N / [`stride`](Self::stride)
    /// words each) and returns
    /// the log2 sup and l1 norms of the plaintext, which its noise estimates
    /// use. With [`from_residues`](Self::from_residues), a cache of
    /// encodings: the layout is the engine's internal one, so a cache must
    /// record its format version.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] unless `out` holds exactly
    /// [`residue_words`](Self::residue_words) words.
    pub fn export_residues(&self, out: &mut [u64]) -> Result<(f64, f64)> {
        let (mut linf, mut l1) = (0f64, 0f64);
        // SAFETY: the handle is live, `out` is a live slice of the length
        // passed, and the norms are valid places.
        check(unsafe {
            sys::helib_encoded_plaintext_export_residues(
                self.as_ptr(),
                out.as_mut_ptr(),
                out.len(),
                &mut linf,
                &mut l1,
            )
        })?;
        Ok((linf, l1))
    }

    /// An encoding of `context` from what [`export_residues`](Self::export_residues)
    /// gave (and the [`stride`](Self::stride) the encoding had), checked
    /// before it is kept: the level at most the top, the extended form only
    /// with special primes, the stride a power of two from 1 to N / 16, the
    /// word count the level, form and stride imply, every residue below its
    /// prime, the norms in range and the
    /// factor invertible mod t. The checks cannot tell a valid encoding of
    /// one plaintext from that of another: integrity against corruption
    /// belongs to the cache that stores it.
    ///
    /// # Errors
    /// [`Error::Malformed`] for residues, norms or a factor that fail the
    /// checks; [`Error::InvalidLevel`] for a level above the top.
    pub fn from_residues(
        context: &Context,
        level: usize,
        extended: bool,
        stride: usize,
        factor: &BigUint,
        residues: &[u64],
        norms: (f64, f64),
    ) -> Result<Self> {
        if level > context.max_level() {
            return Err(Error::InvalidLevel {
                level,
                max: context.max_level(),
            });
        }
        if factor.is_zero() || factor >= context.plaintext_modulus() {
            return Err(Error::Malformed(
                "the correction factor of an encoding is not in [1, t)".into(),
            ));
        }
        let factor_limbs = context.reduced_limbs(factor);
        let raw = Owned::create(|out| {
            // SAFETY: the context handle is live; the factor and the residues
            // are live slices of the lengths passed; `out` is a valid out-pointer.
            unsafe {
                sys::helib_encoded_plaintext_import_residues(
                    context.as_ptr(),
                    level,
                    i32::from(extended),
                    stride,
                    factor_limbs.as_ptr(),
                    factor_limbs.len(),
                    residues.as_ptr(),
                    residues.len(),
                    norms.0,
                    norms.1,
                    out,
                )
            }
        })?;
        Ok(Self {
            raw,
            context: context.clone(),
            level,
            correction_factor: factor.clone(),
            extended,
        })
    }

    /// The residues in place, laid out as
    /// [`export_residues`](Self::export_residues) copies them (no copy is
    /// made), and the log2 sup and l1 norms it returns.
    ///
    /// # Errors
    /// Only if the engine fails internally.
    pub fn residues(&self) -> Result<(&[u64], (f64, f64))> {
        let mut ptr: *const u64 = std::ptr::null();
        let (mut len, mut linf, mut l1) = (0usize, 0f64, 0f64);
        // SAFETY: the handle is live and every out-pointer is a valid place.
        check(unsafe {
            sys::helib_encoded_plaintext_residues(
                self.as_ptr(),
                &mut ptr,
                &mut len,
                &mut linf,
                &mut l1,
            )
        })?;
        if len == 0 || ptr.is_null() {
            return Ok((&[], (linf, l1)));
        }
        // SAFETY: the engine's buffer holds `len` words, stays alive and
        // unchanged while the handle does (the handle is never written to
        // after it is made), and the slice borrows `self`.
        Ok((unsafe { std::slice::from_raw_parts(ptr, len) }, (linf, l1)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Parameters, Plaintext};

    /// Raw residues round trip, and the engine refuses residues at or above
    /// their prime, a wrong word count, norms out of range and a level above
    /// the top, whatever a (forged) stream says.
    #[test]
    fn raw_residues_are_checked() {
        let context = Context::new(&Parameters::for_tests()).unwrap();
        let plain = Plaintext::from_u64s(&context, &[1, 2, 3]).unwrap();
        let level = 1;
        let pt = EncodedPlaintext::for_linear_transform(&plain, level).unwrap();
        let mut residues = vec![0u64; pt.residue_words().unwrap()];
        let norms = pt.export_residues(&mut residues).unwrap();
        let one = BigUint::from(1u32);
        let again =
            EncodedPlaintext::from_residues(&context, level, true, 1, &one, &residues, norms)
                .unwrap();
        let mut copy = vec![0u64; again.residue_words().unwrap()];
        assert_eq!(again.export_residues(&mut copy).unwrap(), norms);
        assert_eq!(copy, residues);

        let load = |level: usize, residues: &[u64], norms: (f64, f64)| {
            EncodedPlaintext::from_residues(&context, level, true, 1, &one, residues, norms)
        };
        let n = context.ring_degree();
        let mut at_prime = residues.clone();
        at_prime[n + 5] = context.chain_primes()[1];
        assert!(matches!(
            load(level, &at_prime, norms),
            Err(Error::Malformed(_))
        ));
        let mut special = residues.clone();
        *special.last_mut().unwrap() = u64::MAX;
        assert!(matches!(
            load(level, &special, norms),
            Err(Error::Malformed(_))
        ));
        assert!(matches!(
            load(level, &residues[1..], norms),
            Err(Error::Malformed(_))
        ));
        assert!(matches!(
            load(0, &residues, norms),
            Err(Error::Malformed(_))
        ));
        for bad in [f64::NAN, f64::INFINITY, -1.0, 1e6] {
            assert!(matches!(
                load(level, &residues, (bad, norms.1)),
                Err(Error::Malformed(_))
            ));
            assert!(matches!(
                load(level, &residues, (norms.0, bad)),
                Err(Error::Malformed(_))
            ));
        }
        let top = context.max_level();
        assert!(matches!(
            load(top + 1, &residues, norms),
            Err(Error::InvalidLevel { .. })
        ));
        let zero = BigUint::from(0u32);
        assert!(matches!(
            EncodedPlaintext::from_residues(&context, level, true, 1, &zero, &residues, norms),
            Err(Error::Malformed(_))
        ));
    }
}
