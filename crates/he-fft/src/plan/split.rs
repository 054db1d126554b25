//! The four-step plan for n = C·N over C ciphertexts.

use super::geometry::PlanGeometry;
use super::levels::level_after;
use super::spec::{Direction, PlanSpec};
use super::{SplitRun, Twiddled};
use crate::error::{Error, Result};
use crate::options::Preparation;
use crate::stages::{
    compose_stages, group_bounds, group_bounds_short_last, group_shapes_in, group_stages_in,
    radix2_stages, Order, Shape,
};
use ark_ff::{FftField, PrimeField};
use helib_rs::lintrans::{EncodedTransform, KeyPolicy, PlainTransform, SlotTransform};
use helib_rs::{BatchEncoder, Context};
use std::ops::Range;

/// The four-step plan for n = C·N over C ciphertexts, its levels encoded
/// under `policy` from `prep`'s input level.
///
/// Forward: natural chunks `x_c` → across `u_k = Σ_c ω_C^(ck) g^(cN) x_c`
/// (additions only for C = 2 without coset) → per group k a size-N DIF whose
/// first stage absorbs the twiddles `ω^(pk) g^p`: ciphertext k, slot q holds
/// `X[k + C·bitrev(q)]`. Inverse: exactly that layout in → per group k a
/// size-N DIT whose last stage absorbs `ω^(-pk) g^(-p) / n` → across
/// `x_c = Σ_k ω_C^(-ck) g^(-cN) v_k`: natural chunks out.
/// Only the groups of `held` get their own level.
pub(super) fn split_run<F: PrimeField + FftField>(
    encoder: &BatchEncoder<F>,
    spec: &PlanSpec<F>,
    geometry: &PlanGeometry,
    held: Range<usize>,
    policy: KeyPolicy,
    prep: Preparation,
) -> Result<SplitRun> {
    let parts = SplitParts::new(encoder.context(), spec, geometry)?;
    let level = prep.level;
    let shared = parts
        .shared()
        .iter()
        .enumerate()
        .map(|(i, t)| EncodedTransform::new(t, policy, encoder, parts.shared_level(level, i)))
        .collect::<helib_rs::Result<Vec<_>>>()?;
    let own_level = parts.own_level(level);
    // One group at a time (each in parallel inside), so the field diagonals
    // of a single group are alive at once.
    let twiddled = if prep.per_execution {
        Twiddled::Plain(
            held.clone()
                .map(|k| PlainTransform::new(&parts.own(k), policy, encoder, own_level))
                .collect::<helib_rs::Result<Vec<_>>>()?,
        )
    } else {
        Twiddled::Encoded(
            held.clone()
                .map(|k| EncodedTransform::new(&parts.own(k), policy, encoder, own_level))
                .collect::<helib_rs::Result<Vec<_>>>()?,
        )
    };
    SplitRun::assemble(spec, geometry, held, twiddled, shared)
}

impl SplitRun {
    /// A four-step plan's run from its levels (built or read from a file):
    /// the scalars across ciphertexts are recomputed from the spec.
    pub(super) fn assemble<F: PrimeField + FftField>(
        spec: &PlanSpec<F>,
        geometry: &PlanGeometry,
        held: Range<usize>,
        twiddled: Twiddled,
        shared: Vec<EncodedTransform>,
    ) -> Result<Self> {
        let (omega, g) = split_roots(spec)?;
        let forward = spec.direction == Direction::Forward;
        let groups = geometry.ciphertexts();
        Ok(Self {
            groups,
            across_first: forward,
            across_scalars: across_scalars(omega, g, groups, 2 * geometry.row(), forward),
            held,
            twiddled,
            shared,
        })
    }
}

/// The slot transforms of a four-step plan, before any encoding: what
/// [`split_run`] encodes and what a loaded plan is verified against.
pub(super) struct SplitParts<F: PrimeField + FftField> {
    context: Context,
    /// Ciphertexts C.
    pub(super) groups: usize,
    pub(super) forward: bool,
    omega: F,
    g: F,
    n_inv: F,
    slots: usize,
    /// The radix-2 stages of the size-N transform.
    stages: Vec<SlotTransform<F>>,
    /// The stages of each group's own (twiddle-absorbing) level.
    own: std::ops::Range<usize>,
    /// The stages of each shared level, in order.
    shared: Vec<std::ops::Range<usize>>,
    /// The place on the chain of the first shared level and of the own one.
    shared_offset: usize,
    own_index: usize,
}

impl<F: PrimeField + FftField> SplitParts<F> {
    /// The stages of the plan `spec` with `geometry` (n = C·N) and their
    /// grouping into the geometry's levels.
    pub(super) fn new(
        context: &Context,
        spec: &PlanSpec<F>,
        geometry: &PlanGeometry,
    ) -> Result<Self> {
        let n = spec.n;
        let slots = 2 * geometry.row();
        let groups = geometry.ciphertexts();
        let packing = geometry.packing();
        let forward = spec.direction == Direction::Forward;
        let (omega, g) = split_roots(spec)?;
        let omega_n = omega.pow([groups as u64]);
        let stage_order = if forward {
            Order::Natural
        } else {
            Order::BitReversed
        };
        let stages = radix2_stages(packing, omega_n, stage_order);
        let shapes: Vec<Shape> = stages
            .iter()
            .map(|t| t.diagonals().keys().copied().collect())
            .collect();
        let ranges = split_ranges(&shapes, geometry.levels(), forward, groups, slots / 2);
        // The group's own level: the first going forward (DIF, twiddles on
        // the input), the last going back (DIT, twiddles and 1/n on the output).
        let (own, shared) = if forward {
            (ranges[0].clone(), ranges[1..].to_vec())
        } else {
            (
                ranges[ranges.len() - 1].clone(),
                ranges[..ranges.len() - 1].to_vec(),
            )
        };
        // Going forward the products across ciphertexts come first; when they
        // take a level, the groups' levels run one level lower on the chain.
        let first = geometry.first_level(spec.direction);
        Ok(Self {
            context: context.clone(),
            groups,
            forward,
            omega,
            g,
            n_inv: F::from(n as u64).inverse().unwrap_or(F::one()),
            slots,
            stages,
            own,
            shared,
            shared_offset: if forward { first + 1 } else { 0 },
            own_index: if forward { first } else { ranges.len() - 1 },
        })
    }

