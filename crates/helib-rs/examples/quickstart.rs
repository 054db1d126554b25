//! Quickstart: encrypt two BN254 vectors, add them, multiply by a plaintext
//! vector, switch modulus, decrypt and verify against the same computation
//! in the clear, printing timings and the noise budget after every step.
//!
//! ```text
//! cargo run --release --example quickstart                 # N = 2^16 preset
//! cargo run --release --example quickstart -- --preset n15 # N = 2^15 preset
//! cargo run --release --example quickstart -- --threads 1
//! cargo run --release --example quickstart -- --preset n15 | head -2   # exits cleanly
//! cargo run --release --example quickstart -- --json
//! ```
//!
//! With `--json` stdout is one JSON object: `preset`, `ring_degree`,
//! `log2_q`, `threads`, `slots`, `steps` (one object per step on a
//! ciphertext: `step`, `seconds`, `level`, `budget_bits`,
//! `estimated_budget_bits`), `total_s` (all steps, with context, keys,
//! encoding and decryption) and `verified`.

use ark_bn254::Fr;
use ark_std::UniformRand;
use clap::{Parser, ValueEnum};
use example_support::cli::{self, CommonArgs};
use example_support::outln;
use helib_rs::{BatchEncoder, Ciphertext, Context, Parameters, SecretKey};
use std::time::{Duration, Instant};

fn main() {
    example_support::exit_with(run(&Options::parse()).map(|()| true));
}

fn run(options: &Options) -> Result<(), Box<dyn std::error::Error>> {
    let mut params = match options.preset {
        Preset::N15 => Parameters::bn254_n15(),
        Preset::N16 => Parameters::bn254_n16(),
        Preset::N17 => Parameters::bn254_n17(),
    };
    if let Some(threads) = options.threads {
        params = Parameters::builder()
            .ring_degree(params.ring_degree())
            .plaintext_modulus(params.plaintext_modulus().clone())
            .chain_bits(params.chain_bits())
            .special_bits(params.special_bits())
            .threads(threads)
            .build()?;
    }

    let json = options.common.json;
    let mut log = Log::new(json);
    log.text(format_args!(
        "BGV quickstart, t = BN254 scalar field (254 bits)"
    ));
    let (context, took) = timed(|| Context::new(&params))?;
    log.time(took);
    log.text(format_args!(
        "  ring N = 2^{}, chain {} primes (log2 Q = {:.0}), special log2 P = {:.0}, \
         security: {:?}, threads: {}   [{}]",
        context.ring_degree().trailing_zeros(),
        context.max_level() + 1,
        context.log2_modulus(context.max_level()).unwrap_or(0.0),
        context.log2_special_modulus(),
        params.security_level(),
        context.threads()?,
        ms(took)
    ));
    let (sk, took) = timed(|| SecretKey::generate(&context))?;
    let (pk, took_pk) = timed(|| sk.public_key())?;
    log.time(took + took_pk);
    log.text(format_args!("  keys generated   [{}]", ms(took + took_pk)));

    let encoder = BatchEncoder::<Fr>::new(&context)?;
    let slots = context.ring_degree();
    let mut rng = ark_std::test_rng();
    let a: Vec<Fr> = (0..slots).map(|_| Fr::rand(&mut rng)).collect();
    let b: Vec<Fr> = (0..slots).map(|_| Fr::rand(&mut rng)).collect();
    let w: Vec<Fr> = (0..slots).map(|_| Fr::rand(&mut rng)).collect();

    let (plain_a, took) = timed(|| encoder.encode(&a))?;
    log.time(took);
    log.text(format_args!("  encode {slots} slots   [{}]", ms(took)));
    let plain_b = encoder.encode(&b)?;
    let (ct_a, took) = timed(|| pk.encrypt(&plain_a))?;
    let ct_b = pk.encrypt(&plain_b)?;
    log.step("encrypt a (public key)", &sk, &ct_a, took)?;

    let (sum, took) = timed(|| &ct_a + &ct_b)?;
    log.step("a + b", &sk, &sum, took)?;

    let multiplier = encoder.encode_for_multiplication(&w, sum.level())?;
    let (product, took) = timed(|| &sum * &multiplier)?;
    log.step("(a + b) * w", &sk, &product, took)?;

    let (switched, took) = timed(|| product.mod_switch_reduce_noise())?;
    log.step(
        "modulus switch (drop unneeded primes)",
        &sk,
        &switched,
        took,
    )?;

    let (decrypted, took) = timed(|| sk.decrypt(&switched))?;
    let (result, took_decode) = timed(|| encoder.decode(&decrypted))?;
    log.time(took + took_decode);
    log.text(format_args!(
        "  decrypt + decode   [{} + {}]",
        ms(took),
        ms(took_decode)
    ));

    let expected: Vec<Fr> = (0..slots).map(|i| (a[i] + b[i]) * w[i]).collect();
    let verified = result == expected;
    if json {
        cli::print_json(&serde_json::json!({
            "preset": options.preset,
            "ring_degree": context.ring_degree(),
            "log2_q": context.log2_modulus(context.max_level()).unwrap_or(0.0),
            "threads": context.threads()?,
            "slots": slots,
            "steps": log.steps,
            "total_s": log.total_s,
            "verified": verified,
        }));
    }
    if verified {
        log.text(format_args!(
            "verified: all {slots} slots equal (a + b) * w computed in the clear"
        ));
        Ok(())
    } else {
        let wrong = result.iter().zip(&expected).filter(|(x, y)| x != y).count();
        Err(format!("{wrong} of {slots} slots differ from the plaintext computation").into())
    }
}

