//! The main demo: an FFT over the BN254 scalar field evaluated on encrypted data.
//!
//! Encrypts a random vector, builds a plan (picking the smallest ≥128-bit
//! secure parameters with enough noise budget), generates exactly the Galois
//! keys the plan needs, runs the FFT homomorphically, decrypts and checks the
//! result against ark-poly's `Radix2EvaluationDomain`, printing every phase's
//! time, and the plan's memory estimate (made before anything is encoded; a
//! plan over the available memory, or over `--memory-limit`, is refused) next
//! to the measured peak.
//!
//! ```text
//! cargo run --release --example encrypted_fft -- --n 1024
//! cargo run --release --example encrypted_fft -- --n 32768 --levels 3 --threads 1
//! cargo run --release --example encrypted_fft -- --n 256 --strategy dense
//! cargo run --release --example encrypted_fft -- --n 4096 --inverse --coset --json
//! cargo run --release --example encrypted_fft -- --n 131072 --max-baby-steps 8   # fewer keys
//! cargo run --release --example encrypted_fft -- --n 32768 --executions 1000000  # a server's plan
//! cargo run --release --example encrypted_fft -- --n 65536 --memory-limit 4       # GiB
//! cargo run --release --example encrypted_fft -- --n 32768 --plan-cache /var/tmp/plans
//! ```
//!
//! With `--plan-cache DIR`, the plan is loaded from DIR when a file for these
//! parameters is there (its name comes from [`FftPlanBuilder::plan_file_name`](he_fft::FftPlanBuilder::plan_file_name):
//! the context's fingerprint, n and every plan option), and otherwise built
//! and saved there for the next run. A plan holds no key, so the file serves
//! every later run with the same parameters, whatever its keys. Loading goes
//! through the builder of this run's plan ([`FftPlanBuilder::load_from`](he_fft::FftPlanBuilder::load_from)):
//! a file holding another plan (say an inverse plan stored under the forward
//! plan's name) or whose diagonals were tampered with is refused, and the
//! run stops with that error (remove the file to rebuild it).
//!
//! The cache uses the user's plan key ([`PlanKey::user`](he_fft::PlanKey::user):
//! `$HE_PLAN_KEY`, else `$XDG_CONFIG_HOME/big-t-bgv/plan.key`, else
//! `~/.config/big-t-bgv/plan.key`, created on first need with mode 0600;
//! `--plan-key FILE` names another): plans are saved with its tag, and a
//! file carrying it loads on the tag, without recomputing the plan
//! ([`FftPlanBuilder::load_with_key`](he_fft::FftPlanBuilder::load_with_key)).
//! A file from elsewhere (another key's, or none) or changed since it was
//! saved still loads when it is the plan asked for, by the full
//! verification against the spec. The run says which (`plan_check`).
//! Without any of those variables set (no place for the key), the cache is
//! used without a key, with a warning: every load is verified.
//!
//! With `--json`, stdout is one JSON object with these keys (times in
//! seconds, sizes in bytes; new keys may be added, none is renamed):
//!
//! | key | meaning |
//! | --- | --- |
//! | `n`, `direction` (`"forward"`/`"inverse"`), `coset`, `strategy` (`"factored"`/`"dense"`), `levels`, `key_mode` (`"fast"`/`"minimal"`), `executions`, `threads` | the run's settings (`executions`: the expected runs per set of Galois keys the plan was scheduled for) |
//! | `ring_degree`, `log2_q`, `log2_p`, `security` | the BGV parameters |
//! | `context_s`, `keys_s`, `galois_keys_s`, `plan_s`, `encrypt_s`, `fft_s`, `decrypt_s`, `total_s` | phase times: `keys_s` covers the secret, public and Galois keys, `galois_keys_s` the Galois part of it, `total_s` all phases |
//! | `user_s`, `system_s`, `fresh_page_bytes` | over all phases: processor time in user space and in the kernel, and the memory touched for the first time (minor page faults × page size; zero where `getrusage` is unavailable) |
//! | `phases` | every phase in order: `{"phase", "wall_s", "user_s", "system_s", "fresh_page_bytes"}` |
//! | `plan_source` (`"built"`/`"loaded"`), `plan_save_s`, `plan_load_s` | whether the plan was built (`plan_s`) or loaded from `--plan-cache` (`plan_load_s`), and the time saving it there took (0 when not saved or loaded) |
//! | `plan_check` (`"authenticated"`/`"recomputed"`/null) | how a loaded plan was checked: by the tag of the user's plan key, or by verification against the spec (null when built) |
//! | `plain_fft_s`, `he_to_plain_ratio` | ark-poly's FFT in the clear, and `fft_s` over it |
//! | `galois_keys`, `galois_key_bytes`, `rotations`, `key_switches`, `plaintext_multiplications` | the plan's cost |
//! | `noise_budget_bits` | smallest remaining budget of the outputs |
//! | `peak_memory_bytes`, `memory_before_plan_bytes` | measured (null where unknown) |
//! | `estimated_peak_memory_bytes`, `estimated_plan_bytes`, `estimated_build_bytes`, `estimated_galois_key_bytes`, `estimated_execution_bytes`, `estimated_pooled_bytes` | the plan's estimate |
//! | `verified` | the decryption equals ark-poly's FFT |

