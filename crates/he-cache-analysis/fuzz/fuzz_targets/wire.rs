//! libFuzzer harness for `he_cache_analysis::WireCiphertext::parse`, against a
//! context with t = 65537 and one with t = BN254 Fr (a 32-byte correction factor).
//!
//! Any bytes must give `Ok` or `Err(Malformed)`, never a panic (overflow
//! checks are on). The reader accepts exactly what the engine's decoder
//! accepts; a parsed ciphertext must have the shape its context implies,
//! with every residue below its prime, and equal what
//! `Ciphertext::residues` gives for the decoded ciphertext.
//!
//! With `HELIB_FUZZ_WRITE_SEEDS=DIR` the binary writes its seed corpus (valid
//! encodings, prefixes, tweaked copies) to DIR and exits, as the C++
//! harnesses do. Built and run by `helib-sys/fuzz/run.sh`.
#![no_main]

use std::sync::OnceLock;

use he_cache_analysis::WireCiphertext;
use helib_rs::{Ciphertext, Context, Parameters, Plaintext, SecretKey};
use libfuzzer_sys::fuzz_target;
use num_bigint::BigUint;

/// The two contexts: N = 1024 with t = 65537 (three 50-bit primes) and with
/// t = BN254 Fr (six 60-bit primes); both insecure, for speed.
fn contexts() -> &'static [Context; 2] {
    static CONTEXTS: OnceLock<[Context; 2]> = OnceLock::new();
    CONTEXTS.get_or_init(|| {
        let make = |t: BigUint, chain: &[u32]| {
            let params = Parameters::builder()
                .ring_degree(1024)
                .plaintext_modulus(t)
                .chain_bits(chain)
                .special_bits(&[60])
                .threads(1)
                .allow_insecure()
                .build()
                .expect("fuzzing parameters are valid");
            Context::new(&params).expect("fuzzing context")
        };
        let bn254 = BigUint::parse_bytes(
            b"30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001",
            16,
        )
        .expect("hex literal");
        [
            make(BigUint::from(65537u32), &[50, 50, 50]),
            make(bn254, &[60; 6]),
        ]
    })
}

/// Valid encodings for `context`: a fresh public-key encryption, the same
/// switched down a level, a size-3 product, and a seeded secret-key
/// encryption.
fn valid_encodings(context: &Context) -> Vec<Vec<u8>> {
    let sk = SecretKey::generate(context).expect("secret key");
    let pk = sk.public_key().expect("public key");
    let coefficients: Vec<u64> = (0..context.ring_degree() as u64)
        .map(|j| j * 7919 % 65537)
        .collect();
    let m = Plaintext::from_u64s(context, &coefficients).expect("plaintext");
    let fresh = pk.encrypt(&m).expect("encrypt");
    let mut out = vec![
        fresh.to_bytes().expect("serialize"),
        fresh
            .mod_switch()
            .expect("mod switch")
            .to_bytes()
            .expect("serialize"),
        sk.encrypt(&m)
            .expect("encrypt")
            .to_bytes()
            .expect("serialize"),
    ];
    if let Ok(product) = fresh.multiply(&fresh) {
        out.push(product.to_bytes().expect("serialize"));
    }
    out
}

/// Writes the seed corpus to `dir`: each valid encoding, some prefixes, and
/// copies with a flipped byte in the header, the payload and the checksum.
fn write_seeds(dir: &str) {
    let mut seeds: Vec<Vec<u8>> = Vec::new();
    for context in contexts() {
        for bytes in valid_encodings(context) {
            for cut in [0, 7, 48, 60, bytes.len() / 2, bytes.len() - 1] {
                seeds.push(bytes[..cut.min(bytes.len())].to_vec());
            }
            for at in [4, 6, 48, 52, 53, bytes.len() - 40, bytes.len() - 1] {
                let mut tweaked = bytes.clone();
                tweaked[at] ^= 0xff;
                seeds.push(tweaked);
            }
            seeds.push(bytes);
        }
    }
    for (i, seed) in seeds.iter().enumerate() {
        std::fs::write(format!("{dir}/seed-{i}"), seed).expect("write a seed");
    }
}

/// The properties of one input under one context.
fn check(context: &Context, data: &[u8]) {
    let engine = Ciphertext::from_bytes(context, data);
    let Ok(wire) = WireCiphertext::parse(context, data) else {
        assert!(engine.is_err(), "the reader refused what the engine accepts");
        return;
    };
    let ciphertext = engine.expect("the reader accepted what the engine refuses");
    let n = context.ring_degree();
    assert!(wire.level() <= context.max_level(), "level out of range");
    let parts = (0..4)
        .take_while(|&k| wire.residues(k, 0).is_some())
        .count();
    assert!((2..=3).contains(&parts), "{parts} polynomials");
    for k in 0..parts {
        for (i, &q) in context.chain_primes().iter().enumerate() {
            let residues = wire.residues(k, i);
            if i > wire.level() {
                assert!(residues.is_none(), "residues above the level");
                continue;
            }
            let residues = residues.expect("every prime up to the level");
            assert_eq!(residues.len(), n, "one residue per coefficient");
            let width = u64::BITS - q.leading_zeros();
            assert!(
                residues.iter().all(|&r| r >> width == 0 && r < q),
                "a residue not below its prime"
            );
            assert_eq!(
                ciphertext.residues(k, i).ok().as_deref(),
                Some(residues),
                "the reader and the accessor disagree"
            );
        }
    }
    let again = WireCiphertext::of(&ciphertext).expect("re-read the engine's ciphertext");
    assert_eq!(again, wire, "parsing and reading the decoded ciphertext disagree");
}

fuzz_target!(
    init: {
        if let Ok(dir) = std::env::var("HELIB_FUZZ_WRITE_SEEDS") {
            write_seeds(&dir);
            std::process::exit(0);
        }
        contexts();
    },
    |data: &[u8]| {
        for context in contexts() {
            check(context, data);
        }
    }
);
