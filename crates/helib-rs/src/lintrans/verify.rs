//! Checking a prepared transform against the slot transform it claims to
//! be: what a loader does with a transform read from a file it does not
//! trust to hold what it says ([`io`](super::io)'s checksum is keyless, so
//! anyone can write a file whose checksums are right).
//!
//! # What is checked
//! [`PreparedTransform::verify`] takes the [`SlotTransform`] the caller
//! expects, the [`KeyPolicy`] and the level, and refuses
//! ([`Error::TransformMismatch`]) a prepared transform unless:
//! - its level is the one given and its [`Schedule`](super::Schedule) is the one the policy
//!   chooses for the transform;
//! - it holds a term exactly at the place of each nonzero diagonal;
//! - every encoded term has correction factor 1, the form the key mode
//!   uses (extended in [`KeyMode::Fast`]), the stride and the two norms the
//!   engine gives the pre-rotated diagonal, and **residues equal to the
//!   encoding of that diagonal** (checked by the random test below);
//! - every plaintext term ([`PlainTransform`](super::PlainTransform)) is
//!   the diagonal's plaintext, coefficient for coefficient (exact).
//!
//! # The residue test and its soundness
//! An encoded term holds, for each prime q of its level (and the special
//! primes when extended), the vector `E = (R·c(ζ_k) mod q)_k`: the centred
//! integer coefficients c of the diagonal's polynomial (in Y = X^s for a
//! compact one of stride s, n' = N/s of them) evaluated at the n' roots ζ_k
//! of Y^n' + 1 mod q by the engine's NTT, in Montgomery form (R = 2^64).
//! Computing the expected E costs what building does (a lift and an NTT per
//! prime), so the test checks one random linear function of E per prime:
//!
//! - A [`Challenge`] draws from the operating system's CSPRNG a vector u of
//!   N 64-bit words (fresh at every load; a file is fixed before it is
//!   drawn) and asks the engine for the encoding P of the polynomial
//!   U*(Y) = u_0 − Σ_(j≥1) u_j Y^(n'−j), i.e. U(1/Y): `P_k = R·U*(ζ_k)`.
//!   For any vector E' and the c' it encodes,
//!   `Σ_k P_k·E'_k = R²·Σ_k (U*·c')(ζ_k) = R²·n'·Σ_j u_j c'_j (mod q)`,
//!   since summing a polynomial of degree < n' over the n' roots of
//!   Y^n' + 1 leaves n' times its constant coefficient, and the constant
//!   coefficient of U*·c' mod Y^n' + 1 is `Σ_j u_j c'_j`. This holds for
//!   whatever order the NTT's outputs are in, as P and E' share it.
//! - The expected side is `R²·n'·⟨u, c⟩ mod q` for the honest c: the
//!   integer ⟨u, c⟩ is computed once per term from the diagonal's
//!   coefficients over F (the same transform from slots to coefficients a
//!   build runs) and reduced modulo each prime.
//! - If a term's residues modulo q differ from the honest ones, then c' ≢ c
//!   (mod q) (the NTT is a bijection), so δ = c' − c has a coordinate j with
//!   δ_j ≢ 0, and the test passes only if `Σ_i u_i δ_i ≡ 0 (mod q)`. Given
//!   the other u_i, that fixes u_j's residue class mod q. u_j is uniform on
//!   a set S of at least 2^63 words (all of them, but for u_1, whose digits
//!   below are drawn nonzero), and a residue class holds at most
//!   ⌈|S| / q⌉ of them: the test passes with probability at most
//!   1/q + 2^-63. The challenge draws as many independent vectors u as it
//!   takes for `(1/q_min + 2^-63)^k ≤ 2^-40` over the context's smallest
//!   prime (one for primes of 41 bits or more, two for 30 bits).
//!
//! So any change to the residues of any term (a negated or swapped
//! diagonal, another plan's diagonals, a single word) passes with
//! probability at most 2^-40; everything else is compared exactly, but for
//! the norms (noise estimates only), which may differ from the recomputed
//! ones by 10^-9 bits (the engine sums them in `long double`).
//!
//! # Cost
//! Per term: the expected diagonal's transform from slots to coefficients
//! over F and one pass over the stored residues (one 64×64-bit product a
//! word). Unlike a build, no lift to the primes and no NTT per prime. The
//! probes are one engine encoding per length and base-2^b digit of u
//! (b = min(64, ⌊log2((t − 1)/2)⌋): one digit for BN254, five for 65537).
//! The terms are checked in parallel on the rayon pool in use.

