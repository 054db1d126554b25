//! Encryption and decryption round trips, for public and secret keys, several
//! ring degrees and both a big (BN254) and a small (65537) plaintext modulus.

mod common;

use common::{bn254, random_poly, rng, t65537, Keyed};
use helib_rs::{CoefficientEncoder, Plaintext};
use num_bigint::BigUint;

/// Plaintexts every round trip must survive: random, boundary values, zero.
fn samples(keyed: &Keyed, seed: u64) -> Vec<Plaintext> {
    let t = keyed.t();
    let n = keyed.n();
    let mut rng = rng(seed);
    let top = t - 1u32;
    let boundary: Vec<BigUint> = (0..n)
        .map(|i| match i % 3 {
            0 => BigUint::from(0u32),
            1 => BigUint::from(1u32),
            _ => top.clone(),
        })
        .collect();
    vec![
        keyed.plaintext(&random_poly(&mut rng, t, n)),
        keyed.plaintext(&boundary),
        keyed.plaintext(&vec![top.clone(); 3]),
        Plaintext::zero(&keyed.context),
    ]
}

#[test]
fn public_and_secret_key_round_trips() {
    for (t, name) in [(bn254(), "BN254"), (t65537(), "65537")] {
        for n in [1024, 2048, 4096] {
            let keyed = Keyed::new(n, &t, 1);
            for (i, plaintext) in samples(&keyed, n as u64).iter().enumerate() {
                let by_pk = keyed.pk.encrypt(plaintext).unwrap();
                let by_sk = keyed.sk.encrypt(plaintext).unwrap();
                for ct in [&by_pk, &by_sk] {
                    assert_eq!(ct.level(), keyed.context.max_level());
                    assert_eq!(ct.size(), 2);
                    assert_eq!(ct.correction_factor(), &BigUint::from(1u32));
                    let decrypted = keyed.sk.decrypt(ct).unwrap();
                    assert_eq!(&decrypted, plaintext, "t = {name}, N = {n}, sample {i}");
                }
            }
        }
    }
}

#[test]
fn decrypted_coefficients_match_the_input() {
    let keyed = common::bn254_1024();
    let mut rng = rng(7);
    let coefficients = random_poly(&mut rng, keyed.t(), 1000);
    let ct = keyed.pk.encrypt(&keyed.plaintext(&coefficients)).unwrap();
    let decrypted = keyed.sk.decrypt(&ct).unwrap().coefficients();
    assert_eq!(decrypted.len(), 1024);
    assert_eq!(decrypted[..1000], coefficients[..]);
    assert!(decrypted[1000..].iter().all(|c| *c == BigUint::from(0u32)));
}

#[test]
fn encryption_at_lower_levels() {
    for keyed in [common::t65537_1024(), common::bn254_1024()] {
        let context = &keyed.context;
        let plaintext = samples(keyed, 3).swap_remove(0);
        for level in 0..=context.max_level() {
            // A fresh encryption needs about log2 t + 12 bits at N = 1024, plus margin.
            let needed = keyed.t().bits() as f64 + 24.0;
            if context.log2_modulus(level).unwrap() < needed {
                continue;
            }
            for ct in [
                keyed.pk.encrypt_at_level(&plaintext, level).unwrap(),
                keyed.sk.encrypt_at_level(&plaintext, level).unwrap(),
            ] {
                assert_eq!(ct.level(), level);
                assert_eq!(
                    Some(ct.correction_factor()),
                    context.correction_factor(level)
                );
                assert_eq!(keyed.sk.decrypt(&ct).unwrap(), plaintext, "level {level}");
            }
        }
    }
}

#[test]
fn fresh_noise_is_tracked_conservatively() {
    for keyed in [common::t65537_1024(), common::bn254_1024()] {
        let plaintext = samples(keyed, 5).swap_remove(0);
        for ct in [
            keyed.pk.encrypt(&plaintext).unwrap(),
            keyed.sk.encrypt(&plaintext).unwrap(),
        ] {
            let exact = keyed.sk.noise_budget(&ct).unwrap();
            assert!(exact > 0.0);
            assert!(
                ct.estimated_budget_bits() <= exact + 1.0,
                "{ct:?} vs {exact}"
            );
            let log_q = keyed.context.log2_modulus(ct.level()).unwrap();
            assert!(
                (ct.noise_estimate_bits() + ct.estimated_budget_bits() - (log_q - 1.0)).abs()
                    < 1e-6
            );
        }
    }
}

#[test]
fn integer_constructors_and_the_coefficient_encoder_agree() {
    let keyed = common::t65537_1024();
    let encoder = CoefficientEncoder::new(&keyed.context);
    let signed = [-1i64, 0, 1, -65537, 65537 * 3 + 2, i64::MIN, i64::MAX];
    let from_signed = encoder.encode_i64(&signed).unwrap();
    let t = 65537i128;
    let expected: Vec<u64> = signed
        .iter()
        .map(|&v| (i128::from(v)).rem_euclid(t) as u64)
        .collect();
    assert_eq!(from_signed, encoder.encode_u64(&expected).unwrap());
    let big: Vec<BigUint> = expected.iter().map(|&v| BigUint::from(v)).collect();
    assert_eq!(from_signed, encoder.encode_biguint(&big).unwrap());

    let ct = keyed.sk.encrypt(&from_signed).unwrap();
    let decrypted = keyed.sk.decrypt(&ct).unwrap();
    assert_eq!(encoder.decode_u64(&decrypted).unwrap()[..7], expected[..]);
    let centered = encoder.decode_i64(&decrypted).unwrap();
    let want: Vec<i64> = expected
        .iter()
        .map(|&v| {
            if v > 32768 {
                v as i64 - 65537
            } else {
                v as i64
            }
        })
        .collect();
    assert_eq!(centered[..7], want[..]);
    assert_eq!(centered[..3], [-1, 0, 1]);
}

#[test]
fn big_coefficients_decode_centered() {
    let keyed = common::bn254_1024();
    let encoder = CoefficientEncoder::new(&keyed.context);
    let p = encoder.encode_i64(&[-5, 5]).unwrap();
    assert_eq!(encoder.decode_i64(&p).unwrap()[..3], [-5, 5, 0]);
    let huge = encoder.encode_biguint(&[keyed.t() >> 2u32]).unwrap();
    assert!(encoder.decode_i64(&huge).is_err());
    assert!(encoder.decode_u64(&huge).is_err());
    assert_eq!(
        encoder.decode_centered(&huge).unwrap()[0],
        (keyed.t() >> 2u32).into()
    );
}
