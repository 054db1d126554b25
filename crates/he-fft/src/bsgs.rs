//! Baby-step giant-step evaluation of a slot transform on a ciphertext.
//!
//! Every diagonal's shift is written as `swap^s ∘ rot(u·(b·j + k))` with baby
//! index `k ∈ 0..b` and giant index `j`. Then
//! `y = Σ_j rot_(g·j)( Σ_(s,k) rot_(-g·j)(D_(s,j,k)) ⊙ baby_(s,k) )`, g = u·b,
//! where `baby_(s,k) = rot_(u·k)(swap^s(x))`. The giant sum runs in Horner form
//! (`acc = rot_g(acc) + S_j`), so it needs a single giant-step key.

use crate::error::{Error, Result};
use crate::transform::{signed, Shift, SlotTransform};
use ark_ff::{FftField, PrimeField};
use helib_rs::{BatchEncoder, Ciphertext, Context, EncodedPlaintext, GaloisKeys};
use std::collections::BTreeMap;

/// How baby steps are computed, trading Galois-key memory for time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KeyMode {
    /// Baby steps as hoisted automorphisms of the input (one key per baby step).
    #[default]
    Fast,
    /// Baby steps as repeated rotations by the unit step: O(1) keys per level
    /// (unit step, row swap, giant step, and one final alignment step).
    MinimalKeys,
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
    giant_min: i64,
    giant_max: i64,
    uses_swap: bool,
    mode: KeyMode,
}

