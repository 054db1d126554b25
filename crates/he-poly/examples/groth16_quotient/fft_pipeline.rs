//! Evaluation input with the FFT method: the client encrypts a, b, c in
//! slots and the server runs the quotient's FFT pipeline under encryption —
//! `A = iFFT(a)`, … (coefficients), `A' = cosetFFT(A)`, … on gH,
//! `h' = (A' ∘ B' − C') / Z_H(g)`, `h = cosetIFFT(h')` — with he-fft plans,
//! Galois keys and a relinearization key.
//!
//! # Noise accounting and the split
//!
//! With t = BN254 Fr (254 bits) every factored FFT level is a plaintext
//! product costing about log2 t + log2 N ≈ 270 bits of noise budget; the
//! ciphertext × ciphertext product A'∘B' costs about as much as its operands'
//! noise after they are switched down (≈ 300 bits at N = 2^17). The division
//! by the public constant Z_H(g) costs nothing: the product is multiplied by
//! the constant plaintext 1 declared with correction factor Z_H(g), so
//! decryption divides by it (the correction factor is the scale tag BGV
//! already tracks for modulus switching). Subtracting C' needs C' at the
//! product's correction factor: one constant product on the C path, which is
//! cheaper than the A'∘B' product on the other path, so it costs no budget.
//!
//! The example sizes the modulus chain for the whole pipeline from that model
//! and picks the fewest key-switching digits that keep log2(Q·P) within the
//! 128-bit bound at the ring degree asked for (N = 2^17 by default). When the
//! pipeline does not fit, it is cut into phases; between phases the client
//! decrypts and re-encrypts (a "refresh"), which is printed as such. The server
//! decides from `Ciphertext::estimated_budget_bits` (no secret key); the
//! measured budgets printed next to them use the secret key, as a diagnostic.
//!
//! # Orders and keys
//!
//! No permutation is evaluated under encryption: the factored `ifft` takes
//! natural evaluations and returns bit-reversed coefficients, the `coset_fft`
//! takes those and returns natural evaluations, the products are slot-wise,
//! and the `coset_ifft` returns h bit-reversed, which the client reorders
//! after decryption (free). For n > N the plans' fixed multi-ciphertext
//! layouts chain the same way (tested in `crates/he-fft/tests/pipeline.rs`).
//! Galois keys default to he-fft's minimal-key mode: at N = 2^17 a key is
//! about 300 MiB, and the fast mode's 18 keys (n = 256) need 5.4 GiB.
//!

use ark_bn254::Fr;
use ark_ff::{FftField, Field, PrimeField};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use he_fft::{bit_reverse_permute, FftPlan, FftPlanBuilder, KeyMode, Order, Strategy};
use helib_rs::noise::{self, KeySwitching};
use helib_rs::{
    Ciphertext, Context, EncodedPlaintext, GaloisKeys, ModSwitchPolicy, Parameters, Plaintext,
    PublicKey, RelinKey, SecretKey,
};
use num_bigint::BigUint;
use std::time::{Duration, Instant};

use crate::{Options, Result, Summary, Witness};
use example_support::outln;

/// One step of the server's pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// a, b, c (evaluations on H) → A, B, C (coefficients, bit-reversed).
    Ifft,
    /// A, B, C (bit-reversed) → A', B', C' (evaluations on gH, natural).
    CosetFft,
    /// (A' ∘ B' − C') / Z_H(g).
    Product,
    /// h' → h (coefficients, bit-reversed).
    CosetIfft,
}

impl Step {
    const ALL: [Step; 4] = [Step::Ifft, Step::CosetFft, Step::Product, Step::CosetIfft];

    fn name(self) -> &'static str {
        match self {
            Step::Ifft => "iFFT of a, b, c",
            Step::CosetFft => "coset FFT of A, B, C",
            Step::Product => "(A'∘B' − C')/Z_H(g)",
            Step::CosetIfft => "coset iFFT of h'",
        }
    }

    fn short(self) -> &'static str {
        match self {
            Step::Ifft => "ifft",
            Step::CosetFft => "coset_fft",
            Step::Product => "product",
            Step::CosetIfft => "coset_ifft",
        }
    }
}

