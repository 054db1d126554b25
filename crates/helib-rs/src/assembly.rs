//! Ciphertexts written column range by column range, without zeroing them
//! first, and handed out only once every residue is written.

use std::ops::Range;

use num_bigint::BigUint;

use crate::ciphertext::Ciphertext;
use crate::context::Context;
use crate::error::{Error, Result};

/// A ciphertext under construction from column ranges of its residues:
/// some written by [`Context::convolve_rows`] through
/// [`OutputRows::Assembly`](crate::OutputRows::Assembly), the rest by
/// [`write_residue_columns`](Self::write_residue_columns) as they arrive
/// from elsewhere. Its memory is not zeroed first (every residue is
/// written anyway, and zeroing a product's output blocks costs a pass over
/// them); [`finish`](Self::finish) hands the ciphertext out only when every
/// column of every residue row has been written, so no unwritten word is
/// ever read.
///
/// ```
/// use helib_rs::{Ciphertext, CiphertextAssembly, Context, Parameters, Plaintext, SecretKey};
///
/// let context = Context::new(&Parameters::for_tests())?;
/// let sk = SecretKey::generate(&context)?;
/// let ct = sk.encrypt(&Plaintext::from_u64s(&context, &[1, 2])?)?;
/// let half = context.ring_degree() / 2;
/// let mut copy = CiphertextAssembly::new(
///     &context, ct.level(), 2, ct.correction_factor(), ct.noise_estimate_bits())?;
/// let mut piece = vec![0; half];
/// for part in 0..2 {
///     for prime in 0..=ct.level() {
///         ct.residue_columns_into(part, prime, 0, &mut piece)?;
///         copy.write_residue_columns(part, prime, 0, &piece)?;
///     }
/// }
/// // Half the columns are still unwritten: no ciphertext yet.
/// let err = copy.finish().unwrap_err();
/// assert!(err.to_string().contains("never written"));
/// # Ok::<(), helib_rs::Error>(())
/// ```
#[derive(Debug)]
pub struct CiphertextAssembly {
    block: Ciphertext,
    /// Per residue row (part major, then prime): the column ranges written,
    /// sorted and disjoint.
    written: Vec<Vec<Range<usize>>>,
}

impl CiphertextAssembly {
    /// An assembly of `parts` (2 or 3) polynomials at `level` with
    /// correction factor `factor` and noise estimate `noise_bits` (log2), no
    /// column written yet.
    ///
    /// # Errors
    /// As for [`Ciphertext::zeros`].
    pub fn new(
        context: &Context,
        level: usize,
        parts: usize,
        factor: &BigUint,
        noise_bits: f64,
    ) -> Result<Self> {
        let block = Ciphertext::frame(context, level, parts, factor, noise_bits, false)?;
        Ok(Self {
            written: vec![Vec::new(); parts * (level + 1)],
            block,
        })
    }

    /// As [`Ciphertext::write_residue_columns`], recording the columns
    /// written.
    ///
    /// # Errors
    /// As for [`Ciphertext::write_residue_columns`] (nothing is recorded).
    pub fn write_residue_columns(
        &mut self,
        part: usize,
        prime: usize,
        first: usize,
        words: &[u64],
    ) -> Result<()> {
        self.block
            .write_residue_columns(part, prime, first, words)?;
        self.record(part, prime, first..first + words.len());
        Ok(())
    }

    /// The ciphertext, once every column of every residue row is written.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the first row and columns never
    /// written (the assembly is dropped).
    pub fn finish(self) -> Result<Ciphertext> {
        let n = self.block.context().ring_degree();
        let primes = self.block.level() + 1;
        for (row, ranges) in self.written.iter().enumerate() {
            let covered = match ranges.as_slice() {
                [only] => only.start == 0 && only.end >= n,
                _ => false,
            };
            if !covered {
                let gap = match ranges.first() {
                    Some(first) if first.start == 0 => {
                        first.end..ranges.get(1).map_or(n, |r| r.start)
                    }
                    Some(first) => 0..first.start,
                    None => 0..n,
                };
                return Err(Error::InvalidArgument(format!(
                    "columns {gap:?} of polynomial {}'s residues modulo prime {} were never written",
                    row / primes,
                    row % primes
                )));
            }
        }
        Ok(self.block)
    }

