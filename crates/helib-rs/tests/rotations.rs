//! Galois automorphisms, slot rotations, the row swap and hoisting against
//! the plaintext model: the slot layout of the batch encoder (rotations move
//! slots within both rows) and m(X) ↦ m(X^g) on coefficients.

mod common;

use std::sync::OnceLock;

use ark_bn254::Fr;
use ark_ff::{FftField, PrimeField, UniformRand};
use common::{model, random_poly, rng, t65537, Keyed, F65537};
use helib_rs::{
    BatchEncoder, Ciphertext, Context, Error, GaloisKeys, ModSwitchPolicy, Parameters, Plaintext,
    RelinKey, RotationPolicy, SecretKey,
};
use rand::Rng;

/// N = 1024, t = 65537: the cheapest batching parameters.
fn small() -> &'static Keyed {
    static KEYED: OnceLock<Keyed> = OnceLock::new();
    KEYED.get_or_init(|| Keyed::new(1024, &t65537(), 3))
}

/// N = 4096 with t = BN254 Fr and t = 65537.
fn n4096() -> [&'static Keyed; 2] {
    static BN254: OnceLock<Keyed> = OnceLock::new();
    static SMALL_T: OnceLock<Keyed> = OnceLock::new();
    [
        BN254.get_or_init(|| Keyed::new(4096, &common::bn254(), 1)),
        SMALL_T.get_or_init(|| Keyed::new(4096, &t65537(), 2)),
    ]
}

fn random_slots<F: UniformRand>(n: usize, seed: u64) -> Vec<F> {
    let mut rng = rng(seed);
    (0..n).map(|_| F::rand(&mut rng)).collect()
}

/// Both rows rotated left by `step`: slot j of a row receives slot j + step.
fn rotate_model<F: Copy>(slots: &[F], step: i64) -> Vec<F> {
    let half = slots.len() / 2;
    let k = step.rem_euclid(half as i64) as usize;
    (0..slots.len())
        .map(|i| {
            let (row, j) = (i / half, i % half);
            slots[row * half + (j + k) % half]
        })
        .collect()
}

/// The two rows exchanged.
fn swap_model<F: Copy>(slots: &[F]) -> Vec<F> {
    let half = slots.len() / 2;
    (0..slots.len())
        .map(|i| slots[(i + half) % slots.len()])
        .collect()
}

/// The estimated budget never exceeds the exact one by more than a bit.
#[track_caller]
fn assert_conservative(keyed: &Keyed, ct: &Ciphertext) {
    let exact = keyed.sk.noise_budget(ct).unwrap();
    let estimated = ct.estimated_budget_bits();
    assert!(
        estimated <= exact + 1.0,
        "estimated budget {estimated} > exact {exact} + 1"
    );
}

fn open_slots<F: PrimeField + FftField>(keyed: &Keyed, ct: &Ciphertext) -> Vec<F> {
    assert_conservative(keyed, ct);
    let encoder = BatchEncoder::<F>::new(&keyed.context).unwrap();
    encoder.decode(&keyed.sk.decrypt(ct).unwrap()).unwrap()
}

fn encrypt_slots<F: PrimeField + FftField>(keyed: &Keyed, slots: &[F]) -> Ciphertext {
    let encoder = BatchEncoder::<F>::new(&keyed.context).unwrap();
    keyed.pk.encrypt(&encoder.encode(slots).unwrap()).unwrap()
}

