//! Slot transforms ready to run on ciphertexts: their diagonals pre-rotated
//! for the giant steps and encoded, and the evaluation itself.
//!
//! In [`KeyMode::Fast`] the whole sum is one double-hoisted engine call
//! ([`Ciphertext::linear_transform`]): the baby steps share one decomposition
//! and stay in the key-switching basis, where their products are summed, so
//! a baby step costs an inner product rather than a rotation. In
//! [`KeyMode::MinimalKeys`] baby steps are repeated rotations by the unit step.

use super::diagonals::{Shift, SlotTransform};
use super::schedule::{KeyMode, KeyPolicy, Schedule, Slot};
use crate::error::{Error, Result, Status};
use crate::{BatchEncoder, Ciphertext, Context, EncodedPlaintext, GaloisKeys, Plaintext};
use ark_ff::{FftField, PrimeField};
use rayon::prelude::*;
use std::collections::BTreeMap;

/// A slot transform ready to run on ciphertexts at one level: its
/// [`Schedule`] and its diagonals, pre-rotated for the giant steps and
/// encoded for the engine.
///
/// ```
/// use ark_bn254::Fr;
/// use helib_rs::lintrans::{EncodedTransform, KeyPolicy, Shift, SlotTransform};
/// use helib_rs::{BatchEncoder, Context, GaloisKeys, Parameters, SecretKey};
///
/// let context = Context::new(&Parameters::for_tests())?;
/// let sk = SecretKey::generate(&context)?;
/// let encoder = BatchEncoder::<Fr>::new(&context)?;
/// let n = encoder.slot_count();
///
/// // y = 3·x + rot_1(x) + swap(x).
/// let mut t = SlotTransform::diagonal(vec![Fr::from(3u64); n]);
/// t.add_term(Shift { swap: false, rotation: 1 }, &vec![Fr::from(1u64); n]);
/// t.add_term(Shift { swap: true, rotation: 0 }, &vec![Fr::from(1u64); n]);
///
/// let x: Vec<Fr> = (0..n as u64).map(Fr::from).collect();
/// let ct = sk.encrypt(&encoder.encode(&x)?)?;
/// let encoded = EncodedTransform::new(&t, KeyPolicy::default(), &encoder, ct.level())?;
/// let keys = GaloisKeys::for_elements(&sk, &encoded.required_galois_elements())?;
/// let y = encoded.apply(&ct, &keys)?;
/// assert_eq!(encoder.decode(&sk.decrypt(&y)?)?, t.apply_plain(&x));
/// # Ok::<(), helib_rs::Error>(())
/// ```
pub type EncodedTransform = PreparedTransform<EncodedPlaintext>;

/// A slot transform whose diagonals are kept as plaintext polynomials
/// (pre-rotated for the giant steps, not yet in the engine's RNS form) and
/// encoded at each evaluation: a plaintext holds N·⌈log2 t / 64⌉ words
/// against N words per prime for an encoding, and the costly transform from
/// slots to coefficients is paid once, when it is built.
pub type PlainTransform = PreparedTransform<Plaintext>;

/// A slot transform prepared for one level: its [`Schedule`] and its
/// diagonals, pre-rotated for the giant steps, held as `T` (an
/// [`EncodedTransform`] or a [`PlainTransform`]).
pub struct PreparedTransform<T> {
    context: Context,
    level: usize,
    schedule: Schedule,
    terms: BTreeMap<Slot, T>,
}

impl<T> PreparedTransform<T> {
    /// Pre-rotates `transform`'s diagonals for the schedule `policy` chooses
    /// and turns each into a `T` with `encode`.
    fn prepare<F: PrimeField + FftField>(
        transform: &SlotTransform<F>,
        policy: KeyPolicy,
        encoder: &BatchEncoder<F>,
        level: usize,
        encode: impl Fn(&[F]) -> Result<T> + Sync,
    ) -> Result<Self>
    where
        T: Send,
    {
        let (schedule, terms) = pre_rotated_terms(transform, policy, encoder, encode)?;
        Ok(Self {
            context: encoder.context().clone(),
            level,
            schedule,
            terms,
        })
    }

    /// A transform from its parts, as a saved one stored them.
    pub(super) fn from_parts(
        context: Context,
        level: usize,
        schedule: Schedule,
        terms: BTreeMap<Slot, T>,
    ) -> Self {
        Self {
            context,
            level,
            schedule,
            terms,
        }
    }

    /// The context it belongs to.
    pub(super) fn context(&self) -> &Context {
        &self.context
    }

    /// The diagonals by their place in the schedule.
    pub(super) fn terms(&self) -> &BTreeMap<Slot, T> {
        &self.terms
    }

    /// The level of the ciphertexts it runs on.
    pub fn level(&self) -> usize {
        self.level
    }

    /// The schedule.
    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// Plaintext multiplications per evaluation (the nonzero diagonals).
    pub fn multiplications(&self) -> usize {
        self.terms.len()
    }

