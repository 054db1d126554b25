//! Ciphertext × ciphertext products and relinearization against the plaintext
//! model (num-bigint negacyclic products and slot-wise products through the
//! batch encoder), at every level, with both modulus-switching policies.

mod common;

use std::sync::OnceLock;

use ark_bn254::Fr;
use ark_ff::{FftField, PrimeField, UniformRand};
use common::{model, random_poly, rng, t65537, Keyed, F65537};
use helib_rs::{
    BatchEncoder, Ciphertext, Context, Error, ModSwitchPolicy, Parameters, Plaintext, RelinKey,
    SecretKey,
};
use num_bigint::BigUint;

/// A keyed context with its relinearization key.
struct Relin {
    keyed: Keyed,
    rk: RelinKey,
}

impl Relin {
    fn new(ring_degree: usize, t: &BigUint, depth: usize) -> Self {
        let keyed = Keyed::new(ring_degree, t, depth);
        let rk = RelinKey::generate(&keyed.sk).unwrap();
        Self { keyed, rk }
    }
}

/// N = 1024, t = BN254 Fr, depth 3 (room for two products in a row).
fn bn254() -> &'static Relin {
    static RELIN: OnceLock<Relin> = OnceLock::new();
    RELIN.get_or_init(|| Relin::new(1024, &common::bn254(), 3))
}

/// N = 1024, t = 65537, depth 6 (four primes: room to switch before products).
fn small_t() -> &'static Relin {
    static RELIN: OnceLock<Relin> = OnceLock::new();
    RELIN.get_or_init(|| Relin::new(1024, &t65537(), 6))
}

fn random_slots<F: UniformRand>(n: usize, seed: u64) -> Vec<F> {
    let mut rng = rng(seed);
    (0..n).map(|_| F::rand(&mut rng)).collect()
}

/// Decrypts to slots, checking that the noise estimate stays conservative.
fn open_slots<F: PrimeField + FftField>(keyed: &Keyed, ct: &Ciphertext) -> Vec<F> {
    assert_conservative(keyed, ct);
    let encoder = BatchEncoder::<F>::new(&keyed.context).unwrap();
    encoder.decode(&keyed.sk.decrypt(ct).unwrap()).unwrap()
}

/// The estimated budget never exceeds the exact one by more than a bit.
#[track_caller]
fn assert_conservative(keyed: &Keyed, ct: &Ciphertext) {
    let exact = keyed.sk.noise_budget(ct).unwrap();
    let estimated = ct.estimated_budget_bits();
    assert!(
        estimated <= exact + 1.0,
        "estimated budget {estimated} > exact {exact} + 1 (level {}, size {})",
        ct.level(),
        ct.size()
    );
}

fn hadamard<F: PrimeField>(a: &[F], b: &[F]) -> Vec<F> {
    a.iter().zip(b).map(|(x, y)| *x * y).collect()
}

/// ct × ct then relinearize, slot-wise, for one field.
fn products_match_slots<F: PrimeField + FftField>(relin: &Relin, seed: u64) {
    let keyed = &relin.keyed;
    let n = keyed.n();
    let encoder = BatchEncoder::<F>::new(&keyed.context).unwrap();
    let (x, y): (Vec<F>, Vec<F>) = (random_slots(n, seed), random_slots(n, seed + 1));
    let cx = keyed.pk.encrypt(&encoder.encode(&x).unwrap()).unwrap();
    let cy = keyed.sk.encrypt(&encoder.encode(&y).unwrap()).unwrap();
    let want = hadamard(&x, &y);

    let tensor = cx.multiply(&cy).unwrap();
    assert_eq!((tensor.size(), tensor.level()), (3, cx.level()));
    assert_eq!(open_slots::<F>(keyed, &tensor), want, "size 3");

    let relinearized = tensor.relinearize(&relin.rk).unwrap();
    assert_eq!(relinearized.size(), 2);
    assert_eq!(open_slots::<F>(keyed, &relinearized), want, "relinearized");

    let direct = cx
        .multiply_relin(&cy, &relin.rk, ModSwitchPolicy::Manual)
        .unwrap();
    assert_eq!(open_slots::<F>(keyed, &direct), want, "multiply_relin");

    let mut in_place = cx.clone();
    in_place.multiply_assign(&cy).unwrap();
    in_place.relinearize_assign(&relin.rk).unwrap();
    assert_eq!(open_slots::<F>(keyed, &in_place), want, "in place");

    // Relinearizing a size-2 ciphertext changes nothing.
    let again = relinearized.relinearize(&relin.rk).unwrap();
    assert_eq!(
        keyed.sk.decrypt(&again).unwrap(),
        keyed.sk.decrypt(&relinearized).unwrap()
    );
    assert_eq!(
        again.noise_estimate_bits(),
        relinearized.noise_estimate_bits()
    );

    let squares = hadamard(&x, &x);
    assert_eq!(open_slots::<F>(keyed, &cx.square().unwrap()), squares);
    let square = cx.square_relin(&relin.rk, ModSwitchPolicy::Manual).unwrap();
    assert_eq!(open_slots::<F>(keyed, &square), squares, "square_relin");
}