#[test]
fn every_rotation_of_n1024_matches_the_slot_model() {
    let keyed = small();
    let (n, half) = (keyed.n(), keyed.n() as i64 / 2);
    let slots: Vec<F65537> = random_slots(n, 1);
    let ct = encrypt_slots(keyed, &slots);
    let m = keyed.sk.decrypt(&ct).unwrap().coefficients();

    // Exact: one key per step (511 keys, 128 KiB each at this size).
    let steps: Vec<i64> = (0..half).collect();
    let all = GaloisKeys::for_steps(&keyed.sk, &steps).unwrap();
    assert_eq!(all.len(), n / 2 - 1, "step 0 needs no key");
    // Compose: the 2·log2(N/2) − 1 = 17 power-of-two keys.
    let powers = GaloisKeys::for_power_of_two_steps(&keyed.sk).unwrap();
    assert_eq!(powers.len(), 17);
    // Hoisted: all 512 rotations from one decomposition.
    let hoisted = ct.rotate_rows_hoisted(&steps, &all).unwrap();
    assert_eq!(hoisted.len(), steps.len());

    for (&k, hoisted) in steps.iter().zip(&hoisted) {
        let exact = ct.rotate_rows(k, &all, RotationPolicy::Exact).unwrap();
        assert_eq!(
            open_slots::<F65537>(keyed, &exact),
            rotate_model(&slots, k),
            "rotation by {k}"
        );
        let composed = ct.rotate_rows(k, &powers, RotationPolicy::Compose).unwrap();
        let want = keyed.sk.decrypt(&exact).unwrap();
        assert_eq!(keyed.sk.decrypt(&composed).unwrap(), want, "composed {k}");
        assert_eq!(keyed.sk.decrypt(hoisted).unwrap(), want, "hoisted {k}");
        // Exact and hoisted agree on the noise estimate (the same key switch).
        assert_eq!(exact.noise_estimate_bits(), hoisted.noise_estimate_bits());
        if k % 16 == 5 {
            assert_conservative(keyed, &composed);
            // The same automorphism on coefficients: m(X^(3^k)).
            let g = GaloisKeys::element_for_step(&keyed.context, k) as usize;
            assert_eq!(want.coefficients(), model::substitute(&m, g, keyed.t()));
            // Negative steps rotate right: k then −k is the identity.
            let back = exact.rotate_rows(-k, &all, RotationPolicy::Exact).unwrap();
            assert_eq!(open_slots::<F65537>(keyed, &back), slots, "{k} and back");
        }
    }
}

#[test]
fn random_rotations_of_n4096_match_the_slot_model() {
    let [bn254, small_t] = n4096();
    random_rotations::<Fr>(bn254, 2);
    random_rotations::<F65537>(small_t, 3);
}

fn random_rotations<F: PrimeField + FftField>(keyed: &Keyed, seed: u64) {
    let n = keyed.n();
    let slots: Vec<F> = random_slots(n, seed);
    let ct = encrypt_slots(keyed, &slots);
    let mut rng = rng(seed);
    let steps: Vec<i64> = (0..6)
        .map(|_| rng.gen_range(-(n as i64)..n as i64))
        .collect();
    let mut keys = GaloisKeys::for_power_of_two_steps(&keyed.sk).unwrap();
    assert_eq!(keys.len(), 2 * 11 - 1);
    let powers_bytes = keys.size_bytes();
    keys.add_steps(&keyed.sk, &steps[..3]).unwrap();
    for &step in &steps {
        let rotated = ct
            .rotate_rows(step, &keys, RotationPolicy::Compose)
            .unwrap();
        assert_eq!(
            open_slots::<F>(keyed, &rotated),
            rotate_model(&slots, step),
            "rotation by {step}"
        );
    }
    // Hoisted rotations by the steps with their own keys equal plain ones.
    let hoisted = ct.rotate_rows_hoisted(&steps[..3], &keys).unwrap();
    for (&step, hoisted) in steps.iter().zip(&hoisted) {
        let plain = ct.rotate_rows(step, &keys, RotationPolicy::Exact).unwrap();
        assert_eq!(
            keyed.sk.decrypt(hoisted).unwrap(),
            keyed.sk.decrypt(&plain).unwrap()
        );
        assert_eq!(open_slots::<F>(keyed, hoisted), rotate_model(&slots, step));
    }
    // Key memory: every key of a set has the same size.
    let per_key = powers_bytes / 21;
    assert_eq!(powers_bytes % 21, 0);
    assert_eq!(keys.size_bytes(), per_key * keys.len());
}

