//! Ciphertexts assembled from residues computed elsewhere: whole
//! ([`Ciphertext::from_residues`]) or column range by column range
//! ([`Ciphertext::zeros`], [`Ciphertext::write_residue_columns`]; without
//! the zeroing, [`CiphertextAssembly`](crate::CiphertextAssembly)), for
//! block products spread over processes ([`Context::convolve_rows`]).

use helib_sys as sys;
use num_bigint::BigUint;

use crate::ciphertext::Ciphertext;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::ffi::check;

impl Ciphertext {
    /// The ciphertext of `parts` (2 or 3) polynomials at `level` with these
    /// residues — part major, then prime, N words each, as
    /// [`residues`](Self::residues) reads them — correction factor `factor`
    /// and noise estimate `noise_bits` (log2): for blocks assembled from
    /// residues computed elsewhere ([`Context::convolve_rows`]).
    ///
    /// ```
    /// use helib_rs::{Ciphertext, Context, Parameters, Plaintext, SecretKey};
    ///
    /// let context = Context::new(&Parameters::for_tests())?;
    /// let sk = SecretKey::generate(&context)?;
    /// let ct = sk.encrypt(&Plaintext::from_u64s(&context, &[1, 2])?)?;
    /// let mut residues = Vec::new();
    /// for part in 0..2 {
    ///     for prime in 0..=ct.level() {
    ///         residues.extend(ct.residues(part, prime)?);
    ///     }
    /// }
    /// let copy = Ciphertext::from_residues(
    ///     &context, ct.level(), 2, ct.correction_factor(), ct.noise_estimate_bits(), &residues)?;
    /// assert_eq!(sk.decrypt(&copy)?, sk.decrypt(&ct)?);
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Malformed`] for a residue not below its prime, a factor not
    /// invertible mod t, a non-finite estimate, other than 2 or 3 parts or a
    /// length other than parts · (level + 1) · N; [`Error::InvalidLevel`] for
    /// a level above the top.
    pub fn from_residues(
        context: &Context,
        level: usize,
        parts: usize,
        factor: &BigUint,
        noise_bits: f64,
        residues: &[u64],
    ) -> Result<Ciphertext> {
        let limbs = factor_limbs(context, factor)?;
        Ciphertext::produce(context, |dst| {
            // SAFETY: the context handle is live, the factor and residue
            // slices hold the lengths passed, `dst` is a new handle.
            unsafe {
                sys::helib_ciphertext_import_residues(
                    context.as_ptr(),
                    level,
                    parts,
                    limbs.as_ptr(),
                    limbs.len(),
                    noise_bits,
                    residues.as_ptr(),
                    residues.len(),
                    dst,
                )
            }
        })
    }

    /// [`from_residues`](Self::from_residues)'s ciphertext with every
    /// residue zero, to be filled piece by piece with
    /// [`write_residue_columns`](Self::write_residue_columns) (or in place by
    /// [`Context::convolve_rows`], [`OutputRows::Columns`](crate::OutputRows::Columns)): for blocks
    /// whose residues arrive as column ranges from several processes, which
    /// would otherwise be staged whole and copied again.
    ///
    /// ```
    /// use helib_rs::{Ciphertext, Context, Parameters, Plaintext, SecretKey};
    ///
    /// let context = Context::new(&Parameters::for_tests())?;
    /// let sk = SecretKey::generate(&context)?;
    /// let ct = sk.encrypt(&Plaintext::from_u64s(&context, &[1, 2])?)?;
    /// let (n, half) = (context.ring_degree(), context.ring_degree() / 2);
    /// let mut copy = Ciphertext::zeros(
    ///     &context, ct.level(), 2, ct.correction_factor(), ct.noise_estimate_bits())?;
    /// let mut piece = vec![0; half];
    /// for part in 0..2 {
    ///     for prime in 0..=ct.level() {
    ///         // Two column ranges, as two processes would send them.
    ///         for first in [half, 0] {
    ///             ct.residue_columns_into(part, prime, first, &mut piece)?;
    ///             copy.write_residue_columns(part, prime, first, &piece)?;
    ///         }
    ///     }
    /// }
    /// assert_eq!(sk.decrypt(&copy)?, sk.decrypt(&ct)?);
    /// assert!(copy.write_residue_columns(0, 0, n - 1, &piece).is_err()); // past column N
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    ///
    /// # Errors
    /// As for [`from_residues`](Self::from_residues), less the residues'.
    pub fn zeros(
        context: &Context,
        level: usize,
        parts: usize,
        factor: &BigUint,
        noise_bits: f64,
    ) -> Result<Ciphertext> {
        Self::frame(context, level, parts, factor, noise_bits, true)
    }

