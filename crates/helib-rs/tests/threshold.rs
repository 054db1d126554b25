//! The engine's Shamir re-sharing: Lagrange recombination of the dealt
//! residues is exact for every active set of at least `threshold` parties
//! (checked by decrypting with the activated shares), fewer points or wrong
//! coefficients do not decrypt, and every bad argument is an error.

mod common;

use common::{rng, t65537_1024, Keyed};
use helib_rs::threshold::{self, ResidueShare, ResidueShareInfo, Smudging};
use helib_rs::{Ciphertext, Error, Plaintext};
use proptest::prelude::*;
use rand::Rng;

const LAMBDA: u32 = 40;

/// Party j's S_j = f(j) when one dealer (the key `sk` of `keyed`) deals with
/// `dealt_threshold` and the others deal zero; the shares claim `threshold`.
/// Odd parties combine the dealings, even ones import f(j) as their summed
/// residues, so every active set below mixes the two ways to S_j.
fn single_dealer_shares(
    keyed: &Keyed,
    dealt_threshold: u32,
    threshold: u32,
    parties: u32,
) -> Vec<ResidueShare> {
    let ctx = &keyed.context;
    let deal = threshold::shamir_deal(&keyed.sk, dealt_threshold, parties).unwrap();
    let each = threshold::chain_share_len(ctx, ctx.max_level());
    assert_eq!(deal.len(), parties as usize);
    assert!(deal.iter().all(|dealing| dealing.len() == each));
    (1..=parties)
        .map(|j| {
            let f_j = &deal[j as usize - 1];
            if j % 2 == 0 {
                return threshold::shamir_share_from_residues(ctx, j, threshold, parties, f_j)
                    .unwrap();
            }
            let mut dealings = vec![0u64; each * parties as usize];
            dealings[..each].copy_from_slice(f_j);
            threshold::shamir_combine(ctx, j, threshold, parties, &dealings).unwrap()
        })
        .collect()
}

/// The sum of the decryption shares of `shares`, each activated for the set
/// its entry names, decoded with `ct`.
fn decrypt(ct: &Ciphertext, shares: &[(&ResidueShare, &[u32])]) -> Result<Plaintext, Error> {
    let ctx = ct.context();
    let parties = shares.len() as u32;
    let smudging = Smudging::for_level(ctx, parties, LAMBDA, ct.level())?;
    let mut sum = vec![0u64; threshold::chain_share_len(ctx, ct.level())];
    for (share, set) in shares {
        let active = share.activate(set)?;
        let d = threshold::decrypt_share(&active, ct, &smudging)?;
        threshold::add_chain_shares(ctx, ct.level(), &mut sum, &d)?;
    }
    threshold::decrypt_combine(ct, &smudging, &sum)
}

fn encrypted(keyed: &Keyed, seed: u64) -> (Plaintext, Ciphertext) {
    let mut r = rng(seed);
    let coeffs: Vec<_> = (0..keyed.n())
        .map(|_| num_bigint::BigUint::from(r.gen_range(0u32..65537)))
        .collect();
    let m = keyed.plaintext(&coeffs);
    let ct = keyed.pk.encrypt(&m).unwrap();
    (m, ct)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Σ_{j∈T} λ_j(T)·f(j) = f(0) = s exactly, for any threshold, any number
    /// of parties and any active set of at least `threshold` of them.
    #[test]
    fn lagrange_recombination_is_exact(
        parties in 1u32..=7,
        threshold_frac in 0.0f64..1.0,
        mask in any::<u8>(),
        seed in any::<u64>(),
    ) {
        let keyed = t65537_1024();
        let threshold = 1 + ((parties as f64 * threshold_frac) as u32).min(parties - 1);
        let shares = single_dealer_shares(keyed, threshold, threshold, parties);
        let mut set: Vec<u32> = (1..=parties).filter(|j| mask & (1 << (j - 1)) != 0).collect();
        // Top the set up to the threshold with the first parties outside it.
        for j in 1..=parties {
            if set.len() >= threshold as usize { break; }
            if !set.contains(&j) { set.push(j); }
        }
        let (m, ct) = encrypted(keyed, seed);
        let entries: Vec<(&ResidueShare, &[u32])> =
            set.iter().map(|&j| (&shares[j as usize - 1], &set[..])).collect();
        prop_assert_eq!(decrypt(&ct, &entries).unwrap(), m);
    }
}