#[test]
fn composed_rotations_equal_direct_ones() {
    let keyed = n4096()[0];
    let ct = keyed
        .sk
        .encrypt(&keyed.plaintext(&random_poly(&mut rng(4), keyed.t(), keyed.n())))
        .unwrap();
    let powers = GaloisKeys::for_power_of_two_steps(&keyed.sk).unwrap();
    for step in [3i64, 7, 11, 1023, 1025, 2047, -6, 1365] {
        let direct_keys = GaloisKeys::for_steps(&keyed.sk, &[step]).unwrap();
        let direct = ct
            .rotate_rows(step, &direct_keys, RotationPolicy::Exact)
            .unwrap();
        let composed = ct
            .rotate_rows(step, &powers, RotationPolicy::Compose)
            .unwrap();
        let mut in_place = ct.clone();
        in_place
            .rotate_rows_assign(step, &powers, RotationPolicy::Compose)
            .unwrap();
        let want = keyed.sk.decrypt(&direct).unwrap();
        assert_eq!(keyed.sk.decrypt(&composed).unwrap(), want, "step {step}");
        assert_eq!(keyed.sk.decrypt(&in_place).unwrap(), want, "step {step}");
        // Each composed term is a key switch: more noise, still conservative.
        assert!(composed.noise_estimate_bits() >= direct.noise_estimate_bits());
        assert_conservative(keyed, &composed);
        // With the direct key present, Compose uses it.
        let direct_too = ct
            .rotate_rows(step, &direct_keys, RotationPolicy::Compose)
            .unwrap();
        assert_eq!(
            direct_too.noise_estimate_bits(),
            direct.noise_estimate_bits()
        );
    }
}

#[test]
fn the_row_swap_exchanges_the_rows() {
    for keyed in [small(), n4096()[1]] {
        let n = keyed.n();
        let slots: Vec<F65537> = random_slots(n, 5);
        let ct = encrypt_slots(keyed, &slots);
        let mut keys = GaloisKeys::for_row_swap(&keyed.sk).unwrap();
        assert_eq!(
            keys.elements(),
            vec![GaloisKeys::row_swap_element(&keyed.context)]
        );
        let swapped = ct.swap_rows(&keys).unwrap();
        assert_eq!(open_slots::<F65537>(keyed, &swapped), swap_model(&slots));
        let mut twice = swapped.clone();
        twice.swap_rows_assign(&keys).unwrap();
        assert_eq!(open_slots::<F65537>(keyed, &twice), slots);
        // Swap and rotation commute.
        keys.add_steps(&keyed.sk, &[3]).unwrap();
        let a = swapped
            .rotate_rows(3, &keys, RotationPolicy::Exact)
            .unwrap();
        let b = ct
            .rotate_rows(3, &keys, RotationPolicy::Exact)
            .unwrap()
            .swap_rows(&keys)
            .unwrap();
        let want = swap_model(&rotate_model(&slots, 3));
        assert_eq!(open_slots::<F65537>(keyed, &a), want);
        assert_eq!(open_slots::<F65537>(keyed, &b), want);
    }
}

