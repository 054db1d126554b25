//! The distinguishers against real engine ciphertexts, with public
//! operations only: the public key (through `add_mask_insecure`, which any
//! key holder may call) and the ciphertexts' residues (`Ciphertext::residues`,
//! the values `to_bytes` carries).
//!
//! * Smuche: two ciphertexts of small unknown messages from one pivot give
//!   away their plaintext ratio; an encryption of 0 is recognized alone; one
//!   known pair per pivot decrypts everything.
//! * Fresh and pool encryptions: every attack finds nothing.
//! * Rache: the pairwise attack finds nothing, but k + 2 outputs are
//!   linearly dependent and k + 1 known pairs decrypt the rest.

// The keyed fixtures are shared with he-cache's own tests.
#[path = "../../he-cache/tests/common/mod.rs"]
mod common;

use common::{bn254_keyed, t65537_keyed, Keyed};
use he_cache::{
    Encryptor, Engine, FreshEncryptor, InsecureRache, InsecureSmuche, PoolConfig, Radix, SecurePool,
};
use he_cache_analysis::{
    public_mask, rank, ratio_of_projections, span_decrypt_projections, wire_projection, Ratio,
    WireCiphertext,
};
use num_bigint::BigUint;
use rand::Rng;

/// What the attacker holds: the mask standing in for the public key, and
/// the chain prime q_0 to work modulo.
struct Attacker<'a> {
    keyed: &'a Keyed,
    mask: WireCiphertext,
    q: u64,
}

impl<'a> Attacker<'a> {
    fn new(keyed: &'a Keyed) -> Self {
        Self {
            keyed,
            mask: public_mask(&keyed.pk).unwrap(),
            q: keyed.context.chain_primes()[0],
        }
    }

    /// Encrypts `value` with `encryptor` and projects the bytes mod q_0.
    fn observe(&self, encryptor: &dyn Encryptor, value: u64) -> Vec<u64> {
        let ct = encryptor.encrypt_value(&BigUint::from(value)).unwrap();
        let wire = WireCiphertext::of(&ct).unwrap();
        wire_projection(&self.keyed.context, &self.mask, &wire, 0).unwrap()
    }
}

fn reduced(a: u64, b: u64) -> (i64, i64) {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    ((a / x) as i64, (b / x) as i64)
}

fn smuche(keyed: &Keyed, pivots: usize) -> InsecureSmuche {
    InsecureSmuche::new(
        Engine::new(keyed.pk.clone()),
        Radix::new(10, pivots).unwrap(),
    )
    .unwrap()
}

fn pool(keyed: &Keyed) -> SecurePool {
    SecurePool::new(keyed.pk.clone(), PoolConfig::new(4)).unwrap()
}

/// Small unknown messages below `bound`: their ratio comes out exactly.
fn smuche_ratio_is_recovered(keyed: &Keyed, bound: u64, seed: u64) {
    let attacker = Attacker::new(keyed);
    let smuche = smuche(keyed, 1);
    let mut rng = common::rng(seed);
    for _ in 0..3 {
        let (m1, m2) = (rng.gen_range(1..bound), rng.gen_range(1..bound));
        let p1 = attacker.observe(&smuche, m1);
        let p2 = attacker.observe(&smuche, m2);
        let Some(Ratio { modular, fraction }) = ratio_of_projections(&p1, &p2, attacker.q) else {
            panic!("the attack must succeed on Smuche");
        };
        assert_eq!(
            u128::from(modular) * u128::from(m2) % u128::from(attacker.q),
            u128::from(m1)
        );
        assert_eq!(fraction, Some(reduced(m1, m2)));
    }
}

#[test]
fn smuche_ratio_attack_on_engine_ciphertexts_bn254() {
    smuche_ratio_is_recovered(bn254_keyed(), 1 << 20, 21);
}

#[test]
fn smuche_ratio_attack_on_engine_ciphertexts_t65537() {
    smuche_ratio_is_recovered(t65537_keyed(), 1 << 15, 22);
}

