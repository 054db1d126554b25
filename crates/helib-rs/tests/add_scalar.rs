//! Adding an integer constant to the plaintext, at the top level and after
//! modulus switching (where the correction factor is not 1).

mod common;

use common::{bn254_1024, random_below, random_poly, rng, t65537_1024, Keyed};
use num_bigint::BigUint;

fn check(keyed: &Keyed, seed: u64) {
    let t = keyed.t();
    let mut r = rng(seed);
    let m = random_poly(&mut r, t, keyed.n());
    let ct = keyed.pk.encrypt(&keyed.plaintext(&m)).unwrap();
    let switched = ct.mod_switch().unwrap();
    let big_k = t * 3u32 + 5u32; // reduced mod t first
    for (ct, k) in [
        (&ct, random_below(&mut r, t)),
        (&switched, random_below(&mut r, t)),
        (&switched, t - 1u32),
        (&ct, BigUint::default()),
        (&ct, big_k),
    ] {
        let sum = ct.add_scalar(&k).unwrap();
        let mut want = m.clone();
        want[0] = (&want[0] + &k) % t;
        assert_eq!(keyed.sk.decrypt(&sum).unwrap().coefficients(), want);
        assert_eq!(sum.correction_factor(), ct.correction_factor());
        assert!(sum.estimated_budget_bits() <= keyed.sk.noise_budget(&sum).unwrap() + 1.0);
        let mut in_place = ct.clone();
        in_place.add_scalar_assign(&k).unwrap();
        assert_eq!(keyed.sk.decrypt(&in_place).unwrap().coefficients(), want);
    }
}

#[test]
fn add_scalar_adds_to_the_constant_coefficient() {
    check(bn254_1024(), 1);
    check(t65537_1024(), 2);
}
