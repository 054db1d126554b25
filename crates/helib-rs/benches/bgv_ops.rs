//! Criterion benches of the BGV engine's basic operations with t = BN254 Fr.
//!
//! Parameter sets (both with a ~850-bit chain of 14 × 61-bit primes and the
//! default special primes for 3 key-switching digits):
//! - N = 2^16: log2(QP) ≈ 1140 ≤ 1747, 128-bit secure;
//! - N = 2^15: log2(QP) ≈ 1140 > 868, **insecure**, benchmarked only to compare
//!   with published figures at this ring size (built with `allow_insecure()`).
//!
//! Every operation is measured with 1 and 2 engine threads. Run with
//! `cargo bench --bench bgv_ops`; filter with e.g. `cargo bench --bench bgv_ops -- encrypt`.
//!
//! The `key_switching` group measures relinearization and Galois key
//! generation (the key sizes are printed once per parameter set), a ct × ct
//! product with relinearization, one rotation, and 8 rotations of one
//! ciphertext done one by one against the same 8 hoisted (one decomposition
//! shared by all), and the baby steps of a baby-step giant-step transform,
//! Σ_k D_k ⊙ rot_k(x) over the same 8 steps, evaluated with plain rotations
//! and products (`baby_steps_plain`) against one double-hoisted
//! [`Ciphertext::linear_transform`](helib_rs::Ciphertext::linear_transform)
//! (`baby_steps_hoisted`): `cargo bench --bench bgv_ops -- key_switching`.
//!
//! The `keygen` group measures one Galois key and one relinearization key at
//! N = 2^16 with a 19 × 59-bit chain, the size the setup of an encrypted FFT
//! at that ring degree works with, for three key-switching digits (log2(QP)
//! ≈ 1540) and two (≈ 1720, what `he_fft` suggests; both 128-bit secure):
//! `cargo bench --bench bgv_ops -- keygen/`.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use ark_bn254::Fr;
use ark_std::UniformRand;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use helib_rs::{
    BatchEncoder, Context, EncodedPlaintext, GaloisKeys, ModSwitchPolicy, Parameters, RelinKey,
    RotationPolicy, SecretKey,
};
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

/// The rotation steps of the hoisted-versus-plain comparison.
const BABY_STEPS: [i64; 8] = [1, 2, 3, 4, 5, 6, 7, 8];