#[test]
fn products_match_the_slot_model_for_bn254() {
    products_match_slots::<Fr>(bn254(), 1);
}

#[test]
fn products_match_the_slot_model_for_65537() {
    products_match_slots::<F65537>(small_t(), 2);
}

#[test]
fn products_match_the_negacyclic_model() {
    for relin in [bn254(), small_t()] {
        let keyed = &relin.keyed;
        let (t, n) = (keyed.t(), keyed.n());
        let mut rng = rng(3);
        let a = random_poly(&mut rng, t, n);
        let b = random_poly(&mut rng, t, n);
        let ca = keyed.pk.encrypt(&keyed.plaintext(&a)).unwrap();
        let cb = keyed.pk.encrypt(&keyed.plaintext(&b)).unwrap();
        let product = ca
            .multiply_relin(&cb, &relin.rk, ModSwitchPolicy::Manual)
            .unwrap();
        assert_conservative(keyed, &product);
        assert_eq!(
            keyed.sk.decrypt(&product).unwrap().coefficients(),
            model::mul(&a, &b, t),
            "t = {t}"
        );
    }
}

#[test]
fn products_at_every_level_and_after_switching() {
    for relin in [bn254(), small_t()] {
        let keyed = &relin.keyed;
        let t = keyed.t();
        // x(X) times the constant 12345: the product's first 8 coefficients.
        let x: Vec<u64> = (1..=8).collect();
        let px = Plaintext::from_u64s(&keyed.context, &x).unwrap();
        let c = Plaintext::from_u64s(&keyed.context, &[12345]).unwrap();
        let want_scaled: Vec<BigUint> = x.iter().map(|a| BigUint::from(a * 12345) % t).collect();
        let product_of = |ct: &Ciphertext| {
            let mut out = keyed.sk.decrypt(ct).unwrap().coefficients();
            out.truncate(8);
            out
        };
        let mut reached_zero = false;
        for level in (0..=keyed.context.max_level()).rev() {
            // The lowest levels cannot even hold a fresh encryption: refused.
            let (cx, cc) = match (
                keyed.sk.encrypt_at_level(&px, level),
                keyed.pk.encrypt_at_level(&c, level),
            ) {
                (Ok(cx), Ok(cc)) => (cx, cc),
                (Err(Error::NoiseBudgetExhausted), _) | (_, Err(Error::NoiseBudgetExhausted)) => {
                    continue
                }
                (Err(e), _) | (_, Err(e)) => panic!("level {level}: {e}"),
            };
            match cx.multiply_relin(&cc, &relin.rk, ModSwitchPolicy::Manual) {
                Ok(product) => {
                    assert_eq!(product.level(), level);
                    let factor = keyed.context.correction_factor(level).unwrap();
                    assert_eq!(*product.correction_factor(), factor * factor % t);
                    assert_conservative(keyed, &product);
                    assert_eq!(product_of(&product), want_scaled, "level {level}");
                    reached_zero |= level == 0;
                }
                // Low levels have no room for a product: refused, never garbage.
                Err(Error::NoiseBudgetExhausted) => {}
                Err(other) => panic!("level {level}: {other}"),
            }
        }
        assert!(!reached_zero, "a product at level 0 should not fit");

        // Operands switched down from the top (canonical factors).
        let cx = keyed.sk.encrypt(&px).unwrap().mod_switch().unwrap();
        let cc = keyed.sk.encrypt(&c).unwrap().mod_switch().unwrap();
        let product = cx
            .multiply_relin(&cc, &relin.rk, ModSwitchPolicy::Manual)
            .unwrap();
        assert_eq!(product_of(&product), want_scaled);

        // A size-3 product switched down, then relinearized.
        let top_x = keyed.sk.encrypt(&px).unwrap();
        let top_c = keyed.sk.encrypt(&c).unwrap();
        let mut tensor = top_x.multiply(&top_c).unwrap();
        tensor.mod_switch_assign().unwrap();
        assert_eq!(tensor.size(), 3);
        assert_conservative(keyed, &tensor);
        assert_eq!(product_of(&tensor), want_scaled, "size 3 switched");
        let relinearized = tensor.relinearize(&relin.rk).unwrap();
        assert_conservative(keyed, &relinearized);
        assert_eq!(
            product_of(&relinearized),
            want_scaled,
            "switched, relinearized"
        );

        // A product switched down afterwards.
        let reduced = top_x
            .multiply_relin(&top_c, &relin.rk, ModSwitchPolicy::Manual)
            .unwrap()
            .mod_switch_reduce_noise()
            .unwrap();
        assert_conservative(keyed, &reduced);
        assert_eq!(product_of(&reduced), want_scaled, "reduced");
    }
}

