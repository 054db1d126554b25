//! Criterion benches of he-poly against the same computation in the clear,
//! over BN254 Fr at ≥128-bit security (`PolyParameters`, 1 engine thread):
//!
//! - `product`: A·B for two polynomials of n coefficients — encrypted (one
//!   block convolution, `EncryptedPolynomial::mul`) and plain (ark-poly's
//!   FFT product);
//! - `groth16_quotient`: h from A and B — encrypted on the server
//!   (`groth16_quotient` and the switch down to the smallest level that
//!   still decrypts, which shrinks the download) and plain (ark-poly as
//!   ark-groth16 computes it: 3 ifft, 3 coset fft, pointwise, coset ifft).
//!
//! Before criterion runs, every size prints one line per operation with the
//! median of a few timed runs of each side and their ratio (HE / plain), and
//! checks the decrypted results against ark-poly.
//!
//! Environment: `POLY_BENCH_LOG_N`, sizes as log2 n (default `10,14,16`;
//! the table uses `10,14,16,18,20`).

use std::time::{Duration, Instant};

use ark_bn254::Fr;
use ark_poly::univariate::DensePolynomial;
use ark_poly::{DenseUVPolynomial, EvaluationDomain, Radix2EvaluationDomain};
use ark_std::UniformRand;
use criterion::{BenchmarkId, Criterion, SamplingMode};
use example_support::plain_groth16_quotient;
use he_poly::{EncryptedPolynomial, PolyParameters};
use helib_rs::{Context, SecretKey};
use rand::SeedableRng;

struct Setup {
    n: usize,
    domain: Radix2EvaluationDomain<Fr>,
    vectors: [Vec<Fr>; 3],
    interpolants: [Vec<Fr>; 2],
    a: EncryptedPolynomial<Fr>,
    b: EncryptedPolynomial<Fr>,
    label: String,
}

fn setup(log_n: u32) -> Setup {
    let n = 1usize << log_n;
    let params = PolyParameters::for_field::<Fr>(n, 1).expect("parameters");
    let context = Context::new(params.parameters()).expect("context");
    context.set_threads(1).expect("one thread");
    let sk = SecretKey::generate(&context).expect("secret key");
    let pk = sk.public_key().expect("public key");
    let mut rng = rand::rngs::StdRng::seed_from_u64(u64::from(log_n));
    let domain = Radix2EvaluationDomain::<Fr>::new(n).expect("domain");
    let a: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    let b: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    let c: Vec<Fr> = a.iter().zip(&b).map(|(x, y)| *x * y).collect();
    let interpolants = [domain.ifft(&a), domain.ifft(&b)];
    let encrypt =
        |v: &[Fr]| EncryptedPolynomial::encrypt(&pk, v, params.stride()).expect("encrypt");
    let (ea, eb) = (encrypt(&interpolants[0]), encrypt(&interpolants[1]));
    // Check both operations once against ark-poly.
    let h = EncryptedPolynomial::groth16_quotient(&ea, &eb, n)
        .and_then(|h| h.mod_switch_reduce_noise())
        .and_then(|h| h.decrypt(&sk))
        .expect("quotient");
    assert_eq!(
        h[..],
        plain_groth16_quotient(&domain, &a, &b, &c)[..n - 1],
        "quotient at n = {n}"
    );
    let p = ea.mul(&eb).and_then(|p| p.decrypt(&sk)).expect("product");
    let expected = &DensePolynomial::from_coefficients_slice(&interpolants[0])
        * &DensePolynomial::from_coefficients_slice(&interpolants[1]);
    assert_eq!(
        p[..expected.coeffs.len()],
        expected.coeffs[..],
        "product at n = {n}"
    );
    let label = format!(
        "n=2^{log_n}/N=2^{}/logQ={}",
        params.parameters().ring_degree().trailing_zeros(),
        params.parameters().chain_bits().iter().sum::<u32>()
    );
    Setup {
        n,
        domain,
        vectors: [a, b, c],
        interpolants,
        a: ea,
        b: eb,
        label,
    }
}

fn median(mut f: impl FnMut(), runs: usize) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

fn he_quotient(s: &Setup) -> EncryptedPolynomial<Fr> {
    EncryptedPolynomial::groth16_quotient(&s.a, &s.b, s.n)
        .and_then(|h| h.mod_switch_reduce_noise())
        .expect("quotient")
}

fn he_product(s: &Setup) -> EncryptedPolynomial<Fr> {
    s.a.mul(&s.b).expect("product")
}

fn plain_quotient(s: &Setup) -> Vec<Fr> {
    plain_groth16_quotient(&s.domain, &s.vectors[0], &s.vectors[1], &s.vectors[2])
}

fn plain_product(s: &Setup) -> DensePolynomial<Fr> {
    &DensePolynomial::from_coefficients_slice(&s.interpolants[0])
        * &DensePolynomial::from_coefficients_slice(&s.interpolants[1])
}

fn report(s: &Setup) {
    let runs = if s.n >= 1 << 18 { 3 } else { 7 };
    let rows: [(&str, Duration, Duration); 2] = [
        (
            "groth16_quotient",
            median(|| drop(he_quotient(s)), runs),
            median(|| drop(plain_quotient(s)), runs),
        ),
        (
            "product",
            median(|| drop(he_product(s)), runs),
            median(|| drop(plain_product(s)), runs),
        ),
    ];
    for (op, he, plain) in rows {
        eprintln!(
            "{op} {}: HE {:.1} ms, plain {:.1} ms, HE / plain = {:.2}",
            s.label,
            he.as_secs_f64() * 1e3,
            plain.as_secs_f64() * 1e3,
            he.as_secs_f64() / plain.as_secs_f64()
        );
    }
}

fn main() {
    let sizes: Vec<u32> = std::env::var("POLY_BENCH_LOG_N")
        .unwrap_or_else(|_| "10,14,16".into())
        .split(',')
        .map(|s| {
            s.trim()
                .parse()
                .expect("POLY_BENCH_LOG_N: comma-separated log2 sizes")
        })
        .collect();
    let setups: Vec<Setup> = sizes.into_iter().map(setup).collect();
    for s in &setups {
        report(s);
    }
    let mut criterion = Criterion::default().configure_from_args().sample_size(10);
    for (op, he, plain) in [
        (
            "groth16_quotient",
            he_quotient as fn(&Setup) -> EncryptedPolynomial<Fr>,
            0,
        ),
        ("product", he_product, 1),
    ] {
        let mut group = criterion.benchmark_group(op);
        group.sampling_mode(SamplingMode::Flat);
        for s in &setups {
            group.bench_function(BenchmarkId::new("he", &s.label), |bench| {
                bench.iter(|| he(s))
            });
            group.bench_function(BenchmarkId::new("plain", &s.label), |bench| {
                bench.iter(|| {
                    if plain == 0 {
                        drop(plain_quotient(s))
                    } else {
                        drop(plain_product(s))
                    }
                })
            });
        }
        group.finish();
    }
    criterion.final_summary();
}
