//! Block products on rows of residues, for products spread over processes.
//!
//! A block product ([`Ciphertext::multiply_blocks`]) is computed modulo each
//! chain prime and slot by slot: in the engine's evaluation form, slot j of
//! every output block depends only on slot j of the input blocks. So
//! processes that each hold some slot *columns* of every block compute, with
//! [`Context::convolve_rows`], exactly the residues the one-process product
//! has in those columns; [`Context::block_product_noise`] gives the noise
//! estimate the one-process product records, and
//! [`Ciphertext::from_residues`] assembles the output blocks again.

use std::ops::Range;

use helib_sys as sys;
use num_bigint::BigUint;

use crate::ciphertext::Ciphertext;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::ffi::check;

/// One operand of [`Context::convolve_rows`]: `blocks` × `parts` rows of
/// residues (block major, then part), each of the same width.
#[derive(Debug, Clone, Copy)]
pub struct RowOperand<'a> {
    /// The rows, `blocks · parts · width` words.
    pub rows: &'a [u64],
    /// How many blocks the rows are of.
    pub blocks: usize,
    /// Polynomials per block: 2 for a size-2 ciphertext, 1 for an encoded plaintext.
    pub parts: usize,
    /// Whether the residues are in Montgomery form (an [`EncodedPlaintext`](crate::EncodedPlaintext)'s are).
    pub montgomery: bool,
}

impl<'a> RowOperand<'a> {
    /// Rows of `blocks` size-2 ciphertexts (residues in engine form).
    pub fn ciphertexts(rows: &'a [u64], blocks: usize) -> Self {
        Self {
            rows,
            blocks,
            parts: 2,
            montgomery: false,
        }
    }

    /// Rows of `blocks` encoded plaintexts (one polynomial each, Montgomery form).
    pub fn encoded_plaintexts(rows: &'a [u64], blocks: usize) -> Self {
        Self {
            rows,
            blocks,
            parts: 1,
            montgomery: true,
        }
    }
}

impl Context {
    /// The block product of `a` and `b` on `width` slot columns at chain
    /// prime `prime`: `out` receives the output blocks `outputs`, each
    /// `a.parts + b.parts − 1` rows of `width` words (block major, then
    /// part) — the residues [`Ciphertext::multiply_blocks`] (or
    /// [`multiply_plain_blocks`](Ciphertext::multiply_plain_blocks)) gives in
    /// those columns.
    ///
    /// ```
    /// use helib_rs::{Ciphertext, Context, Parameters, Plaintext, RowOperand, SecretKey};
    ///
    /// let context = Context::new(&Parameters::for_tests())?;
    /// let sk = SecretKey::generate(&context)?;
    /// let enc = |c: &[i64]| sk.encrypt(&Plaintext::from_i64s(&context, c)?);
    /// let (a, b) = ([enc(&[1])?, enc(&[2])?], [enc(&[3])?, enc(&[1])?]);
    /// let whole = Ciphertext::multiply_blocks(&a, &b, 0..3)?;
    /// // Columns 8..16 of prime 0, rows of (block, part).
    /// let rows = |blocks: &[Ciphertext]| -> helib_rs::Result<Vec<u64>> {
    ///     let mut out = Vec::new();
    ///     for block in blocks {
    ///         for part in 0..block.size() {
    ///             out.extend_from_slice(&block.residues(part, 0)?[8..16]);
    ///         }
    ///     }
    ///     Ok(out)
    /// };
    /// let mut out = vec![0; 3 * 3 * 8];
    /// let (ra, rb) = (rows(&a)?, rows(&b)?);
    /// context.convolve_rows(0, 8, RowOperand::ciphertexts(&ra, 2), RowOperand::ciphertexts(&rb, 2), 0..3, &mut out)?;
    /// assert_eq!(out, rows(&whole)?);
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for row counts that do not match the
    /// shapes, a prime outside the chain, operands other than size-2
    /// ciphertexts times size-2 ciphertexts or plaintexts, or outputs
    /// outside the product's blocks; [`Error::Malformed`] for a residue not
    /// below the prime.
    pub fn convolve_rows(
        &self,
        prime: usize,
        width: usize,
        a: RowOperand<'_>,
        b: RowOperand<'_>,
        outputs: Range<usize>,
        out: &mut [u64],
    ) -> Result<()> {
        let words = |blocks: usize, parts: usize| {
            blocks
                .checked_mul(parts)
                .and_then(|rows| rows.checked_mul(width))
        };
        let out_parts = (a.parts + b.parts).saturating_sub(1);
        let shapes = [
            (a.rows.len(), words(a.blocks, a.parts), "a"),
            (b.rows.len(), words(b.blocks, b.parts), "b"),
            (out.len(), words(outputs.len(), out_parts), "out"),
        ];
        for (len, expected, name) in shapes {
            if expected != Some(len) {
                return Err(Error::InvalidArgument(format!(
                    "the rows of {name} hold {len} words, not the shape's {expected:?}"
                )));
            }
        }
        // SAFETY: the context handle is live; the three slices hold exactly
        // the words the shapes name (checked above), and `out` is exclusive.
        check(unsafe {
            sys::helib_context_convolve_rows(
                self.as_ptr(),
                prime,
                width,
                a.rows.as_ptr(),
                a.blocks,
                a.parts,
                b.rows.as_ptr(),
                b.blocks,
                b.parts,
                i32::from(b.montgomery),
                outputs.start,
                out.as_mut_ptr(),
                outputs.len(),
            )
        })
    }

