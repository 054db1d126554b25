//! The baby-step giant-step schedule of a slot transform: which rotations
//! run as baby steps, which as giant steps, and the Galois keys they need.
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

use super::diagonals::{signed, Shift, SlotTransform};
use crate::{Context, GaloisKeys};
use ark_ff::Field;
use std::collections::BTreeSet;

/// How baby steps are computed, trading Galois-key memory for time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KeyMode {
    /// Baby steps as double-hoisted automorphisms of the input (one key per
    /// baby step), summed in the key-switching basis.
    #[default]
    Fast,
    /// Baby steps as repeated rotations by the unit step: O(1) keys per
    /// transform (unit step, row swap, giant step, and one final alignment
    /// step).
    MinimalKeys,
}

/// The cost of generating one Galois key, in full key switches (rotations)
/// of a transform: the one constant behind [`KeyPolicy::executions`].
///
/// Calibration (N = 2^16, BN254 t, 1 thread; the machine had a load of 3.7):
/// `cargo bench -p helib-rs --bench bgv_ops -- 'key_switching/(galois_keygen|rotate|baby_steps_hoisted)/N=2\^16.*threads=1'`
/// gives, at the same parameters (14 × 61-bit chain, three digits), one
/// Galois key in 40.5 ms, one rotation at the top level in 72.5 ms (a key
/// is 0.56 of a rotation) and 8 double-hoisted baby steps in 265 ms;
/// `cargo bench -p helib-rs --bench bgv_ops -- keygen/` gives one key of the
/// n = 2^15 FFT's parameters (log2 QP = 1715, two digits) in 39.9 ms idle.
/// End to end, `encrypted_fft --n 32768 --threads 1` with
/// `--max-baby-steps` 16, 8 and 4 (50, 27 and 15 keys; 7, 17 and 37 full
/// key switches, 47, 24 and 12 baby steps) fits 55-60 ms per key and
/// ~90 ms per full key switch at the levels the FFT runs at: 0.6 again.
pub const GALOIS_KEY_COST: f64 = 0.6;

/// How schedules are chosen: the key mode, a cap on baby steps and how many
/// times the transform runs per set of Galois keys.
///
/// The default is [`KeyMode::Fast`] with no cap and unboundedly many runs:
/// the schedule minimizing the rotation cost alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyPolicy {
    /// How baby steps are computed.
    pub mode: KeyMode,
    /// At most this many baby steps per row (a value of 0 counts as 1).
    pub max_baby_steps: usize,
    /// How many times the transform is expected to run with one set of
    /// Galois keys (a value of 0 counts as 1): in [`KeyMode::Fast`] the
    /// schedule minimizes the rotation cost of one run plus
    /// [`GALOIS_KEY_COST`] per Galois key divided by this count, so one run
    /// takes fewer baby steps (fewer keys) than many.
    /// [`KeyPolicy::UNBOUNDED`] leaves key generation out of the cost.
    /// [`KeyMode::MinimalKeys`] schedules (a few keys in any case) ignore it.
    pub executions: u64,
}

impl Default for KeyPolicy {
    fn default() -> Self {
        Self {
            mode: KeyMode::Fast,
            max_baby_steps: usize::MAX,
            executions: Self::UNBOUNDED,
        }
    }
}

impl KeyPolicy {
    /// The run count for keys made once and used forever: key generation
    /// costs nothing per run.
    pub const UNBOUNDED: u64 = u64::MAX;

    /// The schedule of `transform` under this policy.
    pub fn schedule<F: Field>(&self, transform: &SlotTransform<F>) -> Schedule {
        self.schedule_for_shape(transform.row(), transform.diagonals().keys())
    }

    /// The schedule of any transform on rows of length `row` whose nonzero
    /// diagonals sit at the shifts of `shape` (see [`Schedule::for_shifts`]).
    pub fn schedule_for_shape<'a>(
        &self,
        row: usize,
        shape: impl IntoIterator<Item = &'a Shift>,
    ) -> Schedule {
        Schedule::choose(row, shape, *self)
    }

    /// The policy for a transform that runs on `ciphertexts` ciphertexts at
    /// each of [`executions`](Self::executions) runs: a key serves them all,
    /// so it is amortized over `ciphertexts` times more runs.
    #[must_use]
    pub fn per_ciphertext(self, ciphertexts: usize) -> Self {
        let executions = if self.executions == Self::UNBOUNDED {
            Self::UNBOUNDED
        } else {
            self.executions
                .max(1)
                .saturating_mul(ciphertexts.max(1) as u64)
        };
        Self { executions, ..self }
    }

    /// The weight of one Galois key in a schedule's cost, in key switches.
    fn key_weight(&self) -> f64 {
        if self.mode != KeyMode::Fast || self.executions == Self::UNBOUNDED {
            0.0
        } else {
            GALOIS_KEY_COST / self.executions.max(1) as f64
        }
    }
}