#[test]
fn switching_before_multiplying_keeps_budget_and_meets_levels() {
    for relin in [bn254(), small_t()] {
        let keyed = &relin.keyed;
        let t = keyed.t();
        let c = |v: u64| Plaintext::from_u64s(&keyed.context, &[v]).unwrap();
        let a = keyed.pk.encrypt(&c(3)).unwrap();
        let b = keyed.pk.encrypt(&c(5)).unwrap();
        let ab = a
            .multiply_relin(&b, &relin.rk, ModSwitchPolicy::Manual)
            .unwrap();
        let low = keyed.pk.encrypt(&c(7)).unwrap().mod_switch().unwrap();

        // Manual: different levels are refused.
        assert_eq!(
            ab.multiply_relin(&low, &relin.rk, ModSwitchPolicy::Manual)
                .unwrap_err(),
            Error::LevelMismatch {
                left: ab.level(),
                right: low.level()
            }
        );
        assert!(matches!(
            ab.multiply(&low),
            Err(Error::LevelMismatch { .. })
        ));

        // BeforeMultiply: both are switched down and meet.
        let abc = ab
            .multiply_relin(&low, &relin.rk, ModSwitchPolicy::BeforeMultiply)
            .unwrap();
        assert!(abc.level() <= low.level());
        if *t == common::bn254() {
            // ~540 bits of noise on ab: primes go before the product.
            assert!(abc.level() < low.level());
        }
        assert_conservative(keyed, &abc);
        assert_eq!(
            keyed.sk.decrypt(&abc).unwrap().coefficient(0),
            Some(BigUint::from(105u32) % t)
        );

        // Switching first leaves more budget than multiplying at the top.
        let top = ab
            .multiply_relin(&ab, &relin.rk, ModSwitchPolicy::Manual)
            .map(|ct| keyed.sk.noise_budget(&ct).unwrap());
        let switched = ab
            .multiply_relin(&ab, &relin.rk, ModSwitchPolicy::BeforeMultiply)
            .unwrap();
        let switched_budget = keyed.sk.noise_budget(&switched).unwrap();
        if let Ok(top) = top {
            assert!(switched_budget + 1.0 >= top, "{switched_budget} vs {top}");
        }
        let squared = ab
            .square_relin(&relin.rk, ModSwitchPolicy::BeforeMultiply)
            .unwrap();
        assert_eq!(squared.level(), switched.level());
        for ct in [&switched, &squared] {
            assert_conservative(keyed, ct);
            assert_eq!(
                keyed.sk.decrypt(ct).unwrap().coefficient(0),
                Some(BigUint::from(225u32) % t)
            );
        }
    }
}