use super::diagonals::SlotTransform;
use super::encoded::PreparedTransform;
use super::schedule::{KeyMode, KeyPolicy, Slot};
use crate::encoding::Route;
use crate::error::{Error, Result};
use crate::{BatchEncoder, Context, EncodedPlaintext, Plaintext};
use ark_ff::{FftField, PrimeField};
use num_bigint::BigUint;
use rayon::prelude::*;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// Soundness target: a tampered term passes with probability at most 2^-SOUNDNESS_BITS.
const SOUNDNESS_BITS: f64 = 40.0;

/// How far a stored norm (log2) may be from the recomputed one.
const NORM_TOLERANCE: f64 = 1e-9;

/// The engine's marker for the norms of the zero polynomial.
const ZERO_NORM: f64 = -1e300;

/// The random test of [`PreparedTransform::verify`] for one context and
/// field: the vectors u drawn from the operating system's CSPRNG and the
/// engine encodings of U(1/Y) (the "probes"), made per length when first
/// needed (see the [module docs](self)). Draw a new one for every file
/// loaded; one challenge serves every transform of that file.
pub struct Challenge<F: PrimeField + FftField> {
    encoder: BatchEncoder<F>,
    /// Per repetition, N random words.
    vectors: Vec<Vec<u64>>,
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
    fn probe(&self, rep: usize, length: usize) -> Result<&[u64]> {
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

impl<T: Send + Sync> PreparedTransform<T> {
    /// The checks common to both kinds of terms: the context, the level,
    /// the schedule and the places of the terms; returns each stored term
    /// with the diagonal it must hold.
    fn expected_terms<'a, F: PrimeField + FftField>(
        &'a self,
        transform: &'a SlotTransform<F>,
        policy: KeyPolicy,
        level: usize,
        encoder: &BatchEncoder<F>,
    ) -> Result<Vec<(Slot, &'a T, &'a [F])>> {
        if !self.context().same_as(encoder.context()) {
            return Err(Error::ContextMismatch);
        }
        if 2 * transform.row() != encoder.slot_count() {
            return Err(Error::InvalidArgument(format!(
                "a transform on {} slots cannot be checked against ciphertexts of {} slots",
                2 * transform.row(),
                encoder.slot_count()
            )));
        }
        if self.level() != level {
            return Err(mismatch(format!(
                "it is at level {}, not {level}",
                self.level()
            )));
        }
        let schedule = policy.schedule(transform);
        if *self.schedule() != schedule {
            return Err(mismatch(
                "its schedule is not the one the key policy chooses for the transform",
            ));
        }
        let wanted: BTreeMap<Slot, &[F]> = transform
            .diagonals()
            .iter()
            .map(|(shift, d)| (schedule.place(*shift), d.as_slice()))
            .collect();
        if !wanted.keys().eq(self.terms().keys()) {
            return Err(mismatch(format!(
                "it holds {} diagonals, not the transform's {} at their places",
                self.terms().len(),
                wanted.len()
            )));
        }
        Ok(self
            .terms()
            .iter()
            .zip(wanted.values())
            .map(|((slot, term), d)| (*slot, term, *d))
            .collect())
    }
}

impl PreparedTransform<EncodedPlaintext> {
    /// Checks that this transform is `transform` prepared under `policy`
    /// for ciphertexts at `level` (what [`new`](Self::new) makes of them):
    /// the level, the schedule, the terms' places, each term's form, stride
    /// and norms exactly, and each term's residues by `challenge`'s random
    /// test, which a term with any residue changed passes with probability
    /// at most 2^-40 (see the [module docs](self)). Meant for transforms
    /// read from storage ([`read_from`](Self::read_from)).
    ///
    /// # Errors
    /// [`Error::TransformMismatch`] naming the first difference found;
    /// [`Error::ContextMismatch`] for a challenge of another context;
    /// [`Error::InvalidArgument`] for a transform of another slot count;
    /// the engine's errors making the challenge's probes.
    pub fn verify<F: PrimeField + FftField>(
        &self,
        transform: &SlotTransform<F>,
        policy: KeyPolicy,
        level: usize,
        challenge: &Challenge<F>,
    ) -> Result<()> {
        let encoder = &challenge.encoder;
        let terms = self.expected_terms(transform, policy, level, encoder)?;
        let extended = self.schedule().mode() == KeyMode::Fast;
        terms.par_iter().try_for_each(|&(slot, term, diagonal)| {
            let values = self.schedule().pre_rotated(slot, diagonal);
            check_encoded(term, &values, level, extended, challenge).map_err(|e| at_slot(slot, e))
        })
    }
}

impl PreparedTransform<Plaintext> {
    /// Checks that this transform is `transform` prepared under `policy`
    /// for ciphertexts at `level` (what [`new`](Self::new) makes of them):
    /// as [`EncodedTransform::verify`](super::EncodedTransform::verify), the
    /// terms compared with the diagonals' plaintexts exactly (no random
    /// test: a plaintext is the coefficients themselves).
    ///
    /// # Errors
    /// As [`EncodedTransform::verify`](super::EncodedTransform::verify).
    pub fn verify<F: PrimeField + FftField>(
        &self,
        transform: &SlotTransform<F>,
        policy: KeyPolicy,
        level: usize,
        challenge: &Challenge<F>,
    ) -> Result<()> {
        let encoder = &challenge.encoder;
        let terms = self.expected_terms(transform, policy, level, encoder)?;
        terms.par_iter().try_for_each(|&(slot, term, diagonal)| {
            let values = self.schedule().pre_rotated(slot, diagonal);
            with_coefficients(encoder, &values, |limbs| {
                if term.limbs() == limbs {
                    Ok(())
                } else {
                    Err(mismatch("its plaintext is not the diagonal's"))
                }
            })
            .map_err(|e| at_slot(slot, e))
        })
    }
}

/// Checks one encoded term against the pre-rotated diagonal `values`.
fn check_encoded<F: PrimeField + FftField>(
    term: &EncodedPlaintext,
    values: &[F],
    level: usize,
    extended: bool,
    challenge: &Challenge<F>,
) -> Result<()> {
    if term.level() != level || term.is_extended() != extended {
        return Err(mismatch("its level or form is not the transform's"));
    }
    if *term.correction_factor() != BigUint::from(1u8) {
        return Err(mismatch("its correction factor is not 1"));
    }
    let context = challenge.encoder.context();
    let (residues, norms) = term.residues()?;
    let (stride, expected_norms, dots) = with_coefficients(&challenge.encoder, values, |limbs| {
        let stride = sparsity_stride(limbs, context.ring_degree(), context.plain_limbs());
        let centred = Centred::new(context);
        let dots: Vec<SignedSum> = challenge
            .vectors
            .iter()
            .map(|u| centred.dot(limbs, stride, u))
            .collect();
        Ok((stride, centred.norms(limbs, stride), dots))
    })?;
    if term.stride()? != stride {
        return Err(mismatch(format!(
            "its stride is {}, the diagonal's {stride}",
            term.stride()?
        )));
    }
    if !norms_match(norms, expected_norms) {
        return Err(mismatch("its norms are not the diagonal's"));
    }
    let length = context.ring_degree() / stride;
    let rows = term_primes(context, level, extended);
    if residues.len() != rows.len() * length {
        return Err(mismatch("it has the wrong number of residues"));
    }
    for (rep, dot) in dots.iter().enumerate() {
        let probe = challenge.probe(rep, length)?;
        for (row, &(q, probe_row)) in rows.iter().enumerate() {
            let stored = pairing(
                &probe[probe_row * length..(probe_row + 1) * length],
                &residues[row * length..(row + 1) * length],
                q,
            );
            let scale = mul_mod(pow2_mod(128, q), length as u64 % q, q);
            if stored != mul_mod(dot.modulo(q), scale, q) {
                return Err(mismatch(format!(
                    "its residues modulo prime {row} of its rows are not the diagonal's encoding"
                )));
            }
        }
    }
    Ok(())
}

/// Runs `f` on the coefficient limbs (N of `plain_limbs` each, every one
/// below t) of the polynomial whose slots are `values`, computed as
/// [`BatchEncoder`]'s encodings for the evaluator compute them, in a
/// buffer kept per thread.
fn with_coefficients<F: PrimeField + FftField, R>(
    encoder: &BatchEncoder<F>,
    values: &[F],
    f: impl FnOnce(&[u64]) -> Result<R>,
) -> Result<R> {
    thread_local! {
        static LIMBS: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
    }
    let width = encoder.context().plain_limbs();
    LIMBS.with(|cell| {
        let mut own = Vec::new();
        let mut guard = cell.try_borrow_mut().ok();
        let limbs = guard.as_deref_mut().unwrap_or(&mut own);
        limbs.resize(encoder.slot_count() * width, 0);
        encoder
            .layout()
            .slots_to_coefficient_limbs(values, width, limbs, Route::Periodic)?;
        f(limbs)
    })
}

/// The engine's choice of stride for `n` coefficients of `width` limbs:
/// the largest power of two s ≤ N / 16 such that every nonzero
/// coefficient sits at a multiple of s.
fn sparsity_stride(limbs: &[u64], n: usize, width: usize) -> usize {
    let positions = limbs
        .chunks_exact(width)
        .enumerate()
        .skip(1)
        .filter(|(_, c)| c.iter().any(|&l| l != 0))
        .fold(0usize, |acc, (j, _)| acc | j);
    let widest = n / n.min(helib_sys::HELIB_MIN_COMPACT_LENGTH as usize);
    if positions == 0 {
        widest
    } else {
        widest.min(1 << positions.trailing_zeros())
    }
}

/// The centred lift of coefficients below t: c − t above t/2.
struct Centred {
    t: Vec<u64>,
    half: Vec<u64>,
    width: usize,
}

impl Centred {
    fn new(context: &Context) -> Self {
        let width = context.plain_limbs();
        let t = context.plaintext_modulus();
        Self {
            t: padded_limbs(t, width),
            half: padded_limbs(&(t >> 1u32), width),
            width,
        }
    }