/// Where one diagonal goes in the schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Slot {
    pub(super) giant: i64,
    pub(super) swap: bool,
    pub(super) baby: usize,
}

/// The baby-step giant-step plan of one transform: the unit step u (the
/// largest power of two dividing every rotation), the baby count b (the BSGS
/// ratio: giant steps rotate by u·b), the baby steps the diagonals use and
/// the range of giant indices.
///
/// It depends only on the row length, the shifts of the nonzero diagonals
/// and the [`KeyPolicy`], so the Galois keys a transform needs are known
/// before any diagonal is computed.
///
/// ```
/// use ark_bn254::Fr;
/// use helib_rs::lintrans::{KeyMode, Schedule, Shift};
/// use helib_rs::{Context, GaloisKeys, Parameters};
///
/// let context = Context::new(&Parameters::for_tests())?;
/// let row = context.ring_degree() / 2;
/// // Rotations by 0..8: hoisted baby steps take a key each, iterated ones
/// // only the unit step's and the giant step's.
/// let shifts: Vec<Shift> = (0..8).map(|rotation| Shift { swap: false, rotation }).collect();
/// let fast = Schedule::for_shifts(row, &shifts, KeyMode::Fast, usize::MAX);
/// let minimal = Schedule::for_shifts(row, &shifts, KeyMode::MinimalKeys, usize::MAX);
/// assert!(minimal.required_galois_elements(&context).len() <= 2);
/// assert!(fast.key_switches() <= minimal.key_switches());
/// let unit = GaloisKeys::element_for_step(&context, 1);
/// assert!(fast.required_galois_elements(&context).contains(&unit));
/// # Ok::<(), helib_rs::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    // Visible to the transform reader (`lintrans::io`), which builds a
    // schedule from saved fields after range-checking them.
    pub(in crate::lintrans) row: usize,
    pub(in crate::lintrans) unit: usize,
    pub(in crate::lintrans) baby: usize,
    pub(in crate::lintrans) offset: i64,
    pub(in crate::lintrans) giant_min: i64,
    pub(in crate::lintrans) giant_max: i64,
    pub(in crate::lintrans) uses_swap: bool,
    pub(in crate::lintrans) mode: KeyMode,
    /// The baby-step pairs (swap, k) some diagonal uses, sorted.
    pub(in crate::lintrans) babies: Vec<(bool, usize)>,
}

impl Schedule {
    /// Picks the unit step (the largest power of two dividing every rotation)
    /// and the baby count minimizing an estimated rotation cost.
    pub fn new<F: Field>(transform: &SlotTransform<F>, mode: KeyMode) -> Self {
        Self::with_max_baby_steps(transform, mode, usize::MAX)
    }

    /// As [`new`](Self::new) with at most `max_baby_steps` baby steps per
    /// row (at least 1): fewer Galois keys, more giant steps.
    pub fn with_max_baby_steps<F: Field>(
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
    /// diagonals sit at `shifts`: it depends on nothing else. Key generation
    /// is left out of the cost (keys used for unboundedly many runs); see
    /// [`KeyPolicy`] to count it.
    pub fn for_shifts<'a>(
        row: usize,
        shifts: impl IntoIterator<Item = &'a Shift>,
        mode: KeyMode,
        max_baby_steps: usize,
    ) -> Self {
        let policy = KeyPolicy {
            mode,
            max_baby_steps,
            executions: KeyPolicy::UNBOUNDED,
        };
        Self::choose(row, shifts, policy)
    }