    /// The Galois elements whose keys `apply` uses, sorted: with keys for
    /// exactly these it runs, and without any one of them it fails with
    /// [`Error::MissingGaloisKey`].
    pub fn required_galois_elements(&self) -> Vec<u64> {
        self.schedule.required_galois_elements(&self.context)
    }
}

impl PreparedTransform<EncodedPlaintext> {
    /// Encodes `transform`'s diagonals for ciphertexts at `level`, with the
    /// schedule `policy` chooses. The diagonals are encoded in parallel on
    /// the rayon pool in use.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the transform's slot count is not the
    /// encoder's; the encoder's errors (a level above the top, no special
    /// primes for [`KeyMode::Fast`]).
    pub fn new<F: PrimeField + FftField>(
        transform: &SlotTransform<F>,
        policy: KeyPolicy,
        encoder: &BatchEncoder<F>,
        level: usize,
    ) -> Result<Self> {
        let mode = policy.mode;
        Self::prepare(transform, policy, encoder, level, |moved| match mode {
            KeyMode::Fast => encoder.encode_for_linear_transform(moved, level),
            KeyMode::MinimalKeys => encoder.encode_for_multiplication(moved, level),
        })
    }

    /// The bytes its encoded diagonals hold (N / stride words a prime each,
    /// see [`EncodedPlaintext::stride`]).
    ///
    /// # Errors
    /// Only if the engine fails internally.
    pub fn encoded_bytes(&self) -> Result<usize> {
        self.terms.values().try_fold(0usize, |sum, plain| {
            Ok(sum.saturating_add(plain.residue_words()? * std::mem::size_of::<u64>()))
        })
    }

    /// Evaluates the transform on `x` (at [`level`](Self::level) or below):
    /// after decryption, [`SlotTransform::apply_plain`] of `x`'s slots.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a transform with no nonzero diagonal;
    /// [`Error::ContextMismatch`], [`Error::LevelMismatch`] when `x` is above
    /// the transform's level; [`Error::MissingGaloisKey`] when `keys` lack one
    /// of [`required_galois_elements`](Self::required_galois_elements);
    /// [`Error::NoiseBudgetExhausted`].
    pub fn apply(&self, x: &Ciphertext, keys: &GaloisKeys) -> Result<Ciphertext> {
        if self.terms.is_empty() {
            return Err(no_diagonals());
        }
        let acc = match self.schedule.mode() {
            KeyMode::Fast => self.apply_hoisted(x, keys)?,
            KeyMode::MinimalKeys => {
                iterated_sum(&self.schedule, &self.terms, x, keys, |baby, plain| {
                    baby.mul_plain(plain)
                })?
            }
        };
        align(&self.schedule, acc, keys)
    }

    /// The sum before its final alignment, as one double-hoisted engine call.
    fn apply_hoisted(&self, x: &Ciphertext, keys: &GaloisKeys) -> Result<Ciphertext> {
        let s = &self.schedule;
        let context = x.context();
        let babies = s.babies();
        let elements: Vec<u64> = babies
            .iter()
            .map(|&(swap, k)| s.baby_element(context, swap, k))
            .collect();
        let (giant_min, giant_max) = s.giant_range();
        let giants = (giant_max - giant_min + 1) as usize;
        let mut grid: Vec<Option<&EncodedPlaintext>> = vec![None; giants * babies.len()];
        for (slot, plain) in &self.terms {
            let j = (slot.giant - giant_min) as usize;
            let i = babies
                .binary_search(&(slot.swap, slot.baby))
                .map_err(|_| internal("a diagonal's baby step is not in the schedule"))?;
            grid[j * babies.len() + i] = Some(plain);
        }
        let giant = GaloisKeys::element_for_step(context, s.giant_step());
        x.linear_transform(&elements, giant, &grid, keys)
    }
}

impl PreparedTransform<Plaintext> {
    /// `transform`'s diagonals as plaintexts, for ciphertexts at `level`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the transform's slot count is not the
    /// encoder's.
    pub fn new<F: PrimeField + FftField>(
        transform: &SlotTransform<F>,
        policy: KeyPolicy,
        encoder: &BatchEncoder<F>,
        level: usize,
    ) -> Result<Self> {
        Self::prepare(transform, policy, encoder, level, |moved| {
            encoder.encode_public(moved)
        })
    }

    /// Evaluates the transform on `x`, as [`EncodedTransform::apply`]. With
    /// iterated baby steps ([`KeyMode::MinimalKeys`]) each diagonal is
    /// encoded just before its product, so one encoding is alive at a time;
    /// the double-hoisted engine call of [`KeyMode::Fast`] takes all the
    /// encodings at once.
    ///
    /// # Errors
    /// As [`EncodedTransform::apply`].
    pub fn apply(&self, x: &Ciphertext, keys: &GaloisKeys) -> Result<Ciphertext> {
        if self.terms.is_empty() {
            return Err(no_diagonals());
        }
        let schedule = &self.schedule;
        if schedule.mode() == KeyMode::Fast {
            let terms = self
                .terms
                .iter()
                .map(|(slot, plain)| {
                    Ok((
                        *slot,
                        EncodedPlaintext::public_for_linear_transform(plain, self.level)?,
                    ))
                })
                .collect::<Result<_>>()?;
            let encoded = EncodedTransform {
                context: self.context.clone(),
                level: self.level,
                schedule: schedule.clone(),
                terms,
            };
            return encoded.apply(x, keys);
        }
        let acc = iterated_sum(schedule, &self.terms, x, keys, |baby, plain| {
            let encoded = EncodedPlaintext::public_for_multiplication(plain, baby.level())?;
            baby.mul_plain(&encoded)
        })?;
        align(schedule, acc, keys)
    }
}

