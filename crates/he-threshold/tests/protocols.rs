//! Every protocol against the single-key scheme: same plaintext results, with
//! t = the BN254 scalar field and t = 65537.

mod common;

use common::{bn254, context, encrypted_product, key_switch_by, random_plaintext, t65537, Net};
use he_threshold::{AdditiveShare, Party, Step, SwitchedProduct};
use helib_rs::{Context, GaloisKeys, PublicKey, RelinKey, SecretKey};
use num_bigint::BigUint;
use rand::{rngs::StdRng, Rng, SeedableRng};

const PARTIES: u32 = 3;

fn network(context: &Context) -> Net {
    let mut id = [0u8; 32];
    StdRng::seed_from_u64(7).fill(&mut id);
    Net::new(context, PARTIES, id)
}

/// Key generation, encryption under the collective key, a product with
/// relinearization, a rotation, decryption, encryption to shares and back,
/// and key switching: each result equals the single-key computation's.
fn every_protocol_matches_single_key(t: &BigUint) {
    let context = context(t, PARTIES, 2);
    let mut net = network(&context);
    let mut rng = StdRng::seed_from_u64(11);
    let pk = net.public_key();
    // The collective keys round-trip through the checked format (the
    // relinearization key with its a polynomials in full), and everything
    // below runs on the loaded copies.
    let rk = RelinKey::from_bytes(&context, &net.relin_key().to_bytes().unwrap()).unwrap();
    let g = GaloisKeys::element_for_step(&context, 1);
    let gk = GaloisKeys::from_bytes(&context, &net.galois_keys(&[g]).to_bytes().unwrap()).unwrap();

    // The single-key reference.
    let sk1 = SecretKey::generate(&context).unwrap();
    let pk1 = sk1.public_key().unwrap();
    let rk1 = RelinKey::generate(&sk1).unwrap();
    let gk1 = GaloisKeys::for_elements(&sk1, &[g]).unwrap();

    let a = random_plaintext(&context, &mut rng);
    let b = random_plaintext(&context, &mut rng);

    // Decryption of a fresh encryption.
    let ca = pk.encrypt(&a).unwrap();
    assert_eq!(net.decrypt(&ca), a);

    // Product and relinearization.
    let cb = pk.encrypt(&b).unwrap();
    let prod = ca.multiply(&cb).unwrap().relinearize(&rk).unwrap();
    let prod1 = encrypted_product(&pk1, &rk1, &a, &b);
    let expected = sk1.decrypt(&prod1).unwrap();
    assert_eq!(net.decrypt(&prod), expected);

    // The collective public and Galois keys serialize like any others (their
    // common polynomials come from seeds) and read back as the same keys.
    let pk = PublicKey::from_bytes(&context, &pk.to_bytes().unwrap()).unwrap();
    let gk = GaloisKeys::from_bytes(&context, &gk.to_bytes().unwrap()).unwrap();

    // Rotation.
    let rot = pk.encrypt(&a).unwrap().apply_galois(g, &gk).unwrap();
    let rot1 = pk1.encrypt(&a).unwrap().apply_galois(g, &gk1).unwrap();
    assert_eq!(net.decrypt(&rot), sk1.decrypt(&rot1).unwrap());

    // Encryption to shares: the shares sum to the plaintext, and none is it.
    let shares = net.encryption_to_shares(&prod);
    assert_eq!(AdditiveShare::reconstruct(&shares).unwrap(), expected);
    assert!(shares.iter().all(|s| *s.plaintext() != expected));

    // The same from the size-3 product, which every party switches down
    // and relinearizes itself (party 0 adding the public part) and the
    // opener never relinearizes; at its own level, and one level down.
    let unrelinearized = ca.multiply(&cb).unwrap();
    let top = unrelinearized.level();
    for level in [top, top - 1] {
        let of_product = net.encryption_to_shares_of_product(&unrelinearized, level, &rk);
        assert_eq!(AdditiveShare::reconstruct(&of_product).unwrap(), expected);
        assert!(of_product.iter().all(|s| *s.plaintext() != expected));
    }
    // A relinearized ciphertext is not a product of this step, and a
    // product does not switch up.
    assert!(SwitchedProduct::new(prod.try_clone().unwrap(), prod.level()).is_err());
    assert!(SwitchedProduct::new(unrelinearized.try_clone().unwrap(), top + 1).is_err());
    // Shares are bound to the product as computed: an aggregator on the
    // switched ciphertext refuses them, and the step has no plain
    // ciphertext aggregator.
    let switched = SwitchedProduct::new(unrelinearized.try_clone().unwrap(), top - 1).unwrap();
    let smudging = net.session.smudging(top - 1).unwrap();
    let run = net.next_run();
    let (_, message) = net.parties[0]
        .encryption_to_shares_of_product(run, &switched, &rk, &smudging)
        .unwrap();
    let session = &net.session;
    let mut on_switched = session
        .product_aggregator(run, switched.ciphertext(), top - 1)
        .unwrap();
    assert!(on_switched.add(&message).is_err());
    let mut on_computed = session
        .product_aggregator(run, &unrelinearized, top - 1)
        .unwrap();
    on_computed.add(&message).unwrap();
    let step = Step::EncryptionToSharesOfProduct;
    assert!(session
        .ciphertext_aggregator(run, step, &unrelinearized)
        .is_err());
    assert!(session
        .product_aggregator(run, &unrelinearized, top + 1)
        .is_err());

    // Shares to encryption: a fresh ciphertext of the sum, which computes on.
    let level = context.max_level();
    let back = net.shares_to_encryption(level, &shares);
    assert_eq!(net.decrypt(&back), expected);
    let again = back.add(&ca).unwrap();
    let sum1 = pk1
        .encrypt(&a)
        .unwrap()
        .add(&sk1.encrypt(&expected).unwrap())
        .unwrap();
    assert_eq!(net.decrypt(&again), sk1.decrypt(&sum1).unwrap());

    // Key switching to the single-key public key.
    let run = net.next_run();
    let agg = net
        .session
        .ciphertext_aggregator(run, Step::KeySwitch, &prod)
        .unwrap();
    let parties = &net.parties;
    let switched = key_switch_by(
        &net.session,
        agg,
        run,
        &prod,
        &pk1,
        parties,
        Party::key_switch_share,
    );
    assert_eq!(sk1.decrypt(&switched).unwrap(), expected);
}

