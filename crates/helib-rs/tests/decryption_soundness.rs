//! No silent wrong decryption: whatever a computation does, a decryption that
//! returns `Ok` returns the right plaintext; otherwise the computation or the
//! decryption refuses with `NoiseBudgetExhausted`.
//!
//! The cases here are structured noise wraps that an exact measurement of
//! v mod Q cannot see: levels whose Q_l is below t (t·e mod Q_l is small when
//! t mod Q_l is) and repeated doublings (2^k·v mod Q is small when 2^k mod Q
//! is, as for primes just below powers of two).

mod common;

use common::{bn254, t65537, Keyed};
use helib_rs::{Context, Error, Parameters, Plaintext, SecretKey};
use num_bigint::BigUint;

/// Keys for explicit chain and special prime sizes (insecure small rings allowed).
fn keyed(ring_degree: usize, t: &BigUint, chain: &[u32], special: &[u32]) -> Keyed {
    let params = Parameters::builder()
        .ring_degree(ring_degree)
        .plaintext_modulus(t.clone())
        .chain_bits(chain)
        .special_bits(special)
        .threads(2)
        .allow_insecure()
        .build()
        .expect("valid parameters");
    keys_for(Context::new(&params).expect("the engine accepts them"))
}

fn keys_for(context: Context) -> Keyed {
    let sk = SecretKey::generate(&context).expect("key generation");
    let pk = sk.public_key().expect("public key");
    Keyed { context, sk, pk }
}

/// N = 1024, t = BN254 Fr, chain [61, 44, 61, 61, 61, 61], special [61]: the
/// small-ring analogue of the N = 2^14 chain [44, 59, 61, ...] below. Levels
/// 0 to 3 have Q_l below t; at level 1 (Q_1 = q_0·q_1, 105 bits) t mod Q_1 is
/// so small that t·e mod Q_1 stays below Q_1 / 4 for every error a modulus
/// switch leaves, so the exact measurement alone accepts garbage there.
fn small_bottom_prime() -> Keyed {
    keyed(1024, &bn254(), &[61, 44, 61, 61, 61, 61], &[61])
}

/// How one attempt to reach a ciphertext and decrypt it ended.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Correct,
    Wrong,
    Refused,
}

/// Classifies a decryption against the expected plaintext; any error other
/// than `NoiseBudgetExhausted` fails the test.
#[track_caller]
fn judge(decrypted: helib_rs::Result<Plaintext>, expected: &Plaintext) -> Outcome {
    match decrypted {
        Ok(p) if p == *expected => Outcome::Correct,
        Ok(_) => Outcome::Wrong,
        Err(Error::NoiseBudgetExhausted) => Outcome::Refused,
        Err(other) => panic!("unexpected error: {other}"),
    }
}

/// Encrypts 0 or 5 with the public key, switches to `level` and decrypts,
/// `trials` times; counts the outcomes (a refused switch counts as refused).
fn switch_and_decrypt(keyed: &Keyed, level: usize, trials: usize) -> [usize; 3] {
    let mut counts = [0; 3];
    for trial in 0..trials {
        let message = Plaintext::from_u64s(&keyed.context, &[[0, 5][trial % 2]]).unwrap();
        let fresh = keyed.pk.encrypt(&message).unwrap();
        let outcome = match fresh.mod_switch_to(level) {
            Ok(low) => judge(keyed.sk.decrypt(&low), &message),
            Err(Error::NoiseBudgetExhausted) => Outcome::Refused,
            Err(other) => panic!("unexpected error: {other}"),
        };
        counts[outcome as usize] += 1;
    }
    counts
}

#[test]
fn levels_below_t_never_decrypt_to_garbage() {
    let keyed = small_bottom_prime();
    for level in 0..=keyed.context.max_level() {
        let [correct, wrong, refused] = switch_and_decrypt(&keyed, level, 10);
        assert_eq!(wrong, 0, "level {level}: {wrong} silent wrong decryptions");
        let log2_q = keyed.context.log2_modulus(level).unwrap();
        if log2_q < 256.0 {
            // Q_l below t: nothing can decrypt there.
            assert_eq!(refused, 10, "level {level} (log2 Q = {log2_q:.0})");
        } else {
            // Q_4 has 288 bits, 28 above the noise of a switched ciphertext.
            assert_eq!(correct, 10, "level {level} (log2 Q = {log2_q:.0})");
        }
    }
}

