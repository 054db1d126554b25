//! `PublicKey::add_mask_insecure`: Smuche's public-key mask keeps the
//! plaintext, level and factor, costs the documented noise, and is refused
//! across contexts without touching the ciphertext.

mod common;

use common::{bn254, t65537, Keyed};
use helib_rs::{Error, Plaintext};

/// Mask a ciphertext, check what must not change and what the noise did.
fn check_mask_keeps_the_plaintext(keyed: &Keyed, seed: u64) {
    let mut rng = common::rng(seed);
    let message = keyed.plaintext(&common::random_poly(&mut rng, keyed.t(), keyed.n()));
    let original = keyed.pk.encrypt(&message).unwrap();
    let mut masked = original.clone();
    keyed.pk.add_mask_insecure(&mut masked).unwrap();

    assert_eq!(keyed.sk.decrypt(&masked).unwrap(), message);
    assert_eq!(masked.level(), original.level());
    assert_eq!(masked.correction_factor(), original.correction_factor());
    // The mask adds t·e·ξ: the exact budget drops by at most a few bits and
    // the estimate stays conservative.
    let before = keyed.sk.noise_budget(&original).unwrap();
    let after = keyed.sk.noise_budget(&masked).unwrap();
    assert!(
        after <= before + 1.0 && after >= before - 4.0,
        "{before} -> {after}"
    );
    assert!(masked.estimated_budget_bits() <= after);

    // The difference is an encryption of zero: the mask really changed the ciphertext.
    let difference = masked.sub(&original).unwrap();
    assert!(keyed.sk.decrypt(&difference).unwrap().is_zero());
    // Its noise t·e·ξ is a nonzero multiple of t (the mask is not trivial).
    let log_q = keyed.context.log2_modulus(difference.level()).unwrap();
    let log_t = keyed.t().bits() as f64 - 1.0;
    assert!(keyed.sk.noise_budget(&difference).unwrap() < log_q - 1.0 - log_t);
}

#[test]
fn mask_keeps_plaintext_level_and_factor_bn254() {
    check_mask_keeps_the_plaintext(common::bn254_1024(), 61);
}

#[test]
fn mask_keeps_plaintext_level_and_factor_t65537() {
    check_mask_keeps_the_plaintext(common::t65537_1024(), 62);
}

#[test]
fn mask_works_below_the_top_level() {
    let keyed = common::bn254_1024();
    let message = Plaintext::from_u64s(&keyed.context, &[7, 0, 9]).unwrap();
    let mut ct = keyed.pk.encrypt(&message).unwrap().mod_switch().unwrap();
    let level = ct.level();
    keyed.pk.add_mask_insecure(&mut ct).unwrap();
    assert_eq!(ct.level(), level);
    assert_eq!(keyed.sk.decrypt(&ct).unwrap(), message);
}

#[test]
fn mask_from_another_context_is_refused_and_changes_nothing() {
    let ours = Keyed::new(1024, &t65537(), 1);
    let theirs = Keyed::new(1024, &bn254(), 1);
    let message = Plaintext::from_u64s(&ours.context, &[3]).unwrap();
    let mut ct = ours.pk.encrypt(&message).unwrap();
    let budget = ours.sk.noise_budget(&ct).unwrap();
    assert_eq!(
        theirs.pk.add_mask_insecure(&mut ct),
        Err(Error::ContextMismatch)
    );
    assert_eq!(ours.sk.decrypt(&ct).unwrap(), message);
    assert_eq!(ours.sk.noise_budget(&ct).unwrap(), budget);
}
