//! The Groth16 prover's quotient h = (A·B − C)/(X^n − 1) on encrypted witness data.
//!
//! In QAP form a prover holds the evaluations a, b, c = a ∘ b of its witness
//! polynomials on the domain H of size n and needs h, the quotient of
//! A·B − C by the vanishing polynomial X^n − 1 (A, B, C their interpolants).
//! Here a client delegates that to an untrusted server under BGV encryption
//! with t = BN254 Fr, verifies the decrypted h against ark-poly's reduction
//! and checks h·(X^n − 1) = A·B − C.
//!
//! Two inputs, as the client chooses:
//!
//! * `--input coefficients` (default): the client interpolates its own a and
//!   b (two iffts in the clear), encrypts A and B in coefficient form from a
//!   pool of prepared encryptions of zero, and the server computes
//!   h = ⌊A·B / X^n⌋ with one polynomial product (he-poly: one block
//!   convolution, no rotation, no key) and switches the result down to its
//!   smallest level for the download. C is not needed.
//! * `--input evaluations` (method `convert`): the client encrypts its
//!   evaluations a and b in slots (as data from other parties would
//!   arrive); the server turns each ciphertext into coefficient form with a
//!   he-fft `ConversionPlan` (the inverse FFT on H fused with the slot
//!   layout's special FFT, one Galois-key set, built once per context and
//!   n) and then computes the same single product. n ≤ 2^16 (the converted
//!   polynomial must fit in half a ring of degree ≤ 2^17).
//! * `--input evaluations --method fft`: the client encrypts a, b, c in
//!   slots and the server runs the whole FFT pipeline (ifft, coset fft,
//!   (A'∘B' − C')/Z_H(g), coset ifft) with he-fft plans and Galois keys —
//!   the approach the project started from, kept for comparison (its own
//!   flags are listed under `--help`).
//!
//! `--json` prints one object with (at least) `verified`, `server_s`,
//! `plain_s` (ark-poly's quotient — 3 ifft, 3 coset fft, pointwise, coset
//! ifft — timed in the same process), `client_online_s`, `client_offline_s`,
//! `upload_bytes`, `download_bytes`, `peak_memory_bytes` and `security_bits`.
//!
//! ```text
//! cargo run --release --example groth16_quotient -- --n 16384 --threads 1
//! cargo run --release --example groth16_quotient -- --n 1048576 --threads 1 --json
//! cargo run --release --example groth16_quotient -- --input evaluations --n 256 --threads 1
//! cargo run --release --example groth16_quotient -- --input evaluations --method fft --n 256
//! ```

mod coefficients;
mod evaluations;
mod fft_pipeline;

use ark_bn254::Fr;
use ark_poly::univariate::DensePolynomial;
use ark_poly::{DenseUVPolynomial, EvaluationDomain, Radix2EvaluationDomain};
use ark_std::UniformRand;
use clap::{Parser, ValueEnum};
use example_support::outln;
use rand::SeedableRng;
use serde_json::{json, Value};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// What the client sends the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Input {
    /// The interpolants A and B in coefficient form.
    Coefficients,
    /// The evaluations a, b, c on H, in slots.
    Evaluations,
}

/// How the server computes h.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Method {
    /// One polynomial product (coefficient input).
    Product,
    /// Slots to coefficient form, then one polynomial product (evaluation input).
    Convert,
    /// The encrypted FFT pipeline (evaluation input).
    Fft,
}

/// Computes the Groth16 quotient of an encrypted witness and verifies it.
#[derive(Debug, Parser)]
#[command(version)]
struct Options {
    /// Domain size n (a power of two, 2 to 2^22).
    #[arg(long, default_value_t = 1 << 14)]
    n: usize,
    /// What the client sends.
    #[arg(long, value_enum, default_value_t = Input::Coefficients)]
    input: Input,
    /// How the server computes h (default: product for coefficients, convert for evaluations).
    #[arg(long, value_enum)]
    method: Option<Method>,
    /// Engine threads (0: one per core).
    #[arg(long, default_value_t = 0)]
    threads: u32,
    /// Seed of the random witness.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print one JSON object instead of the report.
    #[arg(long)]
    json: bool,
    /// FFT method only: log2 of the ring degree (12..=17).
    #[arg(long, default_value_t = 17)]
    ring_log: u32,
    /// FFT method only: factored levels per FFT (1..=4; default ⌈log2 n / 5⌉ ≤ 3).
    #[arg(long)]
    levels: Option<usize>,
    /// FFT method only: key-switching digits (default: the fewest that fit).
    #[arg(long)]
    digits: Option<usize>,
    /// Convert and fft methods: Galois keys per level, fast (more keys) or minimal
    /// (default: minimal for fft; for convert, fast up to n = 4096, minimal above).
    #[arg(long, value_enum)]
    key_mode: Option<fft_pipeline::Keys>,
}

impl Options {
    /// The FFT pipeline's key mode: minimal unless asked otherwise.
    fn fft_key_mode(&self) -> fft_pipeline::Keys {
        self.key_mode.unwrap_or(fft_pipeline::Keys::Minimal)
    }
}