use ark_bn254::Fr;
use ark_ff::FftField;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::UniformRand;
use clap::{Parser, ValueEnum};
use example_support::cli::{self, CommonArgs, Phases, GIB};
use example_support::outln;
use examples::key_mode::KeyModeArg;
use he_fft::{
    bit_reverse_permute, suggest_plan_parameters, Direction, FftPlan, FftPlanBuilder, Order,
    PlanCheck, PlanKey, PlanOptions, Strategy, Unauthenticated,
};
use helib_rs::{Context, SecretKey};
use serde::Serialize;
use std::fs::File;
use std::path::Path;
use std::time::Instant;

fn main() {
    let options = Options::parse();
    example_support::exit_with(run(&options));
}

/// Phase names, shared by the text report and the JSON keys.
const CONTEXT: &str = "context";
const KEYS: &str = "secret + public key";
const PLAN: &str = "plan build (factor + encode diagonals)";
const PLAN_SAVE: &str = "plan save";
const PLAN_LOAD: &str = "plan load";
const GALOIS: &str = "Galois keys";
const ENCRYPT: &str = "encrypt";
const FFT: &str = "FFT (homomorphic)";
const DECRYPT: &str = "decrypt + decode";

fn run(o: &Options) -> Result<bool, Box<dyn std::error::Error>> {
    let mut phases = Phases::new(o.common.json);
    // The smallest ≥128-bit ring and chain holding the whole plan (its
    // levels, and the products across ciphertexts for n > N).
    let options = PlanOptions {
        strategy: o.strategy(),
        coset: o.coset,
        natural_output: false,
    };
    let suggested = suggest_plan_parameters::<Fr>(o.n, options, o.threads)?;
    let (params, strategy) = (suggested.parameters, suggested.strategy);
    let levels = match strategy {
        Strategy::Factored { levels: Some(k) } => k,
        _ => 1,
    };
    let log_q = params.chain_bits().iter().sum::<u32>();
    let log_p = params.special_bits().iter().sum::<u32>();
    if !o.common.json {
        outln!("Encrypted FFT over BN254 Fr (254-bit prime), n = {}", o.n);
        outln!(
            "  parameters: N = 2^{}, log2 Q = {log_q} ({} primes), log2 P = {log_p}, security {:?}, threads {}",
            params.ring_degree().trailing_zeros(),
            params.chain_bits().len(),
            params.security_level(),
            if o.threads == 0 { "all".to_string() } else { o.threads.to_string() },
        );
    }
    let context = phases.run(CONTEXT, || Context::new(&params))?;
    let (sk, pk) = phases.run(KEYS, || -> helib_rs::Result<_> {
        let sk = SecretKey::generate(&context)?;
        let pk = sk.public_key()?;
        Ok((sk, pk))
    })?;
    let coset = o.coset.then_some(Fr::GENERATOR);
    let mut builder = FftPlan::<Fr>::builder(&context, o.n)
        .direction(o.direction())
        .strategy(strategy)
        .key_mode(o.key_mode.into())
        .executions(o.executions);
    if let Some(max) = o.max_baby_steps {
        builder = builder.max_baby_steps(max);
    }
    if let Some(g) = coset {
        builder = builder.coset(g);
    }
    if let Some(gib) = o.memory_limit {
        builder = builder.memory_limit((gib * GIB) as usize);
    }
    // Known before anything is encoded; `build` refuses the plan if it is
    // over the limit (by default the memory the system has available).
    let mut estimate = builder.memory_estimate()?;
    // Over it with several ciphertexts: the lower-memory mode keeps each
    // ciphertext's own level as plaintexts, encoded at each execution.
    let limit = o
        .memory_limit
        .map(|gib| (gib * GIB) as usize)
        .or_else(he_fft::available_memory_bytes);
    if o.n > params.ring_degree() && limit.is_some_and(|l| estimate.peak_bytes() > l) {
        builder = builder.encode_per_execution();
        if !o.common.json {
            outln!(
                "  over the memory limit ({}): own levels encoded at each execution",
                estimate
            );
        }
        estimate = builder.memory_estimate()?;
    }
    if !o.common.json {
        outln!("  memory estimate: {estimate}");
    }
    let resident_before_plan = cli::resident_bytes();
    let (plan, plan_source, plan_check) = match &o.plan_cache {
        None => (phases.run(PLAN, || builder.build())?, "built", None),
        Some(dir) => {
            let key = match &o.plan_key {
                Some(file) => Some(PlanKey::load_or_create(file)?),
                None => match PlanKey::user() {
                    Ok(key) => Some(key),
                    // No place for a key (no HOME): plans are saved untagged
                    // and loaded by verification, as before keys.
                    Err(e @ he_fft::Error::PlanKeyLocation) => {
                        eprintln!("warning: {e}; the plan cache is used without a key");
                        None
                    }
                    Err(e) => return Err(e.into()),
                },
            };
            let path = dir.join(builder.plan_file_name()?);
            if path.exists() {
                let (plan, check) =
                    phases.run(PLAN_LOAD, || load_plan(&builder, &path, key.as_ref()))?;
                if !o.common.json {
                    outln!("  plan loaded from {} ({check})", path.display());
                }
                (plan, "loaded", Some(check.as_str()))
            } else {
                let plan = phases.run(PLAN, || builder.build())?;
                phases.run(PLAN_SAVE, || save_plan(&plan, dir, &path, key.as_ref()))?;
                if !o.common.json {
                    outln!("  plan saved to {}", path.display());
                }
                (plan, "built", None)
            }
        }
    };
    let cost = plan.cost();
    let keys = phases.run(GALOIS, || plan.generate_galois_keys(&sk))?;
    let mut rng = ark_std::rand::thread_rng();
    let x: Vec<Fr> = (0..o.n).map(|_| Fr::rand(&mut rng)).collect();
    let inputs = phases.run(ENCRYPT, || plan.encrypt(&pk, &x))?;
    let outputs = phases.run(FFT, || plan.execute(&inputs, &keys))?;
    let budget = outputs
        .iter()
        .map(|ct| sk.noise_budget(ct))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .fold(f64::INFINITY, f64::min);
    let got = phases.run(DECRYPT, || plan.decrypt(&sk, &outputs))?;

    let start = Instant::now();
    let want = reference(o.n, o.direction(), coset, &x, &plan);
    let plain = start.elapsed();
    let verified = got == want;
    let fft_time = phases.get(FFT);
    let peak = cli::peak_memory_bytes();

    if o.common.json {
        let secs = |name: &str| phases.get(name).as_secs_f64();
        cli::print_json(&Report {
            n: o.n,
            direction: if o.inverse { "inverse" } else { "forward" },
            coset: o.coset,
            strategy: o.strategy,
            levels,
            key_mode: o.key_mode,
            executions: o.executions,
            threads: o.threads,
            ring_degree: context.ring_degree(),
            log2_q: log_q,
            log2_p: log_p,
            security: format!("{:?}", params.security_level()),
            context_s: secs(CONTEXT),
            keys_s: secs(KEYS) + secs(GALOIS),
            galois_keys_s: secs(GALOIS),
            plan_s: secs(PLAN),
            plan_source,
            plan_check,
            plan_save_s: secs(PLAN_SAVE),
            plan_load_s: secs(PLAN_LOAD),
            encrypt_s: secs(ENCRYPT),
            fft_s: secs(FFT),
            decrypt_s: secs(DECRYPT),
            total_s: phases.total().as_secs_f64(),
            resources: phases.total_resources(),
            phases: phases.records(),
            plain_fft_s: plain.as_secs_f64(),
            he_to_plain_ratio: fft_time.as_secs_f64() / plain.as_secs_f64().max(1e-9),
            galois_keys: keys.len(),
            galois_key_bytes: keys.size_bytes(),
            rotations: cost.rotations,
            key_switches: cost.key_switches,
            plaintext_multiplications: cost.multiplications,
            noise_budget_bits: budget,
            peak_memory_bytes: peak,
            memory_before_plan_bytes: resident_before_plan,
            estimated_peak_memory_bytes: estimate.peak_bytes(),
            estimated_plan_bytes: estimate.plan_bytes,
            estimated_build_bytes: estimate.build_bytes,
            estimated_galois_key_bytes: estimate.galois_key_bytes,
            estimated_execution_bytes: estimate.execution_bytes,
            estimated_pooled_bytes: estimate.pooled_bytes,
            verified,
        });
    } else {
        outln!(
            "  plan: {} — {} rotations ({} of them full key switches), {} plaintext products; \
             {} Galois keys, {:.1} MiB",
            plan.describe(),
            cost.rotations,
            cost.key_switches,
            cost.multiplications,
            keys.len(),
            keys.size_bytes() as f64 / (1 << 20) as f64
        );
        outln!("  remaining noise budget: {budget:.1} bits");
        outln!(
            "  plain FFT (ark-poly): {:.3} ms; HE / plain = {:.0}×",
            plain.as_secs_f64() * 1e3,
            fft_time.as_secs_f64() / plain.as_secs_f64().max(1e-9)
        );
        if let Some(bytes) = peak {
            outln!("  peak memory: {:.2} GiB", bytes as f64 / GIB);
            // The estimate covers what the plan adds to the process: compare
            // it with the growth of the peak over the memory held before.
            if let Some(before) = resident_before_plan {
                let grown = bytes.saturating_sub(before);
                outln!(
                    "  of which {:.2} GiB above the {:.2} GiB held before the plan; \
                     estimate / measured = {:.2}",
                    grown as f64 / GIB,
                    before as f64 / GIB,
                    estimate.peak_bytes() as f64 / (grown as f64).max(1.0)
                );
            }
        }
        outln!(
            "{}",
            if verified {
                "verified: the decrypted FFT equals ark-poly's"
            } else {
                "MISMATCH: the decrypted FFT differs from ark-poly's"
            }
        );
        // The plan was either built (and maybe saved) or loaded.
        let plan_phase = if phases.get(PLAN_LOAD).is_zero() {
            format!("plan {:.3}", phases.get(PLAN).as_secs_f64())
        } else {
            format!("plan load {:.3}", phases.get(PLAN_LOAD).as_secs_f64())
        };
        let save = phases.get(PLAN_SAVE);
        let save = if save.is_zero() {
            String::new()
        } else {
            format!(", plan save {:.3}", save.as_secs_f64())
        };
        outln!(
            "  total {:.3} s (context {:.3}, keys {:.3}, {plan_phase}{save}, encrypt {:.3}, FFT {:.3}, decrypt {:.3})",
            phases.total().as_secs_f64(),
            phases.get(CONTEXT).as_secs_f64(),
            (phases.get(KEYS) + phases.get(GALOIS)).as_secs_f64(),
            phases.get(ENCRYPT).as_secs_f64(),
            fft_time.as_secs_f64(),
            phases.get(DECRYPT).as_secs_f64(),
        );
        outln!("  processor and memory: {}", phases.total_resources());
    }
    Ok(verified)
}