/// Points of a polynomial of degree 2 (threshold 3) taken as if the degree
/// were 1: two of them do not give f(0), so the shares do not decrypt.
#[test]
fn fewer_points_than_the_degree_needs_do_not_decrypt() {
    let keyed = t65537_1024();
    let shares = single_dealer_shares(keyed, 3, 2, 5);
    let (m, ct) = encrypted(keyed, 1);
    let set = [2u32, 5];
    let wrong = decrypt(&ct, &[(&shares[1], &set), (&shares[4], &set)]);
    assert!(matches!(wrong, Err(Error::Malformed(_))), "{wrong:?}");
    // The same shares with a third point decrypt.
    let right = [1u32, 2, 5];
    let entries: Vec<(&ResidueShare, &[u32])> = right
        .iter()
        .map(|&j| (&shares[j as usize - 1], &right[..]))
        .collect();
    assert_eq!(decrypt(&ct, &entries).unwrap(), m);
}

/// One party using its Lagrange coefficient for another active set: the sum
/// is not c_1·s, and the engine's noise check refuses it.
#[test]
fn a_coefficient_of_another_active_set_does_not_decrypt() {
    let keyed = t65537_1024();
    let shares = single_dealer_shares(keyed, 3, 3, 5);
    let (_, ct) = encrypted(keyed, 2);
    let a = [1u32, 2, 3];
    let b = [1u32, 2, 4];
    let mixed = decrypt(&ct, &[(&shares[0], &b), (&shares[1], &a), (&shares[2], &a)]);
    assert!(matches!(mixed, Err(Error::Malformed(_))), "{mixed:?}");
}

#[test]
fn bad_arguments_are_errors() {
    let keyed = t65537_1024();
    let ctx = &keyed.context;
    let invalid = |r: Result<ResidueShare, Error>| matches!(r, Err(Error::InvalidArgument(_)));
    // Dealing sizes.
    for (t, n) in [(0u32, 3u32), (4, 3), (1, 0), (1, 4097)] {
        assert!(
            matches!(
                threshold::shamir_deal(&keyed.sk, t, n),
                Err(Error::InvalidArgument(_))
            ),
            "threshold {t} of {n}"
        );
    }
    let shares = single_dealer_shares(keyed, 2, 2, 3);
    assert_eq!(
        shares[1].info().unwrap(),
        ResidueShareInfo {
            index: 2,
            threshold: 2,
            parties: 3,
            active: 0
        }
    );
    // Combining: index, sizes, length, unreduced residues.
    let each = threshold::chain_share_len(ctx, ctx.max_level());
    let zeros = vec![0u64; 3 * each];
    assert!(invalid(threshold::shamir_combine(ctx, 0, 2, 3, &zeros)));
    assert!(invalid(threshold::shamir_combine(ctx, 4, 2, 3, &zeros)));
    assert!(invalid(threshold::shamir_combine(ctx, 1, 4, 3, &zeros)));
    assert!(invalid(threshold::shamir_combine(
        ctx,
        1,
        2,
        3,
        &zeros[1..]
    )));
    let mut unreduced = zeros.clone();
    unreduced[each + 5] = u64::MAX;
    assert!(invalid(threshold::shamir_combine(ctx, 1, 2, 3, &unreduced)));
    // The same checks for a share made from its summed residues.
    let from_residues = |index, t, residues: &[u64]| {
        threshold::shamir_share_from_residues(ctx, index, t, 3, residues)
    };
    assert!(from_residues(2, 2, &zeros[..each]).is_ok());
    assert!(invalid(from_residues(0, 2, &zeros[..each])));
    assert!(invalid(from_residues(4, 2, &zeros[..each])));
    assert!(invalid(from_residues(1, 4, &zeros[..each])));
    assert!(invalid(from_residues(1, 2, &zeros[..each - 1])));
    assert!(invalid(from_residues(1, 2, &zeros[..2 * each])));
    assert!(invalid(from_residues(1, 2, &unreduced[each..2 * each])));
    // Activation: range, repeats, below the threshold, not a member, twice.
    assert!(invalid(shares[0].activate(&[1, 4])));
    assert!(invalid(shares[0].activate(&[0, 1])));
    assert!(invalid(shares[0].activate(&[1, 2, 2])));
    assert!(invalid(shares[0].activate(&[1])));
    assert!(invalid(shares[0].activate(&[])));
    assert!(invalid(shares[0].activate(&[2, 3])));
    let active = shares[0].activate(&[3, 1]).unwrap();
    assert_eq!(active.info().unwrap().active, 2);
    assert!(invalid(active.activate(&[1, 3])));
    // A share not activated makes no share.
    let (_, ct) = encrypted(keyed, 3);
    let smudging = Smudging::for_level(ct.context(), 2, LAMBDA, ct.level()).unwrap();
    assert!(matches!(
        threshold::decrypt_share(&shares[0], &ct, &smudging),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        threshold::e2s_share(&shares[0], &ct, &smudging),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        threshold::key_switch_share(&shares[0], &ct, &keyed.pk, &smudging),
        Err(Error::InvalidArgument(_))
    ));
    // A share of another context.
    let other = common::bn254_1024();
    let (_, other_ct) = encrypted(other, 4);
    assert!(matches!(
        threshold::decrypt_share(&active, &other_ct, &smudging),
        Err(Error::ContextMismatch)
    ));
}

