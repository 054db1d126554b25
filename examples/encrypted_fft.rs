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
//! cargo run --release --example encrypted_fft -- --n 65536 --memory-limit 4       # GiB
//! ```

use ark_bn254::Fr;
use ark_ff::FftField;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::UniformRand;
use he_fft::{
    bit_reverse_permute, suggest_plan_parameters, Direction, FftPlan, KeyMode, MemoryEstimate,
    Order, PlanOptions, Strategy,
};
use helib_rs::{Context, SecretKey};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn main() {
    let options = match Options::parse(std::env::args().skip(1)) {
        Ok(o) => o,
        Err(message) => {
            eprintln!("{message}\n\n{USAGE}");
            std::process::exit(2);
        }
    };
    big_t_bgv::exit_with(run(&options));
}

const USAGE: &str = "usage: encrypted_fft [--n N] [--strategy factored|dense] [--levels K] \
[--threads T] [--inverse] [--coset] [--key-mode fast|minimal] [--max-baby-steps B] \
[--memory-limit GIB] [--json]";

fn run(o: &Options) -> Result<bool, Box<dyn std::error::Error>> {
    let mut phases: Vec<(&str, Duration)> = Vec::new();
    // The smallest ≥128-bit ring and chain holding the whole plan (its
    // levels, and the products across ciphertexts for n > N).
    let options = PlanOptions {
        strategy: o.strategy,
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
    if !o.json {
        println!("Encrypted FFT over BN254 Fr (254-bit prime), n = {}", o.n);
        println!(
            "  parameters: N = 2^{}, log2 Q = {log_q} ({} primes), log2 P = {log_p}, security {:?}, threads {}",
            params.ring_degree().trailing_zeros(),
            params.chain_bits().len(),
            params.security_level(),
            if o.threads == 0 { "all".to_string() } else { o.threads.to_string() },
        );
    }
    let context = phase(o, &mut phases, "context", || Context::new(&params))?;
    let sk = phase(o, &mut phases, "secret + public key", || {
        SecretKey::generate(&context)
    })?;
    let pk = sk.public_key()?;
    let coset = o.coset.then_some(Fr::GENERATOR);
    let mut builder = FftPlan::<Fr>::builder(&context, o.n)
        .direction(o.direction)
        .strategy(strategy)
        .key_mode(o.key_mode);
    if let Some(max) = o.max_baby_steps {
        builder = builder.max_baby_steps(max);
    }
    if let Some(g) = coset {
        builder = builder.coset(g);
    }
    if let Some(gib) = o.memory_limit_gib {
        builder = builder.memory_limit((gib * GIB) as usize);
    }
    // Known before anything is encoded; `build` refuses the plan if it is
    // over the limit (by default the memory the system has available).
    let mut estimate = builder.memory_estimate()?;
    // Over it with several ciphertexts: the lower-memory mode keeps each
    // ciphertext's own level as plaintexts, encoded at each execution.
    let limit = o
        .memory_limit_gib
        .map(|gib| (gib * GIB) as usize)
        .or_else(he_fft::available_memory_bytes);
    if o.n > params.ring_degree() && limit.is_some_and(|l| estimate.peak_bytes() > l) {
        builder = builder.encode_per_execution();
        if !o.json {
            println!(
                "  over the memory limit ({}): own levels encoded at each execution",
                describe_estimate(&estimate)
            );
        }
        estimate = builder.memory_estimate()?;
    }
    if !o.json {
        println!("  memory estimate: {}", describe_estimate(&estimate));
    }
    let resident_before_plan = resident_bytes();
    let plan = phase(
        o,
        &mut phases,
        "plan build (factor + encode diagonals)",
        || builder.build(),
    )?;
    let cost = plan.cost();
    let keys = phase(o, &mut phases, "Galois keys", || {
        plan.generate_galois_keys(&sk)
    })?;
    let mut rng = ark_std::rand::thread_rng();
    let x: Vec<Fr> = (0..o.n).map(|_| Fr::rand(&mut rng)).collect();
    let inputs = phase(o, &mut phases, "encrypt", || plan.encrypt(&pk, &x))?;
    let outputs = phase(o, &mut phases, "FFT (homomorphic)", || {
        plan.execute(&inputs, &keys)
    })?;
    let budget = outputs
        .iter()
        .map(|ct| sk.noise_budget(ct))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .fold(f64::INFINITY, f64::min);
    let got = phase(o, &mut phases, "decrypt + decode", || {
        plan.decrypt(&sk, &outputs)
    })?;

    let start = Instant::now();
    let want = reference(o.n, o.direction, coset, &x, &plan);
    let plain = start.elapsed();
    let verified = got == want;
    let fft_time = phases
        .iter()
        .find(|(name, _)| name.starts_with("FFT"))
        .map(|p| p.1)
        .unwrap_or_default();
    let peak = big_t_bgv::peak_memory_bytes();

    if o.json {
        let times: Vec<String> = phases
            .iter()
            .map(|(name, d)| format!("\"{}\": {:.6}", name, d.as_secs_f64()))
            .collect();
        println!(
            "{{\"n\": {}, \"strategy\": \"{:?}\", \"levels\": {}, \"direction\": \"{:?}\", \"coset\": {}, \
             \"key_mode\": \"{:?}\", \"threads\": {}, \"ring_degree\": {}, \"log2_q\": {log_q}, \"log2_p\": {log_p}, \
             \"security\": \"{:?}\", \"galois_keys\": {}, \"galois_key_bytes\": {}, \"rotations\": {}, \
             \"key_switches\": {}, \"plaintext_multiplications\": {}, \"seconds\": {{{}}}, \"plain_fft_seconds\": {:.6}, \
             \"he_to_plain_ratio\": {:.1}, \"noise_budget_bits\": {budget:.1}, \"peak_memory_bytes\": {}, \
             \"memory_before_plan_bytes\": {}, \"estimated_peak_memory_bytes\": {}, \"estimated_plan_bytes\": {}, \
             \"estimated_build_bytes\": {}, \"estimated_galois_key_bytes\": {}, \"estimated_execution_bytes\": {}, \
             \"verified\": {verified}}}",
            o.n,
            strategy,
            levels,
            o.direction,
            o.coset,
            o.key_mode,
            o.threads,
            context.ring_degree(),
            params.security_level(),
            keys.len(),
            keys.size_bytes(),
            cost.rotations,
            cost.key_switches,
            cost.multiplications,
            times.join(", "),
            plain.as_secs_f64(),
            fft_time.as_secs_f64() / plain.as_secs_f64().max(1e-9),
            peak.unwrap_or(0),
            resident_before_plan.unwrap_or(0),
            estimate.peak_bytes(),
            estimate.plan_bytes,
            estimate.build_bytes,
            estimate.galois_key_bytes,
            estimate.execution_bytes,
        );
    } else {
        println!(
            "  plan: {} — {} rotations ({} of them full key switches), {} plaintext products; \
             {} Galois keys, {:.1} MiB",
            plan.describe(),
            cost.rotations,
            cost.key_switches,
            cost.multiplications,
            keys.len(),
            keys.size_bytes() as f64 / (1 << 20) as f64
        );
        println!("  remaining noise budget: {budget:.1} bits");
        println!(
            "  plain FFT (ark-poly): {:.3} ms; HE / plain = {:.0}×",
            plain.as_secs_f64() * 1e3,
            fft_time.as_secs_f64() / plain.as_secs_f64().max(1e-9)
        );
        if let Some(bytes) = peak {
            println!("  peak memory: {:.2} GiB", bytes as f64 / GIB);
            // The estimate covers what the plan adds to the process: compare
            // it with the growth of the peak over the memory held before.
            if let Some(before) = resident_before_plan {
                let grown = bytes.saturating_sub(before);
                println!(
                    "  of which {:.2} GiB above the {:.2} GiB held before the plan; \
                     estimate / measured = {:.2}",
                    grown as f64 / GIB,
                    before as f64 / GIB,
                    estimate.peak_bytes() as f64 / (grown as f64).max(1.0)
                );
            }
        }
        println!(
            "{}",
            if verified {
                "verified: the decrypted FFT equals ark-poly's"
            } else {
                "MISMATCH: the decrypted FFT differs from ark-poly's"
            }
        );
    }
    Ok(verified)
}

const GIB: f64 = (1u64 << 30) as f64;

/// The estimate's parts, in GiB.
fn describe_estimate(e: &MemoryEstimate) -> String {
    format!(
        "peak {:.2} GiB = plan {:.2} + max(build {:.2}, Galois keys {:.2} + execution {:.2})",
        e.peak_bytes() as f64 / GIB,
        e.plan_bytes as f64 / GIB,
        e.build_bytes as f64 / GIB,
        e.galois_key_bytes as f64 / GIB,
        e.execution_bytes as f64 / GIB
    )
}

/// Resident memory of this process now (Linux `VmRSS`), in bytes.
fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
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

/// Runs one phase, showing elapsed seconds on stderr while it runs.
fn phase<T, E>(
    o: &Options,
    phases: &mut Vec<(&'static str, Duration)>,
    name: &'static str,
    f: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    let done = Arc::new(AtomicBool::new(false));
    let start = Instant::now();
    let ticker = (!o.json).then(|| {
        let done = done.clone();
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(250));
                if start.elapsed() > Duration::from_secs(1) && !done.load(Ordering::Relaxed) {
                    let bar = "#".repeat((start.elapsed().as_secs() as usize % 30) + 1);
                    eprint!(
                        "\r  {name:<40} {:>7.1} s [{bar:<30}]",
                        start.elapsed().as_secs_f64()
                    );
                    let _ = std::io::stderr().flush();
                }
            }
        })
    });
    let result = f();
    let took = start.elapsed();
    done.store(true, Ordering::Relaxed);
    if let Some(t) = ticker {
        let _ = t.join();
        eprint!("\r{:<90}\r", "");
        println!("  {name:<40} {:>10.1} ms", took.as_secs_f64() * 1e3);
    }
    phases.push((name, took));
    result
}

