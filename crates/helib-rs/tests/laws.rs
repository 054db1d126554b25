//! Algebraic laws of the homomorphic operations, checked with proptest on
//! decryptions (encryption is randomized, so ciphertexts themselves differ).

mod common;

use common::Keyed;
use helib_rs::{Ciphertext, EncodedPlaintext, Plaintext};
use num_bigint::BigUint;
use proptest::prelude::*;

/// Few cases: each one encrypts and decrypts several times.
fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 8,
        ..ProptestConfig::default()
    }
}

/// Up to 32 coefficients below 65537; the rest of the polynomial is zero.
fn small_poly() -> impl Strategy<Value = Vec<u64>> {
    prop::collection::vec(0u64..65537, 0..32)
}

/// Up to 8 coefficients of 128 random bits each (below the 254-bit t).
fn big_poly() -> impl Strategy<Value = Vec<u128>> {
    prop::collection::vec(any::<u128>(), 0..8)
}

fn encrypt_small(keyed: &Keyed, values: &[u64]) -> (Plaintext, Ciphertext) {
    let plaintext = Plaintext::from_u64s(&keyed.context, values).unwrap();
    let ct = keyed.pk.encrypt(&plaintext).unwrap();
    (plaintext, ct)
}

fn encrypt_big(keyed: &Keyed, values: &[u128]) -> Ciphertext {
    let coefficients: Vec<BigUint> = values.iter().map(|&v| BigUint::from(v)).collect();
    keyed.sk.encrypt(&keyed.plaintext(&coefficients)).unwrap()
}

fn decrypt(keyed: &Keyed, ct: &Ciphertext) -> Plaintext {
    keyed.sk.decrypt(ct).unwrap()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn addition_is_commutative_and_associative(a in small_poly(), b in small_poly(), c in small_poly()) {
        let keyed = common::t65537_1024();
        let (_, ca) = encrypt_small(keyed, &a);
        let (_, cb) = encrypt_small(keyed, &b);
        let (_, cc) = encrypt_small(keyed, &c);
        prop_assert_eq!(decrypt(keyed, &(&ca + &cb)?), decrypt(keyed, &(&cb + &ca)?));
        let left = (&(&ca + &cb)? + &cc)?;
        let right = (&ca + &(&cb + &cc)?)?;
        prop_assert_eq!(decrypt(keyed, &left), decrypt(keyed, &right));
    }

    #[test]
    fn big_modulus_addition_laws(a in big_poly(), b in big_poly()) {
        let keyed = common::bn254_1024();
        let ca = encrypt_big(keyed, &a);
        let cb = encrypt_big(keyed, &b);
        prop_assert_eq!(decrypt(keyed, &(&ca + &cb)?), decrypt(keyed, &(&cb + &ca)?));
        let zero = (&ca - &ca)?;
        prop_assert!(decrypt(keyed, &zero).is_zero());
        prop_assert_eq!(decrypt(keyed, &(-&(-&cb)?)?), decrypt(keyed, &cb));
    }

    #[test]
    fn plaintext_multiplication_distributes_over_addition(
        a in small_poly(), b in small_poly(), p in small_poly()
    ) {
        let keyed = common::t65537_1024();
        let (_, ca) = encrypt_small(keyed, &a);
        let (_, cb) = encrypt_small(keyed, &b);
        let plain = Plaintext::from_u64s(&keyed.context, &p).unwrap();
        let p = EncodedPlaintext::for_multiplication(&plain, ca.level()).unwrap();
        let left = (&(&ca + &cb)? * &p)?;
        let right = (&(&ca * &p)? + &(&cb * &p)?)?;
        prop_assert_eq!(decrypt(keyed, &left), decrypt(keyed, &right));
    }

    #[test]
    fn scalar_multiplication_is_repeated_addition(a in big_poly(), k in 0u32..6) {
        let keyed = common::bn254_1024();
        let ca = encrypt_big(keyed, &a);
        let mut sum = (&ca - &ca)?;
        for _ in 0..k {
            sum.add_assign(&ca)?;
        }
        let scaled = ca.mul_scalar(&BigUint::from(k))?;
        prop_assert_eq!(decrypt(keyed, &scaled), decrypt(keyed, &sum));
    }

    #[test]
    fn modulus_switching_commutes_with_addition(a in small_poly(), b in small_poly()) {
        let keyed = common::t65537_1024();
        let (pa, ca) = encrypt_small(keyed, &a);
        let (_, cb) = encrypt_small(keyed, &b);
        let switched_sum = (&ca + &cb)?.mod_switch()?;
        let sum_switched = (&ca.mod_switch()? + &cb.mod_switch()?)?;
        prop_assert_eq!(decrypt(keyed, &switched_sum), decrypt(keyed, &sum_switched));
        prop_assert_eq!(decrypt(keyed, &ca.mod_switch()?), pa);
    }
}
