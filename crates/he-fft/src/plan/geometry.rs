//! A plan's geometry: how a size-n transform sits in a ring of degree N
//! (one ciphertext or several, the packing, the radix-2 stages of each
//! ciphertext) and the levels it takes, decided once from sizes and
//! options for the builder, the pipeline, the memory estimate, the file
//! loader, [`plan_depth`](crate::plan_depth) and the parameter suggestion.

use super::spec::{Direction, PlanOptions, Strategy};
use crate::error::{Error, Result};
use crate::layout::Packing;
use crate::stages::Order;
use ark_ff::FftField;

/// The factored levels a plan takes by default for a transform of
/// `stages` radix-2 stages per ciphertext: about five stages per level (at
/// most 63 diagonals each), at most three levels.
pub fn default_levels(stages: usize) -> usize {
    stages.div_ceil(5).clamp(1, 3)
}

/// How the per-ciphertext level count is chosen when the strategy leaves
/// it automatic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AutoLevels {
    /// [`default_levels`]: what parameters are suggested for.
    Default,
    /// As many as the budget affords, given here as the levels the input
    /// level affords in all: those less the levels beyond the
    /// per-ciphertext transforms, within 1..=4 (what a builder chooses).
    Budget(usize),
}

/// Refuses sizes no plan over F has.
///
/// # Errors
/// [`Error::InvalidSize`] for n not a power of two ≥ 2, or beyond F's
/// roots of unity of power-of-two order.
pub(crate) fn check_size<F: FftField>(n: usize) -> Result<()> {
    if n < 2 || !n.is_power_of_two() || n.trailing_zeros() > F::TWO_ADICITY {
        return Err(Error::InvalidSize(n));
    }
    Ok(())
}

/// The geometry of a size-n plan in a ring of degree N, its level count
/// resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PlanGeometry {
    n: usize,
    ring_degree: usize,
    input_order: Order,
    dense: bool,
    /// Levels of each ciphertext's transform (1 for the dense strategy).
    levels: usize,
    /// Whether the products across ciphertexts take a level.
    across: bool,
    /// Whether a bit-reversal permutation follows, as one more level.
    permute: bool,
}

impl PlanGeometry {
    /// The geometry of a size-`n` plan with `options` and input in
    /// `input_order`, in a ring of degree `ring_degree`, from sizes alone.
    ///
    /// # Errors
    /// In this order: [`Error::InvalidSize`] as [`check_size`];
    /// [`Error::Unsupported`] for a ring degree not a power of two;
    /// [`Error::InvalidLevels`] for a factored count outside 1..=4;
    /// [`Error::Unsupported`] for n > N with bit-reversed input or the
    /// dense strategy.
    pub(crate) fn new<F: FftField>(
        n: usize,
        ring_degree: usize,
        options: PlanOptions,
        input_order: Order,
        auto: AutoLevels,
    ) -> Result<Self> {
        check_size::<F>(n)?;
        if !ring_degree.is_power_of_two() || ring_degree < 2 {
            return Err(Error::Unsupported("the ring degree must be a power of two"));
        }
        let wanted = options.strategy.checked_levels()?;
        let split = n > ring_degree;
        if split && input_order != Order::Natural {
            return Err(Error::Unsupported(
                "for n > N the input layout is fixed: natural chunks forward, the forward output layout inverse",
            ));
        }
        let dense = options.strategy == Strategy::Dense;
        if split && dense {
            return Err(Error::Unsupported(
                "the dense strategy handles n ≤ N; use the factored strategy for n > N",
            ));
        }
        let across = split && across_takes_level(n / ring_degree, options.coset);
        let permute = options.natural_output && input_order == Order::Natural && !split && !dense;
        // A ciphertext's transform has log2(min(n, N)) stages, so no more levels.
        let stages = n.min(ring_degree).trailing_zeros() as usize;
        let extra = usize::from(across) + usize::from(permute);
        let levels = match (wanted, auto) {
            (Some(k), _) => k,
            (None, AutoLevels::Default) => default_levels(stages),
            (None, AutoLevels::Budget(affordable)) => affordable
                .saturating_sub(extra)
                .clamp(*Strategy::LEVELS.start(), *Strategy::LEVELS.end()),
        };
        Ok(Self {
            n,
            ring_degree,
            input_order,
            dense,
            levels: levels.min(stages),
            across,
            permute,
        })
    }