    /// The levels every group shares, in order.
    pub(super) fn shared(&self) -> Vec<SlotTransform<F>> {
        group_stages_in(&self.stages, &self.shared)
    }

    /// The level on the chain of shared level `i` of a plan with inputs at `level`.
    pub(super) fn shared_level(&self, level: usize, i: usize) -> usize {
        level_after(&self.context, level, i + self.shared_offset)
    }

    /// The level on the chain of the groups' own levels.
    pub(super) fn own_level(&self, level: usize) -> usize {
        level_after(&self.context, level, self.own_index)
    }

    /// Group k's own level, its twiddles folded in.
    pub(super) fn own(&self, k: usize) -> SlotTransform<F> {
        let twiddle: Vec<F> = powers_times(self.omega.pow([k as u64]), self.g, self.slots);
        let mut mine = self.stages[self.own.clone()].to_vec();
        if self.forward {
            mine[0] = mine[0].after_scaling(&twiddle);
        } else {
            let last = mine.len() - 1;
            let scale: Vec<F> = twiddle.iter().map(|w| *w * self.n_inv).collect();
            mine[last] = mine[last].then_scaling(&scale);
        }
        compose_stages(&mine)
    }
}

/// The root ω of order n (its inverse going back) and the coset offset g
/// (its inverse going back) of a four-step plan.
fn split_roots<F: PrimeField + FftField>(spec: &PlanSpec<F>) -> Result<(F, F)> {
    let omega = spec.omega()?;
    let forward = spec.direction == Direction::Forward;
    let g = match (spec.coset, forward) {
        (Some(g), true) => g,
        (Some(g), false) => g.inverse().ok_or(Error::InvalidCosetOffset)?,
        (None, _) => F::one(),
    };
    Ok((omega, g))
}

/// The scalars of the size-C DFT across ciphertexts, `[out][in]`: the chunk
/// index (whose coset power g^(cN) applies) is the input index going forward
/// and the output index going back.
fn across_scalars<F: PrimeField + FftField>(
    omega: F,
    g: F,
    groups: usize,
    slots: usize,
    forward: bool,
) -> Vec<Vec<num_bigint::BigUint>> {
    let omega_c = omega.pow([slots as u64]);
    let g_chunk = g.pow([slots as u64]);
    let to_big = |f: F| -> num_bigint::BigUint { f.into_bigint().into() };
    (0..groups)
        .map(|out| {
            (0..groups)
                .map(|inp| {
                    let chunk = if forward { inp } else { out };
                    to_big(omega_c.pow([(out * inp) as u64]) * g_chunk.pow([chunk as u64]))
                })
                .collect()
        })
        .collect()
}

/// `(a·g)^p` for p in 0..len: the twiddles `ω^(pk) g^p` of group k with a = ω^k.
fn powers_times<F: FftField>(a: F, g: F, len: usize) -> Vec<F> {
    let step = a * g;
    std::iter::successors(Some(F::one()), |x| Some(*x * step))
        .take(len)
        .collect()
}

/// How the four-step plan groups a ciphertext's stages (of shapes
/// `stages`) into `levels` levels: the group made once per ciphertext (the
/// first going forward, the last going back) takes the number of stages
/// that minimizes the diagonals the plan holds, `groups` copies of it plus
/// one of the others (the rest split evenly); with many ciphertexts that is
/// a shorter own group and longer shared ones.
pub(super) fn split_ranges(
    stages: &[Shape],
    levels: usize,
    forward: bool,
    groups: usize,
    row: usize,
) -> Vec<std::ops::Range<usize>> {
    let count = stages.len();
    let levels = levels.clamp(1, count.max(1));
    let arrange = |own: usize| -> Vec<std::ops::Range<usize>> {
        // The own group first (forward) or last (inverse), the others even.
        let rest = group_bounds(count - own, levels - 1);
        if forward {
            std::iter::once(0..own)
                .chain(rest.into_iter().map(|r| r.start + own..r.end + own))
                .collect()
        } else {
            rest.into_iter()
                .chain(std::iter::once(count - own..count))
                .collect()
        }
    };
    if levels == 1 {
        return std::iter::once(0..count).collect();
    }
    let balanced = if forward {
        group_bounds(count, levels)
    } else {
        group_bounds_short_last(count, levels)
    };
    let balanced_own = if forward {
        balanced[0].len()
    } else {
        balanced[levels - 1].len()
    };
    let held = |ranges: &[std::ops::Range<usize>]| -> usize {
        let shapes = group_shapes_in(stages, ranges, row);
        let own = if forward { 0 } else { shapes.len() - 1 };
        shapes
            .iter()
            .enumerate()
            .map(|(i, s)| s.len() * if i == own { groups } else { 1 })
            .sum()
    };
    let mut best = (held(&balanced), balanced);
    // Every other group keeps at least one stage.
    for own in 1..balanced_own.min(count + 1 - levels) {
        let ranges = arrange(own);
        let bytes = held(&ranges);
        if bytes < best.0 {
            best = (bytes, ranges);
        }
    }
    best.1
}
