//! Server-side conversion of encrypted evaluations into coefficient form.
//!
//! A party encrypted the values a of its polynomial on H (|H| = n) in the
//! slots, as he-fft's plans lay them out. The server turns the ciphertext
//! into one whose plaintext polynomial is the interpolant A (n coefficients)
//! with a `ConversionPlan`, so that products of converted ciphertexts are
//! polynomial products. The example picks the smallest ≥128-bit parameters
//! holding the conversion's levels plus one product, times every phase,
//! decrypts and checks the coefficients against ark-poly's `ifft`, then
//! multiplies two converted ciphertexts and checks A·B.
//!
//! ```text
//! cargo run --release --example slots_to_coefficients -- --n 256 --threads 1
//! cargo run --release --example slots_to_coefficients -- --n 65536 --threads 1 \
//!     --key-mode minimal --per-execution
//! cargo run --release --example slots_to_coefficients -- --n 1024 --inverse   # coefficients → values on H
//! ```

use ark_bn254::Fr;
use ark_ff::PrimeField;
use ark_poly::univariate::DensePolynomial;
use ark_poly::{DenseUVPolynomial, EvaluationDomain, Radix2EvaluationDomain};
use ark_std::UniformRand;
use he_fft::{
    conversion_levels, product_bits, suggest_conversion_parameters, suggest_parameters_at_least,
    Conversion, ConversionPlan, KeyMode, MemoryEstimate,
};
use helib_rs::{Context, SecretKey};
use std::time::{Duration, Instant};

const USAGE: &str = "usage: slots_to_coefficients [--n N] [--levels K] [--threads T] [--inverse] \
[--key-mode fast|minimal] [--max-baby-steps B] [--per-execution] [--no-product] \
[--memory-limit GIB] [--json]

  --n N               values (a power of two, at most N/2 of the ring chosen); default 256
  --levels K          multiplication levels of the conversion; default: the fewest with at
                      most 256 diagonals per level (he_fft::conversion_levels)
  --threads T         engine threads (0 = all); default 1
  --inverse           coefficients → values on H instead
  --key-mode M        fast (default: double-hoisted baby steps) or minimal (fewer keys)
  --max-baby-steps B  at most B baby steps per level
  --per-execution     encode each level's diagonals when it runs (less memory)
  --no-product        skip the product of two converted ciphertexts (one level less)
  --memory-limit GIB  refuse a plan whose estimated peak is above GIB
  --json              one JSON object on stdout instead of the report";

fn main() {
    let options = match Options::parse(std::env::args().skip(1)) {
        Ok(o) => o,
        Err(message) if message == "help" => {
            println!("{USAGE}");
            return;
        }
        Err(message) => {
            eprintln!("{message}\n\n{USAGE}");
            std::process::exit(2);
        }
    };
    big_t_bgv::exit_with(run(&options));
}

