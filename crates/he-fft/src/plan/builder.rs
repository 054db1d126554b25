//! The plan builder: its setters, the checks of its settings (what a build
//! and a load both start from) and the build.

use super::geometry::{check_size, AutoLevels, PlanGeometry};
use super::levels::{affordable_levels, encode_all};
use super::scaling::{factored, scalings};
use super::spec::{Direction, PlanSpec, Strategy};
use super::split::split_run;
use super::{DenseRun, FftPlan, FftPlanBuilder, Pipeline};
use crate::error::{Error, Result};
use crate::memory::{release_freed_heap, MemoryEstimate};
use crate::options::{build_option_setters, Preparation};
use crate::parallel::in_pool;
use crate::stages::{bit_reversal, Order};
use ark_ff::{FftField, PrimeField};
use helib_rs::lintrans::{KeyMode, KeyPolicy, SlotTransform};
use helib_rs::BatchEncoder;
use std::ops::Range;

/// A builder's checked settings: what its plan's pipeline, memory estimate,
/// loading and verification are made from.
pub(super) struct Settings<F: PrimeField + FftField> {
    pub(super) encoder: BatchEncoder<F>,
    pub(super) prep: Preparation,
    pub(super) geometry: PlanGeometry,
    /// The root of unity of order n (its inverse going back).
    pub(super) omega: F,
    /// The groups whose own levels the plan holds (all of its ciphertexts
    /// unless [`FftPlanBuilder::only_groups`] chose some).
    pub(super) held: Range<usize>,
}

impl<F: PrimeField + FftField> Settings<F> {
    /// The key policy each level's schedule is chosen under: for n > N
    /// every level runs on each of the n/N ciphertexts at each execution,
    /// and one key serves them all.
    pub(super) fn schedule_policy(&self) -> KeyPolicy {
        self.prep.keys.per_ciphertext(self.geometry.ciphertexts())
    }
}

impl<F: PrimeField + FftField> FftPlanBuilder<F> {
    /// Forward or inverse.
    pub fn direction(mut self, direction: Direction) -> Self {
        self.spec.direction = direction;
        self
    }

    /// The inverse transform (`ifft`).
    pub fn inverse(self) -> Self {
        self.direction(Direction::Inverse)
    }

    /// Evaluate on the coset `offset · ⟨ω⟩` (`coset_fft` / `coset_ifft`).
    pub fn coset(mut self, offset: F) -> Self {
        self.spec.coset = Some(offset);
        self
    }

    /// The evaluation strategy.
    pub fn strategy(mut self, strategy: Strategy) -> Self {
        self.spec.strategy = strategy;
        self
    }

    /// The order of the input vector; the output comes in the other order for
    /// the factored strategy with one ciphertext (Natural in → BitReversed out
    /// and vice versa: both free). The dense strategy always maps natural to
    /// natural (the order is folded into its matrix).
    pub fn input_order(mut self, order: Order) -> Self {
        self.spec.input_order = order;
        self
    }

    /// With the factored strategy and natural input order, also put the output
    /// in natural order, at the price of one more level: a bit-reversal
    /// permutation with up to n diagonals.
    pub fn natural_output(mut self) -> Self {
        self.spec.natural_output = true;
        self
    }

    build_option_setters! {
        /// For n > N, keep each ciphertext's own level (the one absorbing its
        /// twiddles; the others are shared) as plaintexts and encode it at each
        /// execution: the lower-memory mode for the largest sizes. A plaintext
        /// holds N·⌈log2 t / 64⌉ words against N words per prime for an
        /// encoding (about a seventh for BN254 at N = 2^16), and an execution
        /// encodes each ciphertext's level when it runs it (in parallel, one
        /// level per thread alive). No effect for n ≤ N.
    }