    /// The frame of [`zeros`](Self::zeros), zeroed or with its residues
    /// left unwritten (for [`CiphertextAssembly`](crate::CiphertextAssembly),
    /// which hands it out only once every residue is written).
    pub(crate) fn frame(
        context: &Context,
        level: usize,
        parts: usize,
        factor: &BigUint,
        noise_bits: f64,
        zeroed: bool,
    ) -> Result<Ciphertext> {
        let limbs = factor_limbs(context, factor)?;
        let make = if zeroed {
            sys::helib_ciphertext_zeros
        } else {
            sys::helib_ciphertext_unwritten
        };
        Ciphertext::produce(context, |dst| {
            // SAFETY: the context handle is live, the factor slice holds the
            // length passed, `dst` is a new handle.
            unsafe {
                make(
                    context.as_ptr(),
                    level,
                    parts,
                    limbs.as_ptr(),
                    limbs.len(),
                    noise_bits,
                    dst,
                )
            }
        })
    }

    /// Writes `words` into columns `first..first + words.len()` of the
    /// residues of polynomial `part` modulo chain prime `prime` (the values
    /// [`residue_columns_into`](Self::residue_columns_into) reads). The
    /// ciphertext keeps its correction factor and noise estimate: the caller
    /// answers for the residues, as for [`from_residues`](Self::from_residues).
    ///
    /// # Errors
    /// [`Error::Malformed`] for a word not below the prime (nothing is
    /// written); as for [`residue_columns_into`](Self::residue_columns_into)
    /// for the part, prime and columns.
    pub fn write_residue_columns(
        &mut self,
        part: usize,
        prime: usize,
        first: usize,
        words: &[u64],
    ) -> Result<()> {
        let ct = self.as_mut_ptr();
        // SAFETY: the handle is live and exclusively borrowed; `words` holds
        // `words.len()` values, which the engine checks against the row.
        check(unsafe {
            sys::helib_ciphertext_write_residue_columns(
                ct,
                part,
                prime,
                first,
                words.as_ptr(),
                words.len(),
            )
        })
    }
}

/// The limbs of a correction factor below t.
fn factor_limbs(context: &Context, factor: &BigUint) -> Result<Vec<u64>> {
    if factor >= context.plaintext_modulus() {
        return Err(Error::Malformed(
            "the correction factor is not below t".into(),
        ));
    }
    Ok(context.reduced_limbs(factor))
}

/// A test context, a key and an encryption of `values` under it: the
/// blocks the import and assembly tests take apart.
#[cfg(test)]
pub(crate) fn encrypted_for_tests(values: &[u64]) -> (Context, crate::SecretKey, Ciphertext) {
    let context = Context::new(&crate::Parameters::for_tests()).unwrap();
    let sk = crate::SecretKey::generate(&context).unwrap();
    let plaintext = crate::Plaintext::from_u64s(&context, values).unwrap();
    let ct = sk.encrypt(&plaintext).unwrap();
    (context, sk, ct)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_residues_are_refused() {
        let (context, _, ct) = encrypted_for_tests(&[3, 4]);
        let n = context.ring_degree();
        let mut residues = Vec::new();
        for part in 0..2 {
            for prime in 0..=ct.level() {
                residues.extend(ct.residues(part, prime).unwrap());
            }
        }
        let (level, factor) = (ct.level(), ct.correction_factor().clone());
        let noise = ct.noise_estimate_bits();
        assert!(Ciphertext::from_residues(&context, level, 2, &factor, noise, &residues).is_ok());
        let short = &residues[..residues.len() - 1];
        assert!(matches!(
            Ciphertext::from_residues(&context, level, 2, &factor, noise, short),
            Err(Error::Malformed(_))
        ));
        let mut high = residues.clone();
        high[n + 5] = context.chain_primes()[1];
        assert!(matches!(
            Ciphertext::from_residues(&context, level, 2, &factor, noise, &high),
            Err(Error::Malformed(_))
        ));
        assert!(Ciphertext::from_residues(&context, level, 4, &factor, noise, &residues).is_err());
        assert!(
            Ciphertext::from_residues(&context, level, 2, &factor, f64::NAN, &residues).is_err()
        );
    }
}
