//! The noise model of `helib_rs::noise` against real ciphertexts: on small
//! rings, each operation's predicted noise must bound the noise measured
//! with the secret key and not be loose by more than a stated number of
//! bits, and the engine's own estimate must agree with the model.

mod common;

use common::{bn254, random_poly, rng, t65537, Keyed};
use helib_rs::{
    noise, Ciphertext, EncodedPlaintext, GaloisKeys, ModSwitchPolicy, RelinKey, RotationPolicy,
};
use num_bigint::BigUint;

/// How far below the model's prediction the measured noise may fall for
/// linear operations (encryption, sums, scalar products, rotations, modulus
/// switching). The model bounds worst cases, so a random ciphertext measures
/// a few bits under it; more than this would make the chains it sizes wasteful.
const LINEAR_BITS: f64 = 8.0;

/// The same for products with a plaintext or a ciphertext: the model takes
/// the ring's worst-case expansion N where random operands give about √N,
/// log2(N)/2 bits less for each product (6 at N = 4096), plus the operands'
/// own slack.
const PRODUCT_BITS: f64 = 24.0;

/// How far the engine's estimate may lie from the model's prediction: both
/// are worst-case bounds, built differently.
const ESTIMATE_BITS: f64 = 16.0;

/// The noise of `ct` measured with the secret key: log2(Q_l / 2) less the
/// remaining budget.
fn measured(keyed: &Keyed, ct: &Ciphertext) -> f64 {
    let budget = keyed.sk.noise_budget(ct).unwrap();
    assert!(budget > 0.0, "the ciphertext must still decrypt");
    keyed.context.log2_modulus(ct.level()).unwrap() - 1.0 - budget
}

/// Checks that `predicted` bounds the measured noise of `ct` tightly, and
/// that the engine's estimate is near the prediction.
fn check(keyed: &Keyed, what: &str, ct: &Ciphertext, predicted: f64, looseness: f64) {
    let measured = measured(keyed, ct);
    let estimate = ct.noise_estimate_bits();
    println!(
        "{what}: level {} model {predicted:.1} measured {measured:.1} engine {estimate:.1}",
        ct.level()
    );
    assert!(
        measured <= predicted,
        "{what}: measured {measured:.1} bits above the model's {predicted:.1}"
    );
    assert!(
        predicted - measured <= looseness,
        "{what}: the model's {predicted:.1} bits is more than {looseness} above the measured {measured:.1}"
    );
    assert!(
        (estimate - predicted).abs() <= ESTIMATE_BITS,
        "{what}: the engine estimates {estimate:.1} bits, the model {predicted:.1}"
    );
    assert!(
        estimate >= measured,
        "{what}: the engine's estimate {estimate:.1} is below the measured {measured:.1}"
    );
}

