//! Homomorphic operations checked against a plaintext model of
//! Z_t[X]/(X^N + 1) computed with num-bigint.

mod common;

use common::{model, random_below, random_poly, rng, Keyed};
use helib_rs::{Ciphertext, EncodedPlaintext};
use num_bigint::BigUint;
use rand::{rngs::StdRng, Rng};

fn keyed_contexts() -> [&'static Keyed; 2] {
    [common::bn254_1024(), common::t65537_1024()]
}

/// Runs `check` for each keyed context with a random plaintext `a` of it
/// (from seed `seed`) and the generator, for more values.
fn with_random_plaintext(seed: u64, check: impl Fn(&Keyed, Vec<BigUint>, &mut StdRng)) {
    for keyed in keyed_contexts() {
        let mut rng = rng(seed);
        let a = random_poly(&mut rng, keyed.t(), keyed.n());
        check(keyed, a, &mut rng);
    }
}

/// `coefficients` encrypted under the public key.
fn encrypt(keyed: &Keyed, coefficients: &[BigUint]) -> Ciphertext {
    keyed.pk.encrypt(&keyed.plaintext(coefficients)).unwrap()
}

/// `coefficients` encrypted under the secret key.
fn encrypt_symmetric(keyed: &Keyed, coefficients: &[BigUint]) -> Ciphertext {
    keyed.sk.encrypt(&keyed.plaintext(coefficients)).unwrap()
}

/// Decrypts and returns the coefficients.
fn open(keyed: &Keyed, ct: &Ciphertext) -> Vec<BigUint> {
    keyed.sk.decrypt(ct).unwrap().coefficients()
}

/// A plaintext with `nonzero` random coefficients at random places.
fn sparse(keyed: &Keyed, rng: &mut impl Rng, nonzero: usize) -> Vec<BigUint> {
    let mut out = vec![BigUint::from(0u32); keyed.n()];
    for _ in 0..nonzero {
        let place = rng.gen_range(0..keyed.n());
        out[place] = random_below(rng, keyed.t());
    }
    out
}

#[test]
fn add_sub_negate_match_the_model() {
    with_random_plaintext(11, |keyed, a, rng| {
        let (t, n) = (keyed.t(), keyed.n());
        let ca = encrypt(keyed, &a);
        let b = random_poly(rng, t, n);
        let cb = encrypt_symmetric(keyed, &b);

        assert_eq!(open(keyed, &ca.add(&cb).unwrap()), model::add(&a, &b, t));
        assert_eq!(open(keyed, &ca.sub(&cb).unwrap()), model::sub(&a, &b, t));
        assert_eq!(open(keyed, &ca.negate().unwrap()), model::neg(&a, t));
        assert_eq!(open(keyed, &(&ca + &cb).unwrap()), model::add(&a, &b, t));
        assert_eq!(open(keyed, &(&cb - &ca).unwrap()), model::sub(&b, &a, t));
        assert_eq!(open(keyed, &(-&cb).unwrap()), model::neg(&b, t));

        let mut acc = ca.clone();
        acc.add_assign(&cb).unwrap();
        acc.sub_assign(&cb).unwrap();
        acc.sub_assign(&cb).unwrap();
        acc.negate_assign().unwrap();
        assert_eq!(open(keyed, &acc), model::sub(&b, &a, t));
    });
}

#[test]
fn plaintext_addition_matches_the_model_at_every_factor() {
    with_random_plaintext(12, |keyed, a, rng| {
        let (t, n) = (keyed.t(), keyed.n());
        let p = random_poly(rng, t, n);
        let plain = keyed.plaintext(&p);
        let mut ct = encrypt(keyed, &a);
        // At the top level (factor 1) and after a modulus switch (factor ≠ 1).
        for round in 0..2 {
            let level = ct.level();
            let to_ct = EncodedPlaintext::for_addition_to(&plain, &ct).unwrap();
            let canonical = EncodedPlaintext::for_addition(&plain, level).unwrap();
            assert_eq!(to_ct.correction_factor(), canonical.correction_factor());
            assert_eq!(
                open(keyed, &ct.add_plain(&to_ct).unwrap()),
                model::add(&a, &p, t)
            );
            assert_eq!(
                open(keyed, &ct.sub_plain(&canonical).unwrap()),
                model::sub(&a, &p, t)
            );
            assert_eq!(open(keyed, &(&ct + &to_ct).unwrap()), model::add(&a, &p, t));
            assert_eq!(open(keyed, &(&ct - &to_ct).unwrap()), model::sub(&a, &p, t));
            let mut in_place = ct.clone();
            in_place.add_plain_assign(&to_ct).unwrap();
            in_place.add_plain_assign(&to_ct).unwrap();
            in_place.sub_plain_assign(&canonical).unwrap();
            assert_eq!(
                open(keyed, &in_place),
                model::add(&a, &p, t),
                "round {round}"
            );
            if round == 0 {
                ct.mod_switch_assign().unwrap();
                assert_ne!(ct.correction_factor(), &BigUint::from(1u32));
            }
        }
    });
}

