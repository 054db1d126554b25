//! Baby-step giant-step evaluation of a slot transform on a ciphertext.
//!
//! Every diagonal's shift is written as `swap^s ∘ rot(u·(b·j + k + o))` with
//! baby index `k ∈ 0..b`, giant index `j` and a fixed offset `o`. Then
//! `y = Σ_j rot_(g·j)( Σ_(s,k) rot_(-g·j)(D_(s,j,k)) ⊙ baby_(s,k) )`, g = u·b,
//! where `baby_(s,k) = rot_(u·(k + o))(swap^s(x))`. The giant sum runs in Horner
//! form (`acc = rot_g(acc) + S_j`), so it needs a single giant-step key.
//!
//! With hoisted baby steps the offset is the smallest shift, so every giant
//! index is ≥ 0 and no final alignment rotation is needed (any baby step costs
//! the same). Iterated baby steps start from `x` itself (`o = 0`); negative
//! giant indices are then paid for by one alignment rotation at the end.
//!
//! In [`KeyMode::Fast`] the whole sum is one double-hoisted engine call
//! ([`Ciphertext::linear_transform`]): the baby steps share one decomposition
//! and stay in the key-switching basis, where their products are summed, so a
//! baby step costs an inner product rather than a rotation.

use crate::error::{Error, Result};
use crate::stages::Shape;
use crate::transform::{signed, Shift, SlotTransform};
use ark_ff::{FftField, PrimeField};
use helib_rs::{BatchEncoder, Ciphertext, Context, EncodedPlaintext, GaloisKeys, Plaintext};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// How baby steps are computed, trading Galois-key memory for time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KeyMode {
    /// Baby steps as double-hoisted automorphisms of the input (one key per
    /// baby step), summed in the key-switching basis.
    #[default]
    Fast,
    /// Baby steps as repeated rotations by the unit step: O(1) keys per level
    /// (unit step, row swap, giant step, and one final alignment step).
    MinimalKeys,
}

/// How a plan chooses its schedules: the key mode and a cap on baby steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct KeyPolicy {
    pub(crate) mode: KeyMode,
    pub(crate) max_baby_steps: usize,
}

impl KeyPolicy {
    pub(crate) fn schedule<F: FftField>(&self, transform: &SlotTransform<F>) -> Schedule {
        Schedule::with_max_baby_steps(transform, self.mode, self.max_baby_steps)
    }

    /// The schedule of any transform with these shifts (see [`Shape`]).
    pub(crate) fn schedule_for_shape(&self, row: usize, shape: &Shape) -> Schedule {
        Schedule::for_shifts(row, shape, self.mode, self.max_baby_steps)
    }
}

/// Where one diagonal goes in the schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Slot {
    giant: i64,
    swap: bool,
    baby: usize,
}

/// The baby-step giant-step plan of one transform.
#[derive(Debug, Clone)]
pub struct Schedule {
    row: usize,
    unit: usize,
    baby: usize,
    offset: i64,
    giant_min: i64,
    giant_max: i64,
    uses_swap: bool,
    mode: KeyMode,
}

impl Schedule {
    /// Picks the unit step (the largest power of two dividing every rotation)
    /// and the baby count minimizing an estimated rotation cost.
    pub fn new<F: FftField>(transform: &SlotTransform<F>, mode: KeyMode) -> Self {
        Self::with_max_baby_steps(transform, mode, usize::MAX)
    }

    /// As [`new`](Self::new) with at most `max_baby_steps` baby steps per
    /// row (at least 1): fewer Galois keys, more giant steps.
    pub fn with_max_baby_steps<F: FftField>(
        transform: &SlotTransform<F>,
        mode: KeyMode,
        max_baby_steps: usize,
    ) -> Self {
        Self::for_shifts(
            transform.row(),
            transform.diagonals().keys(),
            mode,
            max_baby_steps,
        )
    }

