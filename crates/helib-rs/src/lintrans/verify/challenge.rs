//! The random challenge of the residue test: vectors u drawn from the
//! operating system's CSPRNG and the engine encodings of U(1/Y) per length
//! (see the [parent module's docs](super)).

use super::centred::padded_limbs;
use super::modular::{mul_mod, pow2_mod};
use super::{internal, mismatch};
use crate::error::{Error, Result};
use crate::{BatchEncoder, Context, EncodedPlaintext};
use ark_ff::{FftField, PrimeField};
use num_bigint::BigUint;
use std::sync::OnceLock;

/// Soundness target: a tampered term passes with probability at most 2^-SOUNDNESS_BITS.
const SOUNDNESS_BITS: f64 = 40.0;

/// The random test of
/// [`PreparedTransform::verify`](crate::lintrans::PreparedTransform::verify)
/// for one context and field: the vectors u drawn from the operating
/// system's CSPRNG and the engine encodings of U(1/Y) (the "probes"), made
/// per length when first needed (see the [verification docs](super)). Draw
/// a new one for every file loaded; one challenge serves every transform of
/// that file.
pub struct Challenge<F: PrimeField + FftField> {
    pub(super) encoder: BatchEncoder<F>,
    /// Per repetition, N random words.
    pub(super) vectors: Vec<Vec<u64>>,
    /// Bits of one digit of a word of u.
    digit_bits: u32,
    /// Per repetition and log2 of the length n', the probe's residues: a
    /// row of n' words per prime (the chain's, then the special primes).
    probes: Vec<Vec<OnceLock<Result<Vec<u64>>>>>,
}

impl<F: PrimeField + FftField> std::fmt::Debug for Challenge<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The vectors are left out: a challenge known in advance is no test.
        f.debug_struct("Challenge")
            .field("repetitions", &self.vectors.len())
            .field("digit_bits", &self.digit_bits)
            .finish_non_exhaustive()
    }
}

impl<F: PrimeField + FftField> Challenge<F> {
    /// A fresh challenge for `encoder`'s context, drawn from the operating
    /// system's CSPRNG.
    ///
    /// # Errors
    /// [`Error::Randomness`] when the operating system's random source fails.
    pub fn new(encoder: &BatchEncoder<F>) -> Result<Self> {
        let context = encoder.context();
        let n = context.ring_degree();
        let digit_bits = digit_bits(context.plaintext_modulus());
        let repetitions = repetitions(context);
        let vectors = (0..repetitions)
            .map(|_| random_vector(n, digit_bits))
            .collect::<Result<Vec<_>>>()?;
        let lengths = n.trailing_zeros() as usize + 1;
        Ok(Self {
            encoder: encoder.clone(),
            probes: (0..repetitions)
                .map(|_| (0..lengths).map(|_| OnceLock::new()).collect())
                .collect(),
            vectors,
            digit_bits,
        })
    }

    /// How many independent vectors u it holds: enough for 2^-40 over the
    /// context's smallest prime.
    pub fn repetitions(&self) -> usize {
        self.vectors.len()
    }

    /// The probe of repetition `rep` for length `length`.
    pub(super) fn probe(&self, rep: usize, length: usize) -> Result<&[u64]> {
        let cell = self.probes[rep]
            .get(length.trailing_zeros() as usize)
            .ok_or_else(|| mismatch(format!("no probe of length {length}")))?;
        cell.get_or_init(|| self.make_probe(rep, length))
            .as_deref()
            .map_err(Clone::clone)
    }

    /// The residues of U*(Y) = U(1/Y) mod Y^length + 1, Y = X^(N/length),
    /// at the top level (extended when the context has special primes):
    /// the digits' encodings, summed with their weights 2^(b·d) per prime.
    fn make_probe(&self, rep: usize, length: usize) -> Result<Vec<u64>> {
        let context = self.encoder.context();
        let n = context.ring_degree();
        let stride = n / length;
        let primes = probe_primes(context);
        let mut sum = vec![0u64; primes.len() * length];
        let u = &self.vectors[rep][..length];
        let digits = 64u32.div_ceil(self.digit_bits);
        for d in 0..digits {
            let limbs = probe_digit_limbs(context, u, self.digit_bits, d, stride);
            let encoded = EncodedPlaintext::from_coefficient_limbs(
                context,
                &limbs,
                context.max_level(),
                !context.special_primes().is_empty(),
            )?;
            if encoded.stride()? != stride {
                return Err(internal("a probe's stride is not its length's"));
            }
            let (residues, _) = encoded.residues()?;
            if residues.len() != sum.len() {
                return Err(internal("a probe has the wrong number of residues"));
            }
            for (row, &q) in primes.iter().enumerate() {
                let weight = pow2_mod(self.digit_bits * d, q);
                let span = row * length..(row + 1) * length;
                for (s, &e) in sum[span.clone()].iter_mut().zip(&residues[span]) {
                    *s = ((*s as u128 + mul_mod(e, weight, q) as u128) % q as u128) as u64;
                }
            }
        }
        Ok(sum)
    }
}