/// Loads the plan `builder` describes from `path` (the file itself: its
/// residues are read straight into the engine's buffers): accepted on the
/// tag of `key`, or verified against the builder's spec.
fn load_plan(
    builder: &FftPlanBuilder<Fr>,
    path: &Path,
    key: Option<&PlanKey>,
) -> Result<(FftPlan<Fr>, PlanCheck), he_fft::Error> {
    let mut file = File::open(path)?;
    match key {
        Some(key) => builder.load_with_key(&mut file, key),
        None => Ok((
            builder.load_from(&mut file)?,
            PlanCheck::Recomputed(Unauthenticated::NoKey),
        )),
    }
}

/// Saves `plan` at `path` in `dir` (created if missing), through a temporary
/// file renamed at the end, so an interrupted save leaves no plan file.
fn save_plan(
    plan: &FftPlan<Fr>,
    dir: &Path,
    path: &Path,
    key: Option<&PlanKey>,
) -> Result<(), he_fft::Error> {
    std::fs::create_dir_all(dir)?;
    let partial = path.with_extension(format!("partial-{}", std::process::id()));
    let result = File::create(&partial)
        .map_err(he_fft::Error::from)
        .and_then(|mut file| {
            match key {
                Some(key) => plan.write_to_with_key(&mut file, key)?,
                None => plan.write_to(&mut file)?,
            }
            file.sync_all()?;
            Ok(())
        })
        .and_then(|()| Ok(std::fs::rename(&partial, path)?));
    if result.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    result
}

