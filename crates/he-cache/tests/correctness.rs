//! Every encryptor decrypts correctly for t = BN254 Fr and t = 65537 across
//! the value range, and refuses what it cannot encrypt.

mod common;

use common::{all_encryptors, bn254_keyed, t65537_keyed, Keyed};
use he_cache::{
    Engine, Error, FreshEncryptor, InsecureRache, PlaintextEncryptor, PoolConfig, Radix,
    SecurePool, Security,
};
use helib_rs::CoefficientEncoder;
use num_bigint::BigUint;

/// 0, 1, small, multiples of radix powers, large, t − 2, t − 1 and random values.
fn values(keyed: &Keyed, seed: u64) -> Vec<BigUint> {
    let t = keyed.t();
    let mut rng = common::rng(seed);
    let mut values: Vec<BigUint> = [0u64, 1, 2, 9, 10, 1200, 12345, 65535]
        .into_iter()
        .map(BigUint::from)
        .collect();
    if t.bits() > 64 {
        values.push(BigUint::from(10u64.pow(12)));
        values.push(BigUint::from(u64::MAX));
    }
    values.extend([t - 2u32, t - 1u32]);
    values.extend((0..3).map(|_| common::random_below(&mut rng, t)));
    values
}

fn check_every_encryptor(keyed: &Keyed, seed: u64) {
    for encryptor in all_encryptors(keyed) {
        for value in values(keyed, seed) {
            let ct = encryptor
                .encrypt_value(&value)
                .unwrap_or_else(|e| panic!("{}: {value}: {e}", encryptor.name()));
            keyed.assert_decrypts_to(&ct, &value, &encryptor.name());
        }
    }
}

#[test]
fn every_encryptor_decrypts_correctly_bn254() {
    check_every_encryptor(bn254_keyed(), 1);
}

#[test]
fn every_encryptor_decrypts_correctly_t65537() {
    check_every_encryptor(t65537_keyed(), 2);
}

#[test]
fn batch_encryption_of_a_series_keeps_order() {
    let keyed = t65537_keyed();
    let series: Vec<BigUint> = (0..6u32).map(|i| BigUint::from(i * 1000 + 7)).collect();
    for encryptor in all_encryptors(keyed) {
        let cts = encryptor.encrypt_values(&series).unwrap();
        assert_eq!(cts.len(), series.len());
        for (ct, value) in cts.iter().zip(&series) {
            keyed.assert_decrypts_to(ct, value, &encryptor.name());
        }
    }
}

#[test]
fn values_not_below_t_are_refused_by_every_encryptor() {
    let keyed = t65537_keyed();
    for encryptor in all_encryptors(keyed) {
        for value in [
            keyed.t().clone(),
            keyed.t() + 1u32,
            BigUint::from(1u32) << 300u32,
        ] {
            assert!(
                matches!(
                    encryptor.encrypt_value(&value),
                    Err(Error::ValueNotBelowModulus { .. })
                ),
                "{}",
                encryptor.name()
            );
        }
    }
}

#[test]
fn rache_refuses_values_beyond_its_pivots() {
    let keyed = t65537_keyed();
    let rache =
        InsecureRache::new(Engine::new(keyed.pk.clone()), Radix::new(2, 4).unwrap()).unwrap();
    assert!(rache.encrypt(&BigUint::from(15u32)).is_ok());
    assert_eq!(
        rache.encrypt(&BigUint::from(16u32)).err(),
        Some(Error::ValueTooLarge {
            radix: 2,
            needed: 5,
            pivots: 4
        })
    );
}

#[test]
fn security_labels_mark_the_broken_constructions() {
    let secure: Vec<(String, bool)> = all_encryptors(t65537_keyed())
        .iter()
        .map(|e| (e.name(), e.security() == Security::Secure))
        .collect();
    let names: Vec<&str> = secure.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "fresh",
            "rache(r=16,k=5)",
            "smuche(r=10,k=4)",
            "pool-online"
        ]
    );
    assert_eq!(
        secure.iter().map(|(_, s)| *s).collect::<Vec<_>>(),
        [true, false, false, true]
    );
}

#[test]
fn secure_encryptors_also_encrypt_packed_plaintexts() {
    for keyed in [bn254_keyed(), t65537_keyed()] {
        let encoder = CoefficientEncoder::new(&keyed.context);
        let mut rng = common::rng(3);
        let values: Vec<BigUint> = (0..keyed.context.ring_degree())
            .map(|_| common::random_below(&mut rng, keyed.t()))
            .collect();
        let plaintext = encoder.encode_biguint(&values).unwrap();
        let pool = SecurePool::new(keyed.pk.clone(), PoolConfig::new(2)).unwrap();
        let fresh = FreshEncryptor::new(keyed.pk.clone());
        let encryptors: [&dyn PlaintextEncryptor; 2] = [&fresh, &pool];
        for encryptor in encryptors {
            let ct = encryptor.encrypt_plaintext(&plaintext).unwrap();
            assert_eq!(
                keyed.sk.decrypt(&ct).unwrap(),
                plaintext,
                "{}",
                encryptor.name()
            );
        }
        let other = t65537_keyed();
        if !std::ptr::eq(keyed, other) {
            let foreign = CoefficientEncoder::new(&other.context)
                .encode_u64(&[1])
                .unwrap();
            assert_eq!(
                pool.encrypt_plaintext(&foreign).err(),
                Some(Error::Engine(helib_rs::Error::ContextMismatch))
            );
            assert_eq!(pool.stats().consumed, 1, "a refused plaintext uses no item");
        }
    }
}
