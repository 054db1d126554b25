//! One run of the pipeline: the phases, their timing and what each left behind.

use super::*;

/// What one recorded phase of the run took and left behind.
pub(super) struct Record {
    pub(super) name: String,
    pub(super) role: &'static str,
    pub(super) seconds: f64,
    /// CPU time of the whole process (all threads) during the phase.
    pub(super) cpu_seconds: f64,
    /// Level of the ciphertexts after it (lowest over the vectors).
    pub(super) level: Option<usize>,
    /// Remaining budget measured with the secret key (lowest over the vectors).
    pub(super) budget: Option<f64>,
    /// The engine's key-free estimate (lowest over the vectors).
    pub(super) estimated: Option<f64>,
}

pub(super) struct Run<'a> {
    pub(super) o: &'a Options,
    pub(super) context: Context,
    pub(super) sk: SecretKey,
    pub(super) pk: PublicKey,
    pub(super) rk: RelinKey,
    pub(super) keys: GaloisKeys,
    pub(super) model: Model,
    pub(super) g: Fr,
    pub(super) records: Vec<Record>,
    pub(super) refreshes: Vec<String>,
    /// The schedule: steps grouped into phases that each start fresh.
    pub(super) phases: Vec<Vec<Step>>,
}

impl Run<'_> {
    /// The steps from `step` to the end of its phase.
    pub(super) fn rest_of_phase(&self, step: Step) -> Vec<Step> {
        self.phases
            .iter()
            .find_map(|p| p.iter().position(|&s| s == step).map(|i| p[i..].to_vec()))
            .unwrap_or_else(|| vec![step])
    }

    /// The lowest level whose modulus holds `steps` from a fresh encryption:
    /// a phase shorter than the chain starts lower, on smaller ciphertexts.
    pub(super) fn level_for(&self, steps: &[Step]) -> usize {
        let need = self.model.chain_bits(steps);
        let top = self.context.max_level();
        (0..=top)
            .find(|&l| self.context.log2_modulus(l).unwrap_or(0.0) >= need)
            .unwrap_or(top)
    }

    pub(super) fn log(&self, line: &str) {
        if !self.o.json {
            outln!("{line}");
        }
    }

    /// Records a phase and prints it with the vectors' levels and budgets.
    pub(super) fn record(
        &mut self,
        name: &str,
        role: &'static str,
        (took, cpu_seconds): (Duration, f64),
        vectors: Option<&[Vec<Ciphertext>]>,
    ) -> Result<()> {
        let (level, budget, estimated) = match vectors {
            Some(v) => {
                let cts: Vec<&Ciphertext> = v.iter().flatten().collect();
                let level = cts.iter().map(|c| c.level()).min();
                let mut budget = f64::INFINITY;
                for ct in &cts {
                    budget = budget.min(self.sk.noise_budget(ct)?);
                }
                let estimated = cts
                    .iter()
                    .map(|c| c.estimated_budget_bits())
                    .fold(f64::INFINITY, f64::min);
                (level, Some(budget), Some(estimated))
            }
            None => (None, None, None),
        };
        if !self.o.json {
            let state = match (level, budget, estimated) {
                (Some(l), Some(b), Some(e)) => format!(
                    "level {l:>2} (log2 Q = {:>4.0}), budget {b:>6.1} bits (server's estimate {e:>6.1})",
                    self.context.log2_modulus(l).unwrap_or(0.0)
                ),
                _ => String::new(),
            };
            outln!(
                "  {:<6} {:<44} {:>8.2} s {:>8.2} s   {state}",
                role,
                name,
                took.as_secs_f64(),
                cpu_seconds
            );
        }
        self.records.push(Record {
            name: name.to_string(),
            role,
            seconds: took.as_secs_f64(),
            cpu_seconds,
            level,
            budget,
            estimated,
        });
        Ok(())
    }

    /// The client decrypts every ciphertext and encrypts it again at `level`
    /// (the slot layout is kept as it is).
    pub(super) fn refresh(
        &mut self,
        vectors: Vec<Vec<Ciphertext>>,
        why: String,
        level: usize,
    ) -> Result<Vec<Vec<Ciphertext>>> {
        let start = Timer::start();
        let fresh = vectors
            .iter()
            .map(|v| {
                v.iter()
                    .map(|ct| Ok(self.pk.encrypt_at_level(&self.sk.decrypt(ct)?, level)?))
                    .collect::<Result<Vec<_>>>()
            })
            .collect::<Result<Vec<_>>>()?;
        self.log(&format!("  -- split: {why}"));
        self.refreshes.push(why);
        self.record(
            "refresh: decrypt + re-encrypt",
            "client",
            start.stop(),
            Some(&fresh),
        )?;
        Ok(fresh)
    }

    pub(super) fn min_estimate(vectors: &[Vec<Ciphertext>]) -> f64 {
        vectors
            .iter()
            .flatten()
            .map(|c| c.estimated_budget_bits())
            .fold(f64::INFINITY, f64::min)
    }

    /// Refreshes if the schedule says so, or if the server's estimate says the
    /// step would not fit (a model mismatch, reported as unplanned).
    pub(super) fn prepare(
        &mut self,
        step: Step,
        vectors: Vec<Vec<Ciphertext>>,
        planned_refresh: bool,
    ) -> Result<Vec<Vec<Ciphertext>>> {
        let need = self.model.cost(step) + Model::MARGIN;
        let have = Self::min_estimate(&vectors);
        let rest = self.rest_of_phase(step);
        let level = self.level_for(&rest);
        if planned_refresh {
            let why =
                format!(
                "planned: \"{}\" needs ≈{need:.0} bits, {have:.0} are left (server's estimate); \
                 the client re-encrypts at level {level}, enough for {}",
                step.name(),
                rest.iter().map(|s| s.short()).collect::<Vec<_>>().join(" → ")
            );
            self.refresh(vectors, why, level)
        } else if have < need {
            let why = format!(
                "unplanned: \"{}\" needs ≈{need:.0} bits but the estimate is {have:.0}",
                step.name()
            );
            self.refresh(vectors, why, level)
        } else {
            Ok(vectors)
        }
    }

    pub(super) fn builder(&self, step: Step, level: usize) -> FftPlanBuilder<Fr> {
        let slots = self.context.ring_degree();
        let base = FftPlan::<Fr>::builder(&self.context, self.o.n)
            .strategy(Strategy::Factored {
                levels: Some(self.model.levels),
            })
            .key_mode(self.o.fft_key_mode().into())
            .input_level(level);
        match step {
            // Natural evaluations in, bit-reversed coefficients out (free).
            Step::Ifft => base.inverse(),
            // Bit-reversed coefficients in, natural evaluations out (free).
            // Across ciphertexts the layouts chain by construction.
            Step::CosetFft => base.coset(self.g).input_order(if self.o.n <= slots {
                Order::BitReversed
            } else {
                Order::Natural
            }),
            Step::CosetIfft => base.inverse().coset(self.g),
            Step::Product => unreachable!("not an FFT"),
        }
    }

    /// Builds the plan of `step` for inputs at `level`, refreshing if he-fft
    /// refuses the level for lack of budget.
    pub(super) fn plan(
        &mut self,
        step: Step,
        mut vectors: Vec<Vec<Ciphertext>>,
    ) -> Result<(FftPlan<Fr>, Vec<Vec<Ciphertext>>)> {
        loop {
            let level = vectors
                .iter()
                .flatten()
                .map(|c| c.level())
                .min()
                .ok_or("no ciphertexts")?;
            for ct in vectors.iter_mut().flatten() {
                if ct.level() > level {
                    ct.mod_switch_to_assign(level)?;
                }
            }
            let start = Timer::start();
            match self.builder(step, level).build() {
                Ok(plan) => {
                    self.record(
                        &format!("plan build: {}", step.short()),
                        "server",
                        start.stop(),
                        None,
                    )?;
                    return Ok((plan, vectors));
                }
                Err(he_fft::Error::InsufficientBudget { needed, available })
                    if level < self.context.max_level() =>
                {
                    let why = format!(
                        "unplanned: he-fft refuses \"{}\" at level {level} ({needed} levels needed, {available} affordable)",
                        step.name()
                    );
                    let top = self.context.max_level();
                    vectors = self.refresh(vectors, why, top)?;
                }
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// One FFT step on every vector; returns the outputs and the plan (for decryption).
    /// `prebuilt`: a plan already built for the inputs' level (the first one,
    /// which also packed them).
    pub(super) fn fft(
        &mut self,
        step: Step,
        vectors: Vec<Vec<Ciphertext>>,
        planned_refresh: bool,
        prebuilt: Option<FftPlan<Fr>>,
    ) -> Result<(Vec<Vec<Ciphertext>>, FftPlan<Fr>)> {
        let (plan, vectors) = match prebuilt {
            Some(plan) => (plan, vectors),
            None => {
                let vectors = self.prepare(step, vectors, planned_refresh)?;
                self.plan(step, vectors)?
            }
        };
        let missing: Vec<u64> = plan
            .required_galois_elements()
            .into_iter()
            .filter(|&e| !self.keys.contains(e))
            .collect();
        if !missing.is_empty() {
            let start = Timer::start();
            self.keys.add_elements(&self.sk, &missing)?;
            let name = format!(
                "Galois keys: +{} (now {}, {:.0} MiB)",
                missing.len(),
                self.keys.len(),
                self.keys.size_bytes() as f64 / f64::from(1 << 20)
            );
            self.record(&name, "client", start.stop(), None)?;
        }
        self.log(&format!("         plan: {}", plan.describe()));
        let start = Timer::start();
        let outputs = vectors
            .iter()
            .map(|v| plan.execute(v, &self.keys))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let cost = plan.cost();
        let name = format!(
            "{} ({}×{} key switches)",
            step.name(),
            outputs.len(),
            cost.key_switches
        );
        self.record(&name, "server", start.stop(), Some(&outputs))?;
        Ok((outputs, plan))
    }

    /// `(A' ∘ B' − C') / Z_H(g)`, slot-wise on every ciphertext of the vectors.
    pub(super) fn product(
        &mut self,
        vectors: Vec<Vec<Ciphertext>>,
        planned_refresh: bool,
    ) -> Result<Vec<Vec<Ciphertext>>> {
        let vectors = self.prepare(Step::Product, vectors, planned_refresh)?;
        let domain = Radix2EvaluationDomain::<Fr>::new(self.o.n).ok_or("size")?;
        let z = domain.evaluate_vanishing_polynomial(self.g);
        let z_inv = z.inverse().ok_or("Z_H(g) = 0")?;
        let inv_z = Plaintext::from_biguints(&self.context, &[big(z_inv)])?;
        let start = Timer::start();
        let mut out = Vec::with_capacity(vectors[0].len());
        for ((a, b), c) in vectors[0].iter().zip(&vectors[1]).zip(&vectors[2]) {
            let mut d = a.multiply_relin(b, &self.rk, ModSwitchPolicy::BeforeMultiply)?;
            let mut c = c.clone();
            let level = d.level().min(c.level());
            d.mod_switch_to_assign(level)?;
            c.mod_switch_to_assign(level)?;
            // Divide by Z_H(g) for free: the plaintext 1/Z_H(g) declared with
            // correction factor Z_H(g) is the constant polynomial 1.
            d.mul_plain_assign(&EncodedPlaintext::with_factor(&inv_z, level, &big(z))?)?;
            // C'/Z_H(g) at d's correction factor: one constant product.
            let f_d = Fr::from(d.correction_factor().clone());
            let f_c = Fr::from(c.correction_factor().clone());
            let factor = f_d * f_c.inverse().ok_or("correction factor 0")?;
            c.mul_plain_assign(&EncodedPlaintext::with_factor(&inv_z, level, &big(factor))?)?;
            d.sub_assign(&c)?;
            d.mod_switch_reduce_noise_assign()?;
            out.push(d);
        }
        let out = vec![out];
        self.record(Step::Product.name(), "server", start.stop(), Some(&out))?;
        Ok(out)
    }
}

/// Wall-clock and process CPU time (all threads) of a phase: on a shared
/// machine the CPU time is the steadier figure.
pub(super) struct Timer {
    pub(super) wall: Instant,
    pub(super) cpu: f64,
}

impl Timer {
    pub(super) fn start() -> Self {
        Self {
            wall: Instant::now(),
            cpu: cpu_seconds(),
        }
    }

    pub(super) fn stop(&self) -> (Duration, f64) {
        (self.wall.elapsed(), cpu_seconds() - self.cpu)
    }
}

/// User + system CPU time of this process so far (Linux; 0 elsewhere).
pub(super) fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the parenthesised command name; utime and stime are the
    // 14th and 15th fields, in clock ticks of 1/100 s.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}