#[test]
fn plaintext_multiplication_matches_the_negacyclic_model() {
    with_random_plaintext(13, |keyed, a, rng| {
        let (t, n) = (keyed.t(), keyed.n());
        let b = random_poly(rng, t, n);
        let ct = encrypt_symmetric(keyed, &a);
        let encoded =
            EncodedPlaintext::for_multiplication(&keyed.plaintext(&b), ct.level()).unwrap();
        let product = (&ct * &encoded).unwrap();
        assert_eq!(open(keyed, &product), model::mul(&a, &b, t));
        assert_eq!(product.correction_factor(), &BigUint::from(1u32));

        // The wrap-around X^(N-1) · X = -1, and in place.
        let mut x_top = vec![BigUint::from(0u32); n];
        x_top[n - 1] = BigUint::from(1u32);
        let mut x = vec![BigUint::from(0u32); n];
        x[1] = BigUint::from(1u32);
        let mut ct = encrypt(keyed, &x_top);
        let by_x = EncodedPlaintext::for_multiplication(&keyed.plaintext(&x), ct.level()).unwrap();
        ct.mul_plain_assign(&by_x).unwrap();
        let mut minus_one = vec![BigUint::from(0u32); n];
        minus_one[0] = t - 1u32;
        assert_eq!(open(keyed, &ct), minus_one);
    });
}

#[test]
fn multiplication_after_modulus_switching_tracks_factors() {
    with_random_plaintext(14, |keyed, a, rng| {
        let t = keyed.t();
        let b = sparse(keyed, rng, 8);
        let ct = encrypt(keyed, &a).mod_switch().unwrap();
        let factor = ct.correction_factor().clone();
        assert_ne!(factor, BigUint::from(1u32));

        let unit = EncodedPlaintext::for_multiplication(&keyed.plaintext(&b), ct.level()).unwrap();
        let product = ct.mul_plain(&unit).unwrap();
        assert_eq!(product.correction_factor(), &factor);
        assert_eq!(open(keyed, &product), model::mul(&a, &b, t));

        let extra = BigUint::from(12345u32);
        let scaled =
            EncodedPlaintext::with_factor(&keyed.plaintext(&b), ct.level(), &extra).unwrap();
        let product = ct.mul_plain(&scaled).unwrap();
        assert_eq!(product.correction_factor(), &(&factor * &extra % t));
        assert_eq!(open(keyed, &product), model::mul(&a, &b, t));

        // A plaintext with the product's factor can be added to it.
        let shift = EncodedPlaintext::for_addition_to(&keyed.plaintext(&b), &product).unwrap();
        let sum = product.add_plain(&shift).unwrap();
        assert_eq!(open(keyed, &sum), model::add(&model::mul(&a, &b, t), &b, t));
    });
}

#[test]
fn scalar_multiplication_matches_the_model() {
    with_random_plaintext(15, |keyed, a, rng| {
        let t = keyed.t();
        let ct = encrypt_symmetric(keyed, &a);
        let small = BigUint::from(3u32);
        let big = random_below(rng, t);
        let huge = t * 5u32 + 7u32; // reduced mod t to 7
        for k in [small, big, huge, BigUint::from(0u32)] {
            let expected = model::scale(&a, &k, t);
            assert_eq!(open(keyed, &ct.mul_scalar(&k).unwrap()), expected);
            assert_eq!(open(keyed, &(&ct * &k).unwrap()), expected);
            let mut in_place = ct.clone();
            in_place.mul_scalar_assign(&k).unwrap();
            assert_eq!(open(keyed, &in_place), expected);
        }
    });
}

#[test]
fn modulus_switching_keeps_the_plaintext_and_follows_the_canonical_factor() {
    with_random_plaintext(16, |keyed, a, _| {
        let (t, context) = (keyed.t(), &keyed.context);
        let fresh = encrypt(keyed, &a);
        let primes = context.chain_primes();
        let mut ct = fresh.clone();
        let mut expected_factor = BigUint::from(1u32);
        while ct.level() > 0 {
            let dropped = primes[ct.level()];
            expected_factor = expected_factor * model::inverse(&BigUint::from(dropped), t) % t;
            let before = ct.level();
            let next = match ct.mod_switch() {
                Ok(next) => next,
                Err(error) => {
                    // Refused only where the level below cannot hold the
                    // switching noise t·√N·(a few): Q_{l-1} not above it.
                    assert_eq!(error, helib_rs::Error::NoiseBudgetExhausted);
                    let log2_q = context.log2_modulus(before - 1).unwrap();
                    let floor = t.bits() as f64 + (keyed.n() as f64).log2();
                    assert!(log2_q < floor, "level {}: {log2_q} bits", before - 1);
                    break;
                }
            };
            assert_eq!(next.level(), before - 1);
            assert_eq!(next.correction_factor(), &expected_factor);
            assert_eq!(
                context.correction_factor(next.level()),
                Some(&expected_factor)
            );
            match keyed.sk.decrypt(&next) {
                Ok(plaintext) => assert_eq!(plaintext.coefficients(), a),
                Err(error) => assert_eq!(error, helib_rs::Error::NoiseBudgetExhausted),
            }
            ct = next;
        }
        // mod_switch_to drops its primes in one division, with the same factor,
        // plaintext and (within a bit) noise as switching one prime at a time,
        // down to the lowest level the step-by-step switches reached (or 1).
        let low = ct.level().max(1);
        let direct = fresh.mod_switch_to(low).unwrap();
        assert_eq!(direct.level(), low);
        assert_eq!(
            direct.correction_factor(),
            context.correction_factor(low).unwrap()
        );
        let mut stepwise = fresh.clone();
        while stepwise.level() > low {
            stepwise = stepwise.mod_switch().unwrap();
        }
        let exact = keyed.sk.noise_budget(&direct).unwrap();
        assert!(direct.estimated_budget_bits() <= exact + 1.0);
        assert!((exact - keyed.sk.noise_budget(&stepwise).unwrap()).abs() <= 1.0);
        match keyed.sk.decrypt(&direct) {
            Ok(plaintext) => assert_eq!(plaintext.coefficients(), a),
            Err(error) => assert_eq!(error, helib_rs::Error::NoiseBudgetExhausted),
        }
        let same = fresh.mod_switch_to(fresh.level()).unwrap();
        assert_eq!(same.level(), fresh.level());
        assert_eq!(open(keyed, &same), a);
        let mut in_place = fresh.clone();
        in_place.mod_switch_to_assign(low).unwrap();
        assert_eq!(in_place.level(), low);
    });
}