    /// The schedule for a transform on rows of length `row` whose nonzero
    /// diagonals sit at `shifts`: it depends on nothing else.
    pub(crate) fn for_shifts<'a>(
        row: usize,
        shifts: impl IntoIterator<Item = &'a Shift>,
        mode: KeyMode,
        max_baby_steps: usize,
    ) -> Self {
        let mut uses_swap = false;
        let mut steps: Vec<i64> = shifts
            .into_iter()
            .map(|s| {
                uses_swap |= s.swap;
                signed(s.rotation, row)
            })
            .collect();
        steps.sort_unstable();
        steps.dedup();
        let unit = steps
            .iter()
            .filter(|&&s| s != 0)
            .map(|s| 1usize << s.unsigned_abs().trailing_zeros())
            .min()
            .unwrap_or(1)
            .min(row);
        let units: Vec<i64> = steps.iter().map(|s| s / unit as i64).collect();
        let span =
            (units.last().copied().unwrap_or(0) - units.first().copied().unwrap_or(0) + 1) as usize;
        // A double-hoisted baby step costs an inner product and its products
        // in Q·P, about a quarter of a rotation (`cargo bench --bench bgv_ops
        // -- baby_steps`); an iterated one costs a whole rotation.
        let baby_cost = match mode {
            KeyMode::Fast => 0.25,
            KeyMode::MinimalKeys => 1.0,
        };
        let mut best: Option<(f64, Schedule)> = None;
        let mut baby = 1usize;
        while baby <= span.next_power_of_two() && baby * unit <= row && baby <= max_baby_steps {
            let candidate = Schedule::with_baby(row, unit, baby, &units, uses_swap, mode);
            let cost =
                candidate.baby_rotations() as f64 * baby_cost + candidate.giant_rotations() as f64;
            if best.as_ref().is_none_or(|(c, _)| cost < *c) {
                best = Some((cost, candidate));
            }
            baby *= 2;
        }
        best.map(|(_, s)| s)
            .unwrap_or_else(|| Schedule::with_baby(row, unit, 1, &units, uses_swap, mode))
    }

    fn with_baby(
        row: usize,
        unit: usize,
        baby: usize,
        units: &[i64],
        uses_swap: bool,
        mode: KeyMode,
    ) -> Self {
        let b = baby as i64;
        let offset = match mode {
            KeyMode::Fast => units.iter().copied().min().unwrap_or(0),
            KeyMode::MinimalKeys => 0,
        };
        let giant_min = units
            .iter()
            .map(|u| (u - offset).div_euclid(b))
            .min()
            .unwrap_or(0);
        let giant_max = units
            .iter()
            .map(|u| (u - offset).div_euclid(b))
            .max()
            .unwrap_or(0);
        Schedule {
            row,
            unit,
            baby,
            offset,
            giant_min,
            giant_max,
            uses_swap,
            mode,
        }
    }

    fn place(&self, shift: Shift) -> Slot {
        let units = signed(shift.rotation, self.row) / self.unit as i64 - self.offset;
        Slot {
            giant: units.div_euclid(self.baby as i64),
            swap: shift.swap,
            baby: units.rem_euclid(self.baby as i64) as usize,
        }
    }

    /// `rot_(-g·j)(D)` for the diagonal D placed at `slot`: the giant steps
    /// that follow rotate it back into place.
    fn pre_rotated<F: FftField>(&self, row: usize, slot: Slot, diagonal: &[F]) -> Vec<F> {
        // A left rotation by -g·j, taken mod R.
        let back = (-(self.giant_step() * slot.giant)).rem_euclid(row as i64) as usize;
        SlotTransform::shift_vector(
            row,
            diagonal,
            Shift {
                swap: false,
                rotation: back,
            },
        )
    }

    /// The final alignment rotation, when negative giant indices need one.
    fn align(&self, acc: Ciphertext, keys: &GaloisKeys) -> Result<Ciphertext> {
        if self.giant_min == 0 {
            return Ok(acc);
        }
        let element =
            GaloisKeys::element_for_step(acc.context(), self.giant_step() * self.giant_min);
        Ok(acc.apply_galois(element, keys)?)
    }

    /// For a transform with diagonals at `shape`: how many giant indices hold
    /// a term and how many baby steps (row swap included) some term uses.
    pub(crate) fn occupancy(&self, shape: &Shape) -> (usize, usize) {
        let slots: Vec<Slot> = shape.iter().map(|&shift| self.place(shift)).collect();
        let giants: BTreeSet<i64> = slots.iter().map(|s| s.giant).collect();
        let babies: BTreeSet<(bool, usize)> = slots.iter().map(|s| (s.swap, s.baby)).collect();
        (giants.len(), babies.len())
    }

    fn giant_step(&self) -> i64 {
        (self.unit * self.baby) as i64
    }

    /// The rotation of baby step k (before the optional row swap).
    fn baby_step(&self, k: usize) -> i64 {
        (k as i64 + self.offset) * self.unit as i64
    }

    /// The Galois element of baby step k, after a row swap when `swap`.
    fn baby_element(&self, context: &Context, swap: bool, k: usize) -> u64 {
        let g = GaloisKeys::element_for_step(context, self.baby_step(k));
        if swap {
            let two_n = 2 * context.ring_degree() as u64;
            GaloisKeys::row_swap_element(context) * g % two_n
        } else {
            g
        }
    }

    /// Baby rotations per evaluation (the row swap counts as one).
    pub fn baby_rotations(&self) -> usize {
        let identity = (self.offset..self.offset + self.baby as i64).contains(&0);
        let per_row = self.baby - usize::from(identity);
        if self.uses_swap {
            per_row + self.baby
        } else {
            per_row
        }
    }

    /// Giant rotations per evaluation (Horner steps plus the final alignment).
    pub fn giant_rotations(&self) -> usize {
        (self.giant_max - self.giant_min) as usize + usize::from(self.giant_min != 0)
    }

    /// Rotations per evaluation that pay a whole key switch: the giant ones,
    /// plus the baby ones when they are iterated rather than double-hoisted.
    pub fn key_switches(&self) -> usize {
        match self.mode {
            KeyMode::Fast => self.giant_rotations(),
            KeyMode::MinimalKeys => self.baby_rotations() + self.giant_rotations(),
        }
    }

    /// The Galois elements this schedule's rotations need.
    pub fn required_elements(&self, context: &Context) -> Vec<u64> {
        let step = |k: i64| GaloisKeys::element_for_step(context, k);
        let mut out = Vec::new();
        match self.mode {
            KeyMode::Fast => {
                for k in 0..self.baby {
                    out.push(self.baby_element(context, false, k));
                    if self.uses_swap {
                        out.push(self.baby_element(context, true, k));
                    }
                }
            }
            KeyMode::MinimalKeys => {
                if self.baby > 1 {
                    out.push(step(self.unit as i64));
                }
                if self.uses_swap {
                    out.push(GaloisKeys::row_swap_element(context));
                }
            }
        }
        if self.giant_max > self.giant_min {
            out.push(step(self.giant_step()));
        }
        if self.giant_min != 0 {
            out.push(step(self.giant_step() * self.giant_min));
        }
        out.sort_unstable();
        out.dedup();
        out.retain(|&g| g != 1);
        out
    }
}

