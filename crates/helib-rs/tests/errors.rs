//! Every kind of bad input gives a clear, structured error — never a panic.

mod common;

use common::{bn254, t65537, Keyed};
use helib_rs::{
    BatchEncoder, CoefficientEncoder, Context, EncodedPlaintext, Error, Parameters, Plaintext,
    SecretKey,
};
use num_bigint::BigUint;

fn one(keyed: &Keyed) -> Plaintext {
    keyed.plaintext(&[BigUint::from(1u32)])
}

#[test]
fn objects_of_different_contexts_never_mix() {
    let a = common::t65537_1024();
    // Same parameters, but a different context.
    let b = Keyed::new(1024, &t65537(), 3);
    let pa = one(a);
    let pb = one(&b);
    let ca = a.sk.encrypt(&pa).unwrap();
    let cb = b.sk.encrypt(&pb).unwrap();
    let eb = EncodedPlaintext::for_multiplication(&pb, cb.level()).unwrap();

    assert_eq!(a.pk.encrypt(&pb).unwrap_err(), Error::ContextMismatch);
    assert_eq!(a.sk.encrypt(&pb).unwrap_err(), Error::ContextMismatch);
    assert_eq!(a.sk.decrypt(&cb).unwrap_err(), Error::ContextMismatch);
    assert_eq!(a.sk.noise_budget(&cb).unwrap_err(), Error::ContextMismatch);
    assert_eq!(ca.add(&cb).unwrap_err(), Error::ContextMismatch);
    assert_eq!((&ca - &cb).unwrap_err(), Error::ContextMismatch);
    assert_eq!((&ca * &eb).unwrap_err(), Error::ContextMismatch);
    assert_eq!(ca.add_plain(&eb).unwrap_err(), Error::ContextMismatch);
    assert_eq!(
        EncodedPlaintext::for_addition_to(&pb, &ca).unwrap_err(),
        Error::ContextMismatch
    );
    let encoder = CoefficientEncoder::new(&a.context);
    assert_eq!(
        encoder.decode_biguint(&pb).unwrap_err(),
        Error::ContextMismatch
    );
    let batch = BatchEncoder::<common::F65537>::new(&a.context).unwrap();
    assert_eq!(batch.decode(&pb).unwrap_err(), Error::ContextMismatch);
    assert_ne!(
        pa, pb,
        "equal coefficients in different contexts are different plaintexts"
    );
    assert!(a.context.same_as(&a.context.clone()));
    assert!(!a.context.same_as(&b.context));
}

#[test]
fn operands_at_different_levels_are_refused() {
    let keyed = common::t65537_1024();
    let top = keyed.context.max_level();
    let high = keyed.sk.encrypt(&one(keyed)).unwrap();
    let low = high.mod_switch().unwrap();
    assert_eq!(
        high.add(&low).unwrap_err(),
        Error::LevelMismatch {
            left: top,
            right: top - 1
        }
    );
    assert_eq!(
        low.sub(&high).unwrap_err(),
        Error::LevelMismatch {
            left: top - 1,
            right: top
        }
    );
    // A plaintext encoded below the ciphertext's level lacks residues.
    let below = EncodedPlaintext::for_multiplication(&one(keyed), top - 1).unwrap();
    assert_eq!(
        high.mul_plain(&below).unwrap_err(),
        Error::LevelMismatch {
            left: top,
            right: top - 1
        }
    );
    let below = EncodedPlaintext::for_addition(&one(keyed), top - 1).unwrap();
    assert_eq!(
        high.add_plain(&below).unwrap_err(),
        Error::LevelMismatch {
            left: top,
            right: top - 1
        }
    );
}