/// The text report, or the steps of the JSON one.
struct Log {
    json: bool,
    steps: Vec<serde_json::Value>,
    total_s: f64,
}

impl Log {
    fn new(json: bool) -> Self {
        Log {
            json,
            steps: Vec::new(),
            total_s: 0.0,
        }
    }

    /// A line of the text report (nothing in JSON mode).
    fn text(&self, line: std::fmt::Arguments<'_>) {
        if !self.json {
            outln!("{line}");
        }
    }

    /// Adds a step's time to the total.
    fn time(&mut self, took: Duration) {
        self.total_s += took.as_secs_f64();
    }

    /// One step on a ciphertext: its time, the ciphertext's level, and both
    /// budgets.
    fn step(
        &mut self,
        step: &str,
        sk: &SecretKey,
        ct: &Ciphertext,
        took: Duration,
    ) -> helib_rs::Result<()> {
        self.time(took);
        let budget = sk.noise_budget(ct)?;
        self.steps.push(serde_json::json!({
            "step": step,
            "seconds": took.as_secs_f64(),
            "level": ct.level(),
            "budget_bits": budget,
            "estimated_budget_bits": ct.estimated_budget_bits(),
        }));
        self.text(format_args!(
            "  {step:<40} level {:>2}   budget {:>6.1} bits (estimate {:>6.1})   [{}]",
            ct.level(),
            budget,
            ct.estimated_budget_bits(),
            ms(took)
        ));
        Ok(())
    }
}

fn timed<T, E>(f: impl FnOnce() -> Result<T, E>) -> Result<(T, Duration), E> {
    let start = Instant::now();
    let value = f()?;
    Ok((value, start.elapsed()))
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

/// Encrypts two random BN254 vectors, computes (a + b) * w under
/// encryption and checks the decryption against the clear computation.
#[derive(Debug, Parser)]
#[command(version)]
struct Options {
    /// Parameter preset: ring degree N = 2^15, 2^16 or 2^17 (BN254 t).
    #[arg(long, value_enum, default_value_t = Preset::N16)]
    preset: Preset,
    /// Engine worker threads (0 = one per hardware thread) [default: the
    /// preset's]
    #[arg(long)]
    threads: Option<u32>,
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(Debug, Clone, Copy, ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
enum Preset {
    N15,
    N16,
    N17,
}
