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
//!
//! # Why not cheaper
//! The expensive part is the expected side: each diagonal's coefficients
//! over F (and, in a plan, the slot transforms they come from). A test
//! that avoids them has two jobs, and only the first is cheap:
//! - *Right modulo t.* A random combination of the stored diagonals
//!   (Σ ρ_d c'_d residue-wise, CRT, reduced modulo t) or a Freivalds test
//!   of the whole transform catches a diagonal wrong modulo t with
//!   probability 1 − 2^-40 at about the cost of reading the residues once,
//!   but the expected side of the first still needs every diagonal's slots,
//!   and the second needs products with random polynomials in an integer
//!   NTT domain over enough primes for their size.
//! - *The centred lift and nothing else.* Adding k·t to a lifted
//!   coefficient keeps every value modulo t, so no test of the residues
//!   against values known only modulo t sees it; a range test on a random
//!   combination does not either (an honest combination already spans
//!   ±D·2^40·t/2, the change is ρ_d·k·t inside it), and sampling
//!   coefficients catches one inflated coefficient with probability
//!   samples / (D·N). It takes the honest integers (what this test uses) or
//!   an exact range check of the stored ones, which needs them in
//!   coefficient form modulo primes whose product exceeds t: ⌈log2 t / 59⌉
//!   inverse NTTs (five for BN254) and a CRT per coefficient, a fifth of
//!   the NTTs and lift a build makes over its 27 to 29 rows (n = 2^15).
//!
//! So a check sound against both costs at least one pass over the file
//! plus that range check, about 10% of a plan build more than reading it;
//! this one costs what is measured in `he-fft`'s plan verification docs.
//!
//! # Layout
//! `challenge` draws the vectors u and makes the probes, `centred` reads
//! the expected coefficients as centred integers (the dot with u, the
//! norms, the engine's stride), `modular` holds the word-size arithmetic
//! modulo a prime, and this module compares a stored transform with the
//! expected one.

mod centred;
mod challenge;
mod modular;
#[cfg(test)]
mod tests;

pub use challenge::Challenge;

use super::diagonals::SlotTransform;
use super::encoded::PreparedTransform;
use super::schedule::{KeyMode, KeyPolicy, Slot};
use crate::encoding::Route;
use crate::error::{Error, Result};
use crate::{BatchEncoder, EncodedPlaintext, Plaintext};
use ark_ff::{FftField, PrimeField};
use centred::{sparsity_stride, Centred, ZERO_NORM};
use challenge::term_primes;
use modular::{mul_mod, pairing, pow2_mod, SignedSum};
use num_bigint::BigUint;
use rayon::prelude::*;
use std::cell::RefCell;
use std::collections::BTreeMap;

/// How far a stored norm (log2) may be from the recomputed one.
const NORM_TOLERANCE: f64 = 1e-9;

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

/// A kind of term a [`PreparedTransform`] can be checked for: an encoded
/// plaintext (by a challenge's random test of its residues) or a plaintext
/// (its coefficients compared exactly).
pub trait CheckedTerm: sealed::Sealed {}
impl CheckedTerm for EncodedPlaintext {}
impl CheckedTerm for Plaintext {}

mod sealed {
    use super::*;

    /// What every term of a transform must be: at `level`, in the extended
    /// form under the fast key mode, and checked with `challenge`.
    pub struct Expected<'a, F: PrimeField + FftField> {
        pub(super) level: usize,
        pub(super) extended: bool,
        pub(super) challenge: &'a Challenge<F>,
    }

    /// How one term is checked.
    pub trait Sealed: Send + Sync {
        /// Checks the term against the pre-rotated diagonal `values`.
        fn check<F: PrimeField + FftField>(&self, values: &[F], to: &Expected<F>) -> Result<()>;
    }

    impl Sealed for EncodedPlaintext {
        fn check<F: PrimeField + FftField>(&self, values: &[F], to: &Expected<F>) -> Result<()> {
            check_encoded(self, values, to.level, to.extended, to.challenge)
        }
    }

    impl Sealed for Plaintext {
        fn check<F: PrimeField + FftField>(&self, values: &[F], to: &Expected<F>) -> Result<()> {
            with_coefficients(&to.challenge.encoder, values, |limbs| {
                if self.limbs() == limbs {
                    Ok(())
                } else {
                    Err(mismatch("its plaintext is not the diagonal's"))
                }
            })
        }
    }
}

use sealed::Expected;

impl<T: CheckedTerm> PreparedTransform<T> {
    /// Checks that this transform is `transform` prepared under `policy`
    /// for ciphertexts at `level` (what [`new`](Self::new) makes of them):
    /// the level, the schedule, the terms' places, and each term. An
    /// encoded term's form, stride and norms are compared exactly, and its
    /// residues by `challenge`'s random test, which a term with any residue
    /// changed passes with probability at most 2^-40 (see the
    /// [module docs](self)); a plaintext term is compared with the
    /// diagonal's plaintext exactly (no random test: a plaintext is the
    /// coefficients themselves). Meant for transforms read from storage
    /// ([`read_from`](Self::read_from)).
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
        let expected = Expected {
            level,
            extended: self.schedule().mode() == KeyMode::Fast,
            challenge,
        };
        terms.par_iter().try_for_each(|&(slot, term, diagonal)| {
            let values = self.schedule().pre_rotated(slot, diagonal);
            term.check(&values, &expected).map_err(|e| at_slot(slot, e))
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

/// Whether stored and recomputed norms agree (up to [`NORM_TOLERANCE`]).
fn norms_match(stored: (f64, f64), expected: (f64, f64)) -> bool {
    let close =
        |a: f64, b: f64| (a == ZERO_NORM && b == ZERO_NORM) || (a - b).abs() <= NORM_TOLERANCE;
    close(stored.0, expected.0) && close(stored.1, expected.1)
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
