//! `Ciphertext::residues`: the evaluation-form residues of each polynomial.

mod common;

use common::{t65537, Keyed};
use helib_rs::{Error, Plaintext};

/// N = 1024, t = 65537, room for three products (a switched ciphertext
/// keeps a level below the top, and room for a product there).
fn keyed() -> Keyed {
    Keyed::new(1024, &t65537(), 3)
}

#[test]
fn residues_add_like_the_ciphertexts() {
    let Keyed { context, pk, .. } = keyed();
    let a = pk
        .encrypt(&Plaintext::from_u64s(&context, &[1, 2, 3]).unwrap())
        .unwrap();
    let b = pk
        .encrypt(&Plaintext::from_u64s(&context, &[7, 0, 65536]).unwrap())
        .unwrap();
    let sum = a.add(&b).unwrap();
    let negated = a.negate().unwrap();
    for (prime, &q) in context.chain_primes().iter().enumerate() {
        for part in 0..2 {
            let (ra, rb) = (
                a.residues(part, prime).unwrap(),
                b.residues(part, prime).unwrap(),
            );
            let (rs, rn) = (
                sum.residues(part, prime).unwrap(),
                negated.residues(part, prime).unwrap(),
            );
            assert_eq!(ra.len(), 1024);
            assert!(ra.iter().chain(&rb).all(|&r| r < q));
            for j in 0..ra.len() {
                assert_eq!(
                    rs[j],
                    (ra[j] + rb[j]) % q,
                    "part {part}, prime {prime}, value {j}"
                );
                assert_eq!(
                    (rn[j] + ra[j]) % q,
                    0,
                    "part {part}, prime {prime}, value {j}"
                );
            }
        }
    }
    // Two independent encryptions differ (their masks are fresh).
    assert_ne!(a.residues(1, 0).unwrap(), b.residues(1, 0).unwrap());
}

#[test]
fn residues_outside_the_ciphertext_are_refused() {
    let Keyed { context, sk, .. } = keyed();
    let ct = sk
        .encrypt(&Plaintext::from_u64s(&context, &[5]).unwrap())
        .unwrap()
        .mod_switch()
        .unwrap();
    let level = context.max_level() - 1;
    assert_eq!(ct.level(), level);
    assert!(ct.residues(0, level).is_ok());
    assert_eq!(
        ct.residues(0, level + 1),
        Err(Error::InvalidLevel {
            level: level + 1,
            max: level
        })
    );
    assert!(matches!(ct.residues(2, 0), Err(Error::InvalidArgument(_))));
    let product = ct.multiply(&ct).unwrap();
    assert_eq!(product.size(), 3);
    assert!(product.residues(2, 0).is_ok());
}
