//! Noise: chains of plaintext multiplications run until the budget is gone.
//! Every result that decrypts must be right, and running out must be reported
//! as `NoiseBudgetExhausted` — never as a wrong plaintext.

mod common;

use ark_bn254::Fr;
use ark_ff::{FftField, PrimeField, UniformRand};
use common::{bn254, t65537, Keyed, F65537};
use helib_rs::{BatchEncoder, Ciphertext, Error};
use num_bigint::BigUint;

fn random_slots<F: UniformRand>(n: usize, rng: &mut impl rand::Rng) -> Vec<F> {
    (0..n).map(|_| F::rand(rng)).collect()
}

/// How a chain of multiplications ended.
#[derive(Debug, PartialEq)]
enum End {
    /// `mul_plain` refused: the estimate said the product would not decrypt.
    Refused,
    /// The product was computed but decryption reported exhaustion.
    Undecryptable,
}

/// Multiplies by random batched plaintexts (uniform coefficients: the worst
/// case for noise), reducing noise before each product, until the budget
/// runs out; checks every decryption against the slot-wise model. Returns
/// the number of products that decrypted and how the chain ended.
fn chain<F: PrimeField + FftField>(keyed: &Keyed, seed: u64) -> (usize, End) {
    let encoder = BatchEncoder::<F>::new(&keyed.context).unwrap();
    let mut rng = common::rng(seed);
    let n = keyed.n();
    let mut expected: Vec<F> = random_slots(n, &mut rng);
    let mut ct = keyed
        .pk
        .encrypt(&encoder.encode(&expected).unwrap())
        .unwrap();
    for done in 0..64 {
        ct.mod_switch_reduce_noise_assign().unwrap();
        let factor: Vec<F> = random_slots(n, &mut rng);
        let plain = encoder
            .encode_for_multiplication(&factor, ct.level())
            .unwrap();
        let product: Ciphertext = match ct.mul_plain(&plain) {
            Ok(product) => product,
            Err(Error::NoiseBudgetExhausted) => {
                // The in-place form refuses too and leaves the ciphertext intact.
                assert_eq!(
                    ct.mul_plain_assign(&plain),
                    Err(Error::NoiseBudgetExhausted)
                );
                let intact = keyed.sk.decrypt(&ct).unwrap();
                assert_eq!(encoder.decode(&intact).unwrap(), expected);
                return (done, End::Refused);
            }
            Err(other) => panic!("unexpected error after {done} products: {other}"),
        };
        for (e, f) in expected.iter_mut().zip(&factor) {
            *e *= f;
        }
        match keyed.sk.decrypt(&product) {
            Ok(plaintext) => assert_eq!(
                encoder.decode(&plaintext).unwrap(),
                expected,
                "product {}",
                done + 1
            ),
            Err(Error::NoiseBudgetExhausted) => return (done, End::Undecryptable),
            Err(other) => panic!("unexpected error after {done} products: {other}"),
        }
        let exact = keyed.sk.noise_budget(&product).unwrap();
        assert!(
            product.estimated_budget_bits() <= exact + 1.0,
            "the estimate must be conservative"
        );
        ct = product;
    }
    panic!("the noise budget never ran out");
}

#[test]
fn small_modulus_chain_reaches_the_promised_depth() {
    for depth in [1, 3] {
        let keyed = Keyed::new(1024, &t65537(), depth);
        let (done, end) = chain::<F65537>(&keyed, depth as u64);
        assert!(
            done >= depth,
            "depth {depth} promised, {done} products decrypted ({end:?})"
        );
    }
}

#[test]
fn bn254_chain_reaches_the_promised_depth() {
    for (n, depth) in [(1024, 2), (4096, 1)] {
        let keyed = Keyed::new(n, &bn254(), depth);
        let (done, end) = chain::<Fr>(&keyed, n as u64);
        assert!(
            done >= depth,
            "N = {n}: depth {depth} promised, {done} products decrypted ({end:?})"
        );
    }
}

#[test]
fn decryption_refuses_instead_of_returning_garbage() {
    // Q_0 is one ~50-bit prime, far below a 254-bit t: no ciphertext can
    // live there, so the switch itself is refused.
    let keyed = common::bn254_1024();
    let plaintext = keyed.plaintext(&[BigUint::from(42u32)]);
    let fresh = keyed.pk.encrypt(&plaintext).unwrap();
    assert_eq!(
        fresh.mod_switch_to(0).unwrap_err(),
        Error::NoiseBudgetExhausted
    );

    // Scalar products by big numbers grow the noise by ~log2 t bits each.
    let mut rng = common::rng(5);
    let t = keyed.t();
    let mut ct = keyed.sk.encrypt(&plaintext).unwrap();
    let mut expected = BigUint::from(42u32);
    for step in 0..16 {
        let k = common::random_below(&mut rng, t);
        ct = match ct.mul_scalar(&k) {
            Ok(next) => next,
            Err(Error::NoiseBudgetExhausted) => return,
            Err(other) => panic!("step {step}: {other}"),
        };
        expected = expected * &k % t;
        match keyed.sk.decrypt(&ct) {
            Ok(decrypted) => assert_eq!(decrypted.coefficient(0), Some(expected.clone())),
            Err(Error::NoiseBudgetExhausted) => return,
            Err(other) => panic!("step {step}: {other}"),
        }
    }
    panic!("sixteen 254-bit scalar products never exhausted the budget");
}

#[test]
fn budgets_shrink_with_products_and_not_with_sums() {
    let keyed = common::t65537_1024();
    let encoder = BatchEncoder::<F65537>::new(&keyed.context).unwrap();
    let mut rng = common::rng(6);
    let x: Vec<F65537> = random_slots(keyed.n(), &mut rng);
    let ct = keyed.sk.encrypt(&encoder.encode(&x).unwrap()).unwrap();
    let fresh = keyed.sk.noise_budget(&ct).unwrap();
    let sum = (&ct + &ct).unwrap();
    assert!(keyed.sk.noise_budget(&sum).unwrap() >= fresh - 2.0);
    let y = encoder
        .encode_for_multiplication(&random_slots::<F65537>(keyed.n(), &mut rng), ct.level())
        .unwrap();
    let product = (&ct * &y).unwrap();
    let after = keyed.sk.noise_budget(&product).unwrap();
    // A uniform plaintext mod 65537 at N = 1024 costs about log2(t·N) = 27 bits.
    assert!(
        after < fresh - 15.0 && after > fresh - 35.0,
        "{fresh} -> {after}"
    );
    assert!(product.noise_estimate_bits() > ct.noise_estimate_bits() + 15.0);
}