#[test]
fn galois_elements_act_as_the_coefficient_automorphism() {
    for keyed in [common::bn254_1024(), small()] {
        let (n, t) = (keyed.n(), keyed.t());
        let two_n = 2 * n as u64;
        let mut rng = rng(6);
        let mut elements: Vec<u64> = (0..6).map(|_| rng.gen_range(0..n as u64) * 2 + 1).collect();
        elements.extend([two_n - 1, n as u64 + 1, n as u64 - 1, 5]);
        let keys = GaloisKeys::for_elements(&keyed.sk, &elements).unwrap();
        let m = random_poly(&mut rng, t, n);
        let ct = keyed.pk.encrypt(&keyed.plaintext(&m)).unwrap();
        let hoisted = ct.apply_galois_hoisted(&elements, &keys).unwrap();
        for (&g, hoisted) in elements.iter().zip(&hoisted) {
            let want = model::substitute(&m, g as usize, t);
            let mapped = ct.apply_galois(g, &keys).unwrap();
            let mut in_place = ct.clone();
            in_place.apply_galois_assign(g, &keys).unwrap();
            for (what, result) in [
                ("plain", &mapped),
                ("in place", &in_place),
                ("hoisted", hoisted),
            ] {
                assert_conservative(keyed, result);
                assert_eq!(
                    keyed.sk.decrypt(result).unwrap().coefficients(),
                    want,
                    "{what} g = {g}, t = {t}"
                );
                assert_eq!(result.level(), ct.level());
                assert_eq!(result.correction_factor(), ct.correction_factor());
            }
        }
        // The identity needs no key and changes nothing.
        let empty = GaloisKeys::new(&keyed.context).unwrap();
        let same = ct.apply_galois(1, &empty).unwrap();
        assert_eq!(keyed.sk.decrypt(&same).unwrap().coefficients(), m);
        assert_eq!(same.noise_estimate_bits(), ct.noise_estimate_bits());
        let hoisted = ct.apply_galois_hoisted(&[1, 5, 1], &keys).unwrap();
        assert_eq!(keyed.sk.decrypt(&hoisted[2]).unwrap().coefficients(), m);
        assert_eq!(
            keyed.sk.decrypt(&hoisted[1]).unwrap().coefficients(),
            model::substitute(&m, 5, t)
        );
        assert!(ct.apply_galois_hoisted(&[], &keys).unwrap().is_empty());
    }
}

#[test]
fn automorphisms_after_products_and_at_lower_levels() {
    let keyed = common::bn254_1024();
    let rk = RelinKey::generate(&keyed.sk).unwrap();
    let keys = GaloisKeys::for_steps(&keyed.sk, &[1, 7]).unwrap();
    let slots: Vec<Fr> = random_slots(keyed.n(), 7);
    let ct = encrypt_slots(keyed, &slots);
    let product = ct
        .multiply_relin(&ct, &rk, ModSwitchPolicy::Manual)
        .unwrap();
    let squares: Vec<Fr> = slots.iter().map(|x| *x * x).collect();
    let rotated = product
        .rotate_rows(7, &keys, RotationPolicy::Exact)
        .unwrap();
    assert_eq!(open_slots::<Fr>(keyed, &rotated), rotate_model(&squares, 7));
    // After switching down (a correction factor other than 1).
    let low = product.mod_switch_reduce_noise().unwrap();
    assert!(low.level() < product.level());
    let rotated = low.rotate_rows(8, &keys, RotationPolicy::Compose);
    assert!(matches!(
        rotated,
        Err(Error::MissingGaloisKey { step: Some(8), .. })
    ));
    let rotated = low.rotate_rows(-6, &keys, RotationPolicy::Exact);
    assert!(rotated.is_err());
    let rotated = low.rotate_rows(1, &keys, RotationPolicy::Exact).unwrap();
    assert_eq!(rotated.correction_factor(), low.correction_factor());
    assert_eq!(open_slots::<Fr>(keyed, &rotated), rotate_model(&squares, 1));
}