/// `count` doublings `ct = ct + ct` of a public-key encryption; after each,
/// the decryption is judged against 2^k·m mod 65537. Returns the outcomes in
/// order and the doubling that was refused, if one was.
fn doublings(keyed: &Keyed, count: u32) -> (Vec<Outcome>, Option<u32>) {
    let t = 65537u64;
    let message = [3u64, 1, 4, 1, 5, 9, 2, 6];
    let mut expected = message.to_vec();
    let mut ct = keyed
        .pk
        .encrypt(&Plaintext::from_u64s(&keyed.context, &message).unwrap())
        .unwrap();
    let mut outcomes = Vec::new();
    for k in 1..=count {
        if let Err(error) = ct.add_assign(&ct.clone()) {
            assert_eq!(error, Error::NoiseBudgetExhausted, "doubling {k}");
            // The refused doubling left the ciphertext as it was.
            let plain = Plaintext::from_u64s(&keyed.context, &expected).unwrap();
            assert_ne!(judge(keyed.sk.decrypt(&ct), &plain), Outcome::Wrong);
            return (outcomes, Some(k));
        }
        expected.iter_mut().for_each(|x| *x = *x * 2 % t);
        let plain = Plaintext::from_u64s(&keyed.context, &expected).unwrap();
        outcomes.push(judge(keyed.sk.decrypt(&ct), &plain));
    }
    (outcomes, None)
}

#[test]
fn repeated_doubling_never_decrypts_to_garbage() {
    // Two or three primes just below 2^60 / 2^61: 2^k mod Q is tiny for k
    // near the chain's bit count, which the exact measurement alone missed.
    for chain in [&[60u32, 60][..], &[61, 61, 61]] {
        let keyed = keyed(1024, &t65537(), chain, &[]);
        let (outcomes, _) = doublings(&keyed, 200);
        let wrong = outcomes.iter().filter(|o| **o == Outcome::Wrong).count();
        assert_eq!(
            wrong, 0,
            "chain {chain:?}: {wrong} silent wrong decryptions"
        );
        assert!(
            outcomes.iter().take(60).all(|o| *o == Outcome::Correct),
            "chain {chain:?}: the first 60 doublings fit the budget"
        );
    }
}

#[test]
fn switches_to_levels_that_cannot_hold_the_noise_are_refused() {
    let keyed = small_bottom_prime();
    let message = Plaintext::from_u64s(&keyed.context, &[5]).unwrap();
    let fresh = keyed.pk.encrypt(&message).unwrap();
    let level4 = fresh.mod_switch_to(4).unwrap();
    assert!(level4.estimated_budget_bits() >= 1.0);
    for level in 0..=3 {
        assert_eq!(
            fresh.mod_switch_to(level).unwrap_err(),
            Error::NoiseBudgetExhausted,
            "level {level}"
        );
    }
    assert_eq!(
        level4.mod_switch().unwrap_err(),
        Error::NoiseBudgetExhausted
    );
    // A refused in-place switch leaves the ciphertext as it was.
    let mut in_place = level4.clone();
    assert_eq!(
        in_place.mod_switch_to_assign(0),
        Err(Error::NoiseBudgetExhausted)
    );
    assert_eq!(in_place.level(), 4);
    assert_eq!(keyed.sk.decrypt(&in_place).unwrap(), message);
}

#[test]
fn additions_refuse_to_exhaust_the_estimate() {
    for chain in [&[60u32, 60][..], &[61, 61, 61]] {
        let keyed = keyed(1024, &t65537(), chain, &[]);
        let (outcomes, refused) = doublings(&keyed, 200);
        let refused = refused.unwrap_or_else(|| panic!("chain {chain:?}: 200 doublings accepted"));
        // Each doubling adds one bit to the estimate; the addition refuses
        // once the budget would drop below one bit, and every doubling before
        // decrypts.
        assert!(
            outcomes.iter().all(|o| *o == Outcome::Correct),
            "chain {chain:?}: {outcomes:?}"
        );
        let log2_q = keyed
            .context
            .log2_modulus(keyed.context.max_level())
            .unwrap();
        assert!(
            (f64::from(refused) - log2_q).abs() < 40.0,
            "chain {chain:?}: refused at doubling {refused}, log2 Q = {log2_q:.0}"
        );
    }

    // Doubled by scalar products until those refuse, the budget is below two
    // bits: a sum or difference with itself would exhaust it.
    let keyed = keyed(1024, &t65537(), &[60, 60], &[]);
    let message = Plaintext::from_u64s(&keyed.context, &[7]).unwrap();
    let mut ct = keyed.sk.encrypt(&message).unwrap();
    let two = BigUint::from(2u32);
    let mut expected = 7u64;
    while ct.mul_scalar_assign(&two).is_ok() {
        expected = expected * 2 % 65537;
    }
    let budget = ct.estimated_budget_bits();
    assert!((1.0..2.0).contains(&budget), "{budget}");
    assert_eq!(ct.add(&ct).unwrap_err(), Error::NoiseBudgetExhausted);
    assert_eq!(ct.sub(&ct).unwrap_err(), Error::NoiseBudgetExhausted);
    let expected = Plaintext::from_u64s(&keyed.context, &[expected]).unwrap();
    assert_eq!(keyed.sk.decrypt(&ct).unwrap(), expected);
}
