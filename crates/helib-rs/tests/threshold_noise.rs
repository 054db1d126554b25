//! Noise estimates with collective keys: after relinearizing or rotating
//! with a key assembled by 3 or 5 parties, the engine's estimate must bound
//! the noise measured with the collective secret, and not by much.
//!
//! The special prime (30 bits) is much smaller than the chain primes (60
//! bits), so the key-switching noise dominates everything else the
//! ciphertexts carry and the test sees the key's error directly.

mod common;

use common::{bn254, random_poly, rng, t65537};
use helib_rs::threshold::{self, Seed};
use helib_rs::{Ciphertext, Context, GaloisKeys, Parameters, Plaintext, RelinKey, SecretKey};
use num_bigint::BigUint;

/// How far above the measured noise the estimate may be, in bits.
const SLACK_BITS: f64 = 4.0;

fn context(t: &BigUint, chain: usize) -> Context {
    let params = Parameters::builder()
        .ring_degree(1024)
        .plaintext_modulus(t.clone())
        .chain_bits(&vec![60; chain])
        .special_bits(&[30])
        .threads(2)
        .allow_insecure()
        .build()
        .unwrap();
    Context::new(&params).unwrap()
}

/// The collective relinearization key of `parties` (two rounds).
fn relin_key(ctx: &Context, parties: &[SecretKey], seed: &Seed) -> RelinKey {
    let len = threshold::key_share_len(ctx).unwrap();
    let ephemeral: Vec<SecretKey> = parties
        .iter()
        .map(|_| SecretKey::generate(ctx).unwrap())
        .collect();
    let (mut h0, mut h1) = (vec![0u64; len], vec![0u64; len]);
    for (sk, u) in parties.iter().zip(&ephemeral) {
        let (a, b) = threshold::relin_key_round1(sk, u, seed).unwrap();
        threshold::add_key_shares(ctx, &mut h0, &a).unwrap();
        threshold::add_key_shares(ctx, &mut h1, &b).unwrap();
    }
    let mut b_sum = vec![0u64; len];
    for (sk, u) in parties.iter().zip(&ephemeral) {
        let share = threshold::relin_key_round2(sk, u, &h0, &h1).unwrap();
        threshold::add_key_shares(ctx, &mut b_sum, &share).unwrap();
    }
    threshold::relin_key_assemble(ctx, parties.len() as u32, &b_sum, &h1).unwrap()
}

/// The collective Galois key for `element`.
fn galois_keys(ctx: &Context, parties: &[SecretKey], element: u64, seed: &Seed) -> GaloisKeys {
    let len = threshold::key_share_len(ctx).unwrap();
    let mut sum = vec![0u64; len];
    for sk in parties {
        let share = threshold::galois_key_share(sk, element, seed).unwrap();
        threshold::add_key_shares(ctx, &mut sum, &share).unwrap();
    }
    let mut keys = GaloisKeys::new(ctx).unwrap();
    threshold::galois_keys_insert(&mut keys, element, seed, parties.len() as u32, &sum).unwrap();
    keys
}

fn random_plaintext(ctx: &Context, seed: u64) -> Plaintext {
    let coeffs = random_poly(&mut rng(seed), ctx.plaintext_modulus(), ctx.ring_degree());
    Plaintext::from_biguints(ctx, &coeffs).unwrap()
}

/// Measured noise bits of `ct` under `s` (from the exact budget).
fn measured_bits(s: &SecretKey, ct: &Ciphertext) -> f64 {
    let budget = s.noise_budget(ct).unwrap();
    assert!(budget > 0.0, "the ciphertext must still decrypt");
    ct.noise_estimate_bits() + ct.estimated_budget_bits() - budget
}

fn check_bound(what: &str, s: &SecretKey, ct: &Ciphertext) {
    let measured = measured_bits(s, ct);
    let estimate = ct.noise_estimate_bits();
    eprintln!("{what}: estimate {estimate:.2} bits, measured {measured:.2} bits");
    assert!(
        estimate >= measured,
        "{what}: the estimate ({estimate:.1} bits) is below the measured noise ({measured:.1} bits)"
    );
    assert!(
        estimate <= measured + SLACK_BITS,
        "{what}: the estimate ({estimate:.1} bits) is more than {SLACK_BITS} bits above the measured noise ({measured:.1} bits)"
    );
}

