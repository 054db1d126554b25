//! Parameter advice for two workloads, and their latencies per candidate ring.
//!
//! Each extension describes what it asks of the parameters as a
//! `helib_rs::Workload`, and `helib_rs::Advisor` picks the smallest ring and
//! chain of at least 128-bit security from the noise model and the
//! engine's security table. This program prints that advice for the
//! Groth16 quotient (he-poly's one product of two polynomials of n
//! coefficients, `PolyParameters::workload`) and the encrypted FFT (he-fft's
//! default factored plan of size n, `PlanOptions::workload`), for a few n
//! each, with t = BN254 Fr.
//!
//! With `--profile` it also does what the CoFHE compiler does per network:
//! for the advised ring and the next ones up (`--candidates`), it builds a
//! context and times, on this machine, the client's side (key generation,
//! encryption, decryption) and the server's (the products, relinearizations,
//! rotations and modulus switches the workload counts), with real engine
//! calls (`Advisor::profile`, the median of `--repetitions` runs each), and
//! prints the client's and the server's totals for the workload per
//! candidate. The quotient's counts are he-poly's (two operands of c
//! blocks encrypted, a block convolution of L pointwise products, 2c − 1
//! blocks decrypted); the FFT's come from the plan built on each candidate
//! (`FftPlan::cost`: its plaintext products and full key switches, each
//! priced at one measured rotation, and its Galois keys).
//!
//! ```text
//! cargo run --release --example parameter_advice
//! cargo run --release --example parameter_advice -- --quotient-n 1024,65536 --fft-n 256,4096
//! cargo run --release --example parameter_advice -- --profile --candidates 2 --repetitions 3
//! cargo run --release --example parameter_advice -- --profile --json
//! ```
//!
//! With `--json` stdout is one JSON object: `threads`, `repetitions` and
//! `workloads`, a list of objects with `workload` (`"groth16_quotient"` or
//! `"encrypted_fft"`), `n`, `advice` (`ring_degree`, `log2_q`, `primes`,
//! `log2_p`, `log2_qp`, `max_log2_qp`, `security_bits`, `depth`,
//! `key_switching_digits` (0 for none), `needed_bits`) and `profile` (null
//! without `--profile`; otherwise per candidate: `ring_degree`, `log2_q`,
//! `log2_p`, `security_bits`, `context_s`, `client` (`key_generation_s`,
//! `relin_key_s`, `galois_key_s`, `encrypt_s`, `decrypt_s`; null where not
//! measured), `server` (`plain_product_s`, `ciphertext_product_s`,
//! `relinearization_s`, `rotation_s`, `mod_switch_s`, `addition_s`; null
//! where not counted), `operations` (the counts) and `client_total_s`,
//! `server_total_s`).

use ark_bn254::Fr;
use clap::Parser;
use example_support::cli::{self, CommonArgs};
use example_support::outln;
use he_fft::{plan_depth, FftPlan, PlanOptions};
use he_poly::PolyParameters;
use helib_rs::advice::{KeySwitching, Operations, Profile, ProfileOptions};
use helib_rs::{Advice, Advisor, Context, Workload};
use serde::Serialize;
use std::time::Duration;

fn main() {
    example_support::exit_with(run(&Options::parse()).map(|()| true));
}

/// The two workloads this program advises on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Quotient,
    Fft,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Self::Quotient => "groth16_quotient",
            Self::Fft => "encrypted_fft",
        }
    }

    fn title(self) -> &'static str {
        match self {
            Self::Quotient => {
                "Groth16 quotient (he-poly: one product of two polynomials of n coefficients)"
            }
            Self::Fft => "Encrypted FFT (he-fft: the default factored plan of size n)",
        }
    }

    /// The workload of size `n`, as the extension describes it.
    fn workload(self, n: usize, threads: u32) -> Result<Workload, Box<dyn std::error::Error>> {
        Ok(match self {
            Self::Quotient => {
                let t = <Fr as ark_ff::PrimeField>::MODULUS.into();
                PolyParameters::workload(&t, n, 1)?.threads(threads)
            }
            Self::Fft => PlanOptions::default().workload::<Fr>(n, threads)?,
        })
    }
}