    /// For n > N, hold the own level (the one absorbing its twiddles) of the
    /// groups `groups` only, for a process that runs those ciphertexts'
    /// transforms while others run the rest (he-mpi spreads a plan's groups
    /// so): the shared levels are held whole, and the memory estimate counts
    /// only these groups' levels. Such a plan runs
    /// [`FourStep::run_group`](crate::FourStep::run_group) for its groups and
    /// names every Galois key the whole plan needs; one-process execution and
    /// saving refuse it ([`Error::PartialPlan`]). A load keeps these groups'
    /// levels of a whole plan's file.
    pub fn only_groups(mut self, groups: Range<usize>) -> Self {
        self.only_groups = Some(groups);
        self
    }

    /// The ciphertexts one input vector of the plan spans (n/N for n > N, else 1).
    ///
    /// # Errors
    /// As for [`build`](Self::build), before the memory check.
    pub fn ciphertexts(&self) -> Result<usize> {
        Ok(self.settings()?.geometry.ciphertexts())
    }

    /// What the plan computes: size, direction, coset, strategy and orders.
    pub fn spec(&self) -> &PlanSpec<F> {
        &self.spec
    }

    /// The plan's estimated memory, from its shape alone (no diagonal is
    /// computed or encoded): what [`build`](Self::build) compares with the
    /// [`memory_limit`](Self::memory_limit).
    ///
    /// # Errors
    /// As for [`build`](Self::build), except the memory check.
    pub fn memory_estimate(&self) -> Result<MemoryEstimate> {
        let settings = self.settings()?;
        self.estimate(&settings)
    }

    /// Builds the plan: checks the settings, estimates the plan's memory and
    /// refuses it when over the limit, then factors the transform and encodes
    /// its diagonals.
    ///
    /// # Errors
    /// In this order: [`Error::InvalidSize`] for n not a power of two ≥ 2 or
    /// without a root of unity of order n in F; [`Error::InvalidCosetOffset`]
    /// for a zero coset offset; [`Error::InvalidMaxBabySteps`] for
    /// `max_baby_steps(0)`; [`Error::InvalidExecutions`] for `executions(0)`;
    /// [`Error::InvalidLevels`] for a factored level
    /// count outside 1..=4; [`Error::InputLevelOutOfRange`] for an input
    /// level above the context's top; [`Error::Unsupported`] for a layout the
    /// strategy cannot take; [`Error::He`] when t is not F's modulus (or there
    /// is no batching); [`Error::InsufficientBudget`] when the input level
    /// leaves too little noise budget for the plan's depth;
    /// [`Error::Unsupported`] for [`only_groups`](Self::only_groups) on a
    /// plan over one ciphertext, [`Error::InvalidGroups`] for a range that is
    /// empty or past its ciphertexts; [`Error::InsufficientMemory`] when the
    /// estimated peak memory exceeds the limit.
    pub fn build(self) -> Result<FftPlan<F>> {
        let _span = tracing::info_span!("he_fft.plan_build", n = self.spec.n).entered();
        let (settings, memory) = self.checked()?;
        // Field arithmetic and encodings in parallel, with the context's threads.
        let pipeline = in_pool(&self.context, || self.make_pipeline(&settings))?;
        release_freed_heap();
        Ok(self.finish(settings, memory, pipeline))
    }

    /// The checked settings and the memory estimate, refused over the
    /// memory limit: where a build and a load start.
    pub(super) fn checked(&self) -> Result<(Settings<F>, MemoryEstimate)> {
        let settings = self.settings()?;
        let memory = self.estimate(&settings)?;
        self.options.check_memory(memory.peak_bytes())?;
        Ok((settings, memory))
    }

    /// The plan from its checked settings, memory estimate and pipeline.
    pub(super) fn finish(
        &self,
        settings: Settings<F>,
        memory: MemoryEstimate,
        pipeline: Pipeline<F>,
    ) -> FftPlan<F> {
        FftPlan {
            context: self.context.clone(),
            encoder: settings.encoder,
            spec: self.spec,
            prep: settings.prep,
            geometry: settings.geometry,
            pipeline,
            memory,
        }
    }