/// A transform ready to run on ciphertexts: its schedule and its diagonals,
/// pre-rotated for the giant steps and encoded at a fixed level.
pub struct EncodedTransform {
    level: usize,
    schedule: Schedule,
    terms: BTreeMap<Slot, EncodedPlaintext>,
}

impl EncodedTransform {
    /// Encodes `transform`'s diagonals for ciphertexts at `level`.
    pub fn new<F: PrimeField + FftField>(
        transform: &SlotTransform<F>,
        policy: KeyPolicy,
        encoder: &BatchEncoder<F>,
        level: usize,
    ) -> Result<Self> {
        let mode = policy.mode;
        let schedule = policy.schedule(transform);
        let row = transform.row();
        // Each diagonal independently: rotated, taken to coefficients and
        // lifted, on the pool the caller installed.
        let diagonals: Vec<(&Shift, &Vec<F>)> = transform.diagonals().iter().collect();
        let terms = diagonals
            .into_par_iter()
            .map(|(shift, diagonal)| {
                let slot = schedule.place(*shift);
                let moved = schedule.pre_rotated(row, slot, diagonal);
                let encoded = match mode {
                    KeyMode::Fast => encoder.encode_for_linear_transform(&moved, level)?,
                    KeyMode::MinimalKeys => encoder.encode_for_multiplication(&moved, level)?,
                };
                Ok((slot, encoded))
            })
            .collect::<Result<Vec<_>>>()?
            .into_iter()
            .collect();
        Ok(Self {
            level,
            schedule,
            terms,
        })
    }

