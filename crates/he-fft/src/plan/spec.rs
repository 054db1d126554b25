//! What an FFT plan computes (size, direction, coset, strategy, orders),
//! declared once: the builder sets it, the plan keeps it, a plan file's
//! header records it and a load compares it whole.

use crate::error::{Error, Result};
use crate::stages::Order;
use ark_ff::{FftField, PrimeField};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};

/// Forward (`fft`) or inverse (`ifft`, including the 1/n factor).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Evaluations at the domain (or coset) points: `y_k = Σ x_i (g ω^k)^i`.
    Forward,
    /// Coefficients from evaluations: the inverse of `Forward`.
    Inverse,
}

/// How the transform is evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// The whole n×n matrix by the diagonal method with baby-step giant-step:
    /// one multiplication level, n diagonals (built and encoded at every
    /// execution rather than stored in the plan, so plans stay small).
    Dense,
    /// The radix-2 stages grouped into `levels` sparse transforms (each one
    /// multiplication level with at most 2^(s+1) - 1 diagonals for s stages).
    /// `None` lets the plan choose from the noise budget of the input level.
    Factored {
        /// Number of multiplication levels (1..=4), or automatic.
        levels: Option<usize>,
    },
}

impl Strategy {
    /// The level counts a factored strategy may name.
    pub(crate) const LEVELS: std::ops::RangeInclusive<usize> = 1..=4;

    /// The level count the strategy fixes (1 for the dense one), or `None`
    /// for an automatic choice.
    ///
    /// # Errors
    /// [`Error::InvalidLevels`] for a factored count outside 1..=4.
    pub(crate) fn checked_levels(self) -> Result<Option<usize>> {
        match self {
            Strategy::Dense => Ok(Some(1)),
            Strategy::Factored { levels: Some(k) } if !Self::LEVELS.contains(&k) => {
                Err(Error::InvalidLevels(k))
            }
            Strategy::Factored { levels } => Ok(levels),
        }
    }
}

/// What an FFT plan asks of its parameters: the choices its depth depends
/// on besides n and the ring ([`plan_depth`](crate::plan_depth)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanOptions {
    /// The strategy; `Factored { levels: None }` takes
    /// [`default_levels`](crate::default_levels).
    pub strategy: Strategy,
    /// Whether the plan has a coset offset (one more level across
    /// ciphertexts when n > N, even for two).
    pub coset: bool,
    /// [`FftPlanBuilder::natural_output`](crate::FftPlanBuilder::natural_output)
    /// (one more level for n ≤ N).
    pub natural_output: bool,
}

impl Default for PlanOptions {
    fn default() -> Self {
        Self {
            strategy: Strategy::Factored { levels: None },
            coset: false,
            natural_output: false,
        }
    }
}

/// The transform an FFT plan computes: its size n over F, direction, coset
/// offset, strategy, input order and whether a factored plan also puts its
/// output in natural order. With the context and the key and level
/// choices, it is what a plan depends on (see the [crate
/// docs](crate#what-a-plan-depends-on)); [`FftPlan::spec`](crate::FftPlan::spec)
/// and [`FftPlanBuilder::spec`](crate::FftPlanBuilder::spec) return it, and
/// a plan file records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanSpec<F: PrimeField + FftField> {
    pub(super) n: usize,
    pub(super) direction: Direction,
    pub(super) coset: Option<F>,
    pub(super) strategy: Strategy,
    pub(super) input_order: Order,
    pub(super) natural_output: bool,
}

impl<F: PrimeField + FftField> PlanSpec<F> {
    /// The builder's defaults for size `n`: forward, no coset, factored with
    /// automatic levels, natural input order.
    pub(super) fn new(n: usize) -> Self {
        Self {
            n,
            direction: Direction::Forward,
            coset: None,
            strategy: Strategy::Factored { levels: None },
            input_order: Order::Natural,
            natural_output: false,
        }
    }

    /// The transform size n.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Forward or inverse.
    pub fn direction(&self) -> Direction {
        self.direction
    }

    /// The coset offset, if any.
    pub fn coset(&self) -> Option<F> {
        self.coset
    }

    /// The strategy as the builder was given it (a factored plan's
    /// automatic level count stays `None` here).
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// The order of the input vector
    /// ([`FftPlanBuilder::input_order`](crate::FftPlanBuilder::input_order)).
    pub fn input_order(&self) -> Order {
        self.input_order
    }

    /// Whether a factored plan also puts its output in natural order
    /// ([`FftPlanBuilder::natural_output`](crate::FftPlanBuilder::natural_output)).
    pub fn natural_output(&self) -> bool {
        self.natural_output
    }

    /// What the plan's depth depends on besides n and the ring: the
    /// options [`plan_depth`](crate::plan_depth) and
    /// [`suggest_plan_parameters`](crate::suggest_plan_parameters) take.
    pub fn options(&self) -> PlanOptions {
        PlanOptions {
            strategy: self.strategy,
            coset: self.coset.is_some(),
            natural_output: self.natural_output,
        }
    }

    /// The root of unity of order n the transform evaluates at (its inverse
    /// going back).
    ///
    /// # Errors
    /// [`Error::InvalidSize`] when F has no root of unity of order n.
    pub(super) fn omega(&self) -> Result<F> {
        let domain = Radix2EvaluationDomain::<F>::new(self.n).ok_or(Error::InvalidSize(self.n))?;
        Ok(match self.direction {
            Direction::Forward => domain.group_gen,
            Direction::Inverse => domain.group_gen_inv,
        })
    }

    /// Refuses a zero coset offset (no coset, and the inverse would divide by it).
    ///
    /// # Errors
    /// [`Error::InvalidCosetOffset`].
    pub(super) fn check_coset(&self) -> Result<()> {
        if self.coset.is_some_and(|g| g.is_zero()) {
            return Err(Error::InvalidCosetOffset);
        }
        Ok(())
    }
}