    /// Multiplication levels the plan consumes.
    pub(crate) fn depth(&self) -> usize {
        self.levels + usize::from(self.across) + usize::from(self.permute)
    }

    /// The strategy with its level count explicit.
    pub(crate) fn strategy(&self) -> Strategy {
        if self.dense {
            Strategy::Dense
        } else {
            Strategy::Factored {
                levels: Some(self.levels),
            }
        }
    }

    /// Whether the vector spans several ciphertexts (n > N): a four-step plan.
    pub(crate) fn split(&self) -> bool {
        self.n > self.ring_degree
    }

    /// Whether the plan is the dense matrix.
    pub(crate) fn dense(&self) -> bool {
        self.dense
    }

    /// Number of ciphertexts holding one vector (C = n/N for a four-step
    /// plan, 1 otherwise).
    pub(crate) fn ciphertexts(&self) -> usize {
        (self.n / self.ring_degree).max(1)
    }

    /// Levels of each ciphertext's transform, in the
    /// [`stages`](Self::stages) of a ciphertext's size-min(n, N) FFT.
    pub(crate) fn levels(&self) -> usize {
        self.levels
    }

    /// Whether a bit-reversal permutation puts the output in natural order.
    pub(crate) fn permute(&self) -> bool {
        self.permute
    }

    /// Slots per row, N/2.
    pub(crate) fn row(&self) -> usize {
        self.ring_degree / 2
    }

    /// How one ciphertext holds its part of the vector: `Row` or `Full` for
    /// n ≤ N, `Full` for each of a four-step plan's ciphertexts.
    pub(crate) fn packing(&self) -> Packing {
        let row = self.row();
        Packing::for_length(self.n, row).unwrap_or(Packing::Full { row })
    }

    /// The index on the chain (as [`level_after`](super::level_after)
    /// counts) of each ciphertext's first level: one further down going
    /// forward when the products across ciphertexts come first and take a
    /// level.
    pub(crate) fn first_level(&self, direction: Direction) -> usize {
        usize::from(direction == Direction::Forward && self.across)
    }

    /// The order [`FftPlan::decrypt`](crate::FftPlan::decrypt) returns:
    /// bit-reversed only for a factored plan over one ciphertext with
    /// natural input and no permutation.
    pub(crate) fn output_order(&self) -> Order {
        if self.split() || self.dense || self.permute || self.input_order == Order::BitReversed {
            Order::Natural
        } else {
            Order::BitReversed
        }
    }
}