#[test]
fn levels_out_of_range_are_refused() {
    let keyed = common::t65537_1024();
    let top = keyed.context.max_level();
    let p = one(keyed);
    let too_high = Error::InvalidLevel {
        level: top + 1,
        max: top,
    };
    assert_eq!(
        keyed.pk.encrypt_at_level(&p, top + 1).unwrap_err(),
        too_high
    );
    assert_eq!(
        keyed.sk.encrypt_at_level(&p, top + 1).unwrap_err(),
        too_high
    );
    assert_eq!(
        EncodedPlaintext::for_multiplication(&p, top + 1).unwrap_err(),
        too_high
    );
    assert_eq!(
        EncodedPlaintext::for_addition(&p, top + 1).unwrap_err(),
        too_high
    );
    assert_eq!(
        EncodedPlaintext::for_multiplication(&p, usize::MAX).unwrap_err(),
        Error::InvalidLevel {
            level: usize::MAX,
            max: top
        }
    );

    let ct = keyed.sk.encrypt_at_level(&p, 0).unwrap();
    assert_eq!(ct.mod_switch().unwrap_err(), Error::ModulusChainExhausted);
    let mut in_place = ct.clone();
    assert_eq!(
        in_place.mod_switch_assign().unwrap_err(),
        Error::ModulusChainExhausted
    );
    assert_eq!(
        in_place.level(),
        0,
        "a refused operation leaves the ciphertext as it was"
    );
    assert_eq!(keyed.sk.decrypt(&in_place).unwrap(), p);
    assert_eq!(
        ct.mod_switch_to(1).unwrap_err(),
        Error::InvalidLevel { level: 1, max: 0 }
    );
    // At level 0, reducing noise has nothing to drop and is not an error.
    assert_eq!(ct.mod_switch_reduce_noise().unwrap().level(), 0);
}

