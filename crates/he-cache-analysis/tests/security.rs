//! The distinguishers on the transparent model (same construction code as
//! the engine, secret key in sight, coefficient domain); `engine_attack.rs`
//! runs them on engine ciphertexts.
//!
//! * Smuche: two ciphertexts of small unknown messages built from one cached
//!   pivot give away the ratio of their plaintexts; an encryption of 0 is
//!   recognized alone; one known pair per pivot decrypts everything.
//! * Fresh and pool encryptions: the same attacks find nothing.
//! * Rache: the pairwise attack finds nothing, but k + 2 outputs are always
//!   linearly dependent and k + 1 known pairs decrypt every further output.

// The keyed fixtures are shared with he-cache's own tests.
#[path = "../../he-cache/tests/common/mod.rs"]
mod common;

use common::bn254;
use he_cache::{Algebra, InsecureRache, InsecureSmuche, Prepared, Radix};
use he_cache_analysis::{
    is_masked_zero, projection_rank, smuche_ratio, span_decrypt, Ratio, ToyBgv, ToyCiphertext,
    ToyRing,
};
use helib_rs::{Context, Parameters};
use num_bigint::BigUint;
use rand::Rng;

const N: usize = 1024;

/// The model on the engine's own 60-bit prime q_0 for N = 1024.
fn model(t: BigUint) -> ToyBgv {
    let params = Parameters::builder()
        .ring_degree(N)
        .plaintext_modulus(BigUint::from(65537u32))
        .chain_bits(&[60])
        .special_bits(&[])
        .allow_insecure()
        .build()
        .unwrap();
    let q = Context::new(&params).unwrap().chain_primes()[0];
    ToyBgv::generate(ToyRing::new(N, q).unwrap(), t).unwrap()
}

fn t65537() -> BigUint {
    BigUint::from(65537u32)
}

fn big(v: u64) -> BigUint {
    BigUint::from(v)
}

/// The pool's online step in the model: a fresh zero, used once, plus the value.
fn pool_encrypt(bgv: &ToyBgv, value: u64) -> ToyCiphertext {
    Prepared::new(bgv)
        .unwrap()
        .encrypt(bgv, &big(value))
        .unwrap()
}

fn reduced(a: i64, b: i64) -> (i64, i64) {
    let (mut x, mut y) = (a.unsigned_abs(), b.unsigned_abs());
    while y != 0 {
        (x, y) = (y, x % y);
    }
    let g = x.max(1) as i64;
    (a / g, b / g)
}

#[test]
fn the_model_decrypts_every_construction() {
    let bgv = model(t65537());
    let smuche = InsecureSmuche::new(bgv.clone(), Radix::new(10, 3).unwrap()).unwrap();
    let rache = InsecureRache::new(bgv.clone(), Radix::new(4, 8).unwrap()).unwrap();
    for value in [0u64, 1, 300, 12345, 65535] {
        let cts = [
            bgv.encrypt_fresh(&big(value)).unwrap(),
            pool_encrypt(&bgv, value),
            smuche.encrypt(&big(value)).unwrap(),
            rache.encrypt(&big(value)).unwrap(),
        ];
        for ct in &cts {
            assert_eq!(bgv.decrypt_constant(ct), big(value));
        }
    }
}

/// Two Smuche ciphertexts of small unknown messages: the ratio comes out.
/// Messages below `bound` (below t/2, so their centred lifts are themselves).
fn smuche_ratio_is_recovered(t: BigUint, bound: u64, seed: u64) {
    let bgv = model(t);
    let (ring, pk) = (bgv.ring().clone(), bgv.public_key().clone());
    // One pivot (enc(1)), as in the paper's integer setting.
    let smuche = InsecureSmuche::new(bgv, Radix::new(10, 1).unwrap()).unwrap();
    let mut rng = common::rng(seed);
    for _ in 0..4 {
        let m1: u64 = rng.gen_range(1..bound);
        let m2: u64 = rng.gen_range(1..bound);
        let c1 = smuche.encrypt(&big(m1)).unwrap();
        let c2 = smuche.encrypt(&big(m2)).unwrap();
        let Some(Ratio { modular, fraction }) = smuche_ratio(&ring, &pk, &c1, &c2) else {
            panic!("the attack must succeed on Smuche");
        };
        let q = ring.modulus();
        assert_eq!(
            modular as u128 * m2 as u128 % q as u128,
            m1 as u128 % q as u128
        );
        assert_eq!(fraction, Some(reduced(m1 as i64, m2 as i64)));
    }
}

#[test]
fn smuche_ratio_attack_recovers_plaintext_ratios_t65537() {
    smuche_ratio_is_recovered(t65537(), 32768, 11);
}