fn run(o: &Options) -> Result<bool, Box<dyn std::error::Error>> {
    let mut phases: Vec<(&str, Duration)> = Vec::new();
    let conversion = if o.inverse {
        Conversion::CoefficientsToSlots
    } else {
        Conversion::SlotsToCoefficients
    };
    // The product only follows the forward direction.
    let after = usize::from(!o.inverse && o.product);
    let params = match o.levels {
        Some(k) => suggest_parameters_at_least::<Fr>(
            2 * o.n,
            k,
            |log_n| after as f64 * product_bits(f64::from(Fr::MODULUS_BIT_SIZE), log_n),
            o.threads,
        )?,
        None => suggest_conversion_parameters::<Fr>(o.n, conversion, after, o.threads)?,
    };
    let ring = params.ring_degree();
    let levels = match o.levels {
        Some(k) => k,
        None => conversion_levels::<Fr>(ring, o.n, conversion)?,
    };
    let log_q: u32 = params.chain_bits().iter().sum();
    let log_p: u32 = params.special_bits().iter().sum();
    say(o, || {
        format!(
            "{conversion:?} over BN254 Fr, n = {}: N = 2^{}, log2 Q = {log_q} ({} primes), \
             log2 P = {log_p}, security {:?}, {levels} conversion level(s) + {after} product, threads {}",
            o.n,
            ring.trailing_zeros(),
            params.chain_bits().len(),
            params.security_level(),
            if o.threads == 0 { "all".to_string() } else { o.threads.to_string() }
        )
    });
    let context = timed(o, &mut phases, "context", || Context::new(&params))?;
    let sk = timed(o, &mut phases, "secret + public key", || {
        SecretKey::generate(&context)
    })?;
    let pk = sk.public_key()?;
    let mut builder = ConversionPlan::<Fr>::builder(&context, o.n, conversion)
        .levels(levels)
        .key_mode(o.key_mode);
    if let Some(b) = o.max_baby_steps {
        builder = builder.max_baby_steps(b);
    }
    if o.per_execution {
        builder = builder.encode_per_execution();
    }
    if let Some(gib) = o.memory_limit_gib {
        builder = builder.memory_limit((gib * GIB) as usize);
    }
    let plan = timed(o, &mut phases, "plan (diagonals + encoding)", || {
        builder.build()
    })?;
    let estimate = plan.memory_estimate();
    let cost = plan.cost();
    say(o, || {
        format!(
            "  plan: {}\n  {} rotations ({} full key switches), {} plaintext products\n  memory estimate: {}",
            plan.describe(),
            cost.rotations,
            cost.key_switches,
            cost.multiplications,
            describe(&estimate)
        )
    });
    let keys = timed(o, &mut phases, "Galois keys", || {
        plan.generate_galois_keys(&sk)
    })?;
    say(o, || {
        format!(
            "  {} Galois keys, {:.2} GiB",
            keys.len(),
            keys.size_bytes() as f64 / GIB
        )
    });
    let mut rng = ark_std::rand::thread_rng();
    let a: Vec<Fr> = (0..o.n).map(|_| Fr::rand(&mut rng)).collect();
    let domain = Radix2EvaluationDomain::<Fr>::new(o.n).ok_or("n has no domain")?;
    let input = timed(o, &mut phases, "encrypt", || plan.encrypt(&pk, &a))?;
    let output = timed(o, &mut phases, "conversion (server)", || {
        plan.execute(&input, &keys)
    })?;
    let server = phases.last().map(|p| p.1).unwrap_or_default();
    let budget = sk.noise_budget(&output)?;
    let got = timed(o, &mut phases, "decrypt", || plan.decrypt(&sk, &output))?;
    let want = match conversion {
        Conversion::SlotsToCoefficients => domain.ifft(&a),
        Conversion::CoefficientsToSlots => domain.fft(&a),
    };
    let mut verified = got == want;
    say(o, || {
        format!(
            "  {}; remaining noise budget {budget:.1} bits (the server's key-free estimate: {:.1})",
            if verified {
                "verified against ark-poly"
            } else {
                "MISMATCH against ark-poly"
            },
            output.estimated_budget_bits()
        )
    });
    let mut product_seconds = None;
    if after == 1 {
        // A second converted ciphertext and the product of the two.
        let b: Vec<Fr> = (0..o.n).map(|_| Fr::rand(&mut rng)).collect();
        let cb = plan.execute(&plan.encrypt(&pk, &b)?, &keys)?;
        let start = Instant::now();
        let product = output.multiply(&cb)?;
        product_seconds = Some(start.elapsed().as_secs_f64());
        let product_budget = sk.noise_budget(&product)?;
        let coefficients: Vec<Fr> = sk
            .decrypt(&product)?
            .coefficients()
            .into_iter()
            .take(2 * o.n - 1)
            .map(Fr::from)
            .collect();
        let ab = &DensePolynomial::from_coefficients_vec(domain.ifft(&a))
            * &DensePolynomial::from_coefficients_vec(domain.ifft(&b));
        let product_ok = coefficients == ab.coeffs();
        verified &= product_ok;
        say(o, || {
            format!(
                "  product of two converted ciphertexts: {:.1} ms, budget left {product_budget:.1} bits, {}",
                product_seconds.unwrap_or(0.0) * 1e3,
                if product_ok {
                    "A·B verified against ark-poly"
                } else {
                    "A·B MISMATCH"
                }
            )
        });
    }
    let peak = big_t_bgv::peak_memory_bytes();
    if o.json {
        let times: Vec<String> = phases
            .iter()
            .map(|(name, d)| format!("\"{name}\": {:.6}", d.as_secs_f64()))
            .collect();
        println!(
            "{{\"conversion\": \"{conversion:?}\", \"n\": {}, \"ring_degree\": {ring}, \"log2_q\": {log_q}, \
             \"log2_p\": {log_p}, \"security\": \"{:?}\", \"levels\": {levels}, \"threads\": {}, \
             \"key_mode\": \"{:?}\", \"diagonals\": {:?}, \"rotations\": {}, \"key_switches\": {}, \
             \"plaintext_multiplications\": {}, \"galois_keys\": {}, \"seconds\": {{{}}}, \
             \"server_seconds\": {:.6}, \"product_seconds\": {}, \"noise_budget_bits\": {budget:.1}, \
             \"estimated_peak_memory_bytes\": {}, \"peak_memory_bytes\": {}, \"verified\": {verified}}}",
            o.n,
            params.security_level(),
            o.threads,
            o.key_mode,
            plan.diagonals_per_level(),
            cost.rotations,
            cost.key_switches,
            cost.multiplications,
            keys.len(),
            times.join(", "),
            server.as_secs_f64(),
            product_seconds.map_or("null".to_string(), |s| format!("{s:.6}")),
            estimate.peak_bytes(),
            peak.unwrap_or(0),
        );
    } else {
        println!(
            "  server conversion time: {:.3} s; peak memory {:.2} GiB",
            server.as_secs_f64(),
            peak.unwrap_or(0) as f64 / GIB
        );
    }
    Ok(verified)
}