/// The schedule of `transform` under `policy` and its diagonals, each placed
/// in the schedule, rotated back for its giant steps and made into a term by
/// `make`, in parallel on the rayon pool in use.
#[allow(clippy::type_complexity)]
fn pre_rotated_terms<F: PrimeField + FftField, T: Send>(
    transform: &SlotTransform<F>,
    policy: KeyPolicy,
    encoder: &BatchEncoder<F>,
    make: impl Fn(&[F]) -> Result<T> + Sync,
) -> Result<(Schedule, BTreeMap<Slot, T>)> {
    if 2 * transform.row() != encoder.slot_count() {
        return Err(Error::InvalidArgument(format!(
            "a transform on {} slots cannot run on ciphertexts with {} slots",
            2 * transform.row(),
            encoder.slot_count()
        )));
    }
    let schedule = policy.schedule(transform);
    let diagonals: Vec<(&Shift, &Vec<F>)> = transform.diagonals().iter().collect();
    let terms = diagonals
        .into_par_iter()
        .map(|(shift, diagonal)| {
            let slot = schedule.place(*shift);
            let moved = schedule.pre_rotated(slot, diagonal);
            Ok((slot, make(&moved)?))
        })
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .collect();
    Ok((schedule, terms))
}

/// The final alignment rotation, when negative giant indices need one.
fn align(schedule: &Schedule, acc: Ciphertext, keys: &GaloisKeys) -> Result<Ciphertext> {
    match schedule.alignment_element(acc.context()) {
        Some(element) => acc.apply_galois(element, keys),
        None => Ok(acc),
    }
}

/// The sum before its final alignment from iterated baby steps and Horner
/// giant steps, rotation by rotation; `product` multiplies a baby step by
/// a term's diagonal.
fn iterated_sum<T>(
    schedule: &Schedule,
    terms: &BTreeMap<Slot, T>,
    x: &Ciphertext,
    keys: &GaloisKeys,
    product: impl Fn(&Ciphertext, &T) -> Result<Ciphertext>,
) -> Result<Ciphertext> {
    let babies = iterated_baby_steps(schedule, x, keys)?;
    let giant = GaloisKeys::element_for_step(x.context(), schedule.giant_step());
    let (giant_min, giant_max) = schedule.giant_range();
    let mut acc: Option<Ciphertext> = None;
    for j in (giant_min..=giant_max).rev() {
        if let Some(a) = acc.as_mut() {
            *a = a.apply_galois(giant, keys)?;
        }
        let range = Slot {
            giant: j,
            swap: false,
            baby: 0,
        }..=Slot {
            giant: j,
            swap: true,
            baby: usize::MAX,
        };
        for (slot, term) in terms.range(range) {
            let baby = babies
                .get(&(slot.swap, slot.baby))
                .ok_or_else(|| internal("a diagonal's baby step was not computed"))?;
            let term = product(baby, term)?;
            match acc.as_mut() {
                Some(a) => a.add_assign(&term)?,
                None => acc = Some(term),
            }
        }
    }
    acc.ok_or_else(no_diagonals)
}

/// `rot_(u·k)(swap^s(x))` for every baby-step pair (s, k) the schedule's
/// diagonals use, by repeated rotations by the unit step.
fn iterated_baby_steps(
    schedule: &Schedule,
    x: &Ciphertext,
    keys: &GaloisKeys,
) -> Result<BTreeMap<(bool, usize), Ciphertext>> {
    let context = x.context();
    let needed = schedule.babies();
    let unit = GaloisKeys::element_for_step(context, schedule.unit_step() as i64);
    let mut out = BTreeMap::new();
    for swap in [false, true] {
        let Some(max) = needed
            .iter()
            .filter(|(s, _)| *s == swap)
            .map(|(_, k)| *k)
            .max()
        else {
            continue;
        };
        let mut current = if swap {
            x.apply_galois(GaloisKeys::row_swap_element(context), keys)?
        } else {
            x.clone()
        };
        for k in 0..=max {
            if k > 0 {
                current = current.apply_galois(unit, keys)?;
            }
            if needed.binary_search(&(swap, k)).is_ok() {
                out.insert((swap, k), current.clone());
            }
        }
    }
    Ok(out)
}

/// The error of evaluating a transform with no nonzero diagonal.
fn no_diagonals() -> Error {
    Error::InvalidArgument("the linear transform has no nonzero diagonal".into())
}

/// A broken invariant of this module (a bug: please report it).
fn internal(what: &str) -> Error {
    Error::Engine {
        status: Status::Internal,
        message: format!("linear transform: {what}"),
    }
}
