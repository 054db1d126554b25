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
//!
//! With `--json` stdout is one JSON object: `conversion`, `n`,
//! `ring_degree`, `log2_q`, `log2_p`, `security`, `levels`, `threads`,
//! `key_mode`, `diagonals` (per level), `rotations`, `key_switches`,
//! `plaintext_multiplications`, `galois_keys`, `seconds` (phase name →
//! seconds), `total_s`, `server_seconds`, `product_seconds` (null without
//! the product), `noise_budget_bits`, `estimated_peak_memory_bytes`,
//! `peak_memory_bytes` (null where unknown) and `verified`.

use ark_bn254::Fr;
use ark_ff::PrimeField;
use ark_poly::univariate::DensePolynomial;
use ark_poly::{DenseUVPolynomial, EvaluationDomain, Radix2EvaluationDomain};
use ark_std::UniformRand;
use clap::Parser;
use example_support::cli::{self, CommonArgs, Phases, GIB};
use example_support::outln;
use examples::key_mode::KeyModeArg;
use he_fft::{
    conversion_levels, suggest_conversion_parameters, suggest_parameters_at_least, Conversion,
    ConversionPlan,
};
use helib_rs::{Context, SecretKey};
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Instant;

fn main() {
    example_support::exit_with(run(&Options::parse()));
}

fn run(o: &Options) -> Result<bool, Box<dyn std::error::Error>> {
    let mut phases = Phases::new(o.common.json);
    let conversion = if o.inverse {
        Conversion::CoefficientsToSlots
    } else {
        Conversion::SlotsToCoefficients
    };
    // The product only follows the forward direction.
    let after = usize::from(!o.inverse && !o.no_product);
    let params = match o.levels {
        Some(k) => suggest_parameters_at_least::<Fr>(
            2 * o.n,
            k,
            |log_n| {
                let log_t = f64::from(Fr::MODULUS_BIT_SIZE);
                after as f64 * helib_rs::noise::transformed_product_bits(1 << log_n, log_t)
            },
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
    let context = phases.run("context", || Context::new(&params))?;
    let (sk, pk) = phases.run("secret + public key", || -> helib_rs::Result<_> {
        let sk = SecretKey::generate(&context)?;
        let pk = sk.public_key()?;
        Ok((sk, pk))
    })?;
    let mut builder = ConversionPlan::<Fr>::builder(&context, o.n, conversion)
        .levels(levels)
        .key_mode(o.key_mode.into());
    if let Some(b) = o.max_baby_steps {
        builder = builder.max_baby_steps(b);
    }
    if o.per_execution {
        builder = builder.encode_per_execution();
    }
    if let Some(gib) = o.memory_limit {
        builder = builder.memory_limit((gib * GIB) as usize);
    }
    let plan = phases.run("plan (diagonals + encoding)", || builder.build())?;
    let estimate = plan.memory_estimate();
    let cost = plan.cost();
    say(o, || {
        format!(
            "  plan: {}\n  {} rotations ({} full key switches), {} plaintext products\n  memory estimate: {}",
            plan.describe(),
            cost.rotations,
            cost.key_switches,
            cost.multiplications,
            estimate
        )
    });
    let keys = phases.run("Galois keys", || plan.generate_galois_keys(&sk))?;
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
    let input = phases.run("encrypt", || plan.encrypt(&pk, &a))?;
    let output = phases.run(SERVER, || plan.execute(&input, &keys))?;
    let server = phases.get(SERVER);
    let budget = sk.noise_budget(&output)?;
    let got = phases.run("decrypt", || plan.decrypt(&sk, &output))?;
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
    let peak = cli::peak_memory_bytes();
    if o.common.json {
        let seconds = phases
            .records()
            .into_iter()
            .map(|record| (record.phase.to_string(), record.wall_s))
            .collect();
        cli::print_json(&Report {
            conversion: format!("{conversion:?}"),
            n: o.n,
            ring_degree: ring,
            log2_q: log_q,
            log2_p: log_p,
            security: format!("{:?}", params.security_level()),
            levels,
            threads: o.threads,
            key_mode: o.key_mode,
            diagonals: plan.diagonals_per_level(),
            rotations: cost.rotations,
            key_switches: cost.key_switches,
            plaintext_multiplications: cost.multiplications,
            galois_keys: keys.len(),
            seconds,
            total_s: phases.total().as_secs_f64(),
            server_seconds: server.as_secs_f64(),
            product_seconds,
            noise_budget_bits: budget,
            estimated_peak_memory_bytes: estimate.peak_bytes(),
            peak_memory_bytes: peak,
            verified,
        });
    } else {
        outln!(
            "  server conversion time: {:.3} s; peak memory {:.2} GiB",
            server.as_secs_f64(),
            peak.unwrap_or(0) as f64 / GIB
        );
    }
    Ok(verified)
}

/// Prints a report line unless the output is JSON.
fn say(o: &Options, line: impl FnOnce() -> String) {
    if !o.common.json {
        outln!("{}", line());
    }
}

/// The phase the server runs (timed apart in the report).
const SERVER: &str = "conversion (server)";

/// The `--json` report (schema in the module documentation).
#[derive(Serialize)]
struct Report {
    conversion: String,
    n: usize,
    ring_degree: usize,
    log2_q: u32,
    log2_p: u32,
    security: String,
    levels: usize,
    threads: u32,
    key_mode: KeyModeArg,
    diagonals: Vec<usize>,
    rotations: usize,
    key_switches: usize,
    plaintext_multiplications: usize,
    galois_keys: usize,
    seconds: BTreeMap<String, f64>,
    total_s: f64,
    server_seconds: f64,
    product_seconds: Option<f64>,
    noise_budget_bits: f64,
    estimated_peak_memory_bytes: usize,
    peak_memory_bytes: Option<u64>,
    verified: bool,
}

/// Converts encrypted evaluations on H into coefficient form (or back) with
/// he-fft's ConversionPlan and checks the result against ark-poly.
#[derive(Debug, Parser)]
#[command(version)]
struct Options {
    /// Values (a power of two, at most N/2 of the ring chosen)
    #[arg(long, default_value_t = 256)]
    n: usize,
    /// Multiplication levels of the conversion [default: the fewest with at
    /// most 256 diagonals per level (he_fft::conversion_levels)]
    #[arg(long)]
    levels: Option<usize>,
    /// Engine worker threads (0 = one per hardware thread)
    #[arg(long, default_value_t = 1)]
    threads: u32,
    /// Coefficients to values on H instead
    #[arg(long, default_value_t = false)]
    inverse: bool,
    /// Galois keys: fast (double-hoisted baby steps) or minimal (fewer keys)
    #[arg(long, value_enum, default_value_t = KeyModeArg::Fast)]
    key_mode: KeyModeArg,
    /// At most this many baby steps per level [default: no cap]
    #[arg(long)]
    max_baby_steps: Option<usize>,
    /// Encode each level's diagonals when it runs (less memory)
    #[arg(long, default_value_t = false)]
    per_execution: bool,
    /// Skip the product of two converted ciphertexts (one level less)
    #[arg(long, default_value_t = false)]
    no_product: bool,
    /// Refuse a plan whose estimated peak is above this many GiB [default:
    /// the memory the system has available]
    #[arg(long, value_parser = cli::gib)]
    memory_limit: Option<f64>,
    #[command(flatten)]
    common: CommonArgs,
}