    /// The noise estimate (log2) of the outputs of a block product of
    /// ciphertexts at `level` whose operands' largest estimates are `noise_a`
    /// and `noise_b` and which sums `terms` = min(c_a, c_b) products per
    /// block: the value [`Ciphertext::multiply_blocks`] records.
    ///
    /// # Errors
    /// [`Error::NoiseBudgetExhausted`] when the outputs would not decrypt;
    /// [`Error::InvalidLevel`] for a level above the top.
    pub fn block_product_noise(
        &self,
        level: usize,
        noise_a: f64,
        noise_b: f64,
        terms: usize,
    ) -> Result<f64> {
        self.product_noise(level, noise_a, noise_b, false, terms)
    }

    /// As [`block_product_noise`](Self::block_product_noise) for a plaintext
    /// operand whose blocks' l1 norms sum to 2^`log2_l1_sum`: the value
    /// [`Ciphertext::multiply_plain_blocks`] records.
    ///
    /// # Errors
    /// As for [`block_product_noise`](Self::block_product_noise).
    pub fn plain_block_product_noise(
        &self,
        level: usize,
        noise_a: f64,
        log2_l1_sum: f64,
    ) -> Result<f64> {
        self.product_noise(level, noise_a, log2_l1_sum, true, 0)
    }