fn run(o: &Options) -> Result<(), Box<dyn std::error::Error>> {
    let threads_text = match o.threads {
        0 => "all hardware threads".to_string(),
        1 => "1 engine thread".to_string(),
        t => format!("{t} engine threads"),
    };
    if !o.common.json {
        outln!(
            "Parameter advice: the smallest ring of at least 128-bit security holding each \
             workload (helib_rs::Advisor), t = BN254 Fr, {threads_text}"
        );
    }
    let mut reports = Vec::new();
    for (kind, sizes) in [(Kind::Quotient, &o.quotient_n), (Kind::Fft, &o.fft_n)] {
        let mut advised = Vec::new();
        for &n in sizes.iter() {
            let advisor = Advisor::new(kind.workload(n, o.threads)?);
            let advice = advisor.advise()?;
            advised.push((n, advisor, advice));
        }
        if !o.common.json {
            outln!();
            outln!("{}", kind.title());
            outln!(
                "{:>8} {:>6} {:>7} {:>6} {:>7} {:>8} {:>8} {:>8} {:>5} {:>13}",
                "n",
                "N",
                "log2 Q",
                "primes",
                "log2 P",
                "log2 QP",
                "max",
                "security",
                "depth",
                "key switching"
            );
            for (n, _, advice) in &advised {
                outln!("{}", advice_row(*n, advice));
            }
        }
        for (n, advisor, advice) in advised {
            let profile = if o.profile {
                let mut candidates = advisor.candidates(o.candidates)?;
                if kind == Kind::Fft {
                    candidates = candidates
                        .into_iter()
                        .map(|c| count_plan(c, n))
                        .collect::<Result<_, _>>()?;
                }
                let options = ProfileOptions {
                    repetitions: o.repetitions,
                };
                let profiles = Advisor::profile(&candidates, &options)?;
                if !o.common.json {
                    print_profiles(n, &profiles, o.repetitions);
                }
                Some(profiles.iter().map(ProfileReport::from).collect())
            } else {
                None
            };
            reports.push(WorkloadReport {
                workload: kind.name(),
                n,
                advice: AdviceReport::from(&advice),
                profile,
            });
        }
    }
    if o.common.json {
        cli::print_json(&Report {
            threads: o.threads,
            repetitions: o.repetitions,
            workloads: reports,
        });
    } else if !o.profile {
        outln!();
        outln!("Add --profile for the client's and the server's latency per candidate ring.");
    }
    Ok(())
}

/// The plan's counts on `advice`'s ring: built on a context from its
/// parameters, its diagonals encoded per execution (nothing held).
fn count_plan(advice: Advice, n: usize) -> Result<Advice, Box<dyn std::error::Error>> {
    let context = Context::new(advice.parameters())?;
    let (_, strategy) = plan_depth::<Fr>(n, context.ring_degree(), PlanOptions::default())?;
    let plan = FftPlan::<Fr>::builder(&context, n)
        .strategy(strategy)
        .encode_per_execution()
        .build()?;
    let cost = plan.cost();
    let operations = Operations {
        encryptions: plan.ciphertexts(),
        decryptions: plan.ciphertexts(),
        galois_keys: plan.required_galois_elements().len(),
        plain_products: cost.multiplications,
        rotations: cost.key_switches,
        ..Operations::default()
    };
    Ok(advice.with_operations(operations))
}

/// One line of the advice table.
fn advice_row(n: usize, advice: &Advice) -> String {
    format!(
        "{:>8} {:>6} {:>7} {:>6} {:>7} {:>8} {:>8} {:>8} {:>5} {:>13}",
        n,
        format!("2^{}", advice.ring_degree().trailing_zeros()),
        advice.chain_bits(),
        advice.parameters().chain_bits().len(),
        advice.special_bits(),
        advice.log_qp(),
        advice.max_log_qp(),
        advice.security().bits(),
        advice.demand().circuit().depth(),
        match advice.key_switching() {
            KeySwitching::None => "none".to_string(),
            KeySwitching::Digits(d) => format!("{d} digits"),
        }
    )
}

