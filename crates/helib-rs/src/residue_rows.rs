//! Block products on rows of residues, for products spread over processes.
//!
//! A block product ([`Ciphertext::multiply_blocks`]) is computed modulo each
//! chain prime and slot by slot: in the engine's evaluation form, slot j of
//! every output block depends only on slot j of the input blocks. So
//! processes that each hold some slot *columns* of every block compute, with
//! [`Context::convolve_rows`], exactly the residues the one-process product
//! has in those columns; [`Context::block_product_noise`] gives the noise
//! estimate the one-process product records, and the output blocks are
//! assembled again from their pieces ([`Ciphertext::zeros`],
//! [`Ciphertext::write_residue_columns`], or in place by the convolution).

use std::ops::Range;

use helib_sys as sys;

use crate::assembly::CiphertextAssembly;
use crate::ciphertext::Ciphertext;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::ffi::check;

/// One operand of [`Context::convolve_rows`]: `blocks` × `parts` rows of
/// residues (block major, then part), each of the convolution's width,
/// wherever each lives: a buffer of rows received from elsewhere, or a
/// ciphertext's own residues ([`Ciphertext::residue_row`]), read in place.
#[derive(Debug, Clone, Copy)]
pub struct RowOperand<'a> {
    /// The rows, `blocks · parts` of them.
    pub rows: &'a [&'a [u64]],
    /// How many blocks the rows are of.
    pub blocks: usize,
    /// Polynomials per block: 2 for a size-2 ciphertext, 1 for an encoded plaintext.
    pub parts: usize,
    /// Whether the residues are in Montgomery form (an [`EncodedPlaintext`](crate::EncodedPlaintext)'s are).
    pub montgomery: bool,
}

impl<'a> RowOperand<'a> {
    /// Rows of `blocks` size-2 ciphertexts (residues in engine form).
    pub fn ciphertexts(rows: &'a [&'a [u64]], blocks: usize) -> Self {
        Self {
            rows,
            blocks,
            parts: 2,
            montgomery: false,
        }
    }

    /// Rows of `blocks` encoded plaintexts (one polynomial each, Montgomery form).
    pub fn encoded_plaintexts(rows: &'a [&'a [u64]], blocks: usize) -> Self {
        Self {
            rows,
            blocks,
            parts: 1,
            montgomery: true,
        }
    }

    /// Checks the row count and every row's length against the shape.
    fn check(&self, width: usize, name: &str) -> Result<()> {
        let expected = self.blocks.checked_mul(self.parts);
        if expected != Some(self.rows.len()) {
            return Err(Error::InvalidArgument(format!(
                "{name} has {} rows, not the {} blocks × {} parts of its shape",
                self.rows.len(),
                self.blocks,
                self.parts
            )));
        }
        match self.rows.iter().position(|row| row.len() != width) {
            Some(index) => Err(Error::InvalidArgument(format!(
                "row {index} of {name} holds {} words, not the width {width}",
                self.rows[index].len()
            ))),
            None => Ok(()),
        }
    }
}

/// Where [`Context::convolve_rows`] puts one output block.
#[derive(Debug)]
pub enum OutputRows<'a> {
    /// A buffer of the block's `a.parts + b.parts − 1` rows of the width,
    /// one after the other (to send elsewhere).
    Words(&'a mut [u64]),
    /// Columns `first..first + width` of `block`'s residues at the prime,
    /// written in place (its polynomials are the block's parts): for a
    /// block assembled here from pieces ([`Ciphertext::zeros`]).
    Columns {
        /// The block, of as many polynomials as the output has parts.
        block: &'a mut Ciphertext,
        /// Its first column written.
        first: usize,
    },
    /// As [`Columns`](Self::Columns), into a block under construction,
    /// which records the columns once the convolution succeeded.
    Assembly {
        /// The block, of as many polynomials as the output has parts.
        block: &'a mut CiphertextAssembly,
        /// Its first column written.
        first: usize,
    },
}

