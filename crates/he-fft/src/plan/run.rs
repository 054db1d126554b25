//! Executing a plan: the dense and four-step pipelines and the helpers they share.

use super::{DenseRun, FftPlan, FourStep};
use crate::error::{Error, Result};
use crate::stages::DenseDiagonals;
use ark_ff::{FftField, PrimeField};
use helib_rs::lintrans::{EncodedTransform, SlotTransform};
use helib_rs::{Ciphertext, GaloisKeys};
use rayon::prelude::*;

impl<F: PrimeField + FftField> FftPlan<F> {
    pub(super) fn run_dense(
        &self,
        run: &DenseRun<F>,
        x: &Ciphertext,
        keys: &GaloisKeys,
    ) -> Result<Ciphertext> {
        let transform = dense_transform(run);
        let encoded = EncodedTransform::new(&transform, self.prep.keys, &self.encoder, x.level())?;
        Ok(encoded.apply(x, keys)?)
    }

    /// The four-step execution: the groups' size-N transforms run in
    /// parallel on the pool the caller installed, as do the sums across
    /// ciphertexts (one per output).
    pub(super) fn run_split(
        &self,
        parts: &FourStep<'_, F>,
        inputs: &[Ciphertext],
        keys: &GaloisKeys,
    ) -> Result<Vec<Ciphertext>> {
        let across = |cts: &[Ciphertext]| -> Result<Vec<Ciphertext>> {
            (0..parts.ciphertexts())
                .into_par_iter()
                .map(|to| {
                    let mut acc: Option<Ciphertext> = None;
                    for (from, ct) in cts.iter().enumerate() {
                        let term = parts.across_term(to, from, ct)?;
                        match acc.as_mut() {
                            Some(a) => a.add_assign(&term)?,
                            None => acc = Some(term),
                        }
                    }
                    acc.ok_or(Error::Internal("no ciphertexts"))
                })
                .collect()
        };
        let per_group = |cts: &[Ciphertext]| -> Result<Vec<Ciphertext>> {
            cts.par_iter()
                .enumerate()
                .map(|(k, ct)| parts.run_group(k, ct, keys))
                .collect()
        };
        let outputs = if parts.across_first() {
            per_group(&across(inputs)?)?
        } else {
            across(&per_group(inputs)?)?
        };
        outputs.into_par_iter().map(|ct| parts.finish(ct)).collect()
    }
}

fn dense_transform<F: PrimeField + FftField>(run: &DenseRun<F>) -> SlotTransform<F> {
    let n = run.packing.len();
    let bits = n.trailing_zeros();
    let powers: Vec<F> = std::iter::successors(Some(F::one()), |w| Some(*w * run.omega))
        .take(n)
        .collect();
    let bit_reversed = run.input_bit_reversed;
    let matrix = DenseDiagonals::new(run.packing, move |i, j| {
        let j = if bit_reversed {
            crate::stages::bit_reverse(j, bits)
        } else {
            j
        };
        powers[(i * j) % n]
    });
    // diag(out) ∘ (D ⊙ shift(·)) ∘ diag(in) = (out ⊙ D ⊙ shift(in)) ⊙ shift(·):
    // the scalings go into each diagonal as it is made, so only one copy of
    // the n diagonals is ever held.
    let row = run.packing.row();
    let mut t = SlotTransform::zero(row);
    for shift in matrix.shifts() {
        let scale_in = SlotTransform::shift_vector(row, &run.scale_in, shift);
        let diagonal: Vec<F> = matrix
            .diagonal(shift)
            .into_iter()
            .zip(scale_in)
            .zip(&run.scale_out)
            .map(|((d, a), b)| d * a * b)
            .collect();
        t.add_term(shift, &diagonal);
    }
    t
}