/// Milliseconds with three significant figures, or "-".
fn ms(latency: Option<Duration>) -> String {
    match latency {
        None => "-".to_string(),
        Some(d) => {
            let ms = d.as_secs_f64() * 1e3;
            if ms >= 100.0 {
                format!("{ms:.0}")
            } else if ms >= 10.0 {
                format!("{ms:.1}")
            } else {
                format!("{ms:.2}")
            }
        }
    }
}

/// The latency table of one workload's candidates.
fn print_profiles(n: usize, profiles: &[Profile], repetitions: usize) {
    outln!(
        "  n = {n}: measured here, ms (median of {repetitions}); totals in s, weighted by the \
         workload's counts"
    );
    outln!(
        "  {:>5} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} | {:>8} {:>8} {:>8} {:>8} {:>8}",
        "N",
        "context",
        "keys",
        "relin k",
        "Galois k",
        "encrypt",
        "decrypt",
        "client s",
        "ct×pt",
        "ct×ct",
        "relin",
        "rotate",
        "server s"
    );
    for p in profiles {
        outln!(
            "  {:>5} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8.3} | {:>8} {:>8} {:>8} {:>8} {:>8.3}",
            format!("2^{}", p.ring_degree.trailing_zeros()),
            ms(Some(p.context)),
            ms(Some(p.client.key_generation)),
            ms(p.client.relin_key),
            ms(p.client.galois_key),
            ms(Some(p.client.encrypt)),
            ms(Some(p.client.decrypt)),
            p.client_total().as_secs_f64(),
            ms(p.server.plain_product),
            ms(p.server.ciphertext_product),
            ms(p.server.relinearization),
            ms(p.server.rotation),
            p.server_total().as_secs_f64()
        );
    }
    if let Some(p) = profiles.first() {
        let ops = &p.operations;
        outln!(
            "  counted at 2^{}: {} encryptions, {} decryptions, {} Galois keys, {} ct×pt, \
             {} ct×ct, {} relinearizations, {} rotations",
            p.ring_degree.trailing_zeros(),
            ops.encryptions,
            ops.decryptions,
            ops.galois_keys,
            ops.plain_products,
            ops.ciphertext_products,
            ops.relinearizations,
            ops.rotations
        );
    }
}

/// The `--json` report (schema in the module documentation).
#[derive(Serialize)]
struct Report {
    threads: u32,
    repetitions: usize,
    workloads: Vec<WorkloadReport>,
}

#[derive(Serialize)]
struct WorkloadReport {
    workload: &'static str,
    n: usize,
    advice: AdviceReport,
    profile: Option<Vec<ProfileReport>>,
}

#[derive(Serialize)]
struct AdviceReport {
    ring_degree: usize,
    log2_q: u32,
    primes: usize,
    log2_p: u32,
    log2_qp: u32,
    max_log2_qp: u32,
    security_bits: u32,
    depth: usize,
    key_switching_digits: usize,
    needed_bits: f64,
}

impl From<&Advice> for AdviceReport {
    fn from(a: &Advice) -> Self {
        Self {
            ring_degree: a.ring_degree(),
            log2_q: a.chain_bits(),
            primes: a.parameters().chain_bits().len(),
            log2_p: a.special_bits(),
            log2_qp: a.log_qp(),
            max_log2_qp: a.max_log_qp(),
            security_bits: a.security().bits(),
            depth: a.demand().circuit().depth(),
            key_switching_digits: match a.key_switching() {
                KeySwitching::Digits(d) => d,
                KeySwitching::None => 0,
            },
            needed_bits: a.needed_bits(),
        }
    }
}

#[derive(Serialize)]
struct ProfileReport {
    ring_degree: usize,
    log2_q: u32,
    log2_p: u32,
    security_bits: u32,
    context_s: f64,
    client: ClientReport,
    server: ServerReport,
    operations: OperationsReport,
    client_total_s: f64,
    server_total_s: f64,
}

