//! A plan's shape before anything is computed: which diagonals each level
//! will have, at which level of the chain, and so its memory estimate.

use super::builder::Settings;
use super::levels::level_after;
use super::spec::Direction;
use super::split::split_ranges;
use super::FftPlanBuilder;
use crate::error::Result;
use crate::memory::{LevelShape, MemoryEstimate, PlanShape};
use crate::stages::{
    bit_reversal_shape, dense_shape, group_bounds, group_periods, group_shapes_in, radix2_shapes,
    Order, Shape,
};
use ark_ff::{FftField, PrimeField};

impl<F: PrimeField + FftField> FftPlanBuilder<F> {
    /// The memory estimate for checked settings.
    pub(super) fn estimate(&self, settings: &Settings<F>) -> Result<MemoryEstimate> {
        crate::memory::estimate(
            &self.shape(settings),
            &self.context,
            settings.schedule_policy(),
            settings.prep.level,
            std::mem::size_of::<F>(),
        )
    }

    /// What the plan will encode and run, without any values: mirrors
    /// `build`'s choices (a unit test checks they agree).
    pub(super) fn shape(&self, settings: &Settings<F>) -> PlanShape {
        let geometry = &settings.geometry;
        let row = geometry.row();
        let spec = &self.spec;
        // `first`: the index on the chain of the first level (one more when
        // products across ciphertexts come before it); `periods`: those of
        // the levels' diagonals.
        let at_levels =
            |shapes: Vec<Shape>, periods: Vec<usize>, first: usize| -> Vec<LevelShape> {
                shapes
                    .into_iter()
                    .zip(periods)
                    .enumerate()
                    .map(|(i, (shape, period))| LevelShape {
                        shape,
                        level: level_after(&self.context, settings.prep.level, first + i),
                        copies: 1,
                        plain: false,
                        period,
                    })
                    .collect()
            };
        // Stage diagonals, grouped ones and the largest group's intermediate
        // product, all alive while the stages are grouped, plus the scalings.
        let field_diagonals = |stages: &[Shape], grouped: &[LevelShape]| {
            stages.iter().map(|s| s.len()).sum::<usize>()
                + grouped.iter().map(|l| l.shape.len()).sum::<usize>()
                + grouped.iter().map(|l| l.shape.len()).max().unwrap_or(0)
                + 2
        };
        let packing = geometry.packing();
        if geometry.dense() {
            // Any diagonal of a packed vector repeats with the packing's period n.
            let levels = at_levels(vec![dense_shape(packing)], vec![packing.len()], 0);
            // The dense diagonals, one being summed in, and the scalings.
            let field_diagonals = levels[0].shape.len() + 3;
            return PlanShape {
                levels,
                ciphertexts: 1,
                per_execution: true,
                field_diagonals,
            };
        }
        if !geometry.split() {
            let stages = radix2_shapes(packing, spec.input_order);
            let ranges = group_bounds(stages.len(), geometry.levels());
            let mut grouped = group_shapes_in(&stages, &ranges, row);
            let mut periods = group_periods(packing, spec.input_order, &ranges);
            // Coset powers on the input (forward) or output (inverse), and
            // the bit-reversal permutation, repeat only with the packing's
            // period n.
            if spec.coset.is_some() {
                let scaled = match spec.direction {
                    Direction::Forward => 0,
                    Direction::Inverse => periods.len() - 1,
                };
                periods[scaled] = packing.len();
            }
            if geometry.permute() {
                grouped.push(bit_reversal_shape(packing));
                periods.push(packing.len());
            }
            let levels = at_levels(grouped, periods, 0);
            let field_diagonals = field_diagonals(&stages, &levels);
            return PlanShape {
                levels,
                ciphertexts: 1,
                per_execution: false,
                field_diagonals,
            };
        }
        let forward = spec.direction == Direction::Forward;
        let order = if forward {
            Order::Natural
        } else {
            Order::BitReversed
        };
        let groups = geometry.ciphertexts();
        let stages = radix2_shapes(packing, order);
        let ranges = split_ranges(&stages, geometry.levels(), forward, groups, row);
        let periods = group_periods(packing, order, &ranges);
        let first = geometry.first_level(spec.direction);
        let mut levels = at_levels(group_shapes_in(&stages, &ranges, row), periods, first);
        // The twiddle-absorbing level is encoded once per ciphertext, and
        // its twiddles make its diagonals not repeat.
        let own = if forward { 0 } else { levels.len() - 1 };
        levels[own].copies = settings.held.len();
        levels[own].plain = settings.prep.per_execution;
        levels[own].period = 2 * row;
        let field_diagonals = field_diagonals(&stages, &levels);
        PlanShape {
            levels,
            ciphertexts: groups,
            per_execution: false,
            field_diagonals,
        }
    }
}
