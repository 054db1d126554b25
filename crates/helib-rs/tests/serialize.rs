//! Serialization through the safe API: round trips of every object kind
//! (decryption after loading equals decryption before), seeded sizes, loads
//! into other contexts, and malformed input (prefixes, bit flips, wrong kinds,
//! garbage) refused with structured errors.

mod common;

use common::*;
use helib_rs::{
    Ciphertext, Error, GaloisKeys, Parameters, Plaintext, PublicKey, RelinKey, RotationPolicy,
    FINGERPRINT_BYTES,
};
use num_bigint::BigUint;
use rand::Rng;

/// Header and checksum bytes around every payload.
const FRAME: usize = 48 + 32;

#[track_caller]
fn assert_malformed<T: std::fmt::Debug>(result: helib_rs::Result<T>, what: &str) {
    match result {
        Err(Error::Malformed(message)) => {
            assert!(!message.is_empty(), "{what}: empty message");
            assert!(
                !message.starts_with("malformed input"),
                "{what}: the engine's prefix is stripped: {message:?}"
            );
        }
        other => panic!("{what}: expected Error::Malformed, got {other:?}"),
    }
}

/// Every prefix of the first 200 bytes, then prefixes at a stride, one byte
/// more, and random bit flips: all refused.
fn assert_refuses_damage<T: std::fmt::Debug>(
    bytes: &[u8],
    what: &str,
    load: impl Fn(&[u8]) -> helib_rs::Result<T>,
) {
    let mut rng = rng(99);
    for cut in (0..bytes.len().min(200)).chain((200..bytes.len()).step_by(1499)) {
        assert_malformed(load(&bytes[..cut]), what);
    }
    let mut longer = bytes.to_vec();
    longer.push(0);
    assert_malformed(load(&longer), what);
    for _ in 0..24 {
        let mut bad = bytes.to_vec();
        let bit = rng.gen_range(0..bad.len() * 8);
        bad[bit / 8] ^= 1 << (bit % 8);
        assert_malformed(load(&bad), what);
    }
}

#[test]
fn parameters_round_trip() {
    for params in [
        Parameters::bn254_n15(),
        Parameters::bn254_n16(),
        Parameters::bn254_n17(),
        Parameters::t65537_n14(),
    ] {
        let bytes = params.to_bytes().unwrap();
        assert_eq!(&bytes[..4], b"HBGV");
        assert_eq!(Parameters::from_bytes(&bytes).unwrap(), params);
    }
    let for_tests = Parameters::for_tests();
    let bytes = for_tests.to_bytes().unwrap();
    assert_eq!(
        Parameters::from_bytes_allow_insecure(&bytes).unwrap(),
        for_tests
    );
    // The thread count is not stored.
    let threaded = params(1024, &t65537(), 1);
    assert_eq!(threaded.threads(), 2);
    let back = Parameters::from_bytes_allow_insecure(&threaded.to_bytes().unwrap()).unwrap();
    assert_eq!(back.threads(), 0);
    assert_eq!(back.chain_bits(), threaded.chain_bits());
    assert_eq!(back.special_bits(), threaded.special_bits());
    assert!(back.insecure_allowed());
    // N = 2^16 with the BN254 chain: 144 bytes.
    assert_eq!(Parameters::bn254_n16().to_bytes().unwrap().len(), 144);

    let bytes = Parameters::for_tests().to_bytes().unwrap();
    assert_refuses_damage(&bytes, "parameters", Parameters::from_bytes_allow_insecure);
    assert_refuses_damage(
        &Parameters::bn254_n15().to_bytes().unwrap(),
        "parameters",
        Parameters::from_bytes,
    );
    for load in [
        Parameters::from_bytes,
        Parameters::from_bytes_allow_insecure,
    ] {
        assert_malformed(load(&[]), "empty");
        assert_malformed(load(&[0u8; 4096]), "zeros");
    }
}

