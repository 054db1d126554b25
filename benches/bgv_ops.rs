//! Criterion benches of the BGV engine's basic operations with t = BN254 Fr.
//!
//! Parameter sets (both with a ~850-bit chain of 14 × 61-bit primes and the
//! default special primes for 3 key-switching digits):
//! - N = 2^16: log2(QP) ≈ 1140 ≤ 1772, 128-bit secure;
//! - N = 2^15: log2(QP) ≈ 1140 > 881, **insecure**, benchmarked only to compare
//!   with published figures at this ring size (built with `allow_insecure()`).
//!
//! Every operation is measured with 1 and 2 engine threads. Run with
//! `cargo bench --bench bgv_ops`; filter with e.g. `cargo bench --bench bgv_ops -- encrypt`.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use ark_bn254::Fr;
use ark_std::UniformRand;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use helib_rs::{BatchEncoder, Context, EncodedPlaintext, Parameters, SecretKey};
use rand::SeedableRng;
use std::time::Duration;

/// The ~850-bit chain of the reference measurements.
const CHAIN_BITS: [u32; 14] = [61; 14];

fn context(log_n: u32, threads: u32) -> Context {
    let mut builder = Parameters::builder()
        .ring_degree(1 << log_n)
        .plaintext_modulus_from_field::<Fr>()
        .chain_bits(&CHAIN_BITS)
        .threads(threads);
    if log_n < 16 {
        builder = builder.allow_insecure();
    }
    let params = builder.build().expect("benchmark parameters are valid");
    Context::new(&params).expect("context")
}

fn label(context: &Context, threads: u32) -> String {
    let log_q = context.log2_modulus(context.max_level()).unwrap_or(0.0);
    format!(
        "N=2^{}/logQ={log_q:.0}/threads={threads}",
        context.ring_degree().trailing_zeros()
    )
}

fn bench_bgv_ops(c: &mut Criterion) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let mut group = c.benchmark_group("bgv_ops");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for log_n in [15u32, 16] {
        for threads in [1u32, 2] {
            let ctx = context(log_n, threads);
            let id = label(&ctx, threads);
            let top = ctx.max_level();
            let n = ctx.ring_degree();
            let encoder = BatchEncoder::<Fr>::new(&ctx).expect("BN254 supports batching");
            let values: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
            let other: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();

            group.bench_function(BenchmarkId::new("keygen", &id), |b| {
                b.iter(|| {
                    let sk = SecretKey::generate(&ctx).expect("secret key");
                    sk.public_key().expect("public key")
                })
            });
            let sk = SecretKey::generate(&ctx).expect("secret key");
            let pk = sk.public_key().expect("public key");

            group.bench_function(BenchmarkId::new("encode", &id), |b| {
                b.iter(|| encoder.encode(&values).expect("encode"))
            });
            let plaintext = encoder.encode(&values).expect("encode");
            group.bench_function(BenchmarkId::new("encode_rns", &id), |b| {
                b.iter(|| EncodedPlaintext::for_multiplication(&plaintext, top).expect("encode"))
            });
            group.bench_function(BenchmarkId::new("encrypt", &id), |b| {
                b.iter(|| pk.encrypt(&plaintext).expect("encrypt"))
            });
            let ct = pk.encrypt(&plaintext).expect("encrypt");
            let ct2 = pk
                .encrypt(&encoder.encode(&other).expect("encode"))
                .expect("encrypt");
            group.bench_function(BenchmarkId::new("decrypt_decode", &id), |b| {
                b.iter(|| {
                    encoder
                        .decode(&sk.decrypt(&ct).expect("decrypt"))
                        .expect("decode")
                })
            });
            let multiplier = encoder
                .encode_for_multiplication(&other, top)
                .expect("encode");
            let mut product = ct.clone();
            group.bench_function(BenchmarkId::new("mul_plain", &id), |b| {
                b.iter(|| {
                    product = ct.mul_plain(&multiplier).expect("mul_plain");
                })
            });
            let mut sum = ct.clone();
            group.bench_function(BenchmarkId::new("add", &id), |b| {
                b.iter(|| {
                    sum = ct.add(&ct2).expect("add");
                })
            });
            group.bench_function(BenchmarkId::new("mod_switch", &id), |b| {
                b.iter(|| ct.mod_switch().expect("mod_switch"))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_bgv_ops);
criterion_main!(benches);