#[test]
fn missing_keys_are_named() {
    let keyed = small();
    let context = &keyed.context;
    let element = |step| GaloisKeys::element_for_step(context, step);
    let ct = keyed.sk.encrypt(&keyed.plaintext(&[7u32.into()])).unwrap();
    let keys = GaloisKeys::for_steps(&keyed.sk, &[1, 2, 8]).unwrap();
    let missing = |step: i64, element: u64| Error::MissingGaloisKey {
        step: Some(step),
        element,
    };
    assert_eq!(
        ct.rotate_rows(3, &keys, RotationPolicy::Exact).unwrap_err(),
        missing(3, element(3))
    );
    // 3 = 4 − 1: the first missing term is −1.
    assert_eq!(
        ct.rotate_rows(3, &keys, RotationPolicy::Compose)
            .unwrap_err(),
        missing(-1, element(-1))
    );
    // 10 = 8 + 2 composes; 11 = 8 + 4 − 1 does not.
    assert!(ct.rotate_rows(10, &keys, RotationPolicy::Compose).is_ok());
    assert!(ct.rotate_rows(10, &keys, RotationPolicy::Exact).is_err());
    assert_eq!(
        ct.rotate_rows(-3, &keys, RotationPolicy::Exact)
            .unwrap_err(),
        missing(-3, element(-3))
    );
    assert_eq!(
        ct.rotate_rows_hoisted(&[1, 2, 5, 9], &keys).unwrap_err(),
        missing(5, element(5))
    );
    assert_eq!(
        ct.apply_galois(7, &keys).unwrap_err(),
        Error::MissingGaloisKey {
            step: None,
            element: 7
        }
    );
    let swap = GaloisKeys::row_swap_element(context);
    assert_eq!(
        ct.swap_rows(&keys).unwrap_err(),
        Error::MissingGaloisKey {
            step: None,
            element: swap
        }
    );
    assert!(ct
        .swap_rows(&keys)
        .unwrap_err()
        .to_string()
        .contains(&swap.to_string()));
    assert!(missing(3, 27).to_string().contains("rotation by 3"));
    // In-place versions leave the ciphertext as it was.
    let mut kept = ct.clone();
    assert!(kept
        .rotate_rows_assign(3, &keys, RotationPolicy::Compose)
        .is_err());
    assert!(kept.apply_galois_assign(7, &keys).is_err());
    assert!(kept.swap_rows_assign(&keys).is_err());
    assert_eq!(
        keyed.sk.decrypt(&kept).unwrap(),
        keyed.sk.decrypt(&ct).unwrap()
    );
    assert_eq!(kept.noise_estimate_bits(), ct.noise_estimate_bits());
}

#[test]
fn the_composition_check_agrees_with_the_engine() {
    // Random partial key sets: whenever the safe API lets a composed rotation
    // through, the engine must find every key it needs (an engine-side
    // MissingGaloisKey would carry `step: None`), and the result must be right.
    let keyed = small();
    let (n, half) = (keyed.n(), keyed.n() as i64 / 2);
    let slots: Vec<F65537> = random_slots(n, 8);
    let ct = encrypt_slots(keyed, &slots);
    let powers = GaloisKeys::power_of_two_steps(&keyed.context);
    let mut rng = rng(9);
    let (mut composed, mut refused) = (0, 0);
    for _ in 0..3 {
        let subset: Vec<i64> = powers
            .iter()
            .copied()
            .filter(|_| rng.gen_bool(0.7))
            .collect();
        let keys = GaloisKeys::for_steps(&keyed.sk, &subset).unwrap();
        for _ in 0..12 {
            let step = rng.gen_range(-half..half);
            match ct.rotate_rows(step, &keys, RotationPolicy::Compose) {
                Ok(rotated) => {
                    composed += 1;
                    assert_eq!(
                        open_slots::<F65537>(keyed, &rotated),
                        rotate_model(&slots, step)
                    );
                }
                Err(Error::MissingGaloisKey {
                    step: Some(term),
                    element,
                }) => {
                    refused += 1;
                    assert!(term.unsigned_abs().is_power_of_two());
                    assert!(!keys.contains(element));
                    assert_eq!(element, GaloisKeys::element_for_step(&keyed.context, term));
                }
                Err(other) => panic!("step {step}: {other:?}"),
            }
        }
    }
    assert!(
        composed > 0 && refused > 0,
        "{composed} composed, {refused} refused"
    );
}