/// `chain` primes of 60 bits; the product is switched down to `level`.
fn check(t: &BigUint, chain: usize, level: usize, parties: usize) {
    let ctx = context(t, chain);
    let shares: Vec<SecretKey> = (0..parties)
        .map(|_| SecretKey::generate(&ctx).unwrap())
        .collect();
    let refs: Vec<&SecretKey> = shares.iter().collect();
    let s = threshold::secret_key_sum(&refs).unwrap();
    let seed = [parties as u8; 32];

    // Relinearization of a product whose noise was first brought down by a
    // modulus switch, so that the key switch dominates.
    let rk = relin_key(&ctx, &shares, &seed);
    let a = s.encrypt(&random_plaintext(&ctx, 1)).unwrap();
    let b = s.encrypt(&random_plaintext(&ctx, 2)).unwrap();
    let product = a.multiply(&b).unwrap().mod_switch_to(level).unwrap();
    assert_eq!(product.size(), 3);
    let relinearized = product.relinearize(&rk).unwrap();
    check_bound(
        &format!("relinearization, {parties} parties, t = {t}"),
        &s,
        &relinearized,
    );
    // The key is right, too: relinearizing does not change the plaintext.
    assert_eq!(
        s.decrypt(&relinearized).unwrap(),
        s.decrypt(&product).unwrap()
    );

    // An automorphism of a fresh ciphertext.
    let g = GaloisKeys::row_swap_element(&ctx);
    let keys = galois_keys(&ctx, &shares, g, &seed);
    let fresh = s.encrypt(&random_plaintext(&ctx, 3)).unwrap();
    let rotated = fresh.apply_galois(g, &keys).unwrap();
    check_bound(
        &format!("automorphism, {parties} parties, t = {t}"),
        &s,
        &rotated,
    );
}

#[test]
fn collective_keys_t65537() {
    for parties in [3, 5] {
        check(&t65537(), 3, 1, parties);
    }
}

#[test]
fn collective_keys_bn254() {
    for parties in [3, 5] {
        check(&bn254(), 11, 6, parties);
    }
}

/// Collective keys round-trip through the checked format (the relinearization
/// key with its `a` polynomials in full, both with their number of parties):
/// the loaded keys give the same results and the same noise estimates, a
/// single-party key still writes version 1, and tampered bytes are refused.
#[test]
fn collective_keys_serialize() {
    for (t, chain, level) in [(t65537(), 3, 1), (bn254(), 11, 6)] {
        let ctx = context(&t, chain);
        let shares: Vec<SecretKey> = (0..3).map(|_| SecretKey::generate(&ctx).unwrap()).collect();
        let refs: Vec<&SecretKey> = shares.iter().collect();
        let s = threshold::secret_key_sum(&refs).unwrap();
        let seed = [7u8; 32];

        let rk = relin_key(&ctx, &shares, &seed);
        let bytes = rk.to_bytes().unwrap();
        assert_eq!(
            u16::from_le_bytes([bytes[4], bytes[5]]),
            2,
            "collective keys use version 2"
        );
        let loaded = RelinKey::from_bytes(&ctx, &bytes).unwrap();
        assert_eq!(loaded.to_bytes().unwrap(), bytes);
        let a = s.encrypt(&random_plaintext(&ctx, 4)).unwrap();
        let b = s.encrypt(&random_plaintext(&ctx, 5)).unwrap();
        let product = a.multiply(&b).unwrap().mod_switch_to(level).unwrap();
        let with_original = product.relinearize(&rk).unwrap();
        let with_loaded = product.relinearize(&loaded).unwrap();
        assert_eq!(
            s.decrypt(&with_loaded).unwrap(),
            s.decrypt(&with_original).unwrap()
        );
        assert_eq!(
            with_loaded.noise_estimate_bits(),
            with_original.noise_estimate_bits()
        );
        // The same product relinearized with a single-party key of s decrypts the same.
        let single = RelinKey::generate(&s).unwrap();
        assert_eq!(
            s.decrypt(&product.relinearize(&single).unwrap()).unwrap(),
            s.decrypt(&with_loaded).unwrap()
        );
        let single_bytes = single.to_bytes().unwrap();
        assert_eq!(u16::from_le_bytes([single_bytes[4], single_bytes[5]]), 1);
        assert!(single_bytes.len() < bytes.len());

        let g = GaloisKeys::row_swap_element(&ctx);
        let keys = galois_keys(&ctx, &shares, g, &seed);
        let gbytes = keys.to_bytes().unwrap();
        assert_eq!(u16::from_le_bytes([gbytes[4], gbytes[5]]), 2);
        let gloaded = GaloisKeys::from_bytes(&ctx, &gbytes).unwrap();
        assert_eq!(gloaded.to_bytes().unwrap(), gbytes);
        let fresh = s.encrypt(&random_plaintext(&ctx, 6)).unwrap();
        let r1 = fresh.apply_galois(g, &keys).unwrap();
        let r2 = fresh.apply_galois(g, &gloaded).unwrap();
        assert_eq!(s.decrypt(&r1).unwrap(), s.decrypt(&r2).unwrap());
        assert_eq!(r1.noise_estimate_bits(), r2.noise_estimate_bits());

        // A flipped byte in the key is caught (checksum), and so is a key
        // relabelled as version 1 (its layout no longer matches).
        let mut bad = bytes.clone();
        bad[100] ^= 1;
        assert!(matches!(
            RelinKey::from_bytes(&ctx, &bad),
            Err(helib_rs::Error::Malformed(_))
        ));
        let mut relabelled = bytes.clone();
        relabelled[4] = 1;
        assert!(RelinKey::from_bytes(&ctx, &relabelled).is_err());
    }
}