/// Runs every operation the model covers at ring degree `n` and plaintext
/// modulus `t` and checks each prediction.
fn every_operation(n: usize, t: &BigUint, seed: u64) {
    let keyed = Keyed::new(n, t, 3);
    let log_t = noise::log2(t);
    let mut rng = rng(seed);
    let fresh_plain = |rng: &mut rand::rngs::StdRng| keyed.plaintext(&random_poly(rng, t, n));
    let a = keyed.pk.encrypt(&fresh_plain(&mut rng)).unwrap();
    let b = keyed.pk.encrypt(&fresh_plain(&mut rng)).unwrap();
    let fresh = noise::fresh_bits(n, log_t);
    check(&keyed, "fresh encryption", &a, fresh, LINEAR_BITS);

    let sum = (0..15).try_fold(a.add(&b).unwrap(), |acc, _| acc.add(&b));
    check(
        &keyed,
        "sum of 16",
        &sum.unwrap(),
        fresh + noise::addition_bits(16),
        LINEAR_BITS,
    );

    let top = keyed.context.max_level();
    let factor = EncodedPlaintext::for_multiplication(&fresh_plain(&mut rng), top).unwrap();
    let product = a.mul_plain(&factor).unwrap();
    check(
        &keyed,
        "plaintext product",
        &product,
        fresh + noise::plain_product_bits(n, log_t),
        PRODUCT_BITS,
    );

    let scalar = (BigUint::from(1u8) << 39u32) + 12345u32;
    let scaled = a.mul_scalar(&scalar).unwrap();
    check(
        &keyed,
        "scalar product",
        &scaled,
        fresh + noise::scalar_product_bits(40, log_t),
        LINEAR_BITS,
    );

    let rk = RelinKey::generate(&keyed.sk).unwrap();
    let squared = a.multiply_relin(&b, &rk, ModSwitchPolicy::Manual).unwrap();
    let first = noise::product_chain_total_bits(n, log_t, 1, 1)
        - noise::MARGIN_BITS
        - noise::DECRYPTION_BITS;
    check(&keyed, "ciphertext product", &squared, first, PRODUCT_BITS);

    // After a switch to the floor, a further product adds ciphertext_product_bits.
    let need = fresh + noise::ciphertext_product_bits(n, log_t, 1) + 2.0;
    let low = (0..=top)
        .find(|&l| keyed.context.log2_modulus(l).unwrap() >= need)
        .unwrap();
    assert!(low < top, "the test needs a level to switch down to");
    let floor = a.mod_switch_to(low).unwrap();
    check(
        &keyed,
        "modulus switch to the floor",
        &floor,
        fresh + 1.0,
        LINEAR_BITS,
    );
    // Switched down before it is relinearized, a product keeps the rounding
    // of its third part against s² (at least), one bit over the larger floor.
    let log2_q = |level| keyed.context.log2_modulus(level).unwrap();
    let switched_first = a
        .multiply(&b)
        .unwrap()
        .mod_switch_to(low)
        .unwrap()
        .relinearize(&rk)
        .unwrap();
    let floor_3 = (fresh + 1.0).max(noise::squared_secret_rounding_bits(n, log_t)) + 1.0;
    check(
        &keyed,
        "product switched, then relinearized",
        &switched_first,
        (first - (log2_q(top) - log2_q(low))).max(floor_3) + 1.0,
        PRODUCT_BITS,
    );

    let further = floor
        .multiply_relin(&floor, &rk, ModSwitchPolicy::Manual)
        .unwrap();
    check(
        &keyed,
        "product at the floor",
        &further,
        fresh + noise::ciphertext_product_bits(n, log_t, 1),
        PRODUCT_BITS,
    );

    // A rotation's key-switching noise stays below a fresh noise: at most a
    // bit over its input once that is above the fresh noise.
    let keys = GaloisKeys::for_steps(&keyed.sk, &[1]).unwrap();
    let rotated = product
        .rotate_rows(1, &keys, RotationPolicy::Exact)
        .unwrap();
    check(
        &keyed,
        "rotation",
        &rotated,
        fresh + noise::plain_product_bits(n, log_t) + 1.0,
        PRODUCT_BITS,
    );
    let rotated_fresh = a.rotate_rows(1, &keys, RotationPolicy::Exact).unwrap();
    check(
        &keyed,
        "rotation of a fresh one",
        &rotated_fresh,
        fresh + 1.0,
        LINEAR_BITS,
    );

    // The linear-transform budget is looser on purpose (it covers the
    // rotations of a whole baby-step giant-step level), so only bounded.
    let level = fresh + noise::transform_level_bits(n, log_t);
    assert!(measured(&keyed, &rotated) <= level);
    assert!(noise::transform_fresh_bits(n, log_t) >= measured(&keyed, &rotated_fresh));
}

#[test]
fn the_model_bounds_small_modulus_operations() {
    every_operation(4096, &t65537(), 1);
}

#[test]
fn the_model_bounds_bn254_operations() {
    every_operation(4096, &bn254(), 2);
}
