//! Grouping the stages into multiplication levels: diagonal estimates and
//! the grouping that minimizes them.

use super::*;

impl<F: PrimeField + FftField> Geometry<F> {
    /// The number of stages of the factored map.
    pub(crate) fn stage_count(&self) -> usize {
        self.forward_stages().0.len()
    }

    /// An estimate of the diagonals of the level made of stages `range`
    /// (stage indices in the slots-to-coefficients order).
    pub(super) fn estimated_diagonals(
        &self,
        stages: &[Stage],
        reps: &[u64],
        range: std::ops::Range<usize>,
        conversion: Conversion,
    ) -> usize {
        let forward = conversion == Conversion::SlotsToCoefficients;
        let mut read = 0u64;
        for s in &stages[range.clone()] {
            let bits = match (s.op, forward) {
                (Op::Swap, _) => (1u64 << s.read) | (1u64 << s.write),
                (_, true) => 1u64 << s.read,
                (_, false) => 1u64 << s.write,
            };
            read |= bits;
        }
        let input = if forward {
            reps[range.start]
        } else {
            reps[range.end]
        };
        let read = read & !input & self.column_mask();
        let periodic = forward && range.start == 0;
        let mut count = 1usize;
        let mut b = 0;
        while b < self.bits {
            if read & (1u64 << b) == 0 {
                b += 1;
                continue;
            }
            let start = b;
            while b < self.bits && read & (1u64 << b) != 0 {
                b += 1;
            }
            let len = (b - start) as usize;
            let run = if periodic && b == self.log_n {
                1usize << len
            } else {
                (1usize << (len + 1)) - 1
            };
            count = count.saturating_mul(run);
        }
        let cap = if periodic { self.n } else { self.slots };
        count.min(cap)
    }

    /// Splits the stages into `levels` consecutive groups minimizing the
    /// estimated cost (2√D rotations and D/16 for the products of a level
    /// with D diagonals). Returns the group boundaries and each group's
    /// estimated diagonals.
    pub(super) fn grouping(
        &self,
        levels: usize,
        conversion: Conversion,
    ) -> (Vec<std::ops::Range<usize>>, Vec<usize>) {
        let (stages, reps) = self.forward_stages();
        let k = stages.len();
        let levels = levels.clamp(1, k);
        let cost = |d: usize| 2.0 * (d as f64).sqrt() + d as f64 / 16.0;
        // best[g][j]: first j stages in g groups.
        let mut best = vec![vec![(f64::INFINITY, 0usize); k + 1]; levels + 1];
        best[0][0] = (0.0, 0);
        for g in 1..=levels {
            for j in g..=k {
                for i in (g - 1)..j {
                    let prior = best[g - 1][i].0;
                    if prior.is_infinite() {
                        continue;
                    }
                    let c =
                        prior + cost(self.estimated_diagonals(&stages, &reps, i..j, conversion));
                    if c < best[g][j].0 {
                        best[g][j] = (c, i);
                    }
                }
            }
        }
        let mut bounds = Vec::with_capacity(levels);
        let mut j = k;
        for g in (1..=levels).rev() {
            let i = best[g][j].1;
            bounds.push(i..j);
            j = i;
        }
        bounds.reverse();
        let estimates = bounds
            .iter()
            .map(|r| self.estimated_diagonals(&stages, &reps, r.clone(), conversion))
            .collect();
        (bounds, estimates)
    }

    /// The fewest levels a conversion can take: one (the dense map) where
    /// [`dense_supported`](Self::dense_supported), two otherwise.
    pub(crate) fn fewest_levels(&self, conversion: Conversion) -> usize {
        if self.dense_supported(conversion) {
            1
        } else {
            2
        }
    }

    /// The automatic level count: the fewest levels, up to `at_most` (and
    /// the stage count), whose estimated diagonals stay at most
    /// [`AUTOMATIC_DIAGONALS`] per level; `at_most` when none does, and
    /// [`fewest_levels`](Self::fewest_levels) when `at_most` is fewer.
    pub(crate) fn automatic_levels(&self, conversion: Conversion, at_most: usize) -> usize {
        let lowest = self.fewest_levels(conversion);
        let top = at_most.min(self.stage_count());
        if top < lowest {
            return lowest;
        }
        (lowest..=top)
            .find(|&k| {
                self.estimate(k, conversion)
                    .iter()
                    .all(|&d| d <= AUTOMATIC_DIAGONALS)
            })
            .unwrap_or(top)
    }

    /// The estimated diagonals per level of a `levels`-level plan (exact for one level).
    pub(crate) fn estimate(&self, levels: usize, conversion: Conversion) -> Vec<usize> {
        if levels == 1 {
            return vec![self.n];
        }
        self.grouping(levels, conversion).1
    }

    /// The conversion as `levels` slot transforms, applied in order.
    pub(crate) fn levels(&self, levels: usize, conversion: Conversion) -> Vec<SlotTransform<F>> {
        if levels == 1 {
            return vec![match conversion {
                Conversion::SlotsToCoefficients => self.dense_to_coefficients(),
                Conversion::CoefficientsToSlots => self.dense_to_slots(),
            }];
        }
        let (stages, reps) = self.forward_stages();
        let (bounds, _) = self.grouping(levels, conversion);
        match conversion {
            Conversion::SlotsToCoefficients => bounds
                .iter()
                .map(|range| {
                    let canon = if range.start == 0 {
                        Canon::Periodic(self.n)
                    } else {
                        Canon::Bits(reps[range.start])
                    };
                    let materialized: Vec<_> = stages[range.clone()]
                        .iter()
                        .map(|s| self.materialize(s, false))
                        .collect();
                    self.compose(&materialized, canon)
                })
                .collect(),
            Conversion::CoefficientsToSlots => bounds
                .iter()
                .rev()
                .map(|range| {
                    let materialized: Vec<_> = stages[range.clone()]
                        .iter()
                        .rev()
                        .map(|s| self.materialize(s, true))
                        .collect();
                    self.compose(&materialized, Canon::Bits(reps[range.end]))
                })
                .collect(),
        }
    }
}
