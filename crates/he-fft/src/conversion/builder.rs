//! The conversion plan builder: checks the settings, sizes the plan and builds it.

use super::*;

impl<F: PrimeField + FftField> ConversionPlanBuilder<F> {
    /// What the slot side holds (default [`SlotForm::Evaluations`]).
    pub fn form(mut self, form: SlotForm) -> Self {
        self.form = form;
        self
    }

    /// The order of the slot-side vector in every copy of the `Row` packing
    /// (default natural: slot column c holds entry c mod n; bit-reversed:
    /// entry bitrev(c mod n), as he-fft's factored `ifft` leaves its output).
    pub fn order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }

    /// The number of multiplication levels (1 to the number of butterfly
    /// stages, about 2·log2(n)). By default the fewest levels whose estimated
    /// diagonals stay at most 256 per level, within the input's budget.
    pub fn levels(mut self, levels: usize) -> Self {
        self.levels = Some(levels);
        self
    }

    build_option_setters! {
        /// Keep the diagonals as plaintext polynomials and encode them (into the
        /// engine's RNS form) when they run: the plan holds N·⌈log2 t / 64⌉
        /// words per diagonal instead of N words per prime, and an execution one
        /// level's encodings at a time (in [`KeyMode::MinimalKeys`], one diagonal
        /// at a time), at the price of that encoding at every execution.
    }

    /// The plan's estimated memory. The diagonals are computed (as field
    /// elements) to know their positions, but nothing is encoded.
    ///
    /// # Errors
    /// As for [`build`](Self::build), except that the memory check only
    /// covers computing the diagonals: [`Error::InsufficientMemory`] when
    /// even their field elements would exceed the limit.
    pub fn memory_estimate(&self) -> Result<MemoryEstimate> {
        let settings = self.settings()?;
        self.check_field_bytes(&settings)?;
        let transforms = settings.geometry.levels(settings.levels, self.conversion);
        self.estimate(&settings, &transforms)
    }

    /// Builds the plan: checks the settings, computes the levels' diagonals
    /// (after checking that their field elements, counted from the levels'
    /// structure, fit the limit), estimates the plan's memory and refuses it
    /// when over the limit, then encodes the diagonals (unless
    /// [`encode_per_execution`](Self::encode_per_execution)).
    ///
    /// # Errors
    /// In this order: [`Error::InvalidSize`] for n not a power of two ≥ 2;
    /// [`Error::ConversionSize`] for n > N/2; [`Error::He`] when t is not
    /// F's modulus (or there is no batching); [`Error::InvalidMaxBabySteps`]
    /// for `max_baby_steps(0)`; [`Error::InvalidExecutions`] for
    /// `executions(0)`; [`Error::InvalidConversionLevels`] for a level
    /// count of 0 or more than the conversion's butterfly stages;
    /// [`Error::Unsupported`] for one level converting n = N/2 coefficients
    /// back to slots; [`Error::InputLevelOutOfRange`];
    /// [`Error::InsufficientBudget`] when the input level affords fewer
    /// levels than the plan needs; [`Error::InsufficientMemory`] when the
    /// estimated peak exceeds the limit.
    pub fn build(self) -> Result<ConversionPlan<F>> {
        let _span = tracing::info_span!("he_fft.conversion_plan_build", n = self.n).entered();
        let settings = self.settings()?;
        self.check_field_bytes(&settings)?;
        // Field arithmetic and encodings run on the context's thread count.
        let transforms = in_pool(&self.context, || {
            Ok(settings.geometry.levels(settings.levels, self.conversion))
        })?;
        let memory = self.estimate(&settings, &transforms)?;
        self.options.check_memory(memory.peak_bytes())?;
        let Settings {
            encoder,
            geometry,
            prep,
            ..
        } = settings;
        let at = |i: usize| level_after(&self.context, prep.level, i);
        let mut elements: Vec<u64> = transforms
            .iter()
            .flat_map(|t| {
                prep.keys
                    .schedule(t)
                    .required_galois_elements(&self.context)
            })
            .collect();
        elements.sort_unstable();
        elements.dedup();
        let levels = in_pool(&self.context, || {
            Ok(if prep.per_execution {
                let mut plain = Vec::with_capacity(transforms.len());
                for (i, t) in transforms.into_iter().enumerate() {
                    plain.push(PlainTransform::new(&t, prep.keys, &encoder, at(i))?);
                }
                Levels::PerExecution(plain)
            } else {
                // Encode level by level, dropping each level's field elements.
                let mut encoded = Vec::with_capacity(transforms.len());
                for (i, t) in transforms.into_iter().enumerate() {
                    encoded.push(EncodedTransform::new(&t, prep.keys, &encoder, at(i))?);
                }
                Levels::Encoded(encoded)
            })
        })?;
        release_freed_heap();
        Ok(ConversionPlan {
            context: self.context,
            encoder,
            geometry,
            n: self.n,
            conversion: self.conversion,
            form: self.form,
            order: self.order,
            prep,
            levels,
            elements,
            memory,
        })
    }

    /// Checks every setting (in the order [`build`](Self::build) documents)
    /// and chooses the level count.
    fn settings(&self) -> Result<Settings<F>> {
        let n = self.n;
        let ring_degree = self.context.ring_degree();
        Geometry::<F>::check_size(ring_degree, n)?;
        let encoder = BatchEncoder::<F>::new(&self.context)?;
        let geometry = Geometry::<F>::new(ring_degree, n, self.form, self.order)
            .ok_or(Error::InvalidSize(n))?;
        self.options.check_keys()?;
        let stages = geometry.stage_count();
        if let Some(k) = self.levels {
            if k == 0 || k > stages {
                return Err(Error::InvalidConversionLevels {
                    levels: k,
                    max: stages,
                });
            }
            if k < geometry.fewest_levels(self.conversion) {
                return Err(Error::Unsupported(
                    "one level converts at most N/4 coefficients back to slots; use two or more",
                ));
            }
        }
        let prep = self.options.preparation(&self.context)?;
        let budget = affordable_levels(&self.context, prep.level);
        let levels = self
            .levels
            .unwrap_or_else(|| geometry.automatic_levels(self.conversion, budget));
        if levels > budget {
            return Err(Error::InsufficientBudget {
                needed: levels,
                available: budget,
            });
        }
        Ok(Settings {
            encoder,
            geometry,
            prep,
            levels,
        })
    }

    /// Refuses settings whose field-element diagonals alone, counted from the
    /// levels' structure before any is computed, would exceed the limit.
    fn check_field_bytes(&self, settings: &Settings<F>) -> Result<()> {
        let counts = settings.geometry.estimate(settings.levels, self.conversion);
        let largest = counts.iter().copied().max().unwrap_or(0);
        let diagonals = counts
            .iter()
            .fold(2usize, |a, &c| a.saturating_add(c))
            .saturating_add(largest.saturating_mul(2));
        let bytes = diagonals
            .saturating_mul(self.context.ring_degree())
            .saturating_mul(std::mem::size_of::<F>());
        self.options.check_memory(bytes)
    }

    /// The memory estimate of a plan with these levels.
    fn estimate(
        &self,
        settings: &Settings<F>,
        transforms: &[SlotTransform<F>],
    ) -> Result<MemoryEstimate> {
        let levels: Vec<LevelShape> = transforms
            .iter()
            .enumerate()
            .map(|(i, t)| LevelShape {
                shape: t.diagonals().keys().copied().collect(),
                level: level_after(&self.context, settings.prep.level, i),
                copies: 1,
                plain: false,
                period: t.period(),
            })
            .collect();
        let counts: Vec<usize> = transforms.iter().map(|t| t.len()).collect();
        let total: usize = counts.iter().sum();
        let largest = counts.iter().copied().max().unwrap_or(0);
        // All levels' diagonals, the largest being composed (its
        // accumulator and its previous stage) and a stage's two coefficient
        // vectors.
        let field_diagonals = total + 2 * largest + 2;
        let shape = PlanShape {
            levels,
            ciphertexts: 1,
            per_execution: false,
            field_diagonals,
        };
        let field_bytes = std::mem::size_of::<F>();
        let keys = settings.prep.keys;
        let held = crate::memory::estimate(
            &shape,
            &self.context,
            keys,
            settings.prep.level,
            field_bytes,
        )?;
        if !settings.prep.per_execution {
            return Ok(held);
        }
        // The plan holds plaintext diagonals; an execution encodes one level
        // at a time (fast keys: one engine call takes them all) or one
        // diagonal at a time (minimal keys).
        let sizes = Sizes::new(&self.context)?;
        let extended = keys.mode == KeyMode::Fast;
        let one_level = shape
            .levels
            .iter()
            .map(|l| {
                let alive = if extended { l.shape.len() } else { 1 };
                alive.saturating_mul(sizes.encoded(l.level, extended, l.period))
            })
            .max()
            .unwrap_or(0);
        // A plaintext coefficient takes whole 64-bit words of t.
        let words = self.context.plaintext_modulus().bits().div_ceil(64) as usize;
        let plain = self.context.ring_degree().saturating_mul(8 * words);
        Ok(MemoryEstimate {
            plan_bytes: total.saturating_mul(plain),
            build_bytes: held.build_bytes,
            galois_key_bytes: held.galois_key_bytes,
            execution_bytes: held.execution_bytes.saturating_add(one_level),
            pooled_bytes: 0,
        }
        .with_pool(helib_rs::buffer_pool_limit_bytes()?))
    }
}