    /// The level of the ciphertexts it runs on.
    pub fn level(&self) -> usize {
        self.level
    }

    /// The schedule.
    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// Plaintext multiplications per evaluation.
    pub fn multiplications(&self) -> usize {
        self.terms.len()
    }

    /// Evaluates the transform on `x`.
    pub fn apply(&self, x: &Ciphertext, keys: &GaloisKeys) -> Result<Ciphertext> {
        let s = &self.schedule;
        let acc = match s.mode {
            KeyMode::Fast => self.apply_hoisted(x, keys)?,
            KeyMode::MinimalKeys => self.apply_iterated(x, keys)?,
        };
        s.align(acc, keys)
    }

    /// The baby-step pairs (swap, k) some diagonal uses, sorted.
    fn needed_babies(&self) -> Vec<(bool, usize)> {
        needed_babies(&self.terms)
    }

    /// The sum before its final alignment, as one double-hoisted engine call.
    fn apply_hoisted(&self, x: &Ciphertext, keys: &GaloisKeys) -> Result<Ciphertext> {
        let s = &self.schedule;
        let context = x.context();
        let babies = self.needed_babies();
        let elements: Vec<u64> = babies
            .iter()
            .map(|&(sw, k)| s.baby_element(context, sw, k))
            .collect();
        let giants = (s.giant_max - s.giant_min + 1) as usize;
        let mut grid: Vec<Option<&EncodedPlaintext>> = vec![None; giants * babies.len()];
        for (slot, plain) in &self.terms {
            let j = (slot.giant - s.giant_min) as usize;
            let i = babies
                .binary_search(&(slot.swap, slot.baby))
                .map_err(|_| Error::Internal("baby step missing"))?;
            grid[j * babies.len() + i] = Some(plain);
        }
        let giant = GaloisKeys::element_for_step(context, s.giant_step());
        Ok(x.linear_transform(&elements, giant, &grid, keys)?)
    }

    /// The sum before its final alignment from iterated baby steps and
    /// Horner giant steps, rotation by rotation.
    fn apply_iterated(&self, x: &Ciphertext, keys: &GaloisKeys) -> Result<Ciphertext> {
        iterated_sum(&self.schedule, &self.terms, x, keys, |baby, plain| {
            Ok(baby.mul_plain(plain)?)
        })
    }
}

/// The baby-step pairs (swap, k) some term uses, sorted.
fn needed_babies<T>(terms: &BTreeMap<Slot, T>) -> Vec<(bool, usize)> {
    let mut needed: Vec<(bool, usize)> = terms.keys().map(|t| (t.swap, t.baby)).collect();
    needed.sort_unstable();
    needed.dedup();
    needed
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
    let babies = iterated_baby_steps(schedule, &needed_babies(terms), x, keys)?;
    let giant = GaloisKeys::element_for_step(x.context(), schedule.giant_step());
    let mut acc: Option<Ciphertext> = None;
    for j in (schedule.giant_min..=schedule.giant_max).rev() {
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
                .ok_or(Error::Internal("baby step missing"))?;
            let term = product(baby, term)?;
            match acc.as_mut() {
                Some(a) => a.add_assign(&term)?,
                None => acc = Some(term),
            }
        }
    }
    acc.ok_or(Error::Internal("transform has no diagonals"))
}