/// The primes of a term's rows, with the row of the probe for each: the
/// chain's up to `level`, then the special primes when `extended`.
pub(super) fn term_primes(context: &Context, level: usize, extended: bool) -> Vec<(u64, usize)> {
    let chain = context.chain_primes()[..=level]
        .iter()
        .enumerate()
        .map(|(r, &q)| (q, r));
    let top = context.max_level() + 1;
    let special = context
        .special_primes()
        .iter()
        .enumerate()
        .filter(|_| extended)
        .map(move |(k, &q)| (q, top + k));
    chain.chain(special).collect()
}

/// The primes of a probe's rows: the whole chain, then the special primes.
fn probe_primes(context: &Context) -> Vec<u64> {
    let mut primes = context.chain_primes().to_vec();
    primes.extend_from_slice(context.special_primes());
    primes
}

/// The coefficient limbs (N of the context's width) of digit `d` of
/// U*(X^stride) = u_0 − Σ_(j≥1) u_j X^(stride·(n'−j)), n' = u's length,
/// each digit below (t − 1)/2 and a negative one as t − digit.
fn probe_digit_limbs(context: &Context, u: &[u64], bits: u32, d: u32, stride: usize) -> Vec<u64> {
    let width = context.plain_limbs();
    let t = padded_limbs(context.plaintext_modulus(), width);
    let length = u.len();
    let mut limbs = vec![0u64; context.ring_degree() * width];
    limbs[0] = digit(u[0], bits, d);
    for (j, &w) in u.iter().enumerate().skip(1) {
        let v = digit(w, bits, d);
        if v == 0 {
            continue;
        }
        let at = stride * (length - j) * width;
        let mut borrow = v;
        for (o, &l) in limbs[at..at + width].iter_mut().zip(&t) {
            let (x, b) = l.overflowing_sub(borrow);
            *o = x;
            borrow = u64::from(b);
        }
    }
    limbs
}

/// Digit `d` of `w` in base 2^`bits`.
pub(super) fn digit(w: u64, bits: u32, d: u32) -> u64 {
    let shift = bits * d;
    if shift >= 64 {
        0
    } else {
        ((w >> shift) as u128 & ((1u128 << bits) - 1)) as u64
    }
}

/// The bits b of a digit: the most with 2^b ≤ (t − 1)/2, at most 64, so
/// that a digit and its negation lift to themselves.
pub(super) fn digit_bits(t: &BigUint) -> u32 {
    let half: BigUint = (t - 1u8) >> 1u32;
    (half.bits().saturating_sub(1) as u32).clamp(1, 64)
}

/// Independent vectors needed for 2^-40 over the context's smallest prime.
fn repetitions(context: &Context) -> usize {
    let smallest = probe_primes(context).into_iter().min().unwrap_or(2);
    let per_test = 1.0 / smallest as f64 + 2f64.powi(-63);
    (SOUNDNESS_BITS / -per_test.log2()).ceil().max(1.0) as usize
}

/// N words from the operating system's CSPRNG, word 1 redrawn until each
/// of its `bits`-bit digits is nonzero (so that every probe has exactly its
/// length's stride).
fn random_vector(n: usize, bits: u32) -> Result<Vec<u64>> {
    let mut bytes = vec![0u8; 8 * n];
    getrandom::getrandom(&mut bytes).map_err(|e| Error::Randomness(e.to_string()))?;
    let mut words: Vec<u64> = bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
        .collect();
    let digits_nonzero = |w: u64| (0..64u32.div_ceil(bits)).all(|d| digit(w, bits, d) != 0);
    while !digits_nonzero(words[1]) {
        let mut b = [0u8; 8];
        getrandom::getrandom(&mut b).map_err(|e| Error::Randomness(e.to_string()))?;
        words[1] = u64::from_le_bytes(b);
    }
    Ok(words)
}
