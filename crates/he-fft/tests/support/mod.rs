//! The contexts the integration tests share: small insecure rings over
//! BN254's scalar field, and a context with its keys.

// Each test crate that includes this module uses part of it.
#![allow(dead_code)]

use ark_bn254::Fr;
use helib_rs::{Context, Parameters, ParametersBuilder, PublicKey, SecretKey};

/// Insecure parameters: ring degree 2^`log_n`, BN254's scalar field as the
/// plaintext modulus, `primes` chain primes of 60 bits.
pub fn bn254_builder(log_n: u32, primes: usize) -> ParametersBuilder {
    Parameters::builder()
        .ring_degree(1 << log_n)
        .plaintext_modulus_from_field::<Fr>()
        .chain_bits(&vec![60; primes])
        .allow_insecure()
}

/// The context of `builder`'s parameters.
pub fn context_of(builder: ParametersBuilder) -> Context {
    Context::new(&builder.build().expect("parameters")).expect("context")
}

/// A context with a secret key and its public key.
pub struct Keys {
    pub context: Context,
    pub sk: SecretKey,
    pub pk: PublicKey,
}

impl Keys {
    /// Fresh keys of `context`.
    pub fn new(context: Context) -> Self {
        let sk = SecretKey::generate(&context).expect("sk");
        let pk = sk.public_key().expect("pk");
        Self { context, sk, pk }
    }
}