#[test]
fn insecure_parameters_need_the_callers_opt_in_not_the_bytes() {
    // The bytes of insecure parameters carry the flag their writer set, but
    // bytes can come from anyone: loading them without the caller's own
    // opt-in is refused with the structured error.
    let insecure = Parameters::for_tests();
    assert!(insecure.insecure_allowed());
    let bytes = insecure.to_bytes().unwrap();
    assert_eq!(
        Parameters::from_bytes(&bytes),
        Err(Error::InsecureParameters {
            ring_degree: 4096,
            log_qp: insecure.log_qp_bound(),
            max_log_qp: 106,
        })
    );
    // The caller's explicit opt-in loads them.
    let loaded = Parameters::from_bytes_allow_insecure(&bytes).unwrap();
    assert!(loaded.insecure_allowed());
    assert_eq!(loaded, insecure);
    // A secure preset loads either way; only the caller's opt-in sets the flag.
    let secure = Parameters::bn254_n15();
    let bytes = secure.to_bytes().unwrap();
    assert!(!Parameters::from_bytes(&bytes).unwrap().insecure_allowed());
    assert!(Parameters::from_bytes_allow_insecure(&bytes)
        .unwrap()
        .insecure_allowed());
}

#[test]
fn fingerprints_identify_parameters() {
    let keyed = t65537_1024();
    let again = context(1024, &t65537(), 3);
    let fp = keyed.context.fingerprint().unwrap();
    assert_eq!(fp.len(), FINGERPRINT_BYTES);
    assert_eq!(fp, again.fingerprint().unwrap());
    assert_ne!(fp, bn254_1024().context.fingerprint().unwrap());
    assert_ne!(fp, context(1024, &t65537(), 2).fingerprint().unwrap());
    assert_ne!(fp, context(2048, &t65537(), 3).fingerprint().unwrap());
}

#[test]
fn plaintexts_round_trip() {
    for keyed in [bn254_1024(), t65537_1024()] {
        let mut r = rng(1);
        let p = keyed.plaintext(&random_poly(&mut r, keyed.t(), keyed.n()));
        let bytes = p.to_bytes().unwrap();
        let bits = keyed.t().bits() as usize;
        assert_eq!(bytes.len(), FRAME + 4 + (keyed.n() * bits).div_ceil(8));
        assert_eq!(Plaintext::from_bytes(&keyed.context, &bytes).unwrap(), p);

        let zero = Plaintext::zero(&keyed.context);
        let zero_bytes = zero.to_bytes().unwrap();
        assert_eq!(zero_bytes.len(), FRAME + 4, "trailing zeros are not stored");
        assert_eq!(
            Plaintext::from_bytes(&keyed.context, &zero_bytes).unwrap(),
            zero
        );
        let short = Plaintext::from_i64s(&keyed.context, &[-1, 0, 5]).unwrap();
        let short_bytes = short.to_bytes().unwrap();
        assert_eq!(short_bytes.len(), FRAME + 4 + (3 * bits).div_ceil(8));
        assert_eq!(
            Plaintext::from_bytes(&keyed.context, &short_bytes).unwrap(),
            short
        );
        assert_refuses_damage(&short_bytes, "plaintext", |b| {
            Plaintext::from_bytes(&keyed.context, b)
        });
    }
    // Across contexts with different parameters: refused.
    let bytes = Plaintext::from_u64s(&t65537_1024().context, &[1])
        .unwrap()
        .to_bytes()
        .unwrap();
    assert!(matches!(
        Plaintext::from_bytes(&bn254_1024().context, &bytes),
        Err(Error::ContextMismatch)
    ));
}

#[test]
fn ciphertexts_round_trip_and_decrypt_the_same() {
    let keyed = bn254_1024();
    let (ctx, sk, pk) = (&keyed.context, &keyed.sk, &keyed.pk);
    let mut r = rng(2);
    let p = keyed.plaintext(&random_poly(&mut r, keyed.t(), keyed.n()));
    let q = keyed.plaintext(&random_poly(&mut r, keyed.t(), keyed.n()));

    let fresh = pk.encrypt(&p).unwrap();
    let switched = fresh.mod_switch().unwrap();
    let scaled = switched.mul_scalar(&BigUint::from(12345u32)).unwrap();
    let sum = (&scaled + &pk.encrypt_at_level(&q, scaled.level()).unwrap()).unwrap();
    for (what, ct) in [
        ("fresh", &fresh),
        ("switched", &switched),
        ("scaled", &scaled),
        ("sum", &sum),
    ] {
        let bytes = ct.to_bytes().unwrap();
        let back = Ciphertext::from_bytes(ctx, &bytes).unwrap();
        assert_eq!(back.level(), ct.level(), "{what}");
        assert_eq!(back.size(), ct.size(), "{what}");
        assert_eq!(back.correction_factor(), ct.correction_factor(), "{what}");
        assert_eq!(
            back.noise_estimate_bits(),
            ct.noise_estimate_bits(),
            "{what}"
        );
        assert_eq!(
            sk.decrypt(&back).unwrap(),
            sk.decrypt(ct).unwrap(),
            "{what}"
        );
        assert_eq!(back.to_bytes().unwrap(), bytes, "{what}: same bytes again");
    }
    assert_ne!(switched.correction_factor(), &BigUint::from(1u32));
}

