//! `Ciphertext::residues`: the evaluation-form residues of each polynomial.

mod common;

use common::{t65537, Keyed};
use helib_rs::{Ciphertext, Error, Plaintext};
use proptest::prelude::*;

/// N = 1024, t = 65537, room for three products (a switched ciphertext
/// keeps a level below the top, and room for a product there).
fn keyed() -> Keyed {
    Keyed::new(1024, &t65537(), 3)
}

/// A secret-key encryption of 5 switched one level down, with its context.
fn switched() -> (helib_rs::Context, Ciphertext) {
    let Keyed { context, sk, .. } = keyed();
    let ct = sk
        .encrypt(&Plaintext::from_u64s(&context, &[5]).unwrap())
        .unwrap()
        .mod_switch()
        .unwrap();
    (context, ct)
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
    let (context, ct) = switched();
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

#[test]
fn column_pieces_outside_the_ciphertext_are_refused() {
    let (context, ct) = switched();
    let (n, level) = (context.ring_degree(), ct.level());
    let mut piece = vec![0u64; 8];
    let mut zeros = Ciphertext::zeros(
        &context,
        level,
        2,
        ct.correction_factor(),
        ct.noise_estimate_bits(),
    )
    .unwrap();
    for first in [n - 7, n, usize::MAX] {
        assert!(matches!(
            ct.residue_columns_into(0, 0, first, &mut piece),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            zeros.write_residue_columns(0, 0, first, &piece),
            Err(Error::InvalidArgument(_))
        ));
    }
    assert!(ct.residue_columns_into(0, 0, n - 8, &mut piece).is_ok());
    assert!(matches!(
        ct.residue_columns_into(0, level + 1, 0, &mut piece),
        Err(Error::InvalidLevel { .. })
    ));
    assert!(matches!(
        zeros.write_residue_columns(2, 0, 0, &piece),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        zeros.write_residue_columns(0, level + 1, 0, &piece),
        Err(Error::InvalidLevel { .. })
    ));
    // A residue not below its prime: refused, and nothing is written.
    let q = context.chain_primes()[level];
    let bad = [1, 2, q, 4];
    assert!(matches!(
        zeros.write_residue_columns(1, level, 16, &bad),
        Err(Error::Malformed(_))
    ));
    assert!(zeros.residues(1, level).unwrap().iter().all(|&r| r == 0));
    // An empty piece writes nothing, anywhere within the row.
    zeros.write_residue_columns(0, 0, n, &[]).unwrap();
    // Shapes a ciphertext cannot have.
    let factor = ct.correction_factor();
    assert!(matches!(
        Ciphertext::zeros(&context, level, 4, factor, 1.0),
        Err(Error::Malformed(_))
    ));
    assert!(Ciphertext::zeros(&context, context.max_level() + 1, 2, factor, 1.0).is_err());
    assert!(Ciphertext::zeros(&context, level, 2, factor, f64::NAN).is_err());
    assert!(Ciphertext::zeros(&context, level, 2, context.plaintext_modulus(), 1.0).is_err());
}

#[test]
fn a_written_c1_replaces_the_seed_it_was_expanded_from() {
    // A secret-key encryption stores c_1 as a seed; after a write, the
    // serialized ciphertext carries the written residues instead.
    let Keyed { context, sk, .. } = keyed();
    let mut ct = sk
        .encrypt(&Plaintext::from_u64s(&context, &[5]).unwrap())
        .unwrap();
    let seeded_len = ct.to_bytes().unwrap().len();
    let mut row = ct.residues(1, 0).unwrap();
    row[3] = (row[3] + 1) % context.chain_primes()[0];
    ct.write_residue_columns(1, 0, 3, &row[3..4]).unwrap();
    let bytes = ct.to_bytes().unwrap();
    assert!(bytes.len() > seeded_len);
    let back = Ciphertext::from_bytes(&context, &bytes).unwrap();
    assert_eq!(back.residues(1, 0).unwrap(), row);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    /// A ciphertext assembled from column pieces of another, in any split
    /// and order of the pieces, equals it residue for residue.
    #[test]
    fn pieces_assemble_the_ciphertext(cuts in proptest::collection::vec(0usize..1024, 0..6), reverse: bool) {
        let Keyed { context, pk, .. } = keyed();
        let ct = pk.encrypt(&Plaintext::from_u64s(&context, &[9, 8, 7]).unwrap()).unwrap();
        let n = context.ring_degree();
        let mut bounds: Vec<usize> = cuts.into_iter().chain([0, n]).collect();
        bounds.sort_unstable();
        bounds.dedup();
        let mut pieces: Vec<(usize, usize)> = bounds.windows(2).map(|w| (w[0], w[1])).collect();
        if reverse {
            pieces.reverse();
        }
        let mut copy = Ciphertext::zeros(
            &context, ct.level(), 2, ct.correction_factor(), ct.noise_estimate_bits()).unwrap();
        for part in 0..2 {
            for prime in 0..=ct.level() {
                for &(start, end) in &pieces {
                    let mut piece = vec![0u64; end - start];
                    ct.residue_columns_into(part, prime, start, &mut piece).unwrap();
                    copy.write_residue_columns(part, prime, start, &piece).unwrap();
                }
                prop_assert_eq!(copy.residues(part, prime).unwrap(), ct.residues(part, prime).unwrap());
            }
        }
        prop_assert_eq!(copy.to_bytes().unwrap(), ct.to_bytes().unwrap());
    }
}