/// Whether the products across the `groups` ciphertexts of a four-step
/// plan take a multiplication level: they do unless every scalar is ±1,
/// i.e. two ciphertexts without a coset offset (additions and subtractions).
/// Going forward they come first, so every later level is encoded (and
/// runs) at [`level_after`](super::level_after) one more level: the chain
/// charged them a whole level, so the modulus they were charged may be
/// dropped like any other level's (a modulus switch keeps the budget while
/// the noise is above its floor, and the chain paid for the level when it
/// is not).
fn across_takes_level(groups: usize, coset: bool) -> bool {
    groups > 2 || (groups > 1 && coset)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::Fr;
    use proptest::prelude::{any, prop_assert, prop_assert_eq, prop_oneof, proptest, Just};
    use proptest::strategy::Strategy as _;

    fn strategies() -> impl proptest::strategy::Strategy<Value = Strategy> {
        prop_oneof![
            Just(Strategy::Dense),
            proptest::option::of(1..=4usize).prop_map(|levels| Strategy::Factored { levels }),
        ]
    }

    fn options() -> impl proptest::strategy::Strategy<Value = PlanOptions> {
        (strategies(), any::<bool>(), any::<bool>()).prop_map(
            |(strategy, coset, natural_output)| PlanOptions {
                strategy,
                coset,
                natural_output,
            },
        )
    }

    fn order(bit_reversed: bool) -> Order {
        if bit_reversed {
            Order::BitReversed
        } else {
            Order::Natural
        }
    }

    proptest! {
        /// The levels are the per-ciphertext ones plus one across
        /// ciphertexts and one for the permutation, each where the crate
        /// docs say; the explicit strategy gives the same geometry back;
        /// an automatic count stays within the budget it was given.
        #[test]
        fn the_geometry_adds_up(
            log_n in 1..=22u32,
            log_ring in 10..=17u32,
            options in options(),
            bit_reversed in any::<bool>(),
            budget in 0..12usize,
        ) {
            let (n, ring) = (1usize << log_n, 1usize << log_ring);
            let input_order = order(bit_reversed);
            let split = n > ring;
            let dense = options.strategy == Strategy::Dense;
            for auto in [AutoLevels::Default, AutoLevels::Budget(budget)] {
                let made = PlanGeometry::new::<Fr>(n, ring, options, input_order, auto);
                if split && (dense || bit_reversed) {
                    prop_assert!(matches!(made, Err(Error::Unsupported(_))));
                    continue;
                }
                let g = made.expect("a supported plan");
                let stages = log_n.min(log_ring) as usize;
                prop_assert_eq!(g.split(), split);
                prop_assert_eq!(g.ciphertexts() * n.min(ring), n);
                prop_assert!((1..=stages.min(4)).contains(&g.levels()));
                let groups = n / ring;
                let across = split && (groups > 2 || options.coset);
                let permute = options.natural_output && !split && !dense && !bit_reversed;
                prop_assert_eq!(g.permute(), permute);
                prop_assert_eq!(
                    g.depth(),
                    g.levels() + usize::from(across) + usize::from(permute)
                );
                if dense {
                    prop_assert_eq!(g.depth(), 1);
                }
                prop_assert_eq!(g.packing().len(), n.min(ring));
                let forward_first = g.first_level(Direction::Forward);
                prop_assert_eq!(forward_first, usize::from(across));
                prop_assert_eq!(g.first_level(Direction::Inverse), 0);
                let natural_out = split || dense || permute || bit_reversed;
                prop_assert_eq!(g.output_order() == Order::Natural, natural_out);
                let explicit = PlanOptions { strategy: g.strategy(), ..options };
                prop_assert_eq!(
                    PlanGeometry::new::<Fr>(n, ring, explicit, input_order, auto).ok(),
                    Some(g)
                );
                if let (Strategy::Factored { levels: None }, AutoLevels::Budget(b)) =
                    (options.strategy, auto)
                {
                    let extra = g.depth() - g.levels();
                    if b > extra {
                        prop_assert!(g.depth() <= b);
                    }
                }
            }
        }
    }

    /// Bad sizes and options, in the documented order.
    #[test]
    fn bad_sizes_and_options_are_refused_in_order() {
        let default = PlanOptions::default();
        let new = |n, ring, options, order| {
            PlanGeometry::new::<Fr>(n, ring, options, order, AutoLevels::Default)
        };
        for n in [0, 1, 3, 12, 1 << 29] {
            let five = PlanOptions {
                strategy: Strategy::Factored { levels: Some(5) },
                ..default
            };
            assert!(matches!(
                new(n, 3, five, Order::BitReversed),
                Err(Error::InvalidSize(m)) if m == n
            ));
        }
        let five = PlanOptions {
            strategy: Strategy::Factored { levels: Some(5) },
            ..default
        };
        assert!(matches!(
            new(1 << 12, 3, five, Order::Natural),
            Err(Error::Unsupported(_))
        ));
        assert!(matches!(
            new(1 << 12, 1 << 10, five, Order::BitReversed),
            Err(Error::InvalidLevels(5))
        ));
        let dense = PlanOptions {
            strategy: Strategy::Dense,
            ..default
        };
        assert!(matches!(
            new(1 << 11, 1 << 10, dense, Order::Natural),
            Err(Error::Unsupported(_))
        ));
        assert!(new(1 << 10, 1 << 10, dense, Order::BitReversed).is_ok());
    }

    #[test]
    fn default_levels_take_about_five_stages_each() {
        let levels: Vec<usize> = [1, 5, 6, 10, 11, 15, 16, 28]
            .into_iter()
            .map(default_levels)
            .collect();
        assert_eq!(levels, [1, 1, 2, 2, 3, 3, 3, 3]);
    }
}