/// The pipeline's noise costs, in bits, for t of `log_t` bits at ring degree
/// `ring`, from [`helib_rs::noise`]: a fresh ciphertext and each FFT level as
/// he-fft's plans budget them ([`noise::transform_fresh_bits`],
/// [`noise::transform_level_bits`]), a product of operands at their floor
/// ([`noise::floor_product_bits`], calibrated on N = 2^17 measurements).
struct Model {
    log_t: f64,
    ring: usize,
    /// FFT levels per transform.
    levels: usize,
    /// Extra scalar level of a coset transform across ciphertexts (n > N).
    split_extra: usize,
}

impl Model {
    /// Decryption bit plus he-fft's 8-bit margin.
    const MARGIN: f64 = noise::DECRYPTION_BITS + noise::TRANSFORM_MARGIN_BITS;

    fn fresh(&self) -> f64 {
        noise::transform_fresh_bits(self.ring, self.log_t)
    }

    fn fft_level(&self) -> f64 {
        noise::transform_level_bits(self.ring, self.log_t)
    }

    fn product(&self) -> f64 {
        noise::floor_product_bits(self.ring, self.log_t)
    }

    fn cost(&self, step: Step) -> f64 {
        match step {
            Step::Product => self.product(),
            Step::Ifft | Step::CosetFft | Step::CosetIfft => {
                (self.levels + self.split_extra) as f64 * self.fft_level()
            }
        }
    }

    /// Chain bits for running `steps` on fresh ciphertexts.
    fn chain_bits(&self, steps: &[Step]) -> f64 {
        self.fresh() + steps.iter().map(|&s| self.cost(s)).sum::<f64>() + Self::MARGIN
    }
}

/// Secure parameters with a chain of at least `bits` bits at ring degree
/// 2^`log_n`: uniform primes of at most 60 bits ([`noise::uniform_primes`]),
/// and the fewest key-switching digits (from 3, or exactly `digits`) that
/// keep log2(Q·P) within the 128-bit bound and the prime count within the
/// engine's limit ([`noise::smallest_ring`] on that one ring).
fn parameters_for(
    bits: f64,
    log_n: u32,
    threads: u32,
    digits: Option<usize>,
) -> Option<(Parameters, usize)> {
    let candidates: Vec<KeySwitching> = match digits {
        Some(d) => vec![KeySwitching::Digits(d)],
        None => (3..=12).map(KeySwitching::Digits).collect(),
    };
    let t: BigUint = Fr::MODULUS.into();
    let (params, ks) = noise::smallest_ring(&t, log_n..=log_n, &candidates, threads, |_| {
        Ok(noise::uniform_primes(bits, 40))
    })
    .ok()?;
    match ks {
        KeySwitching::Digits(d) => Some((params, d)),
        KeySwitching::None => None,
    }
}

