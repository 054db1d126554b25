//! The plan builder: checks the settings, sizes the plan and builds it.

use super::*;

impl<F: PrimeField + FftField> FftPlanBuilder<F> {
    /// Forward or inverse.
    pub fn direction(mut self, direction: Direction) -> Self {
        self.direction = direction;
        self
    }

    /// The inverse transform (`ifft`).
    pub fn inverse(self) -> Self {
        self.direction(Direction::Inverse)
    }

    /// Evaluate on the coset `offset · ⟨ω⟩` (`coset_fft` / `coset_ifft`).
    pub fn coset(mut self, offset: F) -> Self {
        self.coset = Some(offset);
        self
    }

    /// The evaluation strategy.
    pub fn strategy(mut self, strategy: Strategy) -> Self {
        self.strategy = strategy;
        self
    }

    /// The order of the input vector; the output comes in the other order for
    /// the factored strategy with one ciphertext (Natural in → BitReversed out
    /// and vice versa: both free). The dense strategy always maps natural to
    /// natural (the order is folded into its matrix).
    pub fn input_order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }

    /// With the factored strategy and natural input order, also put the output
    /// in natural order, at the price of one more level: a bit-reversal
    /// permutation with up to n diagonals.
    pub fn natural_output(mut self) -> Self {
        self.natural_output = true;
        self
    }

    /// Galois-key memory mode.
    pub fn key_mode(mut self, mode: KeyMode) -> Self {
        self.keys.mode = mode;
        self
    }

    /// At most `max` baby steps per level (at least 1; `build` refuses 0):
    /// fewer Galois keys and more giant steps. The default leaves the choice
    /// to the cost model, which in [`KeyMode::Fast`] favours many (cheap,
    /// double-hoisted) baby steps and so many keys.
    pub fn max_baby_steps(mut self, max: usize) -> Self {
        self.keys.max_baby_steps = max;
        self
    }

    /// How many times the plan is expected to run with one set of Galois
    /// keys (at least 1; `build` refuses 0): each level's baby count then
    /// minimizes its rotation cost per run plus the generation of its keys
    /// divided by this count ([`KeyPolicy::executions`]). One run favours
    /// fewer baby steps (fewer keys, more key switches); a server running
    /// the plan many times with keys made once should pass a large count.
    /// The default, [`KeyPolicy::UNBOUNDED`], leaves key generation out
    /// (the rotation cost alone). A [`max_baby_steps`](Self::max_baby_steps)
    /// cap still applies; [`KeyMode::MinimalKeys`] plans ignore the count.
    pub fn executions(mut self, executions: u64) -> Self {
        self.keys.executions = executions;
        self
    }

    /// Refuse at [`build`](Self::build) a plan whose estimated peak memory
    /// ([`memory_estimate`](Self::memory_estimate)) exceeds `bytes`. The
    /// default limit is the memory the system reports available
    /// ([`available_memory_bytes`](crate::available_memory_bytes)), and no
    /// limit where it does not say; `usize::MAX` disables the check.
    pub fn memory_limit(mut self, bytes: usize) -> Self {
        self.memory_limit = Some(bytes);
        self
    }

    /// For n > N, keep each ciphertext's own level (the one absorbing its
    /// twiddles; the others are shared) as plaintexts and encode it at each
    /// execution: the lower-memory mode for the largest sizes. A plaintext
    /// holds N·⌈log2 t / 64⌉ words against N words per prime for an
    /// encoding (about a seventh for BN254 at N = 2^16), and an execution
    /// encodes each ciphertext's level when it runs it (in parallel, one
    /// level per thread alive). No effect for n ≤ N.
    pub fn encode_per_execution(mut self) -> Self {
        self.per_execution = true;
        self
    }

    /// The level of input ciphertexts (default: the top level).
    pub fn input_level(mut self, level: usize) -> Self {
        self.level = Some(level);
        self
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
    /// [`Error::InsufficientMemory`] when the estimated peak memory exceeds
    /// the limit.
    pub fn build(self) -> Result<FftPlan<F>> {
        let _span = tracing::info_span!("he_fft.plan_build", n = self.n).entered();
        let settings = self.settings()?;
        let memory = self.estimate(&settings)?;
        if let Some(limit) = self.memory_limit.or_else(available_memory_bytes) {
            if memory.peak_bytes() > limit {
                return Err(Error::InsufficientMemory {
                    estimated: memory.peak_bytes(),
                    limit,
                });
            }
        }
        // Field arithmetic and encodings in parallel, with the context's threads.
        let pipeline = in_pool(&self.context, || self.make_pipeline(&settings))?;
        release_freed_heap();
        Ok(self.finish(settings, memory, pipeline))
    }

    /// The plan from its checked settings, memory estimate and pipeline.
    pub(super) fn finish(
        self,
        settings: Settings<F>,
        memory: MemoryEstimate,
        pipeline: Pipeline<F>,
    ) -> FftPlan<F> {
        FftPlan {
            context: self.context,
            encoder: settings.encoder,
            n: self.n,
            direction: self.direction,
            coset: self.coset,
            strategy: self.strategy,
            order: self.order,
            output_order: settings.output_order,
            keys: self.keys,
            level: settings.level,
            natural_output: self.natural_output,
            per_execution: self.per_execution,
            pipeline,
            memory,
        }
    }

    /// The packing of one ciphertext's slots for n ≤ N.
    pub(super) fn packing(&self) -> Result<Packing> {
        Packing::for_length(self.n, self.context.ring_degree() / 2)
            .ok_or(Error::InvalidSize(self.n))
    }

    /// The input and output scalings of a plan with n ≤ N (coset, 1/n and the
    /// orders the transform sees).
    fn one_ciphertext_scalings(&self, packing: Packing) -> Result<(Vec<F>, Vec<F>)> {
        // The order the scalings see: the transform's own output, before
        // any bit-reversal permutation.
        let scaled_order = match (self.strategy, self.order) {
            (Strategy::Dense, _) | (_, Order::BitReversed) => Order::Natural,
            (_, Order::Natural) => Order::BitReversed,
        };
        scalings(
            packing,
            self.direction,
            self.coset,
            self.order,
            scaled_order,
            self.n,
        )
    }

    /// The dense strategy's run: its matrix is made at each execution.
    pub(super) fn dense_run(&self, settings: &Settings<F>) -> Result<DenseRun<F>> {
        let packing = self.packing()?;
        let (scale_in, scale_out) = self.one_ciphertext_scalings(packing)?;
        Ok(DenseRun {
            packing,
            omega: settings.omega,
            scale_in,
            scale_out,
            input_bit_reversed: self.order == Order::BitReversed,
        })
    }

    /// Factors the transform and encodes its diagonals.
    fn make_pipeline(&self, settings: &Settings<F>) -> Result<Pipeline<F>> {
        let n = self.n;
        let slots = self.context.ring_degree();
        Ok(if n <= slots {
            if self.strategy == Strategy::Dense {
                return Ok(Pipeline::Dense(self.dense_run(settings)?));
            }
            let transforms = self.level_transforms(settings)?;
            Pipeline::Levels(encode_all(
                &transforms,
                self.schedule_policy(),
                &settings.encoder,
                settings.level,
            )?)
        } else {
            Pipeline::Split(split_run(
                &self.context,
                &settings.encoder,
                n,
                self.direction,
                self.coset,
                self.schedule_policy(),
                settings.chosen,
                settings.level,
                self.strategy,
                self.per_execution,
            )?)
        })
    }

    /// The slot transforms of a factored plan with n ≤ N, in order: what
    /// [`build`](Self::build) encodes and what a loaded plan is verified
    /// against.
    pub(super) fn level_transforms(&self, settings: &Settings<F>) -> Result<Vec<SlotTransform<F>>> {
        let packing = self.packing()?;
        let (scale_in, scale_out) = self.one_ciphertext_scalings(packing)?;
        let mut transforms = factored(
            packing,
            settings.omega,
            self.order,
            settings.chosen,
            &scale_in,
            &scale_out,
        );
        if settings.permute {
            transforms.push(bit_reversal(packing));
        }
        Ok(transforms)
    }

    /// Checks every setting (in the order [`build`](Self::build) documents)
    /// and derives what the plan's shape depends on.
    pub(super) fn settings(&self) -> Result<Settings<F>> {
        let n = self.n;
        if n < 2 || !n.is_power_of_two() {
            return Err(Error::InvalidSize(n));
        }
        let domain = Radix2EvaluationDomain::<F>::new(n).ok_or(Error::InvalidSize(n))?;
        if self.coset.is_some_and(|g| g.is_zero()) {
            return Err(Error::InvalidCosetOffset);
        }
        if self.keys.max_baby_steps == 0 {
            return Err(Error::InvalidMaxBabySteps(0));
        }
        if self.keys.executions == 0 {
            return Err(Error::InvalidExecutions(0));
        }
        let levels_wanted = match self.strategy {
            Strategy::Factored { levels: Some(k) } if !(1..=4).contains(&k) => {
                return Err(Error::InvalidLevels(k))
            }
            Strategy::Factored { levels: Some(k) } => Some(k),
            Strategy::Factored { levels: None } => None,
            Strategy::Dense => Some(1),
        };
        let max = self.context.max_level();
        let level = self.level.unwrap_or(max);
        if level > max {
            return Err(Error::InputLevelOutOfRange { level, max });
        }
        let slots = self.context.ring_degree();
        if n > slots && self.order != Order::Natural {
            return Err(Error::Unsupported(
                "for n > N the input layout is fixed: natural chunks forward, the forward output layout inverse",
            ));
        }
        if n > slots && self.strategy == Strategy::Dense {
            return Err(Error::Unsupported(
                "the dense strategy handles n ≤ N; use the factored strategy for n > N",
            ));
        }
        // Refuses a t other than F's modulus (or without batching).
        let encoder = BatchEncoder::<F>::new(&self.context)?;
        let budget_levels = affordable_levels(&self.context, level);
        let output_order = if n > slots
            || self.strategy == Strategy::Dense
            || self.natural_output
            || self.order == Order::BitReversed
        {
            Order::Natural
        } else {
            Order::BitReversed
        };
        let permute = self.natural_output
            && self.order == Order::Natural
            && n <= slots
            && matches!(self.strategy, Strategy::Factored { .. });
        // Levels beyond the per-ciphertext transforms: the scalar products
        // across ciphertexts and the bit-reversal permutation.
        let extra = usize::from(
            n > slots && super::split::across_takes_level(n / slots, self.coset.is_some()),
        ) + usize::from(permute);
        // A ciphertext's transform has log2(min(n, N)) stages, so no more levels.
        let stages = n.min(slots).trailing_zeros() as usize;
        let chosen = match levels_wanted {
            Some(k) => k.min(stages),
            None => budget_levels.saturating_sub(extra).clamp(1, 4).min(stages),
        };
        if chosen + extra > budget_levels {
            return Err(Error::InsufficientBudget {
                needed: chosen + extra,
                available: budget_levels,
            });
        }
        let omega = match self.direction {
            Direction::Forward => domain.group_gen,
            Direction::Inverse => domain.group_gen_inv,
        };
        Ok(Settings {
            encoder,
            level,
            chosen,
            permute,
            output_order,
            omega,
        })
    }

    /// The key policy each level's schedule is chosen under: for n > N
    /// every level runs on each of the n/N ciphertexts at each execution,
    /// and one key serves them all.
    pub(super) fn schedule_policy(&self) -> KeyPolicy {
        let ciphertexts = (self.n / self.context.ring_degree()).max(1);
        self.keys.per_ciphertext(ciphertexts)
    }

    /// The memory estimate for checked settings.
    pub(super) fn estimate(&self, settings: &Settings<F>) -> Result<MemoryEstimate> {
        let shape = self.shape(settings);
        crate::memory::estimate(
            &shape,
            &self.context,
            self.schedule_policy(),
            settings.level,
            std::mem::size_of::<F>(),
        )
    }

    /// What the plan will encode and run, without any values: mirrors
    /// `build`'s choices (a unit test checks they agree).
    pub(super) fn shape(&self, settings: &Settings<F>) -> PlanShape {
        let slots = self.context.ring_degree();
        let row = slots / 2;
        // `first`: the index on the chain of the first level (one more when
        // products across ciphertexts come before it); `periods`: those of
        // the levels' diagonals.
        let at_levels = |shapes: Vec<crate::stages::Shape>,
                         periods: Vec<usize>,
                         first: usize|
         -> Vec<LevelShape> {
            shapes
                .into_iter()
                .zip(periods)
                .enumerate()
                .map(|(i, (shape, period))| LevelShape {
                    shape,
                    level: level_after(&self.context, settings.level, first + i),
                    copies: 1,
                    plain: false,
                    period,
                })
                .collect()
        };
        // Stage diagonals, grouped ones and the largest group's intermediate
        // product, all alive while the stages are grouped, plus the scalings.
        let field_diagonals = |stages: &[crate::stages::Shape], grouped: &[LevelShape]| {
            stages.iter().map(|s| s.len()).sum::<usize>()
                + grouped.iter().map(|l| l.shape.len()).sum::<usize>()
                + grouped.iter().map(|l| l.shape.len()).max().unwrap_or(0)
                + 2
        };
        if self.n <= slots {
            let packing = Packing::for_length(self.n, row).unwrap_or(Packing::Full { row });
            if self.strategy == Strategy::Dense {
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
            let stages = radix2_shapes(packing, self.order);
            let ranges = group_bounds(stages.len(), settings.chosen);
            let mut grouped = group_shapes_in(&stages, &ranges, row);
            let mut periods = group_periods(packing, self.order, &ranges);
            // Coset powers on the input (forward) or output (inverse), and
            // the bit-reversal permutation, repeat only with the packing's
            // period n.
            if self.coset.is_some() {
                let scaled = match self.direction {
                    Direction::Forward => 0,
                    Direction::Inverse => periods.len() - 1,
                };
                periods[scaled] = packing.len();
            }
            if settings.permute {
                grouped.push(bit_reversal_shape(packing));
                periods.push(packing.len());
            }
            let levels = at_levels(grouped, periods, 0);
            let field_diagonals = field_diagonals(&stages, &levels);
            PlanShape {
                levels,
                ciphertexts: 1,
                per_execution: false,
                field_diagonals,
            }
        } else {
            let packing = Packing::Full { row };
            let order = match self.direction {
                Direction::Forward => Order::Natural,
                Direction::Inverse => Order::BitReversed,
            };
            let stages = radix2_shapes(packing, order);
            let forward = self.direction == Direction::Forward;
            let ranges = split_ranges(&stages, settings.chosen, forward, self.n / slots, row);
            let first = usize::from(
                forward && super::split::across_takes_level(self.n / slots, self.coset.is_some()),
            );
            let periods = group_periods(packing, order, &ranges);
            let mut levels = at_levels(group_shapes_in(&stages, &ranges, row), periods, first);
            // The twiddle-absorbing level is encoded once per ciphertext, and
            // its twiddles make its diagonals not repeat.
            let own = if forward { 0 } else { levels.len() - 1 };
            levels[own].copies = self.n / slots;
            levels[own].plain = self.per_execution;
            levels[own].period = slots;
            let field_diagonals = field_diagonals(&stages, &levels);
            PlanShape {
                levels,
                ciphertexts: self.n / slots,
                per_execution: false,
                field_diagonals,
            }
        }
    }
}

/// Checked builder settings.
pub(super) struct Settings<F: PrimeField + FftField> {
    pub(super) encoder: BatchEncoder<F>,
    pub(super) level: usize,
    pub(super) chosen: usize,
    pub(super) permute: bool,
    pub(super) output_order: Order,
    pub(super) omega: F,
}