/// ark-poly's result, arranged in the plan's output order.
fn reference(
    n: usize,
    direction: Direction,
    coset: Option<Fr>,
    x: &[Fr],
    plan: &FftPlan<Fr>,
) -> Vec<Fr> {
    let mut domain = Radix2EvaluationDomain::<Fr>::new(n).expect("power of two");
    if let Some(g) = coset {
        domain = domain.get_coset(g).expect("coset");
    }
    let natural = match direction {
        Direction::Forward => domain.fft(x),
        Direction::Inverse => domain.ifft(x),
    };
    match plan.output_order() {
        Order::Natural => natural,
        Order::BitReversed => bit_reverse_permute(&natural),
    }
}

/// The `--json` report (schema in the module documentation).
#[derive(Serialize)]
struct Report {
    n: usize,
    direction: &'static str,
    coset: bool,
    strategy: StrategyArg,
    levels: usize,
    key_mode: KeyModeArg,
    executions: u64,
    threads: u32,
    ring_degree: usize,
    log2_q: u32,
    log2_p: u32,
    security: String,
    context_s: f64,
    keys_s: f64,
    galois_keys_s: f64,
    plan_s: f64,
    plan_source: &'static str,
    plan_check: Option<&'static str>,
    plan_save_s: f64,
    plan_load_s: f64,
    encrypt_s: f64,
    fft_s: f64,
    decrypt_s: f64,
    total_s: f64,
    #[serde(flatten)]
    resources: cli::ResourceUse,
    phases: Vec<cli::PhaseRecord>,
    plain_fft_s: f64,
    he_to_plain_ratio: f64,
    galois_keys: usize,
    galois_key_bytes: usize,
    rotations: usize,
    key_switches: usize,
    plaintext_multiplications: usize,
    noise_budget_bits: f64,
    peak_memory_bytes: Option<u64>,
    memory_before_plan_bytes: Option<u64>,
    estimated_peak_memory_bytes: usize,
    estimated_plan_bytes: usize,
    estimated_build_bytes: usize,
    estimated_galois_key_bytes: usize,
    estimated_execution_bytes: usize,
    estimated_pooled_bytes: usize,
    verified: bool,
}