#[test]
fn noise_reduction_keeps_the_budget() {
    with_random_plaintext(17, |keyed, a, rng| {
        let t = keyed.t();
        let b = random_poly(rng, t, keyed.n());
        let fresh = encrypt_symmetric(keyed, &a);
        let reduced = fresh.mod_switch_reduce_noise().unwrap();
        // Fresh noise is at the switching floor already: nothing to gain.
        assert_eq!(reduced.level(), fresh.level());

        let encoded =
            EncodedPlaintext::for_multiplication(&keyed.plaintext(&b), fresh.level()).unwrap();
        let product = fresh.mul_plain(&encoded).unwrap();
        let mut reduced = product.mod_switch_reduce_noise().unwrap();
        assert!(reduced.level() <= product.level());
        // Switching costs "almost" no budget: allow a bit per dropped prime.
        let dropped = (product.level() - reduced.level()) as f64;
        assert!(reduced.estimated_budget_bits() >= product.estimated_budget_bits() - dropped);
        assert_eq!(open(keyed, &reduced), model::mul(&a, &b, t));
        let level = reduced.level();
        reduced.mod_switch_reduce_noise_assign().unwrap();
        assert_eq!(
            reduced.level(),
            level,
            "a second reduction has nothing left to gain"
        );
    });
}

#[test]
fn clones_are_independent() {
    let keyed = common::t65537_1024();
    let a = keyed.plaintext(&[BigUint::from(5u32)]);
    let ct = keyed.sk.encrypt(&a).unwrap();
    let mut copy = ct.try_clone().unwrap();
    copy.negate_assign().unwrap();
    copy.mod_switch_assign().unwrap();
    assert_eq!(ct.level(), keyed.context.max_level());
    assert_eq!(keyed.sk.decrypt(&ct).unwrap(), a);
    assert_eq!(open(keyed, &copy)[0], BigUint::from(65532u32));
}

#[test]
fn handles_are_usable_across_threads() {
    let keyed = common::bn254_1024();
    let t = keyed.t();
    let mut rng = rng(18);
    let inputs: Vec<Vec<BigUint>> = (0..4).map(|_| random_poly(&mut rng, t, 64)).collect();
    let results: Vec<Ciphertext> = std::thread::scope(|scope| {
        let workers: Vec<_> = inputs
            .iter()
            .map(|a| {
                scope.spawn(move || {
                    let ct = encrypt(keyed, a);
                    ct.add(&ct.try_clone().unwrap()).unwrap()
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    keyed.context.set_threads(1).unwrap();
    assert_eq!(keyed.context.threads().unwrap(), 1);
    for (a, ct) in inputs.iter().zip(&results) {
        let doubled = model::add(a, a, t);
        assert_eq!(open(keyed, ct)[..64], doubled[..]);
    }
    keyed.context.set_threads(2).unwrap();
}

#[test]
fn a_plaintext_encoded_at_the_top_serves_lower_levels() {
    with_random_plaintext(19, |keyed, a, rng| {
        let t = keyed.t();
        let b = sparse(keyed, rng, 4);
        let top = keyed.context.max_level();
        let plain = keyed.plaintext(&b);
        let for_mul = EncodedPlaintext::for_multiplication(&plain, top).unwrap();
        let ct = encrypt(keyed, &a).mod_switch().unwrap();
        assert_eq!(ct.level(), top - 1);
        assert_eq!(
            open(keyed, &ct.mul_plain(&for_mul).unwrap()),
            model::mul(&a, &b, t)
        );
        let factor = ct.correction_factor();
        let for_add = EncodedPlaintext::with_factor(&plain, top, factor).unwrap();
        assert_eq!(
            open(keyed, &ct.add_plain(&for_add).unwrap()),
            model::add(&a, &b, t)
        );
    });
}