struct Options {
    n: usize,
    strategy: Strategy,
    threads: u32,
    direction: Direction,
    coset: bool,
    key_mode: KeyMode,
    max_baby_steps: Option<usize>,
    memory_limit_gib: Option<f64>,
    json: bool,
}

impl Options {
    fn parse(mut args: impl Iterator<Item = String>) -> Result<Self, String> {
        let mut o = Options {
            n: 1024,
            strategy: Strategy::Factored { levels: None },
            threads: 0,
            direction: Direction::Forward,
            coset: false,
            key_mode: KeyMode::Fast,
            max_baby_steps: None,
            memory_limit_gib: None,
            json: false,
        };
        let mut levels = None;
        let mut dense = false;
        while let Some(arg) = args.next() {
            let mut value = || args.next().ok_or(format!("{arg} needs a value"));
            match arg.as_str() {
                "--n" => o.n = value()?.parse().map_err(|_| "--n takes a number")?,
                "--levels" => {
                    levels = Some(value()?.parse().map_err(|_| "--levels takes a number")?)
                }
                "--threads" => {
                    o.threads = value()?.parse().map_err(|_| "--threads takes a number")?
                }
                "--strategy" => match value()?.as_str() {
                    "dense" => dense = true,
                    "factored" => dense = false,
                    other => return Err(format!("unknown strategy {other:?}")),
                },
                "--key-mode" => {
                    o.key_mode = match value()?.as_str() {
                        "fast" => KeyMode::Fast,
                        "minimal" => KeyMode::MinimalKeys,
                        other => return Err(format!("unknown key mode {other:?}")),
                    }
                }
                "--max-baby-steps" => {
                    o.max_baby_steps = Some(
                        value()?
                            .parse()
                            .map_err(|_| "--max-baby-steps takes a number")?,
                    )
                }
                "--memory-limit" => {
                    o.memory_limit_gib = Some(
                        value()?
                            .parse()
                            .ok()
                            .filter(|g: &f64| g.is_finite() && *g >= 0.0)
                            .ok_or("--memory-limit takes a number of GiB")?,
                    )
                }
                "--inverse" => o.direction = Direction::Inverse,
                "--coset" => o.coset = true,
                "--json" => o.json = true,
                "--help" | "-h" => return Err("help".into()),
                other => return Err(format!("unknown flag {other:?}")),
            }
        }
        o.strategy = if dense {
            Strategy::Dense
        } else {
            Strategy::Factored { levels }
        };
        Ok(o)
    }
}