const GIB: f64 = (1u64 << 30) as f64;

fn describe(e: &MemoryEstimate) -> String {
    format!(
        "peak {:.2} GiB = plan {:.2} + max(build {:.2}, Galois keys {:.2} + execution {:.2})",
        e.peak_bytes() as f64 / GIB,
        e.plan_bytes as f64 / GIB,
        e.build_bytes as f64 / GIB,
        e.galois_key_bytes as f64 / GIB,
        e.execution_bytes as f64 / GIB
    )
}

/// Prints a report line unless the output is JSON.
fn say(o: &Options, line: impl FnOnce() -> String) {
    if !o.json {
        println!("{}", line());
    }
}

/// Runs and times one phase.
fn timed<T, E>(
    o: &Options,
    phases: &mut Vec<(&'static str, Duration)>,
    name: &'static str,
    f: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    let start = Instant::now();
    let result = f();
    let took = start.elapsed();
    say(o, || {
        format!("  {name:<32} {:>10.1} ms", took.as_secs_f64() * 1e3)
    });
    phases.push((name, took));
    result
}

struct Options {
    n: usize,
    levels: Option<usize>,
    threads: u32,
    inverse: bool,
    key_mode: KeyMode,
    max_baby_steps: Option<usize>,
    per_execution: bool,
    product: bool,
    memory_limit_gib: Option<f64>,
    json: bool,
}

impl Options {
    fn parse(mut args: impl Iterator<Item = String>) -> Result<Self, String> {
        let mut o = Options {
            n: 256,
            levels: None,
            threads: 1,
            inverse: false,
            key_mode: KeyMode::Fast,
            max_baby_steps: None,
            per_execution: false,
            product: true,
            memory_limit_gib: None,
            json: false,
        };
        while let Some(arg) = args.next() {
            let mut value = || args.next().ok_or(format!("{arg} needs a value"));
            match arg.as_str() {
                "--n" => o.n = value()?.parse().map_err(|_| "--n takes a number")?,
                "--levels" => {
                    o.levels = Some(value()?.parse().map_err(|_| "--levels takes a number")?)
                }
                "--threads" => {
                    o.threads = value()?.parse().map_err(|_| "--threads takes a number")?
                }
                "--inverse" => o.inverse = true,
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
                "--per-execution" => o.per_execution = true,
                "--no-product" => o.product = false,
                "--memory-limit" => {
                    o.memory_limit_gib = Some(
                        value()?
                            .parse()
                            .ok()
                            .filter(|g: &f64| g.is_finite() && *g >= 0.0)
                            .ok_or("--memory-limit takes a number of GiB")?,
                    )
                }
                "--json" => o.json = true,
                "--help" | "-h" => return Err("help".into()),
                other => return Err(format!("unknown flag {other:?}")),
            }
        }
        Ok(o)
    }
}