#[test]
fn secret_key_ciphertexts_are_about_half_the_size() {
    let keyed = t65537_1024();
    let p = keyed.plaintext(&random_poly(&mut rng(3), keyed.t(), keyed.n()));
    let seeded = keyed.sk.encrypt(&p).unwrap();
    // Negating twice gives the same ciphertext without its seed.
    let expanded = seeded.negate().unwrap().negate().unwrap();
    let (a, b) = (seeded.to_bytes().unwrap(), expanded.to_bytes().unwrap());
    let ratio = a.len() as f64 / b.len() as f64;
    assert!((0.45..0.52).contains(&ratio), "seeded/expanded = {ratio}");
    for bytes in [&a, &b] {
        let back = Ciphertext::from_bytes(&keyed.context, bytes).unwrap();
        assert_eq!(keyed.sk.decrypt(&back).unwrap(), p);
    }
    // Loaded seeded ciphertexts compute like any other.
    let back = Ciphertext::from_bytes(&keyed.context, &a).unwrap();
    let doubled = (&back + &back).unwrap();
    assert_eq!(
        keyed.sk.decrypt(&doubled).unwrap(),
        keyed.sk.decrypt(&(&seeded + &seeded).unwrap()).unwrap()
    );
}

#[test]
fn public_keys_round_trip() {
    let keyed = t65537_1024();
    let bytes = keyed.pk.to_bytes().unwrap();
    let chain_bits: usize = keyed
        .context
        .chain_primes()
        .iter()
        .map(|q| 64 - q.leading_zeros() as usize)
        .sum();
    assert_eq!(bytes.len(), FRAME + keyed.n() * chain_bits / 8 + 32);
    let loaded = PublicKey::from_bytes(&keyed.context, &bytes).unwrap();
    assert_eq!(loaded.to_bytes().unwrap(), bytes);
    let p = Plaintext::from_i64s(&keyed.context, &[4, -3, 2, -1]).unwrap();
    assert_eq!(keyed.sk.decrypt(&loaded.encrypt(&p).unwrap()).unwrap(), p);
    assert_refuses_damage(&bytes, "public key", |b| {
        PublicKey::from_bytes(&keyed.context, b)
    });
}

#[test]
fn other_contexts_and_other_kinds_are_refused() {
    let keyed = t65537_1024();
    let p = Plaintext::from_u64s(&keyed.context, &[1, 2, 3]).unwrap();
    let ct = keyed.pk.encrypt(&p).unwrap();
    let (ct_b, pk_b, pt_b) = (
        ct.to_bytes().unwrap(),
        keyed.pk.to_bytes().unwrap(),
        p.to_bytes().unwrap(),
    );
    let params_b = keyed.context.parameters().to_bytes().unwrap();

    // Same parameters, separately built context: the same fingerprint, so it loads.
    let twin = context(1024, &t65537(), 3);
    let loaded = Ciphertext::from_bytes(&twin, &ct_b).unwrap();
    assert!(loaded.context().same_as(&twin));
    assert_eq!(loaded.level(), ct.level());
    // The keys of the first context do not mix with objects of the twin.
    assert!(matches!(
        keyed.sk.decrypt(&loaded),
        Err(Error::ContextMismatch)
    ));

    // Different parameters: refused.
    let other = context(1024, &t65537(), 2);
    assert!(matches!(
        Ciphertext::from_bytes(&other, &ct_b),
        Err(Error::ContextMismatch)
    ));
    assert!(matches!(
        PublicKey::from_bytes(&other, &pk_b),
        Err(Error::ContextMismatch)
    ));
    assert!(matches!(
        Plaintext::from_bytes(&other, &pt_b),
        Err(Error::ContextMismatch)
    ));

    // Each object given to the other decoders.
    let ctx = &keyed.context;
    for bytes in [&pk_b, &pt_b, &params_b] {
        assert_malformed(Ciphertext::from_bytes(ctx, bytes), "as ciphertext");
    }
    for bytes in [&ct_b, &pt_b, &params_b] {
        assert_malformed(PublicKey::from_bytes(ctx, bytes), "as public key");
    }
    for bytes in [&ct_b, &pk_b, &params_b] {
        assert_malformed(Plaintext::from_bytes(ctx, bytes), "as plaintext");
    }
    for bytes in [&ct_b, &pk_b, &pt_b] {
        assert_malformed(Parameters::from_bytes(bytes), "as parameters");
    }
    let message = match Ciphertext::from_bytes(ctx, &pk_b) {
        Err(Error::Malformed(m)) => m,
        other => panic!("{other:?}"),
    };
    assert!(
        message.contains("public key"),
        "the message names the kind: {message}"
    );
}

