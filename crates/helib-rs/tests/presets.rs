//! The named presets at full size: each builds, reaches ≥ 128-bit security,
//! and runs its promised number of plaintext multiplications. These use
//! N ≥ 2^14 and are ignored by default; run them with
//! `cargo test -p helib-rs --release --test presets -- --ignored`.

mod common;

use ark_bn254::Fr;
use ark_ff::{FftField, PrimeField};
use common::F65537;
use helib_rs::{BatchEncoder, Context, Parameters, SecretKey, SecurityLevel};

/// Encrypts random slots and multiplies `depth` times by random plaintexts,
/// checking each decryption.
fn exercise<F: PrimeField + FftField>(params: &Parameters, depth: usize) {
    assert!(params.security_level() >= SecurityLevel::Bits128);
    let context = Context::new(params).unwrap();
    assert_eq!(context.chain_primes().len(), params.chain_bits().len());
    assert_eq!(context.special_primes().len(), params.special_bits().len());
    let log_qp =
        context.log2_modulus(context.max_level()).unwrap() + context.log2_special_modulus();
    assert!(log_qp <= f64::from(params.log_qp_bound()));
    let sk = SecretKey::generate(&context).unwrap();
    let pk = sk.public_key().unwrap();
    let encoder = BatchEncoder::<F>::new(&context).unwrap();
    let mut rng = common::rng(1);
    let n = context.ring_degree();
    let mut expected: Vec<F> = (0..n).map(|_| F::rand(&mut rng)).collect();
    let mut ct = pk.encrypt(&encoder.encode(&expected).unwrap()).unwrap();
    for step in 0..depth {
        ct.mod_switch_reduce_noise_assign().unwrap();
        let factor: Vec<F> = (0..n).map(|_| F::rand(&mut rng)).collect();
        let plain = encoder
            .encode_for_multiplication(&factor, ct.level())
            .unwrap();
        ct.mul_plain_assign(&plain)
            .unwrap_or_else(|e| panic!("product {}: {e}", step + 1));
        for (e, f) in expected.iter_mut().zip(&factor) {
            *e *= f;
        }
    }
    assert_eq!(encoder.decode(&sk.decrypt(&ct).unwrap()).unwrap(), expected);
}

#[test]
#[ignore = "N = 2^15: run with --ignored"]
fn bn254_n15() {
    exercise::<Fr>(&Parameters::bn254_n15(), 1);
}

#[test]
#[ignore = "N = 2^16: run with --ignored"]
fn bn254_n16() {
    exercise::<Fr>(&Parameters::bn254_n16(), 2);
}

#[test]
#[ignore = "N = 2^17: run with --ignored"]
fn bn254_n17() {
    exercise::<Fr>(&Parameters::bn254_n17(), 8);
}

#[test]
#[ignore = "N = 2^14: run with --ignored"]
fn t65537_n14() {
    exercise::<F65537>(&Parameters::t65537_n14(), 8);
}