/// `rot_(u·k)(swap^s(x))` for every (s, k) in `needed`, by repeated
/// rotations by the unit step.
fn iterated_baby_steps(
    schedule: &Schedule,
    needed: &[(bool, usize)],
    x: &Ciphertext,
    keys: &GaloisKeys,
) -> Result<BTreeMap<(bool, usize), Ciphertext>> {
    let context = x.context();
    let unit = GaloisKeys::element_for_step(context, schedule.unit as i64);
    let mut out = BTreeMap::new();
    for sw in [false, true] {
        let Some(max) = needed
            .iter()
            .filter(|(w, _)| *w == sw)
            .map(|(_, k)| *k)
            .max()
        else {
            continue;
        };
        let mut current = if sw {
            x.apply_galois(GaloisKeys::row_swap_element(context), keys)?
        } else {
            x.clone()
        };
        for k in 0..=max {
            if k > 0 {
                current = current.apply_galois(unit, keys)?;
            }
            if needed.contains(&(sw, k)) {
                out.insert((sw, k), current.clone());
            }
        }
    }
    Ok(out)
}

/// A transform whose diagonals are kept as plaintext polynomials (pre-rotated
/// for the giant steps, not yet in the engine's RNS form) and encoded at
/// each evaluation: a plaintext holds N·⌈log2 t / 64⌉ words against N words
/// per prime for an encoding, and the costly transform from slots to
/// coefficients is paid once, when the transform is built.
pub(crate) struct PlainTransform {
    level: usize,
    schedule: Schedule,
    terms: BTreeMap<Slot, Plaintext>,
}

impl PlainTransform {
    /// `transform`'s diagonals as plaintexts, for ciphertexts at `level`.
    pub(crate) fn new<F: PrimeField + FftField>(
        transform: &SlotTransform<F>,
        policy: KeyPolicy,
        encoder: &BatchEncoder<F>,
        level: usize,
    ) -> Result<Self> {
        let schedule = policy.schedule(transform);
        let row = transform.row();
        let diagonals: Vec<(&Shift, &Vec<F>)> = transform.diagonals().iter().collect();
        let terms = diagonals
            .into_par_iter()
            .map(|(shift, diagonal)| {
                let slot = schedule.place(*shift);
                let moved = schedule.pre_rotated(row, slot, diagonal);
                Ok((slot, encoder.encode(&moved)?))
            })
            .collect::<Result<Vec<_>>>()?
            .into_iter()
            .collect();
        Ok(Self {
            level,
            schedule,
            terms,
        })
    }

    /// The level of the ciphertexts it runs on.
    pub(crate) fn level(&self) -> usize {
        self.level
    }

    /// The schedule.
    pub(crate) fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// Plaintext multiplications per evaluation.
    pub(crate) fn multiplications(&self) -> usize {
        self.terms.len()
    }

    /// Evaluates the transform on `x`. With iterated baby steps
    /// ([`KeyMode::MinimalKeys`]) each diagonal is encoded just before its
    /// product, so one encoding is alive at a time; the double-hoisted
    /// engine call of [`KeyMode::Fast`] takes the whole level's encodings.
    pub(crate) fn apply(&self, x: &Ciphertext, keys: &GaloisKeys) -> Result<Ciphertext> {
        let schedule = &self.schedule;
        if schedule.mode == KeyMode::Fast {
            let terms = self
                .terms
                .iter()
                .map(|(slot, plain)| {
                    Ok((
                        *slot,
                        EncodedPlaintext::for_linear_transform(plain, self.level)?,
                    ))
                })
                .collect::<Result<_>>()?;
            let encoded = EncodedTransform {
                level: self.level,
                schedule: schedule.clone(),
                terms,
            };
            return encoded.apply(x, keys);
        }
        let acc = iterated_sum(schedule, &self.terms, x, keys, |baby, plain| {
            let encoded = EncodedPlaintext::for_multiplication(plain, baby.level())?;
            Ok(baby.mul_plain(&encoded)?)
        })?;
        schedule.align(acc, keys)
    }
}