#[test]
fn damaged_ciphertexts_are_refused() {
    let keyed = t65537_1024();
    let ct = keyed
        .sk
        .encrypt(&Plaintext::from_u64s(&keyed.context, &[7]).unwrap())
        .unwrap()
        .mod_switch()
        .unwrap();
    let bytes = ct.to_bytes().unwrap();
    assert_refuses_damage(&bytes, "ciphertext", |b| {
        Ciphertext::from_bytes(&keyed.context, b)
    });
    // A header claiming an enormous payload.
    let mut huge = bytes[..48].to_vec();
    huge[40..48].copy_from_slice(&u64::MAX.to_le_bytes());
    huge.extend_from_slice(&[0u8; 32]);
    assert_malformed(Ciphertext::from_bytes(&keyed.context, &huge), "huge");
    // An unknown format version.
    let mut future = bytes.clone();
    future[4] = 2;
    let err = Ciphertext::from_bytes(&keyed.context, &future).unwrap_err();
    assert!(
        matches!(&err, Error::Malformed(m) if m.contains("version 2")),
        "{err}"
    );
}

#[test]
fn relin_keys_round_trip_and_relinearize() {
    let keyed = bn254_1024();
    let ctx = &keyed.context;
    let rk = RelinKey::generate(&keyed.sk).unwrap();
    let bytes = rk.to_bytes().unwrap();
    let ratio = bytes.len() as f64 / rk.size_bytes() as f64;
    assert!(ratio < 0.5, "serialized/in-memory = {ratio}");
    let loaded = RelinKey::from_bytes(ctx, &bytes).unwrap();
    assert_eq!(loaded.size_bytes(), rk.size_bytes());
    assert_eq!(loaded.to_bytes().unwrap(), bytes);

    let mut r = rng(5);
    let p = keyed.plaintext(&random_poly(&mut r, keyed.t(), keyed.n()));
    let q = keyed.plaintext(&random_poly(&mut r, keyed.t(), keyed.n()));
    let (a, b) = (keyed.pk.encrypt(&p).unwrap(), keyed.pk.encrypt(&q).unwrap());
    let product = a.multiply(&b).unwrap();
    assert_eq!(product.size(), 3);
    // A size-3 ciphertext round-trips too.
    let product = Ciphertext::from_bytes(ctx, &product.to_bytes().unwrap()).unwrap();
    assert_eq!(product.size(), 3);
    let with_loaded = product.relinearize(&loaded).unwrap();
    let with_original = product.relinearize(&rk).unwrap();
    assert_eq!(
        keyed.sk.decrypt(&with_loaded).unwrap(),
        keyed.sk.decrypt(&with_original).unwrap()
    );
    assert_eq!(
        keyed.sk.decrypt(&with_loaded).unwrap(),
        keyed.plaintext(&model::mul(&p.coefficients(), &q.coefficients(), keyed.t()))
    );
    assert_refuses_damage(&bytes, "relinearization key", |b| {
        RelinKey::from_bytes(ctx, b)
    });
    assert!(matches!(
        RelinKey::from_bytes(&context(1024, &bn254(), 3), &bytes),
        Err(Error::ContextMismatch)
    ));
}