fn bench_key_switching(c: &mut Criterion) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(2);
    let mut group = c.benchmark_group("key_switching");
    // Key generation and key switching take 0.1–1 s at these sizes: the
    // minimum sample count and short windows keep the group near 5 minutes.
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    for log_n in [15u32, 16] {
        for threads in [1u32, 2] {
            let ctx = context(log_n, threads);
            let id = label(&ctx, threads);
            let n = ctx.ring_degree();
            let encoder = BatchEncoder::<Fr>::new(&ctx).expect("BN254 supports batching");
            let sk = SecretKey::generate(&ctx).expect("secret key");
            let pk = sk.public_key().expect("public key");
            let encrypt = |rng: &mut rand::rngs::StdRng| {
                let values: Vec<Fr> = (0..n).map(|_| Fr::rand(rng)).collect();
                pk.encrypt(&encoder.encode(&values).expect("encode"))
                    .expect("encrypt")
            };
            let (x, y) = (encrypt(&mut rng), encrypt(&mut rng));

            let rk = RelinKey::generate(&sk).expect("relinearization key");
            let keys = GaloisKeys::for_steps(&sk, &BABY_STEPS).expect("Galois keys");
            if threads == 1 {
                println!(
                    "{id}: relinearization key {:.1} MB, one Galois key {:.1} MB \
                     ({} digits x 2 x {} primes x N x 8 bytes)",
                    mb(rk.size_bytes()),
                    mb(keys.size_bytes() / keys.len()),
                    rk.size_bytes() / (2 * 8 * n * primes(&ctx)),
                    primes(&ctx),
                );
            }

            group.bench_function(BenchmarkId::new("relin_keygen", &id), |b| {
                b.iter(|| RelinKey::generate(&sk).expect("relinearization key"))
            });
            group.bench_function(BenchmarkId::new("galois_keygen", &id), |b| {
                b.iter(|| GaloisKeys::for_steps(&sk, &[9]).expect("Galois key"))
            });
            group.bench_function(BenchmarkId::new("multiply_relin", &id), |b| {
                b.iter(|| {
                    x.multiply_relin(&y, &rk, ModSwitchPolicy::Manual)
                        .expect("multiply")
                })
            });
            group.bench_function(BenchmarkId::new("rotate", &id), |b| {
                b.iter(|| {
                    x.rotate_rows(1, &keys, RotationPolicy::Exact)
                        .expect("rotate")
                })
            });
            let rotations = format!("{id}/k={}", BABY_STEPS.len());
            group.bench_function(BenchmarkId::new("rotations_plain", &rotations), |b| {
                b.iter(|| {
                    BABY_STEPS
                        .iter()
                        .map(|&k| x.rotate_rows(k, &keys, RotationPolicy::Exact))
                        .collect::<Result<Vec<_>, _>>()
                        .expect("rotate")
                })
            });
            group.bench_function(BenchmarkId::new("rotations_hoisted", &rotations), |b| {
                b.iter(|| x.rotate_rows_hoisted(&BABY_STEPS, &keys).expect("hoisted"))
            });

            // The baby steps of a BSGS transform: Σ_k D_k ⊙ rot_k(x).
            let diagonals: Vec<Vec<Fr>> = BABY_STEPS
                .iter()
                .map(|_| (0..n).map(|_| Fr::rand(&mut rng)).collect())
                .collect();
            let encode = |extended: bool| -> Vec<EncodedPlaintext> {
                diagonals
                    .iter()
                    .map(|d| {
                        if extended {
                            encoder.encode_for_linear_transform(d, x.level())
                        } else {
                            encoder.encode_for_multiplication(d, x.level())
                        }
                        .expect("encode diagonal")
                    })
                    .collect()
            };
            let (plain_diagonals, extended_diagonals) = (encode(false), encode(true));
            group.bench_function(BenchmarkId::new("baby_steps_plain", &rotations), |b| {
                b.iter(|| {
                    let mut sum = None;
                    for (&k, d) in BABY_STEPS.iter().zip(&plain_diagonals) {
                        let term = x
                            .rotate_rows(k, &keys, RotationPolicy::Exact)
                            .and_then(|r| r.mul_plain(d))
                            .expect("baby step");
                        sum = Some(match sum {
                            None => term,
                            Some(acc) => (&acc + &term).expect("add"),
                        });
                    }
                    sum
                })
            });
            let elements: Vec<u64> = BABY_STEPS
                .iter()
                .map(|&k| GaloisKeys::element_for_step(&ctx, k))
                .collect();
            let terms: Vec<Option<&EncodedPlaintext>> =
                extended_diagonals.iter().map(Some).collect();
            group.bench_function(BenchmarkId::new("baby_steps_hoisted", &rotations), |b| {
                b.iter(|| {
                    x.linear_transform(&elements, 1, &terms, &keys)
                        .expect("linear transform")
                })
            });
        }
    }
    group.finish();
}

/// The chain of the key-generation group, the one `he_fft` suggests for
/// n = 2^15: 19 × 59 bits; log2(QP) ≈ 1540 with the default three
/// key-switching digits, ≈ 1715 with two.
const KEYGEN_CHAIN_BITS: [u32; 19] = [59; 19];

fn bench_keygen(c: &mut Criterion) {
    let mut group = c.benchmark_group("keygen");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    // Three digits: the builder's default; two: what `he_fft` suggests for
    // this chain (fewer, longer key rows over a larger P).
    for (threads, digits) in [(1u32, 3usize), (1, 2), (2, 3), (2, 2)] {
        let params = Parameters::builder()
            .ring_degree(1 << 16)
            .plaintext_modulus_from_field::<Fr>()
            .chain_bits(&KEYGEN_CHAIN_BITS)
            .key_switching_digits(digits)
            .threads(threads)
            .build()
            .expect("key-generation parameters are valid");
        let ctx = Context::new(&params).expect("context");
        let log_q = ctx.log2_modulus(ctx.max_level()).unwrap_or(0.0);
        let log_p: f64 = ctx
            .special_primes()
            .iter()
            .map(|&p| (p as f64).log2())
            .sum();
        let id = format!(
            "N=2^16/logQP={:.0}/digits={digits}/threads={threads}",
            log_q + log_p
        );
        let sk = SecretKey::generate(&ctx).expect("secret key");
        group.bench_function(BenchmarkId::new("galois_key", &id), |b| {
            b.iter(|| GaloisKeys::for_steps(&sk, &[9]).expect("Galois key"))
        });
        group.bench_function(BenchmarkId::new("relin_key", &id), |b| {
            b.iter(|| RelinKey::generate(&sk).expect("relinearization key"))
        });
    }
    group.finish();
}

/// Chain and special primes: the primes of Q·P.
fn primes(context: &Context) -> usize {
    context.chain_primes().len() + context.special_primes().len()
}

fn mb(bytes: usize) -> f64 {
    bytes as f64 / 1e6
}

criterion_group!(benches, bench_bgv_ops, bench_key_switching, bench_keygen);
criterion_main!(benches);