impl Schedule {
    /// Picks the unit step (the largest power of two dividing every rotation)
    /// and the baby count minimizing an estimated rotation cost.
    pub fn new<F: FftField>(transform: &SlotTransform<F>, mode: KeyMode) -> Self {
        let row = transform.row();
        let steps = transform.signed_rotations();
        let unit = steps
            .iter()
            .filter(|&&s| s != 0)
            .map(|s| 1usize << s.unsigned_abs().trailing_zeros())
            .min()
            .unwrap_or(1)
            .min(row);
        let uses_swap = transform.diagonals().keys().any(|s| s.swap);
        let units: Vec<i64> = steps.iter().map(|s| s / unit as i64).collect();
        let span =
            (units.last().copied().unwrap_or(0) - units.first().copied().unwrap_or(0) + 1) as usize;
        // Hoisted baby steps cost about half a rotation; iterated ones a whole one.
        let baby_cost = match mode {
            KeyMode::Fast => 0.5,
            KeyMode::MinimalKeys => 1.0,
        };
        let mut best: Option<(f64, Schedule)> = None;
        let mut baby = 1usize;
        while baby <= span.next_power_of_two() && baby * unit <= row {
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
        let giant_min = units.iter().map(|u| u.div_euclid(b)).min().unwrap_or(0);
        let giant_max = units.iter().map(|u| u.div_euclid(b)).max().unwrap_or(0);
        Schedule {
            row,
            unit,
            baby,
            giant_min,
            giant_max,
            uses_swap,
            mode,
        }
    }

    fn place(&self, shift: Shift) -> Slot {
        let units = signed(shift.rotation, self.row) / self.unit as i64;
        Slot {
            giant: units.div_euclid(self.baby as i64),
            swap: shift.swap,
            baby: units.rem_euclid(self.baby as i64) as usize,
        }
    }

    fn giant_step(&self) -> i64 {
        (self.unit * self.baby) as i64
    }

    /// Baby rotations per evaluation (the row swap counts as one).
    pub fn baby_rotations(&self) -> usize {
        let per_row = self.baby - 1;
        if self.uses_swap {
            2 * per_row + 1
        } else {
            per_row
        }
    }

    /// Giant rotations per evaluation (Horner steps plus the final alignment).
    pub fn giant_rotations(&self) -> usize {
        (self.giant_max - self.giant_min) as usize + usize::from(self.giant_min != 0)
    }

    /// The Galois elements this schedule's rotations need.
    pub fn required_elements(&self, context: &Context) -> Vec<u64> {
        let swap = GaloisKeys::row_swap_element(context);
        let step = |k: i64| GaloisKeys::element_for_step(context, k);
        let two_n = 2 * context.ring_degree() as u64;
        let mut out = Vec::new();
        match self.mode {
            KeyMode::Fast => {
                for k in 1..self.baby {
                    out.push(step((k * self.unit) as i64));
                }
                if self.uses_swap {
                    for k in 0..self.baby {
                        out.push(swap * step((k * self.unit) as i64) % two_n);
                    }
                }
            }
            KeyMode::MinimalKeys => {
                if self.baby > 1 {
                    out.push(step(self.unit as i64));
                }
                if self.uses_swap {
                    out.push(swap);
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
        mode: KeyMode,
        encoder: &BatchEncoder<F>,
        level: usize,
    ) -> Result<Self> {
        let schedule = Schedule::new(transform, mode);
        let row = transform.row();
        let mut terms = BTreeMap::new();
        for (shift, diagonal) in transform.diagonals() {
            let slot = schedule.place(*shift);
            // rot_(-g·j)(D): left rotation by -g·j, taken mod R.
            let back = (-(schedule.giant_step() * slot.giant)).rem_euclid(row as i64) as usize;
            let moved = SlotTransform::shift_vector(
                row,
                diagonal,
                Shift {
                    swap: false,
                    rotation: back,
                },
            );
            terms.insert(slot, encoder.encode_for_multiplication(&moved, level)?);
        }
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
        let context = x.context();
        let babies = self.baby_steps(x, keys)?;
        let giant = GaloisKeys::element_for_step(context, s.giant_step());
        let mut acc: Option<Ciphertext> = None;
        for j in (s.giant_min..=s.giant_max).rev() {
            if let Some(a) = acc.as_mut() {
                *a = a.apply_galois(giant, keys)?;
            }
            for (slot, plain) in self.terms.range(
                Slot {
                    giant: j,
                    swap: false,
                    baby: 0,
                }..=Slot {
                    giant: j,
                    swap: true,
                    baby: usize::MAX,
                },
            ) {
                let term = babies
                    .get(&(slot.swap, slot.baby))
                    .ok_or(Error::Internal("baby step missing"))?
                    .mul_plain(plain)?;
                match acc.as_mut() {
                    Some(a) => a.add_assign(&term)?,
                    None => acc = Some(term),
                }
            }
        }
        let mut acc = acc.ok_or(Error::Internal("transform has no diagonals"))?;
        if s.giant_min != 0 {
            acc = acc.apply_galois(
                GaloisKeys::element_for_step(context, s.giant_step() * s.giant_min),
                keys,
            )?;
        }
        Ok(acc)
    }

    /// `rot_(u·k)(swap^s(x))` for every (s, k) some diagonal uses.
    fn baby_steps(
        &self,
        x: &Ciphertext,
        keys: &GaloisKeys,
    ) -> Result<BTreeMap<(bool, usize), Ciphertext>> {
        let s = &self.schedule;
        let context = x.context();
        let mut needed: Vec<(bool, usize)> = self.terms.keys().map(|t| (t.swap, t.baby)).collect();
        needed.sort_unstable();
        needed.dedup();
        let mut out = BTreeMap::new();
        match s.mode {
            KeyMode::Fast => {
                let two_n = 2 * context.ring_degree() as u64;
                let swap = GaloisKeys::row_swap_element(context);
                let element = |&(sw, k): &(bool, usize)| {
                    let g = GaloisKeys::element_for_step(context, (k * s.unit) as i64);
                    if sw {
                        swap * g % two_n
                    } else {
                        g
                    }
                };
                let (identity, others): (Vec<_>, Vec<_>) =
                    needed.iter().partition(|&&key| element(&key) == 1);
                if !identity.is_empty() {
                    out.insert((false, 0), x.clone());
                }
                let elements: Vec<u64> = others.iter().map(element).collect();
                for (key, ct) in others
                    .into_iter()
                    .zip(x.apply_galois_hoisted(&elements, keys)?)
                {
                    out.insert(key, ct);
                }
            }
            KeyMode::MinimalKeys => {
                let unit = GaloisKeys::element_for_step(context, s.unit as i64);
                for sw in [false, true] {
                    let max = needed
                        .iter()
                        .filter(|(w, _)| *w == sw)
                        .map(|(_, k)| *k)
                        .max();
                    let Some(max) = max else { continue };
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
            }
        }
        Ok(out)
    }
}
