//! Tests of the residue test: honest transforms pass, others are refused.

use super::challenge::{digit, digit_bits};
use super::modular::pow2_mod;
use super::*;
use crate::lintrans::{EncodedTransform, PlainTransform, Shift};
use crate::Context;
use crate::Parameters;
use ark_bn254::Fr;
use ark_ff::BigInteger;

/// y = d0 ⊙ x + d1 ⊙ rot_1(x) + d2 ⊙ swap(x) with periodic and full diagonals.
fn transform(n: usize, scale: u64) -> SlotTransform<Fr> {
    let mut t = SlotTransform::zero(n / 2);
    let periodic: Vec<Fr> = (0..n as u64).map(|i| Fr::from(i % 4 + 1)).collect();
    let full: Vec<Fr> = (0..n as u64).map(|i| Fr::from(i * i + scale)).collect();
    t.add_term(
        Shift {
            swap: false,
            rotation: 0,
        },
        &periodic,
    );
    t.add_term(
        Shift {
            swap: false,
            rotation: 1,
        },
        &full,
    );
    t.add_term(
        Shift {
            swap: true,
            rotation: 0,
        },
        &vec![-Fr::from(scale); n],
    );
    t
}

#[test]
fn honest_transforms_pass_and_others_are_refused() {
    let context = Context::new(&Parameters::for_tests()).unwrap();
    let encoder = BatchEncoder::<Fr>::new(&context).unwrap();
    let n = encoder.slot_count();
    let challenge = Challenge::new(&encoder).unwrap();
    assert_eq!(challenge.repetitions(), 1, "primes of 41 bits or more");
    let level = context.max_level();
    let t = transform(n, 3);
    for mode in [KeyMode::Fast, KeyMode::MinimalKeys] {
        let policy = KeyPolicy {
            mode,
            ..KeyPolicy::default()
        };
        let encoded = EncodedTransform::new(&t, policy, &encoder, level).unwrap();
        encoded.verify(&t, policy, level, &challenge).unwrap();
        let other = transform(n, 5);
        let err = encoded
            .verify(&other, policy, level, &challenge)
            .unwrap_err();
        assert!(matches!(err, Error::TransformMismatch(_)), "{err}");
        let err = encoded
            .verify(&t, policy, level - 1, &challenge)
            .unwrap_err();
        assert!(matches!(err, Error::TransformMismatch(_)), "{err}");
        let plain = PlainTransform::new(&t, policy, &encoder, level).unwrap();
        plain.verify(&t, policy, level, &challenge).unwrap();
        let err = plain.verify(&other, policy, level, &challenge).unwrap_err();
        assert!(matches!(err, Error::TransformMismatch(_)), "{err}");
    }
}

#[test]
fn digits_and_repetitions_follow_the_context() {
    assert_eq!(digit_bits(&BigUint::from(65537u32)), 15);
    let bn254 = BigUint::from_bytes_be(&Fr::MODULUS.to_bytes_be());
    assert_eq!(digit_bits(&bn254), 64);
    for (w, bits) in [(u64::MAX, 15), (0x1234_5678_9abc_def0, 64), (1 << 61, 15)] {
        let back = (0..64u32.div_ceil(bits))
            .map(|d| (digit(w, bits, d) as u128) << (bits * d))
            .sum::<u128>();
        assert_eq!(back, u128::from(w));
    }
    assert_eq!(pow2_mod(64, 97), ((1u128 << 64) % 97) as u64);
}