    /// The block being written, for [`Context::convolve_rows`] (which
    /// records what it wrote with [`record`](Self::record) once it
    /// succeeded).
    pub(crate) fn block_mut(&mut self) -> &mut Ciphertext {
        &mut self.block
    }

    /// Marks `columns` of row (`part`, `prime`) written.
    pub(crate) fn record(&mut self, part: usize, prime: usize, columns: Range<usize>) {
        if columns.is_empty() {
            return;
        }
        let primes = self.block.level() + 1;
        let Some(ranges) = self.written.get_mut(part * primes + prime) else {
            return;
        };
        // Merge with every range it touches or overlaps.
        let at = ranges.partition_point(|r| r.end < columns.start);
        let mut merged = columns;
        while at < ranges.len() && ranges[at].start <= merged.end {
            let r = ranges.remove(at);
            merged = merged.start.min(r.start)..merged.end.max(r.end);
        }
        ranges.insert(at, merged);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::residue_import::encrypted_for_tests;
    use crate::Parameters;

    #[test]
    fn columns_in_any_order_and_overlap_make_the_ciphertext_only_when_complete() {
        let (context, sk, ct) = encrypted_for_tests(&[5, 6, 7]);
        let n = context.ring_degree();
        // Every row written in these column ranges, in this order.
        let assemble = |ranges: &[Range<usize>]| {
            let (factor, noise) = (ct.correction_factor(), ct.noise_estimate_bits());
            let mut assembly = CiphertextAssembly::new(&context, ct.level(), 2, factor, noise)?;
            for range in ranges {
                for part in 0..2 {
                    for prime in 0..=ct.level() {
                        let row = ct.residues(part, prime)?;
                        assembly.write_residue_columns(
                            part,
                            prime,
                            range.start,
                            &row[range.clone()],
                        )?;
                    }
                }
            }
            assembly.finish()
        };
        // Overlapping ranges, back to front.
        let ranges = [n / 2..n, n / 4..3 * n / 4, 0..n / 2];
        for written in 1..ranges.len() {
            let err = assemble(&ranges[..written]).unwrap_err().to_string();
            assert!(err.contains("never written"), "{err}");
        }
        let copy = assemble(&ranges).unwrap();
        assert_eq!(sk.decrypt(&copy).unwrap(), sk.decrypt(&ct).unwrap());
        for part in 0..2 {
            for prime in 0..=ct.level() {
                assert_eq!(
                    copy.residues(part, prime).unwrap(),
                    ct.residues(part, prime).unwrap()
                );
            }
        }
    }

    #[test]
    fn a_missing_row_or_a_refused_write_is_named() {
        let context = Context::new(&Parameters::for_tests()).unwrap();
        let n = context.ring_degree();
        let one = BigUint::from(1u8);
        let mut assembly = CiphertextAssembly::new(&context, 0, 2, &one, 1.0).unwrap();
        assembly
            .write_residue_columns(0, 0, 0, &vec![1; n])
            .unwrap();
        // Not below the prime: refused, nothing recorded.
        assert!(assembly
            .write_residue_columns(1, 0, 0, &vec![u64::MAX; n])
            .is_err());
        let err = assembly.finish().unwrap_err().to_string();
        assert!(
            err.contains(&format!(
                "columns 0..{n} of polynomial 1's residues modulo prime 0"
            )),
            "{err}"
        );
        assert!(CiphertextAssembly::new(&context, 0, 4, &one, 1.0).is_err());
    }
}