#[test]
fn every_protocol_matches_single_key_bn254() {
    every_protocol_matches_single_key(&bn254());
}

#[test]
fn every_protocol_matches_single_key_t65537() {
    every_protocol_matches_single_key(&t65537());
}

/// Additive shares are wiped: zeroizing one leaves the zero polynomial (the
/// same call runs when a share is dropped, which `ZeroizeOnDrop` marks), and
/// absorbing an opening adds in place.
#[test]
fn additive_shares_are_wiped_and_absorb_in_place() {
    fn wiped_on_drop<T: zeroize::ZeroizeOnDrop>() {}
    wiped_on_drop::<AdditiveShare>();

    let context = context(&t65537(), PARTIES, 1);
    let mut rng = StdRng::seed_from_u64(5);
    let a = random_plaintext(&context, &mut rng);
    let b = random_plaintext(&context, &mut rng);
    let mut share = AdditiveShare::new(a.clone());
    share.absorb_opening(&b).unwrap();
    let t = context.plaintext_modulus();
    let expected: Vec<BigUint> = a
        .coefficients()
        .iter()
        .zip(b.coefficients())
        .map(|(x, y)| (x + y) % t)
        .collect();
    assert_eq!(share.plaintext().coefficients(), expected);
    assert_eq!(
        AdditiveShare::reconstruct(&[AdditiveShare::new(a), AdditiveShare::new(b)]).unwrap(),
        *share.plaintext()
    );

    use zeroize::Zeroize;
    share.zeroize();
    assert!(share.plaintext().is_zero());
    assert_eq!(share.plaintext().ring_degree(), context.ring_degree());
}
