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
use helib_rs::advice::{self, KeySwitching};
use helib_rs::noise;
use helib_rs::{
    Ciphertext, Context, EncodedPlaintext, GaloisKeys, ModSwitchPolicy, Parameters, Plaintext,
    PublicKey, RelinKey, SecretKey,
};
use num_bigint::BigUint;
use std::time::{Duration, Instant};

use crate::{Options, Result, Summary, Witness};
use example_support::outln;

mod model;
mod phases;

use model::{largest_chain_bits, schedule, Model, Step};
use phases::{Record, Run, Timer};

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