    /// `c`'s magnitude into `out` and whether it is negative.
    fn lift(&self, c: &[u64], out: &mut [u64]) -> bool {
        if compare(c, &self.half) == std::cmp::Ordering::Greater {
            let mut borrow = false;
            for ((o, &a), &b) in out.iter_mut().zip(&self.t).zip(c) {
                let (d, b1) = a.overflowing_sub(b);
                let (d, b2) = d.overflowing_sub(u64::from(borrow));
                *o = d;
                borrow = b1 || b2;
            }
            true
        } else {
            out.copy_from_slice(c);
            false
        }
    }

    /// `Σ_j u_j · c_(j·stride)` over j < N / stride, c centred.
    fn dot(&self, limbs: &[u64], stride: usize, u: &[u64]) -> SignedSum {
        let mut sum = SignedSum::new(self.width);
        let mut magnitude = vec![0u64; self.width];
        for (c, &u) in limbs.chunks_exact(self.width).step_by(stride).zip(u) {
            let negative = self.lift(c, &mut magnitude);
            sum.add(u, &magnitude, negative);
        }
        sum
    }

    /// log2 of the sup and l1 norms of the centred coefficients, as the
    /// engine records them (its marker for the zero polynomial).
    fn norms(&self, limbs: &[u64], stride: usize) -> (f64, f64) {
        let mut magnitude = vec![0u64; self.width];
        let (mut linf, mut l1) = (0f64, 0f64);
        for c in limbs.chunks_exact(self.width).step_by(stride) {
            self.lift(c, &mut magnitude);
            let value = magnitude
                .iter()
                .rev()
                .fold(0f64, |v, &l| v * 18_446_744_073_709_551_616.0 + l as f64);
            l1 += value;
            linf = linf.max(value);
        }
        let log = |x: f64| if x > 0.0 { x.log2() } else { ZERO_NORM };
        (log(linf), log(l1))
    }
}

/// A signed sum of products of a word by a multi-limb magnitude, kept as
/// per-limb 128-bit column sums (no overflow below 2^64 products).
struct SignedSum {
    positive: Vec<u128>,
    negative: Vec<u128>,
}

impl SignedSum {
    fn new(width: usize) -> Self {
        Self {
            positive: vec![0; width + 1],
            negative: vec![0; width + 1],
        }
    }

