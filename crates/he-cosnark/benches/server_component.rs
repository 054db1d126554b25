//! The work per component of a proof, on the ring and chain
//! [`he_cosnark::parameters_for`] gives a 2^20-point domain with 3 parties
//! (N = 2^16). The server's, in [`he_cosnark::Server::compute`], once per
//! component (16 times per proof at this size): the product of two fresh
//! ciphertexts at the upload level and the serialization of the size-3
//! result for the broadcast. A party's, in
//! [`he_cosnark::ComputingParty::convert`]: parsing it, switching it to the
//! conversion level (`mod_switch`), and its encryption-to-shares share of
//! the product's relinearization, which it computes itself
//! (`party_convert`, `relinearize` alone for comparison). The designated
//! party's, in round 3: combining the server's sum of the shares with the
//! switched product's `c_0` and decoding (`open`, on one share).
//!
//! ```text
//! cargo bench -p he-cosnark --bench server_component
//! ```
//!
//! The ciphertexts are encryptions under one party's key, not a session's
//! shares to encryption: the engine's work per step is the same.

#![allow(missing_docs)] // criterion_group! generates an undocumented public function.

use std::time::Duration;

use ark_bn254::Fr;
use ark_ff::UniformRand;
use criterion::{criterion_group, criterion_main, Criterion};
use he_cosnark::{parameters_for, ProofPlan};
use helib_rs::{threshold, Ciphertext, Context, FieldCoefficientEncoder, RelinKey, SecretKey};
use rand::SeedableRng;

const DOMAIN: usize = 1 << 20;
const PARTIES: u32 = 3;

fn bench_server_component(c: &mut Criterion) {
    let (params, _) = parameters_for::<Fr>(DOMAIN, PARTIES).expect("a ring holds 2^20 points");
    let context = Context::new(&params).expect("context");
    let session = he_threshold::Session::new(&context, [7; 32], PARTIES).expect("session");
    let plan = ProofPlan::new(&session, DOMAIN).expect("plan");
    let n = context.ring_degree();
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    let encoder = FieldCoefficientEncoder::<Fr>::new(&context).expect("encoder");
    let sk = SecretKey::generate(&context).expect("secret key");
    let pk = sk.public_key().expect("public key");
    let relin_key = RelinKey::generate(&sk).expect("relinearization key");
    let mut encrypt = || {
        let values: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        pk.encrypt(&encoder.encode(&values).expect("encode"))
            .expect("encrypt")
    };
    let (a, b) = (encrypt(), encrypt());
    let product = a.multiply(&b).expect("product");
    let mut switched = product.clone();
    switched
        .mod_switch_to_assign(plan.convert_level())
        .expect("switch");
    println!(
        "N = {n}, {} primes at the upload level, {} at the conversion level",
        plan.upload_level() + 1,
        plan.convert_level() + 1
    );

    let mut group = c.benchmark_group("server_component");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    group.bench_function("multiply", |bench| {
        bench.iter(|| a.multiply(&b).expect("product"))
    });
    group.bench_function("mod_switch", |bench| {
        bench.iter_batched(
            || product.clone(),
            |mut p| {
                p.mod_switch_to_assign(plan.convert_level())
                    .expect("switch")
            },
            criterion::BatchSize::LargeInput,
        )
    });
    // The broadcast carries each product serialized; every party reads it.
    group.bench_function("serialize", |bench| {
        bench.iter(|| product.to_bytes().expect("serialize"))
    });
    let bytes = product.to_bytes().expect("serialize");
    group.bench_function("deserialize", |bench| {
        bench.iter(|| Ciphertext::from_bytes(&context, &bytes).expect("deserialize"))
    });
    group.bench_function("relinearize", |bench| {
        bench.iter_batched(
            || switched.clone(),
            |mut s| s.relinearize_assign(&relin_key).expect("relinearize"),
            criterion::BatchSize::LargeInput,
        )
    });
    let smudging = plan.smudging();
    let convert = || {
        threshold::e2s_share_of_product(&sk, &switched, &relin_key, smudging, true).expect("share")
    };
    group.bench_function("party_convert", |bench| bench.iter(convert));
    let (_, share) = convert();
    group.bench_function("open", |bench| {
        bench.iter(|| {
            let opened =
                threshold::decrypt_combine_product(&switched, &relin_key, smudging, &share)
                    .expect("combine");
            encoder.decode(&opened).expect("decode")
        })
    });
    group.finish();
}

criterion_group!(benches, bench_server_component);
criterion_main!(benches);