impl Context {
    /// The block product of `a` and `b` on `width` slot columns at chain
    /// prime `prime`: `out` receives the output blocks `outputs`, one
    /// [`OutputRows`] each, every block `a.parts + b.parts − 1` rows of
    /// `width` words — the residues [`Ciphertext::multiply_blocks`] (or
    /// [`multiply_plain_blocks`](Ciphertext::multiply_plain_blocks)) gives in
    /// those columns.
    ///
    /// ```
    /// use helib_rs::{Ciphertext, Context, OutputRows, Parameters, Plaintext, RowOperand, SecretKey};
    ///
    /// let context = Context::new(&Parameters::for_tests())?;
    /// let sk = SecretKey::generate(&context)?;
    /// let enc = |c: &[i64]| sk.encrypt(&Plaintext::from_i64s(&context, c)?);
    /// let (a, b) = ([enc(&[1])?, enc(&[2])?], [enc(&[3])?, enc(&[1])?]);
    /// let whole = Ciphertext::multiply_blocks(&a, &b, 0..3)?;
    /// // Columns 8..16 of prime 0, read in place: rows of (block, part).
    /// fn rows(blocks: &[Ciphertext]) -> helib_rs::Result<Vec<&[u64]>> {
    ///     let mut out = Vec::new();
    ///     for block in blocks {
    ///         for part in 0..block.size() {
    ///             out.push(&block.residue_row(part, 0)?[8..16]);
    ///         }
    ///     }
    ///     Ok(out)
    /// }
    /// let (ra, rb) = (rows(&a)?, rows(&b)?);
    /// // Output blocks 0 and 1 into a buffer, block 2 into a ciphertext.
    /// let mut words = vec![0; 2 * 3 * 8];
    /// let (first, second) = words.split_at_mut(3 * 8);
    /// let like = &whole[2];
    /// let mut last = Ciphertext::zeros(
    ///     &context, like.level(), 3, like.correction_factor(), like.noise_estimate_bits())?;
    /// let mut out = [
    ///     OutputRows::Words(first),
    ///     OutputRows::Words(second),
    ///     OutputRows::Columns { block: &mut last, first: 8 },
    /// ];
    /// let (a_rows, b_rows) = (RowOperand::ciphertexts(&ra, 2), RowOperand::ciphertexts(&rb, 2));
    /// context.convolve_rows(0, 8, a_rows, b_rows, 0..3, &mut out)?;
    /// assert_eq!(words.chunks(8).collect::<Vec<_>>(), rows(&whole[..2])?);
    /// assert_eq!(&last.residue_row(2, 0)?[8..16], &whole[2].residue_row(2, 0)?[8..16]);
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for rows that do not match the shapes or
    /// the width, a prime outside the chain (or above a destination block's
    /// level), operands other than size-2 ciphertexts times size-2
    /// ciphertexts or plaintexts, outputs outside the product's blocks, or a
    /// destination block of another size or whose columns end past N;
    /// [`Error::ContextMismatch`] for a destination block of another
    /// context; [`Error::Malformed`] for a residue not below the prime (the
    /// destinations are then partly written).
    pub fn convolve_rows(
        &self,
        prime: usize,
        width: usize,
        a: RowOperand<'_>,
        b: RowOperand<'_>,
        outputs: Range<usize>,
        out: &mut [OutputRows<'_>],
    ) -> Result<()> {
        if width == 0 {
            return Err(Error::InvalidArgument(
                "a row convolution needs at least one column".into(),
            ));
        }
        a.check(width, "a")?;
        b.check(width, "b")?;
        if out.len() != outputs.len() {
            return Err(Error::InvalidArgument(format!(
                "{} destinations for the {} output blocks {outputs:?}",
                out.len(),
                outputs.len()
            )));
        }
        let out_parts = (a.parts + b.parts).saturating_sub(1);
        let mut out_rows = Vec::with_capacity(out.len() * out_parts);
        for destination in out.iter_mut() {
            match destination {
                OutputRows::Words(words) => {
                    if Some(words.len()) != out_parts.checked_mul(width) {
                        return Err(Error::InvalidArgument(format!(
                            "an output buffer holds {} words, not {out_parts} rows of {width}",
                            words.len()
                        )));
                    }
                    out_rows.extend(words.chunks_exact_mut(width).map(<[u64]>::as_mut_ptr));
                }
                OutputRows::Columns { block, first } => {
                    out_rows.extend(self.output_columns(block, *first, width, out_parts, prime)?);
                }
                OutputRows::Assembly { block, first } => {
                    let rows =
                        self.output_columns(block.block_mut(), *first, width, out_parts, prime)?;
                    out_rows.extend(rows);
                }
            }
        }
        let pointers = |op: &RowOperand<'_>| op.rows.iter().map(|r| r.as_ptr()).collect::<Vec<_>>();
        let (a_rows, b_rows) = (pointers(&a), pointers(&b));
        // SAFETY: the context handle is live; every input row holds `width`
        // words (checked above) and is borrowed for the call; every output
        // row is `width` words of a distinct exclusive borrow (a buffer's
        // own chunk, or columns within a block's row, checked above), none
        // overlapping an input (borrows cannot); the counts are those of
        // the pointer lists.
        check(unsafe {
            sys::helib_context_convolve_rows(
                self.as_ptr(),
                prime,
                width,
                a_rows.as_ptr(),
                a.blocks,
                a.parts,
                b_rows.as_ptr(),
                b.blocks,
                b.parts,
                i32::from(b.montgomery),
                outputs.start,
                out_rows.as_ptr(),
                outputs.len(),
            )
        })?;
        for destination in out.iter_mut() {
            if let OutputRows::Assembly { block, first } = destination {
                for part in 0..out_parts {
                    block.record(part, prime, *first..*first + width);
                }
            }
        }
        Ok(())
    }

    /// The row pointers at `prime` of columns `first..first + width` of
    /// `block`'s `parts` polynomials, checked: the block of this context,
    /// of `parts` polynomials, the columns within N.
    fn output_columns(
        &self,
        block: &mut Ciphertext,
        first: usize,
        width: usize,
        parts: usize,
        prime: usize,
    ) -> Result<Vec<*mut u64>> {
        if !self.same_as(block.context()) {
            return Err(Error::ContextMismatch);
        }
        if block.size() != parts
            || first
                .checked_add(width)
                .is_none_or(|end| end > self.ring_degree())
        {
            return Err(Error::InvalidArgument(format!(
                "an output block of {} polynomials, columns {first}.. of width {width}: \
                 not {parts} polynomials within the N = {} columns",
                block.size(),
                self.ring_degree()
            )));
        }
        (0..parts)
            .map(|part| {
                let row = block.residue_row_for_writing(part, prime)?;
                // SAFETY: `first + width` ≤ N, the row's length.
                Ok(unsafe { row.add(first) })
            })
            .collect()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Parameters, Plaintext, SecretKey};
    use num_bigint::BigUint;
    use rand::{Rng, SeedableRng};

    #[test]
    fn bad_rows_and_destinations_are_refused() {
        let context = Context::new(&Parameters::for_tests()).unwrap();
        let n = context.ring_degree();
        // Rows: 2 blocks times 1 block on 8 columns.
        let words = vec![1u64; 2 * 2 * 8];
        let rows: Vec<&[u64]> = words.chunks(8).collect();
        let mut out = vec![0u64; 2 * 3 * 8];
        let a = RowOperand::ciphertexts(&rows, 2);
        let b = RowOperand::ciphertexts(&rows[..2], 1);
        let convolve = |prime: usize,
                        a: RowOperand<'_>,
                        outputs: Range<usize>,
                        out: &mut [u64],
                        width: usize| {
            let mut destinations: Vec<_> = out.chunks_mut(3 * 8).map(OutputRows::Words).collect();
            context.convolve_rows(prime, width, a, b, outputs, &mut destinations)
        };
        convolve(0, a, 0..2, &mut out, 8).unwrap();
        assert!(matches!(
            convolve(0, a, 0..3, &mut out, 8),
            Err(Error::InvalidArgument(_))
        ));
        assert!(convolve(0, a, 0..2, &mut out[1..], 8).is_err());
        assert!(convolve(0, a, 0..2, &mut out, 7).is_err());
        assert!(convolve(0, a, 0..2, &mut out, 0).is_err());
        let primes = context.chain_primes().len();
        assert!(convolve(primes, a, 0..2, &mut out, 8).is_err());
        assert!(convolve(0, RowOperand::ciphertexts(&rows[..3], 2), 0..2, &mut out, 8).is_err());
        let mut bad = words.clone();
        bad[3] = context.chain_primes()[0];
        let bad_rows: Vec<&[u64]> = bad.chunks(8).collect();
        assert!(matches!(
            convolve(0, RowOperand::ciphertexts(&bad_rows, 2), 0..2, &mut out, 8),
            Err(Error::Malformed(_))
        ));
        // A destination block: of the output's size, within N columns, at
        // or above the prime, of this context.
        let (level, factor) = (context.max_level(), &BigUint::from(1u8));
        let block = |parts| Ciphertext::zeros(&context, level, parts, factor, 1.0).unwrap();
        let (mut three, mut two) = (block(3), block(2));
        let into = |block: &mut Ciphertext, first: usize, prime: usize| {
            let mut words = vec![0u64; 3 * 8];
            let mut destinations = [
                OutputRows::Words(&mut words),
                OutputRows::Columns { block, first },
            ];
            context.convolve_rows(prime, 8, a, b, 0..2, &mut destinations)
        };
        into(&mut three, n - 8, 0).unwrap();
        assert!(three.residue_row(1, 0).unwrap()[n - 8..]
            .iter()
            .all(|&r| r == 2));
        assert!(into(&mut three, n - 7, 0).is_err());
        assert!(into(&mut three, usize::MAX, 0).is_err());
        assert!(into(&mut two, 0, 0).is_err());
        assert!(into(&mut three, 0, level + 1).is_err());
        let elsewhere = Context::new(&Parameters::for_tests()).unwrap();
        let mut foreign = Ciphertext::zeros(&elsewhere, level, 3, factor, 1.0).unwrap();
        assert!(matches!(
            into(&mut foreign, 0, 0),
            Err(Error::ContextMismatch)
        ));
        assert!(matches!(
            context.block_product_noise(0, 10_000.0, 10_000.0, 1),
            Err(Error::NoiseBudgetExhausted)
        ));
        assert!(context.block_product_noise(0, 10.0, 10.0, 1).unwrap() > 20.0);
    }

    /// A block under construction records the columns a convolution wrote
    /// only when it succeeded, and is finished only once every column is
    /// written; what it holds then is what a buffer of rows gets.
    #[test]
    fn convolutions_into_an_assembly_count_only_when_they_succeed() {
        let context = Context::new(&Parameters::for_tests()).unwrap();
        let n = context.ring_degree();
        let good = vec![1u64; 2 * 2 * 8];
        let mut bad = good.clone();
        bad[3] = context.chain_primes()[0];
        let (good_rows, bad_rows): (Vec<&[u64]>, Vec<&[u64]>) =
            (good.chunks(8).collect(), bad.chunks(8).collect());
        let b = RowOperand::ciphertexts(&good_rows[..2], 1);
        let one = BigUint::from(1u8);
        let mut expected = vec![0u64; 3 * 8];
        let mut assembly = CiphertextAssembly::new(&context, 0, 3, &one, 1.0).unwrap();
        let mut convolve = |rows: &[&[u64]], assembly: &mut CiphertextAssembly| {
            let mut destinations = [
                OutputRows::Words(&mut expected),
                OutputRows::Assembly {
                    block: assembly,
                    first: 0,
                },
            ];
            let a = RowOperand::ciphertexts(rows, 2);
            context.convolve_rows(0, 8, a, b, 0..2, &mut destinations)
        };
        assert!(convolve(&bad_rows, &mut assembly).is_err());
        for part in 0..3 {
            assembly
                .write_residue_columns(part, 0, 8, &vec![part as u64; n - 8])
                .unwrap();
        }
        // The failed convolution wrote nothing that counts.
        let mut unfinished = CiphertextAssembly::new(&context, 0, 3, &one, 1.0).unwrap();
        for part in 0..3 {
            unfinished
                .write_residue_columns(part, 0, 8, &vec![0; n - 8])
                .unwrap();
        }
        assert!(convolve(&bad_rows, &mut unfinished).is_err());
        let err = unfinished.finish().unwrap_err().to_string();
        assert!(err.contains("columns 0..8"), "{err}");
        convolve(&good_rows, &mut assembly).unwrap();
        let block = assembly.finish().unwrap();
        for part in 0..3 {
            let row = block.residue_row(part, 0).unwrap();
            assert_eq!(row[..8], expected[part * 8..(part + 1) * 8]);
            assert!(row[8..].iter().all(|&w| w == part as u64));
        }
    }

    /// Columns written in place into a seeded fresh encryption (its c₁ kept
    /// as a seed): the block forgets the seed, so its bytes carry the new
    /// residues and load back to exactly them.
    #[test]
    fn in_place_outputs_survive_serialization_of_a_seeded_block() {
        let context = Context::new(&Parameters::for_tests()).unwrap();
        let sk = SecretKey::generate(&context).unwrap();
        let encrypt = |v| {
            sk.encrypt(&Plaintext::from_u64s(&context, &[v]).unwrap())
                .unwrap()
        };
        let (source, mut target) = (encrypt(5), encrypt(6));
        let seeded_len = target.to_bytes().unwrap().len();
        let rows: Vec<&[u64]> = (0..2)
            .map(|part| &source.residue_row(part, 0).unwrap()[16..24])
            .collect();
        let plain = [3u64; 8];
        let plain_rows = [&plain[..]];
        let before = target.residue_row(1, 0).unwrap()[16..24].to_vec();
        let mut out = [OutputRows::Columns {
            block: &mut target,
            first: 16,
        }];
        context
            .convolve_rows(
                0,
                8,
                RowOperand::ciphertexts(&rows, 1),
                RowOperand::encoded_plaintexts(&plain_rows, 1),
                0..1,
                &mut out,
            )
            .unwrap();
        assert_ne!(target.residue_row(1, 0).unwrap()[16..24], before[..]);
        let bytes = target.to_bytes().unwrap();
        assert!(bytes.len() > seeded_len, "c₁ is written out, not its seed");
        let back = Ciphertext::from_bytes(&context, &bytes).unwrap();
        for part in 0..2 {
            for prime in 0..=target.level() {
                assert_eq!(
                    back.residue_row(part, prime).unwrap(),
                    target.residue_row(part, prime).unwrap(),
                    "part {part}, prime {prime}"
                );
            }
        }
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
                let (a_rows, b_rows): (Vec<_>, Vec<_>) =
                    (a.chunks(width).collect(), b.chunks(width).collect());
                let mut destinations: Vec<_> =
                    out.chunks_mut(3 * width).map(OutputRows::Words).collect();
                context
                    .convolve_rows(
                        0,
                        width,
                        RowOperand::ciphertexts(&a_rows, a_blocks),
                        RowOperand::ciphertexts(&b_rows, b_blocks),
                        0..total,
                        &mut destinations,
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