#[test]
fn bad_inputs_are_refused() {
    let keyed = small();
    let context = &keyed.context;
    let two_n = 2 * keyed.n() as u64;
    let mut keys = GaloisKeys::for_steps(&keyed.sk, &[1]).unwrap();
    let ct = keyed.sk.encrypt(&keyed.plaintext(&[3u32.into()])).unwrap();
    for g in [0, 2, two_n, two_n + 1, u64::MAX] {
        let invalid = Error::InvalidGaloisElement { element: g, two_n };
        assert_eq!(ct.apply_galois(g, &keys).unwrap_err(), invalid);
        assert_eq!(
            ct.apply_galois_hoisted(&[3, g], &keys).unwrap_err(),
            invalid
        );
        assert_eq!(keys.add_elements(&keyed.sk, &[5, g]).unwrap_err(), invalid);
    }
    assert_eq!(keys.elements(), vec![3], "a refused batch adds nothing");

    // Size-3 ciphertexts: relinearize first.
    let size3 = ct.multiply(&ct).unwrap();
    let wrong_size = Error::InvalidCiphertextSize {
        size: 3,
        expected: 2,
    };
    assert_eq!(size3.apply_galois(3, &keys).unwrap_err(), wrong_size);
    assert_eq!(size3.apply_galois(1, &keys).unwrap_err(), wrong_size);
    for policy in [RotationPolicy::Exact, RotationPolicy::Compose] {
        assert_eq!(size3.rotate_rows(1, &keys, policy).unwrap_err(), wrong_size);
        assert_eq!(size3.rotate_rows(0, &keys, policy).unwrap_err(), wrong_size);
    }
    assert_eq!(size3.swap_rows(&keys).unwrap_err(), wrong_size);
    assert_eq!(
        size3.rotate_rows_hoisted(&[1], &keys).unwrap_err(),
        wrong_size
    );
    assert_eq!(
        size3.apply_galois_hoisted(&[3], &keys).unwrap_err(),
        wrong_size
    );
    let mut kept = size3.clone();
    assert_eq!(
        kept.rotate_rows_assign(1, &keys, RotationPolicy::Exact)
            .unwrap_err(),
        wrong_size
    );
    assert_eq!(kept.size(), 3);
    assert!(wrong_size.to_string().contains("3 polynomials"));

    // Other contexts: keys, secret keys and ciphertexts never mix.
    let other = Keyed::new(1024, &t65537(), 3);
    let other_keys = GaloisKeys::for_steps(&other.sk, &[1]).unwrap();
    assert_eq!(
        ct.apply_galois(3, &other_keys).unwrap_err(),
        Error::ContextMismatch
    );
    assert_eq!(
        ct.rotate_rows(1, &other_keys, RotationPolicy::Exact)
            .unwrap_err(),
        Error::ContextMismatch
    );
    assert_eq!(
        ct.rotate_rows_hoisted(&[1], &other_keys).unwrap_err(),
        Error::ContextMismatch
    );
    assert_eq!(
        ct.swap_rows(&other_keys).unwrap_err(),
        Error::ContextMismatch
    );
    assert_eq!(
        keys.add_steps(&other.sk, &[2]).unwrap_err(),
        Error::ContextMismatch
    );
    assert_eq!(
        GaloisKeys::for_steps(&keyed.sk, &[1])
            .and_then(|mut k| k.add_row_swap(&other.sk))
            .unwrap_err(),
        Error::ContextMismatch
    );
    let _ = context;
}

#[test]
fn contexts_without_special_primes_cannot_rotate() {
    let params = Parameters::builder()
        .ring_degree(1024)
        .plaintext_modulus(t65537())
        .chain_bits(&[50, 50])
        .special_bits(&[])
        .allow_insecure()
        .build()
        .unwrap();
    let context = Context::new(&params).unwrap();
    let sk = SecretKey::generate(&context).unwrap();
    assert_eq!(
        GaloisKeys::for_steps(&sk, &[1]).unwrap_err(),
        Error::NoSpecialPrimes
    );
    assert_eq!(
        GaloisKeys::for_row_swap(&sk).unwrap_err(),
        Error::NoSpecialPrimes
    );
    // Nothing to generate: no error.
    let mut empty = GaloisKeys::new(&context).unwrap();
    empty.add_steps(&sk, &[0, 512]).unwrap();
    assert!(empty.is_empty());
    let ct = sk
        .encrypt(&Plaintext::from_u64s(&context, &[1]).unwrap())
        .unwrap();
    assert_eq!(
        ct.rotate_rows(1, &empty, RotationPolicy::Compose)
            .unwrap_err(),
        Error::NoSpecialPrimes
    );
    assert_eq!(
        ct.apply_galois(3, &empty).unwrap_err(),
        Error::NoSpecialPrimes
    );
    assert_eq!(
        ct.rotate_rows_hoisted(&[0], &empty).unwrap_err(),
        Error::NoSpecialPrimes
    );
}