    /// The schedule minimizing [`cost`](Self::cost) under `policy` among
    /// baby counts that are powers of two up to the cap.
    fn choose<'a>(
        row: usize,
        shifts: impl IntoIterator<Item = &'a Shift>,
        policy: KeyPolicy,
    ) -> Self {
        let mode = policy.mode;
        let row = row.max(1);
        let pairs: BTreeSet<(bool, i64)> = shifts
            .into_iter()
            .map(|s| (s.swap, signed(s.rotation, row)))
            .collect();
        let uses_swap = pairs.iter().any(|&(swap, _)| swap);
        let steps: BTreeSet<i64> = pairs.iter().map(|&(_, step)| step).collect();
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
        let key_weight = policy.key_weight();
        let mut best: Option<(f64, Schedule)> = None;
        let mut baby = 1usize;
        while baby <= span.next_power_of_two()
            && baby * unit <= row
            && baby <= policy.max_baby_steps
        {
            let mut candidate = Schedule::with_baby(row, unit, baby, &units, uses_swap, mode);
            let mut cost = candidate.rotation_cost();
            if key_weight > 0.0 {
                candidate.place_babies(&pairs);
                cost += key_weight * candidate.key_count() as f64;
            }
            if best.as_ref().is_none_or(|(c, _)| cost < *c) {
                best = Some((cost, candidate));
            }
            baby *= 2;
        }
        let mut schedule = best
            .map(|(_, s)| s)
            .unwrap_or_else(|| Schedule::with_baby(row, unit, 1, &units, uses_swap, mode));
        schedule.place_babies(&pairs);
        schedule
    }

    /// Fills in the baby steps the diagonals at `pairs` (swap, signed
    /// rotation) use.
    fn place_babies(&mut self, pairs: &BTreeSet<(bool, i64)>) {
        let babies: BTreeSet<(bool, usize)> = pairs
            .iter()
            .map(|&(swap, step)| {
                let slot = self.place_step(swap, step);
                (slot.swap, slot.baby)
            })
            .collect();
        self.babies = babies.into_iter().collect();
    }

    /// The estimated rotation cost of one evaluation, in full key switches.
    /// A double-hoisted baby step costs an inner product and its products in
    /// Q·P, about a quarter of a rotation (`cargo bench --bench bgv_ops --
    /// baby_steps`); an iterated one costs a whole rotation.
    pub fn rotation_cost(&self) -> f64 {
        let baby_cost = match self.mode {
            KeyMode::Fast => 0.25,
            KeyMode::MinimalKeys => 1.0,
        };
        self.baby_rotations() as f64 * baby_cost + self.giant_rotations() as f64
    }

    /// The cost [`KeyPolicy::schedule`] minimizes, in full key switches:
    /// [`rotation_cost`](Self::rotation_cost) plus, in [`KeyMode::Fast`],
    /// [`GALOIS_KEY_COST`] per Galois key divided by the policy's
    /// [`executions`](KeyPolicy::executions).
    pub fn cost(&self, policy: &KeyPolicy) -> f64 {
        self.rotation_cost() + policy.key_weight() * self.key_count() as f64
    }

    /// How many Galois keys an evaluation needs:
    /// [`required_galois_elements`](Self::required_galois_elements)'s length,
    /// counted without a context.
    pub fn key_count(&self) -> usize {
        self.key_steps().len()
    }

    /// The Galois keys an evaluation needs, as (row swap, rotation mod R)
    /// pairs, the identity left out. An element is fixed by the row swap and
    /// the rotation mod R, so distinct pairs are distinct keys.
    fn key_steps(&self) -> BTreeSet<(bool, i64)> {
        let row = self.row as i64;
        let mut keys: BTreeSet<(bool, i64)> = BTreeSet::new();
        let mut add = |swap: bool, step: i64| {
            keys.insert((swap, step.rem_euclid(row)));
        };
        match self.mode {
            KeyMode::Fast => {
                for &(swap, k) in &self.babies {
                    add(swap, self.baby_step(k));
                }
            }
            KeyMode::MinimalKeys => {
                if self.babies.iter().any(|&(_, k)| k > 0) {
                    add(false, self.unit as i64);
                }
                if self.babies.iter().any(|&(swap, _)| swap) {
                    add(true, 0);
                }
            }
        }
        if self.giant_max > self.giant_min {
            add(false, self.giant_step());
        }
        if self.giant_min != 0 {
            add(false, self.giant_step() * self.giant_min);
        }
        keys.remove(&(false, 0));
        keys
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
        let giant = |u: &i64| (u - offset).div_euclid(b);
        Schedule {
            row,
            unit,
            baby,
            offset,
            giant_min: units.iter().map(giant).min().unwrap_or(0),
            giant_max: units.iter().map(giant).max().unwrap_or(0),
            uses_swap,
            mode,
            babies: Vec::new(),
        }
    }

    /// The row length R.
    pub(super) fn row(&self) -> usize {
        self.row
    }

    /// The offset o of the baby steps, in unit steps.
    pub(super) fn offset(&self) -> i64 {
        self.offset
    }

    /// Whether some diagonal uses the row swap.
    pub(super) fn uses_swap(&self) -> bool {
        self.uses_swap
    }

    /// Where the diagonal at `shift` goes.
    pub(super) fn place(&self, shift: Shift) -> Slot {
        self.place_step(shift.swap, signed(shift.rotation, self.row))
    }

    fn place_step(&self, swap: bool, step: i64) -> Slot {
        let units = step / self.unit as i64 - self.offset;
        Slot {
            giant: units.div_euclid(self.baby as i64),
            swap,
            baby: units.rem_euclid(self.baby as i64) as usize,
        }
    }

    /// `rot_(-g·j)(D)` for the diagonal D placed at `slot`: the giant steps
    /// that follow rotate it back into place.
    pub(super) fn pre_rotated<F: Field>(&self, slot: Slot, diagonal: &[F]) -> Vec<F> {
        // A left rotation by -g·j, taken mod R.
        let back = (-(self.giant_step() * slot.giant)).rem_euclid(self.row as i64) as usize;
        SlotTransform::shift_vector(
            self.row,
            diagonal,
            Shift {
                swap: false,
                rotation: back,
            },
        )
    }

    /// For a transform with diagonals at `shape`: how many giant indices hold
    /// a term and how many baby steps (row swap included) some term uses.
    pub fn occupancy<'a>(&self, shape: impl IntoIterator<Item = &'a Shift>) -> (usize, usize) {
        let slots: Vec<Slot> = shape.into_iter().map(|&shift| self.place(shift)).collect();
        let giants: BTreeSet<i64> = slots.iter().map(|s| s.giant).collect();
        let babies: BTreeSet<(bool, usize)> = slots.iter().map(|s| (s.swap, s.baby)).collect();
        (giants.len(), babies.len())
    }

    /// How baby steps are computed.
    pub fn mode(&self) -> KeyMode {
        self.mode
    }

    /// The baby count b: giant steps rotate by b unit steps.
    pub fn baby_steps(&self) -> usize {
        self.baby
    }

    /// The unit step u: every rotation of the transform is a multiple of it.
    pub fn unit_step(&self) -> usize {
        self.unit
    }

    /// The rotation of one giant step, u·b.
    pub(super) fn giant_step(&self) -> i64 {
        (self.unit * self.baby) as i64
    }

    /// The range of giant indices, lowest first.
    pub(super) fn giant_range(&self) -> (i64, i64) {
        (self.giant_min, self.giant_max)
    }

    /// The baby-step pairs (swap, k) some diagonal uses, sorted.
    pub(super) fn babies(&self) -> &[(bool, usize)] {
        &self.babies
    }

    /// The rotation of baby step k (before the optional row swap).
    fn baby_step(&self, k: usize) -> i64 {
        (k as i64 + self.offset) * self.unit as i64
    }

    /// The Galois element of baby step k, after a row swap when `swap`.
    pub(super) fn baby_element(&self, context: &Context, swap: bool, k: usize) -> u64 {
        step_element(context, swap, self.baby_step(k))
    }

    /// The Galois element of the final alignment, when negative giant
    /// indices need one.
    pub(super) fn alignment_element(&self, context: &Context) -> Option<u64> {
        (self.giant_min != 0)
            .then(|| GaloisKeys::element_for_step(context, self.giant_step() * self.giant_min))
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

    /// The Galois elements an evaluation with this schedule uses, sorted:
    /// exactly the keys it needs (the identity needs none).
    pub fn required_galois_elements(&self, context: &Context) -> Vec<u64> {
        let mut out: Vec<u64> = self
            .key_steps()
            .into_iter()
            .map(|(swap, step)| step_element(context, swap, step))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// The Galois element of a rotation by `step`, after the row swap when `swap`.
fn step_element(context: &Context, swap: bool, step: i64) -> u64 {
    let g = GaloisKeys::element_for_step(context, step);
    if swap {
        let two_n = 2 * context.ring_degree() as u64;
        GaloisKeys::row_swap_element(context) * g % two_n
    } else {
        g
    }
}