#[test]
fn galois_keys_round_trip_and_rotate() {
    let keyed = t65537_1024();
    let ctx = &keyed.context;
    let mut keys = GaloisKeys::for_steps(&keyed.sk, &[1, -3]).unwrap();
    keys.add_row_swap(&keyed.sk).unwrap();
    let bytes = keys.to_bytes().unwrap();
    let loaded = GaloisKeys::from_bytes(ctx, &bytes).unwrap();
    assert_eq!(loaded.elements(), keys.elements());
    assert_eq!(loaded.len(), 3);
    assert_eq!(loaded.size_bytes(), keys.size_bytes());
    assert!(loaded.contains_step(1) && loaded.contains_step(-3));
    assert_eq!(loaded.to_bytes().unwrap(), bytes);
    let ratio = bytes.len() as f64 / keys.size_bytes() as f64;
    assert!(ratio < 0.5, "serialized/in-memory = {ratio}");

    let p = keyed.plaintext(&random_poly(&mut rng(6), keyed.t(), keyed.n()));
    let ct = keyed.sk.encrypt(&p).unwrap();
    for step in [1, -3] {
        let want = ct.rotate_rows(step, &keys, RotationPolicy::Exact).unwrap();
        let got = ct
            .rotate_rows(step, &loaded, RotationPolicy::Exact)
            .unwrap();
        assert_eq!(
            keyed.sk.decrypt(&got).unwrap(),
            keyed.sk.decrypt(&want).unwrap(),
            "step {step}"
        );
    }
    assert!(matches!(
        ct.rotate_rows(2, &loaded, RotationPolicy::Exact),
        Err(Error::MissingGaloisKey { .. })
    ));
    let empty = GaloisKeys::new(ctx).unwrap().to_bytes().unwrap();
    assert_eq!(empty.len(), FRAME + 4);
    assert!(GaloisKeys::from_bytes(ctx, &empty).unwrap().is_empty());
    assert_refuses_damage(&bytes, "Galois keys", |b| GaloisKeys::from_bytes(ctx, b));
    assert_malformed(
        RelinKey::from_bytes(ctx, &bytes),
        "Galois keys as a relinearization key",
    );
    assert_malformed(
        GaloisKeys::from_bytes(
            ctx,
            &RelinKey::generate(&keyed.sk).unwrap().to_bytes().unwrap(),
        ),
        "a relinearization key as Galois keys",
    );
}

/// The sizes `helib-sys/cpp/SERIALIZATION.md` gives for N = 2^16 and the
/// `bn254_n16` preset. Slow (full-size keys): run with
/// `cargo test --release -p helib-rs --test serialize -- --ignored --nocapture`.
#[test]
#[ignore = "full-size keys; run in release with --ignored"]
fn full_size_encodings_match_the_documented_sizes() {
    let context = helib_rs::Context::new(&Parameters::bn254_n16()).unwrap();
    let sk = helib_rs::SecretKey::generate(&context).unwrap();
    let pk = sk.public_key().unwrap();
    let m = Plaintext::from_biguints(
        &context,
        &random_poly(
            &mut rng(7),
            context.plaintext_modulus(),
            context.ring_degree(),
        ),
    )
    .unwrap();
    let rk = RelinKey::generate(&sk).unwrap();
    let gk = GaloisKeys::for_steps(&sk, &[1]).unwrap();
    let sizes = [
        (
            "parameters",
            context.parameters().to_bytes().unwrap().len(),
            144,
        ),
        (
            "ciphertext",
            pk.encrypt(&m).unwrap().to_bytes().unwrap().len(),
            13_402_238,
        ),
        (
            "seeded ciphertext",
            sk.encrypt(&m).unwrap().to_bytes().unwrap().len(),
            6_701_214,
        ),
        ("public key", pk.to_bytes().unwrap().len(), 6_701_168),
        (
            "relinearization key",
            rk.to_bytes().unwrap().len(),
            27_451_572,
        ),
        (
            "one Galois key",
            gk.to_bytes().unwrap().len(),
            84 + 27_451_500,
        ),
        ("plaintext", m.to_bytes().unwrap().len(), 2_080_852),
    ];
    for (what, got, documented) in sizes {
        println!("{what}: {got} bytes");
        assert_eq!(got, documented, "{what}");
    }
    println!(
        "in memory: relinearization key {} bytes, one Galois key {} bytes",
        rk.size_bytes(),
        gk.size_bytes()
    );
}
