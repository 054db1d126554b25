//! Criterion benches of HESC: per-bit costs of encryption, stochastic
//! addition, stochastic multiplication and decryption for every backend (the
//! shape of the paper's Table 2).
//!
//! Backends and parameters (all ≥ 128-bit secure, except BN254's pairing
//! caveat for EC-ElGamal, about 100–110 bits):
//! - Goldwasser–Micali, 3072-bit modulus;
//! - lifted EC-ElGamal on BN254 G1 (decryption table up to 1024);
//! - BGV bit mode: t = 2, N = 2^11, one 53-bit prime (log2 QP = 53);
//! - packed BGV: t = 65537, N = 2^14 (log2 QP = 154), 16384 bits per ciphertext;
//! - packed BGV: t = 12289, N = 2^11 (log2 QP = 53), 2048 bits per ciphertext.
//!
//! Throughput is set to the number of stochastic bits each iteration
//! handles, so criterion's "thrpt" is bits per second (µs per bit = 10^6 / thrpt).
//! Run with `cargo bench --bench hesc`; filter e.g. `cargo bench --bench hesc -- gm`.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion, Throughput,
};
use helib_rs::{Context, Parameters, PublicKey, SecretKey};
use hesc::backend::{AdditiveHe, BgvBits, EcElGamal, GoldwasserMicali};
use hesc::fields::{Fp12289, Fp65537};
use hesc::{params, B2s, BasicHesc, Encoding, PackedHesc, Selection, StochasticNumber};
use rand::SeedableRng;
use rand_chacha::{ChaCha20Rng, ChaCha8Rng};

/// Bits per basic-HESC iteration (one ciphertext per bit).
const BASIC_BITS: usize = 16;

fn group<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    g
}

fn stream(len: usize, value: f64, rng: &mut ChaCha8Rng) -> StochasticNumber {
    StochasticNumber::encode(value, len, Encoding::InvertedBipolar, B2s::Bernoulli, rng)
        .expect("valid value")
}

fn bench_basic<S: AdditiveHe>(c: &mut Criterion, label: &str, scheme: S) {
    let hesc = BasicHesc::new(scheme);
    let (pk, sk) = hesc.scheme().generate_keys().expect("keys");
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let mut bits = ChaCha8Rng::seed_from_u64(2);
    let (x, y) = (
        stream(BASIC_BITS, 0.3, &mut bits),
        stream(BASIC_BITS, -0.5, &mut bits),
    );
    let sel = Selection::uniform(2, BASIC_BITS, B2s::Bernoulli, &mut bits).expect("selection");
    let mut g = group(c, "hesc_per_bit");
    g.throughput(Throughput::Elements(BASIC_BITS as u64));
    g.bench_function(BenchmarkId::new("encrypt", label), |b| {
        b.iter(|| hesc.encrypt(&pk, &x, &mut rng).expect("encrypt"))
    });
    let cx = hesc.encrypt(&pk, &x, &mut rng).expect("encrypt");
    let cy = hesc.encrypt(&pk, &y, &mut rng).expect("encrypt");
    g.bench_function(BenchmarkId::new("stochastic_add", label), |b| {
        b.iter(|| hesc.mux_add(&[&cx, &cy], &sel).expect("add"))
    });
    g.bench_function(BenchmarkId::new("stochastic_mul", label), |b| {
        b.iter(|| hesc.multiply(&pk, &cx, &cy).expect("mul"))
    });
    let product = hesc.multiply(&pk, &cx, &cy).expect("mul");
    g.bench_function(BenchmarkId::new("decrypt", label), |b| {
        b.iter(|| hesc.decrypt(&sk, &product).expect("decrypt"))
    });
    g.finish();
}

fn bench_packed<F: ark_ff::PrimeField + ark_ff::FftField>(
    c: &mut Criterion,
    label: &str,
    params: &Parameters,
) {
    let context = Context::new(params).expect("context");
    let hesc = PackedHesc::<F>::new(&context).expect("batching");
    let sk = SecretKey::generate(&context).expect("secret key");
    let pk: PublicKey = sk.public_key().expect("public key");
    let n = hesc.slot_count();
    let mut bits = ChaCha8Rng::seed_from_u64(3);
    let (x, y) = ([stream(n, 0.3, &mut bits)], [stream(n, -0.5, &mut bits)]);
    let sel = [Selection::uniform(2, n, B2s::Bernoulli, &mut bits).expect("selection")];
    let mut g = group(c, "hesc_per_bit");
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function(BenchmarkId::new("encrypt", label), |b| {
        b.iter(|| hesc.encrypt(&pk, &x).expect("encrypt"))
    });
    let (cx, cy) = (
        hesc.encrypt(&pk, &x).expect("encrypt"),
        hesc.encrypt(&pk, &y).expect("encrypt"),
    );
    g.bench_function(BenchmarkId::new("stochastic_add", label), |b| {
        b.iter(|| hesc.mux(&[&cx, &cy], &sel).expect("mux"))
    });
    g.bench_function(BenchmarkId::new("stochastic_add_concat", label), |b| {
        b.iter(|| hesc.concat(&[&cx, &cy]).expect("concat"))
    });
    g.bench_function(BenchmarkId::new("stochastic_mul", label), |b| {
        b.iter(|| hesc.xor(&cx, &cy).expect("xor"))
    });
    let product = hesc.xor(&cx, &cy).expect("xor");
    g.bench_function(BenchmarkId::new("decrypt", label), |b| {
        b.iter(|| hesc.decrypt(&sk, &product).expect("decrypt"))
    });
    g.finish();
}

fn bench_all(c: &mut Criterion) {
    bench_basic(c, "GM-3072", GoldwasserMicali::new());
    bench_basic(c, "EC-ElGamal-BN254", EcElGamal::new(1024).expect("table"));
    bench_basic(
        c,
        "BGV-bits-t2-N2^11",
        BgvBits::secure().expect("parameters"),
    );
    bench_packed::<Fp65537>(
        c,
        "BGV-packed-t65537-N2^14",
        &params::t65537(14, 2).expect("parameters"),
    );
    bench_packed::<Fp12289>(
        c,
        "BGV-packed-t12289-N2^11",
        &params::t12289_n11().expect("parameters"),
    );
}

criterion_group!(benches, bench_all);
criterion_main!(benches);