/// Runs an FFT over the BN254 scalar field on encrypted data and checks the
/// decryption against ark-poly's `Radix2EvaluationDomain`.
#[derive(Debug, Parser)]
#[command(version)]
struct Options {
    /// Transform size (a power of two)
    #[arg(long, default_value_t = 1024)]
    n: usize,
    /// Plan strategy: factored (radix stages grouped into levels) or dense
    /// (one level, one dense matrix)
    #[arg(long, value_enum, default_value_t = StrategyArg::Factored)]
    strategy: StrategyArg,
    /// Multiplicative levels of a factored plan [default: the fewest the
    /// smallest secure ring holds, he_fft::suggest_plan_parameters]
    #[arg(long)]
    levels: Option<usize>,
    /// Inverse FFT instead of the forward one
    #[arg(long, default_value_t = false)]
    inverse: bool,
    /// Evaluate on the coset g·H (g the field's multiplicative generator)
    #[arg(long, default_value_t = false)]
    coset: bool,
    /// Galois keys: fast (one per rotation used) or minimal (fewest keys)
    #[arg(long, value_enum, default_value_t = KeyModeArg::Fast)]
    key_mode: KeyModeArg,
    /// Cap on the baby steps of each baby-step/giant-step stage (fewer
    /// keys, more rotations) [default: no cap]
    #[arg(long)]
    max_baby_steps: Option<usize>,
    /// Expected FFT runs per set of Galois keys: each level's baby steps are
    /// chosen for the FFT time plus the key generation time divided by this
    /// count. This demo runs the FFT once, hence 1 (fewer keys, a few more
    /// key switches); a server running one plan many times with keys made
    /// once should pass a large count (e.g. 1000000: the fastest FFT, more
    /// keys). `--max-baby-steps` still caps the choice
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    executions: u64,
    /// Refuse plans whose memory estimate is over this many GiB [default:
    /// the memory the system has available]
    #[arg(long, value_parser = cli::gib)]
    memory_limit: Option<f64>,
    /// Load the plan from this directory when it holds one for these
    /// parameters; otherwise build it and save it there [default: always
    /// build, save nothing]
    #[arg(long)]
    plan_cache: Option<std::path::PathBuf>,
    /// The plan key file `--plan-cache` tags and checks plans with (created
    /// with mode 0600 if missing) [default: $HE_PLAN_KEY, else
    /// $XDG_CONFIG_HOME/big-t-bgv/plan.key, else
    /// ~/.config/big-t-bgv/plan.key]
    #[arg(long)]
    plan_key: Option<std::path::PathBuf>,
    /// Engine worker threads (0 = one per hardware thread)
    #[arg(long, default_value_t = 0)]
    threads: u32,
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
enum StrategyArg {
    Factored,
    Dense,
}

impl Options {
    fn strategy(&self) -> Strategy {
        match self.strategy {
            StrategyArg::Dense => Strategy::Dense,
            StrategyArg::Factored => Strategy::Factored {
                levels: self.levels,
            },
        }
    }

    fn direction(&self) -> Direction {
        if self.inverse {
            Direction::Inverse
        } else {
            Direction::Forward
        }
    }
}