    fn add(&mut self, u: u64, magnitude: &[u64], negative: bool) {
        let columns = if negative {
            &mut self.negative
        } else {
            &mut self.positive
        };
        for (k, &m) in magnitude.iter().enumerate() {
            let p = u as u128 * m as u128;
            columns[k] += p as u64 as u128;
            columns[k + 1] += p >> 64;
        }
    }

    /// The sum modulo q.
    fn modulo(&self, q: u64) -> u64 {
        let reduce = |columns: &[u128]| {
            columns.iter().enumerate().fold(0u64, |acc, (k, &c)| {
                let term = mul_mod((c % q as u128) as u64, pow2_mod(64 * k as u32, q), q);
                ((acc as u128 + term as u128) % q as u128) as u64
            })
        };
        let (p, n) = (reduce(&self.positive), reduce(&self.negative));
        ((p as u128 + q as u128 - n as u128) % q as u128) as u64
    }
}

/// `Σ_k a_k · b_k mod q` (each below 2^64), with the products' halves
/// summed apart.
fn pairing(a: &[u64], b: &[u64], q: u64) -> u64 {
    let (mut low, mut high) = (0u128, 0u128);
    for (&x, &y) in a.iter().zip(b) {
        let p = x as u128 * y as u128;
        low += p as u64 as u128;
        high += p >> 64;
    }
    let q128 = q as u128;
    let high = mul_mod((high % q128) as u64, pow2_mod(64, q), q);
    ((high as u128 + low % q128) % q128) as u64
}

/// `a · b mod q`.
fn mul_mod(a: u64, b: u64, q: u64) -> u64 {
    (a as u128 * b as u128 % q as u128) as u64
}

/// `2^e mod q`, by squaring.
fn pow2_mod(e: u32, q: u64) -> u64 {
    let (mut result, mut base, mut e) = (1u64 % q, 2u64 % q, e);
    while e > 0 {
        if e & 1 == 1 {
            result = mul_mod(result, base, q);
        }
        base = mul_mod(base, base, q);
        e >>= 1;
    }
    result
}

/// Whether stored and recomputed norms agree (up to [`NORM_TOLERANCE`]).
fn norms_match(stored: (f64, f64), expected: (f64, f64)) -> bool {
    let close =
        |a: f64, b: f64| (a == ZERO_NORM && b == ZERO_NORM) || (a - b).abs() <= NORM_TOLERANCE;
    close(stored.0, expected.0) && close(stored.1, expected.1)
}

/// The primes of a term's rows, with the row of the probe for each: the
/// chain's up to `level`, then the special primes when `extended`.
fn term_primes(context: &Context, level: usize, extended: bool) -> Vec<(u64, usize)> {
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
fn digit(w: u64, bits: u32, d: u32) -> u64 {
    let shift = bits * d;
    if shift >= 64 {
        0
    } else {
        ((w >> shift) as u128 & ((1u128 << bits) - 1)) as u64
    }
}

/// The bits b of a digit: the most with 2^b ≤ (t − 1)/2, at most 64, so
/// that a digit and its negation lift to themselves.
fn digit_bits(t: &BigUint) -> u32 {
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

/// `value`'s limbs, zero-padded to `width`.
fn padded_limbs(value: &BigUint, width: usize) -> Vec<u64> {
    let mut limbs = value.to_u64_digits();
    limbs.resize(width.max(limbs.len()), 0);
    limbs
}

/// Compares little-endian limb vectors of one length.
fn compare(a: &[u64], b: &[u64]) -> std::cmp::Ordering {
    a.iter().rev().cmp(b.iter().rev())
}

/// The error for a difference from the expected transform.
fn mismatch(what: impl Into<String>) -> Error {
    Error::TransformMismatch(what.into())
}

/// `e` for the term at `slot`.
fn at_slot(slot: Slot, e: Error) -> Error {
    match e {
        Error::TransformMismatch(m) => mismatch(format!(
            "the diagonal at giant step {}, baby step {}{}: {m}",
            slot.giant,
            slot.baby,
            if slot.swap { " (swapped)" } else { "" }
        )),
        other => other,
    }
}

/// A broken invariant of this module (a bug: please report it).
fn internal(what: &str) -> Error {
    Error::Engine {
        status: crate::error::Status::Internal,
        message: format!("transform verification: {what}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lintrans::{EncodedTransform, PlainTransform, Shift};
    use crate::Parameters;
    use ark_bn254::Fr;
    use ark_ff::BigInteger;

    /// y = d0 ⊙ x + d1 ⊙ rot_1(x) + d2 ⊙ swap(x) with periodic and full diagonals.
    fn transform(n: usize, scale: u64) -> SlotTransform<Fr> {
        let mut t = SlotTransform::zero(n / 2);
        let periodic: Vec<Fr> = (0..n as u64).map(|i| Fr::from(i % 4 + 1)).collect();
        let full: Vec<Fr> = (0..n as u64).map(|i| Fr::from(i * i + scale)).collect();
        t.add_term(
            Shift {
                swap: false,
                rotation: 0,
            },
            &periodic,
        );
        t.add_term(
            Shift {
                swap: false,
                rotation: 1,
            },
            &full,
        );
        t.add_term(
            Shift {
                swap: true,
                rotation: 0,
            },
            &vec![-Fr::from(scale); n],
        );
        t
    }

    #[test]
    fn honest_transforms_pass_and_others_are_refused() {
        let context = Context::new(&Parameters::for_tests()).unwrap();
        let encoder = BatchEncoder::<Fr>::new(&context).unwrap();
        let n = encoder.slot_count();
        let challenge = Challenge::new(&encoder).unwrap();
        assert_eq!(challenge.repetitions(), 1, "primes of 41 bits or more");
        let level = context.max_level();
        let t = transform(n, 3);
        for mode in [KeyMode::Fast, KeyMode::MinimalKeys] {
            let policy = KeyPolicy {
                mode,
                ..KeyPolicy::default()
            };
            let encoded = EncodedTransform::new(&t, policy, &encoder, level).unwrap();
            encoded.verify(&t, policy, level, &challenge).unwrap();
            let other = transform(n, 5);
            let err = encoded
                .verify(&other, policy, level, &challenge)
                .unwrap_err();
            assert!(matches!(err, Error::TransformMismatch(_)), "{err}");
            let err = encoded
                .verify(&t, policy, level - 1, &challenge)
                .unwrap_err();
            assert!(matches!(err, Error::TransformMismatch(_)), "{err}");
            let plain = PlainTransform::new(&t, policy, &encoder, level).unwrap();
            plain.verify(&t, policy, level, &challenge).unwrap();
            let err = plain.verify(&other, policy, level, &challenge).unwrap_err();
            assert!(matches!(err, Error::TransformMismatch(_)), "{err}");
        }
    }

    #[test]
    fn digits_and_repetitions_follow_the_context() {
        assert_eq!(digit_bits(&BigUint::from(65537u32)), 15);
        let bn254 = BigUint::from_bytes_be(&Fr::MODULUS.to_bytes_be());
        assert_eq!(digit_bits(&bn254), 64);
        for (w, bits) in [(u64::MAX, 15), (0x1234_5678_9abc_def0, 64), (1 << 61, 15)] {
            let back = (0..64u32.div_ceil(bits))
                .map(|d| (digit(w, bits, d) as u128) << (bits * d))
                .sum::<u128>();
            assert_eq!(back, u128::from(w));
        }
        assert_eq!(pow2_mod(64, 97), ((1u128 << 64) % 97) as u64);
    }
}