/// Encryption to shares of a size-3 product that the party relinearizes
/// itself: the party that adds the public part makes the opening with the
/// product's own c_0 decode to the relinearized plaintext minus its mask;
/// without that part the opening fails its noise check, and a relinearized
/// ciphertext or a key of another context is refused.
#[test]
fn shares_of_a_product_open_without_relinearization() {
    // Three 60-bit primes: room for a product and its smudging at the top.
    let params = helib_rs::Parameters::builder()
        .ring_degree(1024)
        .plaintext_modulus(common::t65537())
        .chain_bits(&[60, 60, 60])
        .special_bits(&[60])
        .allow_insecure()
        .build()
        .unwrap();
    let keyed = &Keyed::from_context(helib_rs::Context::new(&params).unwrap());
    let rk = helib_rs::RelinKey::generate(&keyed.sk).unwrap();
    let (a, ca) = encrypted(keyed, 5);
    let (_, cb) = encrypted(keyed, 6);
    let product = ca.multiply(&cb).unwrap();
    let relinearized = product.relinearize(&rk).unwrap();
    let expected = keyed.sk.decrypt(&relinearized).unwrap();
    assert_ne!(expected, a);
    let smudging = Smudging::for_level(&keyed.context, 1, LAMBDA, product.level()).unwrap();

    let (mask, share) =
        threshold::e2s_share_of_product(&keyed.sk, &product, &rk, &smudging, true).unwrap();
    let mut opened = threshold::decrypt_combine_product(&product, &rk, &smudging, &share).unwrap();
    assert_ne!(opened, expected);
    opened.add_assign_mod_t(&mask).unwrap();
    assert_eq!(opened, expected);

    let (_, without) =
        threshold::e2s_share_of_product(&keyed.sk, &product, &rk, &smudging, false).unwrap();
    assert!(matches!(
        threshold::decrypt_combine_product(&product, &rk, &smudging, &without),
        Err(Error::Malformed(_))
    ));
    assert!(matches!(
        threshold::e2s_share_of_product(&keyed.sk, &relinearized, &rk, &smudging, true),
        Err(Error::InvalidArgument(_))
    ));
    let other_rk = helib_rs::RelinKey::generate(&common::bn254_1024().sk).unwrap();
    assert!(matches!(
        threshold::e2s_share_of_product(&keyed.sk, &product, &other_rk, &smudging, true),
        Err(Error::ContextMismatch)
    ));
}