/// The largest chain (in bits, to 10 bits) of a ≥128-bit parameter set at the ring asked for.
fn largest_chain_bits(o: &Options) -> f64 {
    let (mut lo, mut hi) = (0.0, 4000.0);
    while hi - lo > 10.0 {
        let mid = (lo + hi) / 2.0;
        if parameters_for(mid, o.ring_log, o.threads, o.digits).is_some() {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Cuts the pipeline into phases that each fit one fresh encryption (greedily,
/// so the fewest refreshes), and sizes the chain for the largest phase.
fn schedule(model: &Model, o: &Options) -> Result<(Parameters, usize, Vec<Vec<Step>>)> {
    let fits = |steps: &[Step]| {
        parameters_for(model.chain_bits(steps), o.ring_log, o.threads, o.digits).is_some()
    };
    let mut phases: Vec<Vec<Step>> = Vec::new();
    let mut current: Vec<Step> = Vec::new();
    for step in Step::ALL {
        let mut candidate = current.clone();
        candidate.push(step);
        if fits(&candidate) {
            current = candidate;
        } else if current.is_empty() {
            return Err(format!(
                "the step \"{}\" alone ({:.0} bits of chain) does not fit a ≥128-bit parameter \
                 set at N = 2^{}: use more --levels, a larger --ring-log or a smaller --n",
                step.name(),
                model.chain_bits(&[step]),
                o.ring_log
            )
            .into());
        } else {
            phases.push(std::mem::replace(&mut current, vec![step]));
        }
    }
    phases.push(current);
    let bits = phases
        .iter()
        .map(|p| model.chain_bits(p))
        .fold(0.0, f64::max);
    let (params, digits) = parameters_for(bits, o.ring_log, o.threads, o.digits)
        .ok_or("no parameters for the largest phase")?;
    Ok((params, digits, phases))
}

/// What one recorded phase of the run took and left behind.
struct Record {
    name: String,
    role: &'static str,
    seconds: f64,
    /// CPU time of the whole process (all threads) during the phase.
    cpu_seconds: f64,
    /// Level of the ciphertexts after it (lowest over the vectors).
    level: Option<usize>,
    /// Remaining budget measured with the secret key (lowest over the vectors).
    budget: Option<f64>,
    /// The engine's key-free estimate (lowest over the vectors).
    estimated: Option<f64>,
}

struct Run<'a> {
    o: &'a Options,
    context: Context,
    sk: SecretKey,
    pk: PublicKey,
    rk: RelinKey,
    keys: GaloisKeys,
    model: Model,
    g: Fr,
    records: Vec<Record>,
    refreshes: Vec<String>,
    /// The schedule: steps grouped into phases that each start fresh.
    phases: Vec<Vec<Step>>,
}

impl Run<'_> {
    /// The steps from `step` to the end of its phase.
    fn rest_of_phase(&self, step: Step) -> Vec<Step> {
        self.phases
            .iter()
            .find_map(|p| p.iter().position(|&s| s == step).map(|i| p[i..].to_vec()))
            .unwrap_or_else(|| vec![step])
    }

    /// The lowest level whose modulus holds `steps` from a fresh encryption:
    /// a phase shorter than the chain starts lower, on smaller ciphertexts.
    fn level_for(&self, steps: &[Step]) -> usize {
        let need = self.model.chain_bits(steps);
        let top = self.context.max_level();
        (0..=top)
            .find(|&l| self.context.log2_modulus(l).unwrap_or(0.0) >= need)
            .unwrap_or(top)
    }

    fn log(&self, line: &str) {
        if !self.o.json {
            outln!("{line}");
        }
    }

    /// Records a phase and prints it with the vectors' levels and budgets.
    fn record(
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
    fn refresh(
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

    fn min_estimate(vectors: &[Vec<Ciphertext>]) -> f64 {
        vectors
            .iter()
            .flatten()
            .map(|c| c.estimated_budget_bits())
            .fold(f64::INFINITY, f64::min)
    }

    /// Refreshes if the schedule says so, or if the server's estimate says the
    /// step would not fit (a model mismatch, reported as unplanned).
    fn prepare(
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

    fn builder(&self, step: Step, level: usize) -> FftPlanBuilder<Fr> {
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
    fn plan(
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
    fn fft(
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
    fn product(
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
struct Timer {
    wall: Instant,
    cpu: f64,
}

impl Timer {
    fn start() -> Self {
        Self {
            wall: Instant::now(),
            cpu: cpu_seconds(),
        }
    }

    fn stop(&self) -> (Duration, f64) {
        (self.wall.elapsed(), cpu_seconds() - self.cpu)
    }
}

/// User + system CPU time of this process so far (Linux; 0 elsewhere).
fn cpu_seconds() -> f64 {
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

fn big(f: Fr) -> BigUint {
    f.into_bigint().into()
}

pub fn run(o: &Options, w: &Witness) -> Result<Summary> {
    if o.n < 2 || !o.n.is_power_of_two() {
        return Err(format!("--n {} is not a power of two ≥ 2", o.n).into());
    }
    let ring = 1usize << o.ring_log;
    let levels = o
        .levels
        .unwrap_or_else(|| he_fft::default_levels(o.n.trailing_zeros() as usize));
    let model = Model {
        log_t: f64::from(Fr::MODULUS_BIT_SIZE),
        ring: 1 << o.ring_log,
        levels,
        split_extra: usize::from(o.n > ring),
    };
    let (params, digits, phases) = schedule(&model, o)?;
    let log_q: u32 = params.chain_bits().iter().sum();
    let log_p: u32 = params.special_bits().iter().sum();
    let plan_text: Vec<String> = phases
        .iter()
        .map(|p| p.iter().map(|s| s.short()).collect::<Vec<_>>().join(" → "))
        .collect();
    if !o.json {
        outln!(
            "Groth16 quotient on encrypted witness vectors: n = {}, BN254 Fr, g = {}",
            o.n,
            Fr::GENERATOR
        );
        outln!(
            "  parameters: N = 2^{}, log2 Q = {log_q} ({} primes), log2 P = {log_p} ({} digits), \
             log2(Q·P) = {} ≤ {}, security {}, threads {}",
            o.ring_log,
            params.chain_bits().len(),
            digits,
            log_q + log_p,
            helib_rs::max_log_qp(ring, helib_rs::SecurityLevel::Bits128).unwrap_or(0),
            params.security_level(),
            if o.threads == 0 {
                "all".to_string()
            } else {
                o.threads.to_string()
            }
        );
        outln!(
            "  model: fresh {:.0} bits, FFT level {:.0} bits (× {levels} levels per FFT), \
             ct×ct product {:.0} bits, division by Z_H(g) 0 bits",
            model.fresh(),
            model.fft_level(),
            model.product()
        );
        let whole = model.chain_bits(&Step::ALL);
        let largest = largest_chain_bits(o);
        outln!(
            "  chain needed for the whole pipeline ≈{whole:.0} bits; the largest ≥128-bit chain at \
             N = 2^{} holds ≈{largest:.0} bits ({})",
            o.ring_log,
            match o.digits {
                Some(d) => format!("{d} key-switching digits"),
                None => "up to 12 key-switching digits".to_string(),
            }
        );
        outln!(
            "  schedule: {}",
            if phases.len() == 1 {
                format!("one phase under one encryption: {}", plan_text[0])
            } else {
                format!(
                    "{} phases, client refresh between them: [{}]",
                    phases.len(),
                    plan_text.join("] | [")
                )
            }
        );
    }

    if !o.json {
        outln!(
            "  {:<6} {:<44} {:>10} {:>10}   state after the phase (lowest over the vectors)",
            "role",
            "phase",
            "wall",
            "CPU"
        );
    }
    // Client: keys and the witness vectors.
    let mut records = Vec::new();
    let timed = |records: &mut Vec<Record>, name: &str, role: &'static str, t: (Duration, f64)| {
        if !o.json {
            outln!(
                "  {:<6} {:<44} {:>8.2} s {:>8.2} s",
                role,
                name,
                t.0.as_secs_f64(),
                t.1
            );
        }
        records.push(Record {
            name: name.to_string(),
            role,
            seconds: t.0.as_secs_f64(),
            cpu_seconds: t.1,
            level: None,
            budget: None,
            estimated: None,
        });
    };
    let start = Timer::start();
    let context = Context::new(&params)?;
    timed(&mut records, "context", "both", start.stop());
    let start = Timer::start();
    let sk = SecretKey::generate(&context)?;
    let pk = sk.public_key()?;
    timed(&mut records, "secret + public key", "client", start.stop());
    let start = Timer::start();
    let rk = RelinKey::generate(&sk)?;
    timed(&mut records, "relinearization key", "client", start.stop());

    let (a, b, c) = (&w.a, &w.b, &w.c);

    let mut run = Run {
        o,
        keys: GaloisKeys::new(&context)?,
        context,
        sk,
        pk,
        rk,
        model,
        g: Fr::GENERATOR,
        records,
        refreshes: Vec::new(),
        phases: phases.clone(),
    };
    // The first plan also packs a, b, c into its input layout.
    let start = Timer::start();
    let first_level = run.level_for(&run.phases[0]);
    let first_plan = run.builder(Step::Ifft, first_level).build()?;
    run.record("plan build: ifft", "server", start.stop(), None)?;
    let start = Timer::start();
    let inputs = [a, b, c]
        .iter()
        .map(|v| first_plan.encrypt(&run.pk, v))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    run.record("encrypt a, b, c", "client", start.stop(), Some(&inputs))?;
    let upload_bytes = inputs
        .iter()
        .flatten()
        .map(ciphertext_bytes)
        .sum::<Result<usize>>()?;

    // Server: the pipeline, with refreshes where the schedule cuts it.
    let refresh_before = |step: Step| phases.iter().skip(1).any(|p| p[0] == step);
    let (coeffs, first_plan) = run.fft(Step::Ifft, inputs, false, Some(first_plan))?;
    drop(first_plan);
    let (evals, plan) = run.fft(Step::CosetFft, coeffs, refresh_before(Step::CosetFft), None)?;
    drop(plan);
    let quotient_evals = run.product(evals, refresh_before(Step::Product))?;
    let (h_ct, last_plan) = run.fft(
        Step::CosetIfft,
        quotient_evals,
        refresh_before(Step::CosetIfft),
        None,
    )?;

    // Client: decrypt h (bit-reversed for one ciphertext, natural across several).
    let start = Timer::start();
    let got = last_plan.decrypt(&run.sk, &h_ct[0])?;
    let h = if o.n <= ring {
        bit_reverse_permute(&got)
    } else {
        got
    };
    run.record("decrypt h", "client", start.stop(), None)?;
    drop(last_plan);

    let final_budget = run.records.iter().rev().find_map(|r| r.budget);
    let sum = |keep: &dyn Fn(&Record) -> bool| -> f64 {
        run.records
            .iter()
            .filter(|r| keep(r))
            .map(|r| r.seconds)
            .sum()
    };
    let is_key = |r: &Record| r.name.contains("key");
    let server_s = sum(&|r| r.role == "server" && !r.name.starts_with("plan build"));
    let plan_s = sum(&|r| r.role == "server" && r.name.starts_with("plan build"));
    let client_offline_s = sum(&|r| r.role != "server" && is_key(r));
    let client_online_s = sum(&|r| r.role == "client" && !is_key(r));
    let download_bytes = h_ct
        .iter()
        .flatten()
        .map(ciphertext_bytes)
        .sum::<Result<usize>>()?;
    if !o.json {
        outln!(
            "  keys: {} Galois keys ({:.0} MiB, {:?} mode), relinearization key {:.0} MiB; \
             client refreshes: {}; plan builds {plan_s:.1} s",
            run.keys.len(),
            run.keys.size_bytes() as f64 / f64::from(1 << 20),
            o.fft_key_mode(),
            run.rk.size_bytes() as f64 / f64::from(1 << 20),
            run.refreshes.len(),
        );
    }
    let schedule: Vec<Vec<&str>> = phases
        .iter()
        .map(|p| p.iter().map(|s| s.short()).collect())
        .collect();
    let phase_records: Vec<serde_json::Value> = run
        .records
        .iter()
        .map(|r| {
            serde_json::json!({
                "name": r.name, "role": r.role, "seconds": r.seconds, "cpu_seconds": r.cpu_seconds,
                "level": r.level, "budget_bits": r.budget, "estimated_budget_bits": r.estimated,
            })
        })
        .collect();
    Ok(Summary {
        h,
        server_s,
        client_online_s,
        client_offline_s,
        upload_bytes,
        download_bytes,
        security_bits: params.security_level().bits(),
        details: serde_json::json!({
            "ring_degree": ring,
            "log2_q": log_q,
            "log2_p": log_p,
            "key_switching_digits": digits,
            "levels_per_fft": levels,
            "key_mode": format!("{:?}", o.fft_key_mode()).to_lowercase(),
            "schedule": schedule,
            "refreshes": run.refreshes,
            "galois_keys": run.keys.len(),
            "galois_key_bytes": run.keys.size_bytes(),
            "relin_key_bytes": run.rk.size_bytes(),
            "plan_s": plan_s,
            "final_budget_bits": final_budget,
            "phases": phase_records,
        }),
    })
}

fn ciphertext_bytes(ct: &Ciphertext) -> Result<usize> {
    Ok(ct.to_bytes()?.len())
}

/// Galois keys per level, as the `--key-mode` flag names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Keys {
    /// Keys for every baby and giant step (fewer key switches).
    Fast,
    /// O(1) keys per level (iterated rotations).
    Minimal,
}

impl From<Keys> for KeyMode {
    fn from(keys: Keys) -> Self {
        match keys {
            Keys::Fast => KeyMode::Fast,
            Keys::Minimal => KeyMode::MinimalKeys,
        }
    }
}