#[derive(Serialize)]
struct ClientReport {
    key_generation_s: f64,
    relin_key_s: Option<f64>,
    galois_key_s: Option<f64>,
    encrypt_s: f64,
    decrypt_s: f64,
}

#[derive(Serialize)]
struct ServerReport {
    plain_product_s: Option<f64>,
    ciphertext_product_s: Option<f64>,
    relinearization_s: Option<f64>,
    rotation_s: Option<f64>,
    mod_switch_s: Option<f64>,
    addition_s: Option<f64>,
}

#[derive(Serialize)]
struct OperationsReport {
    encryptions: usize,
    decryptions: usize,
    galois_keys: usize,
    plain_products: usize,
    ciphertext_products: usize,
    relinearizations: usize,
    rotations: usize,
    mod_switches: usize,
    additions: usize,
}

fn seconds(d: Option<Duration>) -> Option<f64> {
    d.map(|d| d.as_secs_f64())
}

impl From<&Profile> for ProfileReport {
    fn from(p: &Profile) -> Self {
        let (c, s, ops) = (&p.client, &p.server, &p.operations);
        Self {
            ring_degree: p.ring_degree,
            log2_q: p.chain_bits,
            log2_p: p.special_bits,
            security_bits: p.security.bits(),
            context_s: p.context.as_secs_f64(),
            client: ClientReport {
                key_generation_s: c.key_generation.as_secs_f64(),
                relin_key_s: seconds(c.relin_key),
                galois_key_s: seconds(c.galois_key),
                encrypt_s: c.encrypt.as_secs_f64(),
                decrypt_s: c.decrypt.as_secs_f64(),
            },
            server: ServerReport {
                plain_product_s: seconds(s.plain_product),
                ciphertext_product_s: seconds(s.ciphertext_product),
                relinearization_s: seconds(s.relinearization),
                rotation_s: seconds(s.rotation),
                mod_switch_s: seconds(s.mod_switch),
                addition_s: seconds(s.addition),
            },
            operations: OperationsReport {
                encryptions: ops.encryptions,
                decryptions: ops.decryptions,
                galois_keys: ops.galois_keys,
                plain_products: ops.plain_products,
                ciphertext_products: ops.ciphertext_products,
                relinearizations: ops.relinearizations,
                rotations: ops.rotations,
                mod_switches: ops.mod_switches,
                additions: ops.additions,
            },
            client_total_s: p.client_total().as_secs_f64(),
            server_total_s: p.server_total().as_secs_f64(),
        }
    }
}

/// Prints the parameters helib_rs::Advisor picks for the Groth16 quotient
/// (he-poly) and the encrypted FFT (he-fft) at a few sizes, and with
/// --profile the client's and the server's latency per candidate ring,
/// measured on this machine.
#[derive(Debug, Parser)]
#[command(version)]
struct Options {
    /// Domain sizes of the Groth16 quotient, comma-separated
    #[arg(long, value_delimiter = ',', value_parser = cli::positive, default_values_t = [1024, 16384, 65536])]
    quotient_n: Vec<usize>,
    /// FFT sizes (powers of two), comma-separated
    #[arg(long, value_delimiter = ',', value_parser = cli::positive, default_values_t = [256, 1024, 4096])]
    fft_n: Vec<usize>,
    /// Measure the client's and the server's latencies on each candidate ring
    #[arg(long, default_value_t = false)]
    profile: bool,
    /// Candidate rings to profile per workload: the advised one and the
    /// next ones up that also hold it
    #[arg(long, default_value_t = 2, value_parser = cli::positive)]
    candidates: usize,
    /// Runs of each measured operation (the median is reported)
    #[arg(long, default_value_t = 3, value_parser = cli::positive)]
    repetitions: usize,
    /// Engine worker threads (0 = one per hardware thread)
    #[arg(long, default_value_t = 1)]
    threads: u32,
    #[command(flatten)]
    common: CommonArgs,
}
