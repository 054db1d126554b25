//! In-place addition of plaintexts modulo t on the limbs (used for secret
//! shares, which must not leave copies behind) and zeroization.

mod common;

use common::{bn254, random_poly, rng, t65537};
use helib_rs::{Context, Error, Plaintext};
use num_bigint::BigUint;
use zeroize::Zeroize;

fn check_against_model(t: &BigUint) {
    let ctx = common::context(1024, t, 1);
    let n = ctx.ring_degree();
    let mut r = rng(21);
    let mut a = random_poly(&mut r, t, n);
    let mut b = random_poly(&mut r, t, n);
    // The edges: a sum of exactly t, the largest sum 2t - 2, zero plus zero,
    // and (BN254) a carry out of the low limb without reaching t.
    let one = BigUint::from(1u32);
    a[0] = t - &one;
    b[0] = one.clone();
    a[1] = t - &one;
    b[1] = t - &one;
    a[2] = BigUint::from(0u32);
    b[2] = BigUint::from(0u32);
    if *t > BigUint::from(u64::MAX) {
        a[3] = BigUint::from(u64::MAX);
        b[3] = BigUint::from(1u32);
    }
    let expected: Vec<BigUint> = a.iter().zip(&b).map(|(x, y)| (x + y) % t).collect();
    let mut pa = Plaintext::from_biguints(&ctx, &a).unwrap();
    let pb = Plaintext::from_biguints(&ctx, &b).unwrap();
    pa.add_assign_mod_t(&pb).unwrap();
    assert_eq!(pa.coefficients(), expected);

    // Zeroization leaves the zero polynomial of the same context.
    pa.zeroize();
    assert!(pa.is_zero());
    assert_eq!(pa, Plaintext::zero(&ctx));
}

#[test]
fn add_assign_mod_t_matches_the_model() {
    check_against_model(&t65537());
    check_against_model(&bn254());
}

#[test]
fn add_assign_mod_t_refuses_another_context() {
    let a_ctx: Context = common::context(1024, &t65537(), 1);
    let b_ctx: Context = common::context(1024, &bn254(), 1);
    let mut a = Plaintext::zero(&a_ctx);
    let before = a.clone();
    assert_eq!(
        a.add_assign_mod_t(&Plaintext::zero(&b_ctx)),
        Err(Error::ContextMismatch)
    );
    assert_eq!(a, before);
}