#[test]
fn malformed_plaintexts_are_refused() {
    let keyed = common::t65537_1024();
    let context = &keyed.context;
    let n = keyed.n();
    let is_invalid = |r: Result<Plaintext, Error>| matches!(r, Err(Error::InvalidPlaintext(_)));
    assert!(is_invalid(Plaintext::from_u64s(context, &[1, 65537])));
    assert!(is_invalid(Plaintext::from_u64s(context, &[u64::MAX])));
    assert!(is_invalid(Plaintext::from_biguints(
        context,
        &[BigUint::from(65537u32)]
    )));
    assert!(is_invalid(Plaintext::from_u64s(context, &vec![0; n + 1])));
    assert!(is_invalid(Plaintext::from_i64s(context, &vec![0; n + 1])));
    assert!(is_invalid(Plaintext::from_biguints(
        context,
        &vec![BigUint::from(0u32); n + 1]
    )));
    assert!(Plaintext::from_u64s(context, &vec![65536; n]).is_ok());

    let big = common::bn254_1024();
    let t = big.t();
    assert!(is_invalid(Plaintext::from_biguints(
        &big.context,
        std::slice::from_ref(t)
    )));
    assert!(is_invalid(Plaintext::from_biguints(
        &big.context,
        &[t << 1u32]
    )));
    assert!(Plaintext::from_biguints(&big.context, &[t - 1u32]).is_ok());
    assert!(Plaintext::from_u64s(&big.context, &[u64::MAX]).is_ok());

    match Plaintext::from_u64s(context, &[7, 70000]) {
        Err(Error::InvalidPlaintext(message)) => {
            assert!(
                message.contains("coefficient 1") && message.contains("70000"),
                "{message}"
            )
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn correction_factor_mismatches_are_refused() {
    let keyed = common::bn254_1024();
    let p = one(keyed);
    let switched = keyed.sk.encrypt(&p).unwrap().mod_switch().unwrap();
    // Encrypting at a level gives that level's canonical factor, as switching does.
    let fresh_low = keyed.sk.encrypt_at_level(&p, switched.level()).unwrap();
    assert_eq!(switched.correction_factor(), fresh_low.correction_factor());
    assert!(switched.add(&fresh_low).is_ok());
    // A product with a plaintext scaled by 5 carries 5 times the factor.
    let five = EncodedPlaintext::with_factor(&p, switched.level(), &BigUint::from(5u32)).unwrap();
    let scaled = switched.mul_plain(&five).unwrap();
    assert_eq!(
        scaled.add(&fresh_low).unwrap_err(),
        Error::CorrectionFactorMismatch
    );
    assert_eq!(
        (&fresh_low - &scaled).unwrap_err(),
        Error::CorrectionFactorMismatch
    );

    let unit = EncodedPlaintext::for_multiplication(&p, switched.level()).unwrap();
    assert_eq!(
        switched.add_plain(&unit).unwrap_err(),
        Error::CorrectionFactorMismatch
    );
    assert_eq!(
        switched.sub_plain(&unit).unwrap_err(),
        Error::CorrectionFactorMismatch
    );
    // Multiplication accepts any factor.
    assert!(switched.mul_plain(&unit).is_ok());

    let t = keyed.t();
    for bad in [BigUint::from(0u32), t.clone(), t * 3u32] {
        assert!(matches!(
            EncodedPlaintext::with_factor(&p, 0, &bad),
            Err(Error::InvalidArgument(_))
        ));
    }
}

#[test]
fn batching_needs_a_matching_splitting_modulus() {
    // t = 65537 is not BN254's modulus.
    let keyed = common::t65537_1024();
    assert!(matches!(
        BatchEncoder::<ark_bn254::Fr>::new(&keyed.context),
        Err(Error::BatchingUnsupported { .. })
    ));
    // BN254's base field q ≡ 3 mod 4: X^N + 1 does not split mod q.
    let fq: BigUint = <ark_bn254::Fq as ark_ff::PrimeField>::MODULUS.into();
    let context = common::context(1024, &fq, 1);
    match BatchEncoder::<ark_bn254::Fq>::new(&context) {
        Err(Error::BatchingUnsupported { reason }) => assert!(reason.contains("2048"), "{reason}"),
        other => panic!("{other:?}"),
    }
    // Too many values.
    let batch = BatchEncoder::<common::F65537>::new(&keyed.context).unwrap();
    let values = vec![common::F65537::from(1u64); keyed.n() + 1];
    assert!(matches!(
        batch.encode(&values),
        Err(Error::InvalidPlaintext(_))
    ));
    let row = vec![common::F65537::from(1u64); keyed.n() / 2 + 1];
    assert!(matches!(
        batch.encode_rows(&row, &[]),
        Err(Error::InvalidPlaintext(_))
    ));
}

#[test]
fn insecure_parameters_need_consent() {
    let builder = Parameters::builder()
        .ring_degree(1024)
        .plaintext_modulus(t65537())
        .multiplicative_depth(1);
    match builder.clone().build() {
        Err(Error::InsecureParameters {
            ring_degree: 1024,
            log_qp,
            max_log_qp: 26,
        }) => {
            assert!(log_qp > 26)
        }
        other => panic!("{other:?}"),
    }
    assert!(builder.allow_insecure().build().is_ok());
    let error = Parameters::builder()
        .ring_degree(1 << 15)
        .plaintext_modulus(bn254())
        .multiplicative_depth(2)
        .build()
        .unwrap_err();
    assert!(error.to_string().contains("allow_insecure"), "{error}");
}

#[test]
fn the_engine_reports_a_modulus_sharing_a_factor_with_a_prime() {
    let base = common::context(1024, &t65537(), 1);
    let q0 = base.chain_primes()[0];
    // Primes are generated deterministically from the sizes, so q0 is in the
    // chain again: t = 3·q0 is not coprime to it.
    let params = Parameters::builder()
        .ring_degree(1024)
        .plaintext_modulus(BigUint::from(q0) * 3u32)
        .chain_bits(base.parameters().chain_bits())
        .special_bits(base.parameters().special_bits())
        .allow_insecure()
        .build()
        .unwrap();
    match Context::new(&params) {
        Err(Error::InvalidArgument(message)) => assert!(!message.is_empty()),
        other => panic!("expected the engine to refuse t = 3·q0, got {other:?}"),
    }
}

#[test]
fn secret_keys_do_not_print() {
    let keyed = common::t65537_1024();
    assert_eq!(format!("{:?}", keyed.sk), "SecretKey(<redacted>)");
    let other = SecretKey::generate(&keyed.context).unwrap();
    drop(other); // wiped by the engine on drop
}