#[test]
fn products_refuse_what_they_cannot_do() {
    let relin = small_t();
    let keyed = &relin.keyed;
    let one = Plaintext::from_u64s(&keyed.context, &[1]).unwrap();
    let ct = keyed.sk.encrypt(&one).unwrap();
    let tensor = ct.multiply(&ct).unwrap();
    let size3 = Error::InvalidCiphertextSize {
        size: 3,
        expected: 2,
    };
    assert_eq!(tensor.multiply(&ct).unwrap_err(), size3);
    assert_eq!(ct.multiply(&tensor).unwrap_err(), size3);
    assert_eq!(tensor.square().unwrap_err(), size3);
    for policy in [ModSwitchPolicy::Manual, ModSwitchPolicy::BeforeMultiply] {
        assert_eq!(
            tensor.multiply_relin(&ct, &relin.rk, policy).unwrap_err(),
            size3
        );
        assert_eq!(tensor.square_relin(&relin.rk, policy).unwrap_err(), size3);
    }
    let mut unchanged = tensor.clone();
    assert_eq!(unchanged.multiply_assign(&ct).unwrap_err(), size3);
    assert_eq!(unchanged.size(), 3);

    // Other contexts: ciphertexts and keys.
    let other = Relin::new(1024, &t65537(), 3);
    let foreign = other
        .keyed
        .sk
        .encrypt(&other.keyed.plaintext(&[1u32.into()]))
        .unwrap();
    assert_eq!(ct.multiply(&foreign).unwrap_err(), Error::ContextMismatch);
    for policy in [ModSwitchPolicy::Manual, ModSwitchPolicy::BeforeMultiply] {
        assert_eq!(
            ct.multiply_relin(&foreign, &relin.rk, policy).unwrap_err(),
            Error::ContextMismatch
        );
        assert_eq!(
            ct.multiply_relin(&ct, &other.rk, policy).unwrap_err(),
            Error::ContextMismatch
        );
        assert_eq!(
            ct.square_relin(&other.rk, policy).unwrap_err(),
            Error::ContextMismatch
        );
    }
    assert_eq!(
        tensor.relinearize(&other.rk).unwrap_err(),
        Error::ContextMismatch
    );
    let mut kept = tensor.clone();
    assert_eq!(
        kept.relinearize_assign(&other.rk).unwrap_err(),
        Error::ContextMismatch
    );
    assert_eq!(kept.size(), 3);

    // A level with room for a fresh ciphertext (~270 bits of noise for
    // t = BN254) but not for a product: refused, and in place nothing changes.
    let big = bn254();
    let context = &big.keyed.context;
    let level = (0..=context.max_level())
        .find(|&l| context.log2_modulus(l).unwrap() > 400.0)
        .unwrap();
    let low = big
        .keyed
        .sk
        .encrypt_at_level(&big.keyed.plaintext(&[2u32.into()]), level)
        .unwrap();
    assert_eq!(low.multiply(&low).unwrap_err(), Error::NoiseBudgetExhausted);
    let mut same = low.clone();
    assert_eq!(
        same.multiply_assign(&low).unwrap_err(),
        Error::NoiseBudgetExhausted
    );
    assert_eq!((same.size(), same.level()), (2, level));
    assert_eq!(
        big.keyed.sk.decrypt(&same).unwrap().coefficient(0),
        Some(2u32.into())
    );
}

#[test]
fn contexts_without_special_primes_multiply_but_cannot_relinearize() {
    let params = Parameters::builder()
        .ring_degree(1024)
        .plaintext_modulus(common::bn254())
        .chain_bits(&[60; 10])
        .special_bits(&[])
        .allow_insecure()
        .build()
        .unwrap();
    let context = Context::new(&params).unwrap();
    let sk = SecretKey::generate(&context).unwrap();
    assert_eq!(RelinKey::generate(&sk).unwrap_err(), Error::NoSpecialPrimes);
    let ct = sk
        .encrypt(&Plaintext::from_u64s(&context, &[9]).unwrap())
        .unwrap();
    let square = ct.square().unwrap();
    assert_eq!(
        sk.decrypt(&square).unwrap(),
        Plaintext::from_u64s(&context, &[81]).unwrap()
    );
}

#[test]
fn keys_are_thread_safe_and_report_their_size() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<RelinKey>();
    send_sync::<ModSwitchPolicy>();
    let relin = small_t();
    let context = &relin.keyed.context;
    // digits × 2 polynomials × (chain + special primes) × N × 8 bytes.
    let primes = context.chain_primes().len() + context.special_primes().len();
    let per_digit = 2 * primes * context.ring_degree() * 8;
    assert_eq!(relin.rk.size_bytes() % per_digit, 0);
    let digits = relin.rk.size_bytes() / per_digit;
    assert!((1..=context.chain_primes().len()).contains(&digits));
    assert!(relin.rk.context().same_as(context));
    assert!(format!("{:?}", relin.rk).contains("size_bytes"));

    // A relinearization key shared by threads.
    let one = Plaintext::from_u64s(context, &[4]).unwrap();
    let ct = relin.keyed.sk.encrypt(&one).unwrap();
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                let sq = ct.square_relin(&relin.rk, ModSwitchPolicy::Manual).unwrap();
                assert_eq!(
                    relin.keyed.sk.decrypt(&sq).unwrap().coefficient(0),
                    Some(16u32.into())
                );
            });
        }
    });
}