    /// Checks every setting (in the order [`build`](Self::build) documents)
    /// and derives what the plan's shape depends on.
    pub(super) fn settings(&self) -> Result<Settings<F>> {
        let spec = &self.spec;
        check_size::<F>(spec.n)?;
        let omega = spec.omega()?;
        spec.check_coset()?;
        self.options.check_keys()?;
        spec.strategy.checked_levels()?;
        let prep = self.options.preparation(&self.context)?;
        let affordable = affordable_levels(&self.context, prep.level);
        let geometry = PlanGeometry::new::<F>(
            spec.n,
            self.context.ring_degree(),
            spec.options(),
            spec.input_order,
            AutoLevels::Budget(affordable),
        )?;
        // Refuses a t other than F's modulus (or without batching).
        let encoder = BatchEncoder::<F>::new(&self.context)?;
        if geometry.depth() > affordable {
            return Err(Error::InsufficientBudget {
                needed: geometry.depth(),
                available: affordable,
            });
        }
        let ciphertexts = geometry.ciphertexts();
        let held = match self.only_groups.clone() {
            None => 0..ciphertexts,
            Some(_) if !geometry.split() => {
                return Err(Error::Unsupported(
                    "only_groups needs a plan over several ciphertexts (n > N)",
                ))
            }
            Some(groups) if groups.is_empty() || groups.end > ciphertexts => {
                return Err(Error::InvalidGroups {
                    start: groups.start,
                    end: groups.end,
                    ciphertexts,
                })
            }
            Some(groups) => groups,
        };
        Ok(Settings {
            encoder,
            prep,
            geometry,
            omega,
            held,
        })
    }

    /// The input and output scalings of a plan with n ≤ N (coset, 1/n and the
    /// orders the transform sees).
    fn one_ciphertext_scalings(&self, settings: &Settings<F>) -> Result<(Vec<F>, Vec<F>)> {
        let spec = &self.spec;
        // The order the scalings see: the transform's own output, before
        // any bit-reversal permutation.
        let scaled_order = match (spec.strategy, spec.input_order) {
            (Strategy::Dense, _) | (_, Order::BitReversed) => Order::Natural,
            (_, Order::Natural) => Order::BitReversed,
        };
        scalings(
            settings.geometry.packing(),
            spec.direction,
            spec.coset,
            spec.input_order,
            scaled_order,
            spec.n,
        )
    }

    /// The dense strategy's run: its matrix is made at each execution.
    pub(super) fn dense_run(&self, settings: &Settings<F>) -> Result<DenseRun<F>> {
        let (scale_in, scale_out) = self.one_ciphertext_scalings(settings)?;
        Ok(DenseRun {
            packing: settings.geometry.packing(),
            omega: settings.omega,
            scale_in,
            scale_out,
            input_bit_reversed: self.spec.input_order == Order::BitReversed,
        })
    }

    /// Factors the transform and encodes its diagonals.
    fn make_pipeline(&self, settings: &Settings<F>) -> Result<Pipeline<F>> {
        let geometry = &settings.geometry;
        Ok(if geometry.split() {
            Pipeline::Split(split_run(
                &settings.encoder,
                &self.spec,
                geometry,
                settings.held.clone(),
                settings.schedule_policy(),
                settings.prep,
            )?)
        } else if geometry.dense() {
            Pipeline::Dense(self.dense_run(settings)?)
        } else {
            Pipeline::Levels(encode_all(
                &self.level_transforms(settings)?,
                settings.schedule_policy(),
                &settings.encoder,
                settings.prep.level,
            )?)
        })
    }

    /// The slot transforms of a factored plan with n ≤ N, in order: what
    /// [`build`](Self::build) encodes and what a loaded plan is verified
    /// against.
    pub(super) fn level_transforms(&self, settings: &Settings<F>) -> Result<Vec<SlotTransform<F>>> {
        let packing = settings.geometry.packing();
        let (scale_in, scale_out) = self.one_ciphertext_scalings(settings)?;
        let mut transforms = factored(
            packing,
            settings.omega,
            self.spec.input_order,
            settings.geometry.levels(),
            &scale_in,
            &scale_out,
        );
        if settings.geometry.permute() {
            transforms.push(bit_reversal(packing));
        }
        Ok(transforms)
    }
}