#[test]
fn the_ratio_attack_fails_on_fresh_pool_and_rache_engine_ciphertexts() {
    for keyed in [bn254_keyed(), t65537_keyed()] {
        let attacker = Attacker::new(keyed);
        let radix = Radix::covering(1 << 8, keyed.t()).unwrap();
        let encryptors: Vec<Box<dyn Encryptor>> = vec![
            Box::new(FreshEncryptor::new(keyed.pk.clone())),
            Box::new(pool(keyed)),
            Box::new(InsecureRache::new(Engine::new(keyed.pk.clone()), radix).unwrap()),
        ];
        for encryptor in &encryptors {
            let p1 = attacker.observe(encryptor.as_ref(), 1234);
            let p2 = attacker.observe(encryptor.as_ref(), 617);
            assert_eq!(
                ratio_of_projections(&p1, &p2, attacker.q),
                None,
                "{}",
                encryptor.name()
            );
        }
    }
}

#[test]
fn one_smuche_encryption_of_zero_is_recognized_alone() {
    let keyed = bn254_keyed();
    let attacker = Attacker::new(keyed);
    let is_zero = |p: Vec<u64>| p.iter().all(|&x| x == 0);
    assert!(is_zero(attacker.observe(&smuche(keyed, 1), 0)));
    assert!(!is_zero(attacker.observe(&smuche(keyed, 1), 1)));
    assert!(!is_zero(
        attacker.observe(&FreshEncryptor::new(keyed.pk.clone()), 0)
    ));
    assert!(!is_zero(attacker.observe(&pool(keyed), 0)));
}

#[test]
fn known_plaintexts_decrypt_engine_smuche_across_pivots() {
    let keyed = bn254_keyed();
    let attacker = Attacker::new(keyed);
    let smuche = smuche(keyed, 3);
    let known: Vec<(u64, Vec<u64>)> = [7u64, 30, 500]
        .iter()
        .map(|&m| (m, attacker.observe(&smuche, m)))
        .collect();
    for secret in [123_456_789u64, 4_200, 99_900, 1] {
        let target = attacker.observe(&smuche, secret);
        assert_eq!(
            span_decrypt_projections(&known, &target, attacker.q),
            Some(secret)
        );
    }
}

#[test]
fn engine_rache_outputs_span_k_plus_one_dimensions_and_known_plaintexts_decrypt_the_rest() {
    let keyed = t65537_keyed();
    let attacker = Attacker::new(keyed);
    let pivots = 8; // radix 4: values below 4^8 = 65536 < t
    let rache = InsecureRache::new(
        Engine::new(keyed.pk.clone()),
        Radix::new(4, pivots).unwrap(),
    )
    .unwrap();
    let fresh = FreshEncryptor::new(keyed.pk.clone());
    let mut rng = common::rng(23);
    let mut draw = || -> u64 { rng.gen_range(0..65536) };

    let outputs: Vec<Vec<u64>> = (0..pivots + 3)
        .map(|_| attacker.observe(&rache, draw()))
        .collect();
    assert!(rank(&outputs, attacker.q) <= pivots + 1);
    let fresh_outputs: Vec<Vec<u64>> = (0..pivots + 3)
        .map(|_| attacker.observe(&fresh, draw()))
        .collect();
    assert_eq!(rank(&fresh_outputs, attacker.q), pivots + 3);

    let known: Vec<(u64, Vec<u64>)> = (0..pivots + 3)
        .map(|_| {
            let m = draw();
            (m, attacker.observe(&rache, m))
        })
        .collect();
    for _ in 0..4 {
        let secret = draw();
        let target = attacker.observe(&rache, secret);
        assert_eq!(
            span_decrypt_projections(&known, &target, attacker.q),
            Some(secret)
        );
    }
    let pool = pool(keyed);
    for target in [&fresh_outputs[0], &attacker.observe(&pool, 5)] {
        assert_eq!(span_decrypt_projections(&known, target, attacker.q), None);
    }
}

#[test]
fn malformed_bytes_are_refused() {
    let keyed = t65537_keyed();
    let ct = FreshEncryptor::new(keyed.pk.clone())
        .encrypt_value(&BigUint::from(3u32))
        .unwrap();
    let bytes = ct.to_bytes().unwrap();
    // The bytes that travel and the ciphertext itself give the same view.
    assert_eq!(
        WireCiphertext::parse(&keyed.context, &bytes).unwrap(),
        WireCiphertext::of(&ct).unwrap()
    );
    for bad in [&bytes[..10], &bytes[..bytes.len() - 40], &[0u8; 200][..]] {
        assert!(matches!(
            WireCiphertext::parse(&keyed.context, bad),
            Err(he_cache::Error::Malformed(_))
        ));
    }
}