#[test]
fn smuche_ratio_attack_recovers_plaintext_ratios_bn254() {
    smuche_ratio_is_recovered(bn254(), 1 << 28, 12);
}

#[test]
fn the_ratio_attack_fails_on_fresh_pool_and_rache_encryptions() {
    let bgv = model(t65537());
    let (ring, pk) = (bgv.ring().clone(), bgv.public_key().clone());
    let rache = InsecureRache::new(bgv.clone(), Radix::new(4, 8).unwrap()).unwrap();
    let mut rng = common::rng(13);
    for _ in 0..3 {
        let (m1, m2): (u64, u64) = (rng.gen_range(1..60000), rng.gen_range(1..60000));
        let pairs = [
            (
                bgv.encrypt_fresh(&big(m1)).unwrap(),
                bgv.encrypt_fresh(&big(m2)).unwrap(),
            ),
            (pool_encrypt(&bgv, m1), pool_encrypt(&bgv, m2)),
            (
                rache.encrypt(&big(m1)).unwrap(),
                rache.encrypt(&big(m2)).unwrap(),
            ),
        ];
        for (c1, c2) in &pairs {
            assert_eq!(smuche_ratio(&ring, &pk, c1, c2), None);
        }
    }
}

#[test]
fn one_smuche_encryption_of_zero_is_recognized_alone() {
    let bgv = model(t65537());
    let (ring, pk) = (bgv.ring().clone(), bgv.public_key().clone());
    let smuche = InsecureSmuche::new(bgv.clone(), Radix::new(10, 1).unwrap()).unwrap();
    assert!(is_masked_zero(
        &ring,
        &pk,
        &smuche.encrypt(&big(0)).unwrap()
    ));
    assert!(!is_masked_zero(
        &ring,
        &pk,
        &smuche.encrypt(&big(1)).unwrap()
    ));
    assert!(!is_masked_zero(
        &ring,
        &pk,
        &bgv.encrypt_fresh(&big(0)).unwrap()
    ));
    assert!(!is_masked_zero(&ring, &pk, &pool_encrypt(&bgv, 0)));
}

#[test]
fn known_plaintexts_decrypt_smuche_across_pivots() {
    let bgv = model(bn254());
    let (ring, pk) = (bgv.ring().clone(), bgv.public_key().clone());
    let smuche = InsecureSmuche::new(bgv, Radix::new(10, 3).unwrap()).unwrap();
    // One known pair per pivot: 7 (pivot 1), 30 (pivot 10), 500 (pivot 100).
    let known: Vec<(u64, ToyCiphertext)> = [7u64, 30, 500]
        .iter()
        .map(|&m| (m, smuche.encrypt(&big(m)).unwrap()))
        .collect();
    for secret in [123_456_789u64, 4_200, 99_900, 1] {
        let target = smuche.encrypt(&big(secret)).unwrap();
        assert_eq!(span_decrypt(&ring, &pk, &known, &target), Some(secret));
    }
}

#[test]
fn rache_outputs_span_k_plus_one_dimensions_and_known_plaintexts_decrypt_the_rest() {
    let bgv = model(t65537());
    let (ring, pk) = (bgv.ring().clone(), bgv.public_key().clone());
    let pivots = 8; // radix 4: values below 4^8 = 65536
    let rache = InsecureRache::new(bgv.clone(), Radix::new(4, pivots).unwrap()).unwrap();
    let mut rng = common::rng(14);
    let mut draw = || -> u64 { rng.gen_range(0..65536) };

    // Without any plaintext: k + 3 outputs span only k + 1 dimensions.
    let outputs: Vec<ToyCiphertext> = (0..pivots + 3)
        .map(|_| rache.encrypt(&big(draw())).unwrap())
        .collect();
    assert!(projection_rank(&ring, &pk, &outputs) <= pivots + 1);
    let fresh: Vec<ToyCiphertext> = (0..pivots + 3)
        .map(|_| bgv.encrypt_fresh(&big(draw())).unwrap())
        .collect();
    assert_eq!(projection_rank(&ring, &pk, &fresh), pivots + 3);

    // With k + 3 known pairs, every further output decrypts from the public key.
    let known: Vec<(u64, ToyCiphertext)> = (0..pivots + 3)
        .map(|_| {
            let m = draw();
            (m, rache.encrypt(&big(m)).unwrap())
        })
        .collect();
    for _ in 0..5 {
        let secret = draw();
        let target = rache.encrypt(&big(secret)).unwrap();
        assert_eq!(span_decrypt(&ring, &pk, &known, &target), Some(secret));
    }
    // Fresh and pool encryptions are outside the span.
    assert_eq!(span_decrypt(&ring, &pk, &known, &fresh[0]), None);
    assert_eq!(
        span_decrypt(&ring, &pk, &known, &pool_encrypt(&bgv, 5)),
        None
    );
}