/// A valid random witness on H: a, b and c = a ∘ b.
struct Witness {
    domain: Radix2EvaluationDomain<Fr>,
    a: Vec<Fr>,
    b: Vec<Fr>,
    c: Vec<Fr>,
}

impl Witness {
    fn random(n: usize, seed: u64) -> Result<Self> {
        let domain = Radix2EvaluationDomain::<Fr>::new(n)
            .filter(|d| d.size() == n)
            .ok_or_else(|| format!("--n {n} is not a power of two that BN254 Fr supports"))?;
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let a: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        let b: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        let c = a.iter().zip(&b).map(|(x, y)| *x * y).collect();
        Ok(Self { domain, a, b, c })
    }

    /// ark-poly's quotient (n coefficients) and the seconds it took.
    fn plain_quotient(&self) -> (Vec<Fr>, f64) {
        let start = std::time::Instant::now();
        let h = example_support::plain_groth16_quotient(&self.domain, &self.a, &self.b, &self.c);
        (h, start.elapsed().as_secs_f64())
    }

    /// Whether h·(X^n − 1) = A·B − C as polynomials.
    fn quotient_is_exact(&self, h: &[Fr]) -> bool {
        let n = self.domain.size();
        let poly = |v: &[Fr]| DensePolynomial::from_coefficients_vec(self.domain.ifft(v));
        let lhs = &(&poly(&self.a) * &poly(&self.b)) - &poly(&self.c);
        let mut hz = vec![Fr::from(0u64); 2 * n];
        for (i, hi) in h.iter().enumerate() {
            hz[i + n] += hi;
            hz[i] -= hi;
        }
        lhs == DensePolynomial::from_coefficients_vec(hz)
    }
}

/// What every method reports; `details` holds the method's own fields.
struct Summary {
    /// The decrypted h (n − 1 or n coefficients, natural order).
    h: Vec<Fr>,
    server_s: f64,
    client_online_s: f64,
    client_offline_s: f64,
    upload_bytes: usize,
    download_bytes: usize,
    security_bits: u32,
    details: Value,
}

fn main() {
    let options = Options::parse();
    example_support::exit_with(run(&options));
}

fn run(o: &Options) -> Result<bool> {
    let witness = Witness::random(o.n, o.seed)?;
    let method = o.method.unwrap_or(match o.input {
        Input::Coefficients => Method::Product,
        Input::Evaluations => Method::Convert,
    });
    let summary = match (o.input, method) {
        (Input::Coefficients, Method::Product) => coefficients::run(o, &witness)?,
        (Input::Evaluations, Method::Convert) => evaluations::run(o, &witness)?,
        (Input::Evaluations, Method::Fft) => fft_pipeline::run(o, &witness)?,
        (input, method) => {
            return Err(format!(
                "--input {input:?} with --method {method:?} is not available: coefficients go with \
                 product, evaluations with convert or fft"
            )
            .to_lowercase()
            .into())
        }
    };
    let (want, plain_s) = witness.plain_quotient();
    let n = o.n;
    let verified = summary.h.len() >= n - 1
        && summary.h[..n - 1] == want[..n - 1]
        && summary.h[n - 1..].iter().all(|x| *x == Fr::from(0u64))
        && want[n - 1] == Fr::from(0u64)
        && witness.quotient_is_exact(&summary.h);
    let peak = example_support::peak_memory_bytes().unwrap_or(0);
    let ratio = summary.server_s / plain_s.max(1e-12);
    if o.json {
        let mut object = json!({
            "n": n,
            "input": format!("{:?}", o.input).to_lowercase(),
            "method": format!("{method:?}").to_lowercase(),
            "threads": o.threads,
            "verified": verified,
            "server_s": summary.server_s,
            "plain_s": plain_s,
            "server_over_plain": ratio,
            "client_online_s": summary.client_online_s,
            "client_offline_s": summary.client_offline_s,
            "upload_bytes": summary.upload_bytes,
            "download_bytes": summary.download_bytes,
            "peak_memory_bytes": peak,
            "security_bits": summary.security_bits,
        });
        if let (Some(map), Value::Object(details)) = (object.as_object_mut(), summary.details) {
            map.extend(details);
        }
        example_support::cli::print_json(&object);
    } else {
        outln!(
            "server {:.3} s, plain quotient (ark-poly) {:.3} s: HE / plain = {ratio:.2}",
            summary.server_s,
            plain_s
        );
        outln!(
            "client: online {:.3} s, offline {:.3} s; upload {:.1} MiB, download {:.1} MiB; \
             peak memory {:.2} GiB; security ≥ {} bits",
            summary.client_online_s,
            summary.client_offline_s,
            summary.upload_bytes as f64 / f64::from(1 << 20),
            summary.download_bytes as f64 / f64::from(1 << 20),
            peak as f64 / f64::from(1u32 << 30),
            summary.security_bits
        );
        outln!(
            "{}",
            if verified {
                "verified: h equals ark-poly's quotient and h·(X^n − 1) = A·B − C"
            } else {
                "MISMATCH: the decrypted h is not the quotient"
            }
        );
    }
    Ok(verified)
}
