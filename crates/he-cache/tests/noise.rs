//! Noise budgets of every encryptor, measured with the secret key: the pool
//! matches fresh encryption, Rache pays for its additions, and Smuche's
//! scalar product costs about log2 |z| bits.

mod common;

use common::{bn254_keyed, t65537_keyed, Keyed};
use he_cache::{
    Encryptor, Engine, FreshEncryptor, InsecureRache, InsecureSmuche, PoolConfig, Radix, SecurePool,
};
use num_bigint::BigUint;

fn budget(keyed: &Keyed, encryptor: &dyn Encryptor, value: &BigUint) -> f64 {
    let ct = encryptor.encrypt_value(value).unwrap();
    keyed.sk.noise_budget(&ct).unwrap()
}

/// The mean budget of `samples` encryptions of `value`: one measurement
/// varies by about a bit with the random noise.
fn mean_budget(keyed: &Keyed, encryptor: &dyn Encryptor, value: &BigUint, samples: usize) -> f64 {
    (0..samples)
        .map(|_| budget(keyed, encryptor, value))
        .sum::<f64>()
        / samples as f64
}

/// The mean budget of a few fresh encryptions (pivots are fresh encryptions).
fn fresh_budget(keyed: &Keyed) -> f64 {
    let fresh = FreshEncryptor::new(keyed.pk.clone());
    mean_budget(keyed, &fresh, &BigUint::from(7u32), 4)
}

fn smuche(keyed: &Keyed) -> InsecureSmuche {
    InsecureSmuche::new(Engine::new(keyed.pk.clone()), Radix::new(2, 1).unwrap()).unwrap()
}

#[test]
fn smuche_scalar_product_costs_log2_of_the_scalar() {
    let keyed = bn254_keyed();
    let fresh = fresh_budget(keyed);
    let smuche = smuche(keyed);
    // z is taken centred mod t: 2^bits costs ≈ bits; t − 1 is z = −1 and costs nothing.
    for bits in [0u32, 20, 64, 128, 200, 250] {
        let z = BigUint::from(1u32) << bits;
        let cost = fresh - budget(keyed, &smuche, &z);
        assert!(
            (f64::from(bits) - 3.0..=f64::from(bits) + 4.0).contains(&cost),
            "z = 2^{bits}: cost {cost:.1} bits"
        );
    }
    let cost = fresh - budget(keyed, &smuche, &(keyed.t() - 1u32));
    assert!(cost.abs() < 4.0, "t - 1: cost {cost:.1}");
    // The estimate the engine tracks is conservative.
    let ct = smuche
        .encrypt_value(&(BigUint::from(1u32) << 200u32))
        .unwrap();
    assert!(ct.estimated_budget_bits() <= keyed.sk.noise_budget(&ct).unwrap());
}

#[test]
fn smuche_uses_the_nearest_pivot_to_save_budget() {
    let keyed = t65537_keyed();
    let engine = Engine::new(keyed.pk.clone());
    let one_pivot = InsecureSmuche::new(engine.clone(), Radix::new(10, 1).unwrap()).unwrap();
    let five_pivots = InsecureSmuche::new(engine, Radix::new(10, 5).unwrap()).unwrap();
    let value = BigUint::from(30000u32); // 3 · 10^4: scalar 30000 vs 3
    assert_eq!(five_pivots.pivot_for(&value), (4, BigUint::from(3u32)));
    let saved = budget(keyed, &five_pivots, &value) - budget(keyed, &one_pivot, &value);
    assert!(saved > 10.0, "saved {saved:.1} bits");
}

#[test]
fn pool_and_fresh_have_the_same_budget_and_rache_pays_for_its_additions() {
    for keyed in [bn254_keyed(), t65537_keyed()] {
        let fresh = fresh_budget(keyed);
        let value = keyed.t() - 1u32;
        let pool = SecurePool::new(keyed.pk.clone(), PoolConfig::new(2)).unwrap();
        let pooled = budget(keyed, &pool, &value);
        assert!(
            (pooled - fresh).abs() < 3.0,
            "pool {pooled:.1} vs fresh {fresh:.1}"
        );

        // Radix 16: digits up to 15 times pivots plus up to k − 1 zeros,
        // each zero 17× a fresh noise: at most log2(16·k + 17·k) ≈ 9.4 bits for k = 20.
        let radix = Radix::covering(16, keyed.t()).unwrap();
        let rache = InsecureRache::new(Engine::new(keyed.pk.clone()), radix).unwrap();
        let cost = fresh - mean_budget(keyed, &rache, &value, 4);
        let bound = (33.0 * radix.pivots() as f64).log2() + 3.0;
        assert!(
            cost > 1.0 && cost < bound,
            "rache cost {cost:.1} (bound {bound:.1})"
        );
    }
}