#[test]
fn key_sets_report_their_contents_and_size() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<GaloisKeys>();
    send_sync::<RotationPolicy>();
    let keyed = small();
    let context = &keyed.context;
    let mut keys = GaloisKeys::new(context).unwrap();
    assert!(keys.is_empty() && keys.size_bytes() == 0);
    // Multiples of N/2 need no key; repeated steps are generated once.
    keys.add_steps(&keyed.sk, &[0, 512, -1024, 1, 1, 513])
        .unwrap();
    assert_eq!(keys.elements(), vec![3]);
    let one_key = keys.size_bytes();
    assert!(one_key > 0);
    assert_eq!(keys.size_bytes(), one_key);
    keys.add_elements(&keyed.sk, &[1, 3, 5]).unwrap();
    assert_eq!(keys.elements(), vec![3, 5]);
    assert_eq!(keys.size_bytes(), 2 * one_key);
    assert!(keys.contains(5) && keys.contains_step(1) && keys.contains_step(0));
    assert!(!keys.contains(1) && !keys.contains_step(2));
    // A key is as big as the relinearization key.
    let rk = RelinKey::generate(&keyed.sk).unwrap();
    assert_eq!(rk.size_bytes(), one_key);
    assert!(keys.context().same_as(context));
    assert!(format!("{keys:?}").contains("elements"));

    // One key set shared by threads.
    let ct = keyed
        .sk
        .encrypt(&keyed.plaintext(&[1u32.into(), 2u32.into()]))
        .unwrap();
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                let x = ct.apply_galois(5, &keys).unwrap();
                assert_eq!(
                    keyed.sk.decrypt(&x).unwrap().coefficient(5),
                    Some(2u32.into())
                );
            });
        }
    });
}

/// Keys made several at a time on a 2-thread pool (at least two per thread)
/// rotate exactly like keys made one after another on one thread, and the
/// two sets hold the same elements and as many bytes. Three keys on two
/// threads take the one-at-a-time path; they must rotate correctly too.
#[test]
fn keys_generated_across_threads_equal_serial_ones() {
    let keyed = Keyed::new(1024, &t65537(), 3);
    let context = &keyed.context;
    let slots: Vec<F65537> = random_slots(keyed.n(), 11);
    let ct = encrypt_slots(&keyed, &slots);
    let steps: Vec<i64> = vec![1, -1, 2, 5, -7, 64, 200, 255, -300];

    context.set_threads(1).unwrap();
    let mut serial = GaloisKeys::for_steps(&keyed.sk, &steps).unwrap();
    serial.add_row_swap(&keyed.sk).unwrap();
    context.set_threads(2).unwrap();
    let mut parallel = GaloisKeys::for_steps(&keyed.sk, &steps).unwrap();
    parallel.add_row_swap(&keyed.sk).unwrap();
    let few = GaloisKeys::for_steps(&keyed.sk, &steps[..3]).unwrap();

    assert_eq!(parallel.elements(), serial.elements());
    assert_eq!(parallel.len(), steps.len() + 1);
    assert_eq!(parallel.size_bytes(), serial.size_bytes());
    assert_eq!(few.len(), 3);
    for &step in &steps {
        let want = rotate_model(&slots, step);
        for keys in [&serial, &parallel] {
            let got = ct.rotate_rows(step, keys, RotationPolicy::Exact).unwrap();
            assert_eq!(open_slots::<F65537>(&keyed, &got), want, "step {step}");
        }
        if steps[..3].contains(&step) {
            let got = ct.rotate_rows(step, &few, RotationPolicy::Exact).unwrap();
            assert_eq!(
                open_slots::<F65537>(&keyed, &got),
                want,
                "step {step}, 3 keys"
            );
        }
    }
    let swap = GaloisKeys::row_swap_element(context);
    let swapped = ct.apply_galois(swap, &parallel).unwrap();
    assert_eq!(open_slots::<F65537>(&keyed, &swapped), swap_model(&slots));
}