    fn product_noise(
        &self,
        level: usize,
        noise_a: f64,
        b_log2: f64,
        plain: bool,
        terms: usize,
    ) -> Result<f64> {
        let mut out = 0f64;
        // SAFETY: the context handle is live and `out` a valid place.
        check(unsafe {
            sys::helib_block_product_noise(
                self.as_ptr(),
                level,
                noise_a,
                b_log2,
                i32::from(plain),
                terms,
                &mut out,
            )
        })?;
        Ok(out)
    }
}

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
    /// [`write_residue_columns`](Self::write_residue_columns): for blocks
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
        let limbs = factor_limbs(context, factor)?;
        Ciphertext::produce(context, |dst| {
            // SAFETY: the context handle is live, the factor slice holds the
            // length passed, `dst` is a new handle.
            unsafe {
                sys::helib_ciphertext_zeros(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Parameters, Plaintext, SecretKey};
    use rand::{Rng, SeedableRng};

    #[test]
    fn bad_rows_and_residues_are_refused() {
        let context = Context::new(&Parameters::for_tests()).unwrap();
        let sk = SecretKey::generate(&context).unwrap();
        let ct = sk
            .encrypt(&Plaintext::from_u64s(&context, &[3, 4]).unwrap())
            .unwrap();
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

        // Rows: 2 blocks times 1 block on 8 columns.
        let rows = vec![1u64; 2 * 2 * 8];
        let mut out = vec![0u64; 2 * 3 * 8];
        let a = RowOperand::ciphertexts(&rows, 2);
        let b = RowOperand::ciphertexts(&rows[..2 * 8], 1);
        context.convolve_rows(0, 8, a, b, 0..2, &mut out).unwrap();
        assert!(matches!(
            context.convolve_rows(0, 8, a, b, 0..3, &mut out),
            Err(Error::InvalidArgument(_))
        ));
        assert!(context
            .convolve_rows(0, 8, a, b, 0..2, &mut out[1..])
            .is_err());
        let primes = context.chain_primes().len();
        assert!(context
            .convolve_rows(primes, 8, a, b, 0..2, &mut out)
            .is_err());
        let mut bad = rows.clone();
        bad[3] = context.chain_primes()[0];
        let a_bad = RowOperand::ciphertexts(&bad, 2);
        assert!(matches!(
            context.convolve_rows(0, 8, a_bad, b, 0..2, &mut out),
            Err(Error::Malformed(_))
        ));
        assert!(matches!(
            context.block_product_noise(0, 10_000.0, 10_000.0, 1),
            Err(Error::NoiseBudgetExhausted)
        ));
        assert!(context.block_product_noise(0, 10.0, 10.0, 1).unwrap() > 20.0);
    }

    /// Every column is an independent convolution of its blocks (the
    /// residues are in evaluation form): the rows of any width — multiples
    /// of the vector kernels' widths or not — equal the products computed
    /// here with 128-bit integers.
    #[test]
    fn row_convolutions_of_any_width_are_exact() {
        let context = Context::new(&Parameters::for_tests()).unwrap();
        let q = context.chain_primes()[0];
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let mul = |a: u64, b: u64| ((a as u128 * b as u128) % q as u128) as u64;
        for width in [1, 2, 3, 5, 8, 13] {
            for (a_blocks, b_blocks) in [(1, 1), (1, 2), (2, 1), (3, 2), (2, 4)] {
                let a: Vec<u64> = (0..a_blocks * 2 * width)
                    .map(|_| rng.gen_range(0..q))
                    .collect();
                let b: Vec<u64> = (0..b_blocks * 2 * width)
                    .map(|_| rng.gen_range(0..q))
                    .collect();
                let total = a_blocks + b_blocks - 1;
                let mut out = vec![0u64; total * 3 * width];
                context
                    .convolve_rows(
                        0,
                        width,
                        RowOperand::ciphertexts(&a, a_blocks),
                        RowOperand::ciphertexts(&b, b_blocks),
                        0..total,
                        &mut out,
                    )
                    .unwrap();
                let mut want = vec![0u64; out.len()];
                for i in 0..a_blocks {
                    for j in 0..b_blocks {
                        for col in 0..width {
                            let x = |p: usize| a[(i * 2 + p) * width + col];
                            let y = |p: usize| b[(j * 2 + p) * width + col];
                            let terms = [
                                mul(x(0), y(0)),
                                (mul(x(0), y(1)) + mul(x(1), y(0))) % q,
                                mul(x(1), y(1)),
                            ];
                            for (p, term) in terms.into_iter().enumerate() {
                                let at = ((i + j) * 3 + p) * width + col;
                                want[at] = (want[at] + term) % q;
                            }
                        }
                    }
                }
                assert_eq!(out, want, "width {width}, blocks {a_blocks} x {b_blocks}");
            }
        }
    }
}
