//! t-out-of-N by Shamir re-sharing: every active set of at least `threshold`
//! parties decrypts, converts to shares and key-switches exactly as all N
//! parties (and as the summed secret) do, with t = the BN254 scalar field and
//! t = 65537; every misuse is a typed error naming the party.

mod common;

use std::ops::{Deref, DerefMut};

use common::{bn254, context, encrypted_product, key_switch_by, random_plaintext, t65537, Net};
use he_threshold::{
    ActiveParty, ActiveSet, AdditiveShare, DealingMessage, Error, ShamirShare, ShareMessage, Step,
    SwitchedProduct,
};
use helib_rs::{Ciphertext, Context, Plaintext, SecretKey};
use num_bigint::BigUint;
use rand::{rngs::StdRng, SeedableRng};

/// N parties with collective keys, re-shared with `threshold`.
struct ShamirNet {
    net: Net,
    shamir: Vec<ShamirShare>,
    threshold: u32,
}

impl Deref for ShamirNet {
    type Target = Net;
    fn deref(&self) -> &Net {
        &self.net
    }
}

impl DerefMut for ShamirNet {
    fn deref_mut(&mut self) -> &mut Net {
        &mut self.net
    }
}

impl ShamirNet {
    fn new(context: &Context, parties: u32, threshold: u32, id: u8) -> Self {
        let mut net = Self {
            net: Net::new(context, parties, [id; 32]),
            shamir: Vec::new(),
            threshold,
        };
        net.shamir = net.reshare();
        net
    }

    /// Every party deals; every dealing goes through its wire format to its
    /// recipient, which combines what it received.
    fn reshare(&mut self) -> Vec<ShamirShare> {
        let run = self.next_run();
        let n = self.parties.len();
        let mut inbox: Vec<Vec<DealingMessage>> = (0..n).map(|_| Vec::new()).collect();
        for p in &self.parties {
            for d in p.shamir_dealings(run, self.threshold).unwrap() {
                let wire = d.to_bytes();
                inbox[d.to as usize].push(DealingMessage::from_bytes(&wire).unwrap());
            }
        }
        self.parties
            .iter()
            .zip(&inbox)
            .map(|(p, received)| p.reshare(run, self.threshold, received).unwrap())
            .collect()
    }

    fn active(&self, members: &[u32]) -> (ActiveSet, Vec<ActiveParty>) {
        let set = ActiveSet::new(&self.session, self.threshold, members).unwrap();
        let parties = members
            .iter()
            .map(|&j| self.shamir[j as usize].activate(&set).unwrap())
            .collect();
        (set, parties)
    }

    /// Collective decryption by the members of `members` only.
    fn decrypt_with(&mut self, members: &[u32], ct: &Ciphertext) -> Plaintext {
        let run = self.next_run();
        let (set, active) = self.active(members);
        let mut agg = self
            .session
            .active_aggregator(run, Step::Decrypt, ct, &set)
            .unwrap();
        let smudging = self.session.smudging(ct.level()).unwrap();
        for p in &active {
            agg.add(&p.decryption_share(run, ct, &smudging).unwrap())
                .unwrap();
        }
        self.session
            .decrypt(ct, &agg.finish().unwrap(), &smudging)
            .unwrap()
    }
}

/// All subsets of `0..n` of size `k`, ascending.
fn subsets(n: u32, k: usize) -> Vec<Vec<u32>> {
    (0u32..1 << n)
        .filter(|m| m.count_ones() as usize == k)
        .map(|m| (0..n).filter(|i| m & (1 << i) != 0).collect())
        .collect()
}

/// A product under the collective keys, decrypted by every active set of
/// `threshold` parties and by larger ones: each gives the plaintext that the
/// summed secret and all N parties give. Encryption to shares and key
/// switching with an active set are exact too.
fn threshold_matches_n_of_n(t: &BigUint, parties: u32, threshold: u32) {
    let context = context(t, parties, 1);
    let mut net = ShamirNet::new(&context, parties, threshold, 3);
    let mut rng = StdRng::seed_from_u64(17);
    let pk = net.public_key();
    let rk = net.relin_key();
    let a = random_plaintext(&context, &mut rng);
    let b = random_plaintext(&context, &mut rng);
    let prod = encrypted_product(&pk, &rk, &a, &b);
    let expected = net.summed_secret().decrypt(&prod).unwrap();
    assert_eq!(net.decrypt(&prod), expected);
    let smudging = net.session.smudging(prod.level()).unwrap();
    assert_ne!(expected, a, "the product differs from its factors");

    let mut sets = subsets(parties, threshold as usize);
    sets.push((0..parties).collect());
    if threshold + 1 < parties {
        sets.push((0..=threshold).rev().collect());
    }
    for set in &sets {
        assert_eq!(net.decrypt_with(set, &prod), expected, "active set {set:?}");
    }

    // Encryption to shares among the last `threshold` parties.
    let members: Vec<u32> = (parties - threshold..parties).collect();
    let run = net.next_run();
    let (set, active) = net.active(&members);
    let mut agg = net
        .session
        .active_aggregator(run, Step::EncryptionToShares, &prod, &set)
        .unwrap();
    let mut shares = Vec::new();
    for p in &active {
        let (share, msg) = p.encryption_to_shares(run, &prod, &smudging).unwrap();
        agg.add(&msg).unwrap();
        shares.push(share);
    }
    let opening = net
        .session
        .open_masked(&prod, &agg.finish().unwrap(), &smudging)
        .unwrap();
    assert_ne!(opening, expected);
    shares[0].absorb_opening(&opening).unwrap();
    assert_eq!(AdditiveShare::reconstruct(&shares).unwrap(), expected);
    assert!(shares.iter().all(|s| *s.plaintext() != expected));

    // The same from the size-3 product, which each member relinearizes
    // itself: the set's first member (not party 0 here) adds the public part.
    let product = pk
        .encrypt(&a)
        .unwrap()
        .multiply(&pk.encrypt(&b).unwrap())
        .unwrap();
    let run = net.next_run();
    let mut agg = net
        .session
        .active_product_aggregator(run, &product, product.level(), &set)
        .unwrap();
    let mut of_product = Vec::new();
    let switched = SwitchedProduct::new(product.try_clone().unwrap(), product.level()).unwrap();
    for p in &active {
        let (share, msg) = p
            .encryption_to_shares_of_product(run, &switched, &rk, &smudging)
            .unwrap();
        agg.add(&msg).unwrap();
        of_product.push(share);
    }
    let opening = net
        .session
        .open_masked_product(&switched, &rk, &agg.finish().unwrap(), &smudging)
        .unwrap();
    of_product[0].absorb_opening(&opening).unwrap();
    assert_eq!(AdditiveShare::reconstruct(&of_product).unwrap(), expected);

    // Shares to encryption back among the same members: their additive
    // shares of the product become a fresh encryption of it.
    let level = context.max_level();
    let run = net.next_run();
    let mut agg = net
        .session
        .active_shares_to_encryption_aggregator(run, level, &set)
        .unwrap();
    for (p, share) in active.iter().zip(&shares) {
        agg.add(&p.shares_to_encryption(run, level, share).unwrap())
            .unwrap();
    }
    let fresh = net
        .session
        .shares_to_encryption(&agg.finish().unwrap())
        .unwrap();
    assert_eq!(net.summed_secret().decrypt(&fresh).unwrap(), expected);
    // A non-member's share is refused.
    let outsider = (0..parties).find(|i| !members.contains(i)).unwrap();
    let run = net.next_run();
    let mut agg = net
        .session
        .active_shares_to_encryption_aggregator(run, level, &set)
        .unwrap();
    assert!(agg
        .add(
            &net.parties[outsider as usize]
                .shares_to_encryption(run, level, &shares[0])
                .unwrap()
        )
        .is_err());

    // Key switching to a single-key public key by the first `threshold` parties.
    let sk1 = SecretKey::generate(&context).unwrap();
    let pk1 = sk1.public_key().unwrap();
    let members: Vec<u32> = (0..threshold).collect();
    let run = net.next_run();
    let (set, active) = net.active(&members);
    let agg = net
        .session
        .active_aggregator(run, Step::KeySwitch, &prod, &set)
        .unwrap();
    let share = ActiveParty::key_switch_share;
    let switched = key_switch_by(&net.session, agg, run, &prod, &pk1, &active, share);
    assert_eq!(sk1.decrypt(&switched).unwrap(), expected);
}

#[test]
fn three_of_five_bn254() {
    threshold_matches_n_of_n(&bn254(), 5, 3);
}

#[test]
fn three_of_five_t65537() {
    threshold_matches_n_of_n(&t65537(), 5, 3);
}

#[test]
fn two_of_three_bn254() {
    threshold_matches_n_of_n(&bn254(), 3, 2);
}

#[test]
fn two_of_three_t65537() {
    threshold_matches_n_of_n(&t65537(), 3, 2);
}

/// Dealings for a re-sharing of run 1 with threshold 2 among 3 parties:
/// `inbox[j]` holds what party j receives.
fn dealings(net: &ShamirNet, run: u64) -> Vec<Vec<DealingMessage>> {
    let mut inbox: Vec<Vec<DealingMessage>> = (0..net.parties.len()).map(|_| Vec::new()).collect();
    for p in &net.parties {
        for d in p.shamir_dealings(run, net.threshold).unwrap() {
            inbox[d.to as usize].push(d);
        }
    }
    inbox
}

#[test]
fn dealing_errors_name_the_dealer() {
    let context = context(&t65537(), 3, 1);
    let net = ShamirNet::new(&context, 3, 2, 4);
    let run = 100;
    let inbox = dealings(&net, run);
    let me = &net.parties[1];
    assert!(me.reshare(run, 2, &inbox[1]).is_ok());

    // A dealing for another recipient.
    let mut wrong = inbox[1].clone();
    wrong[2] = inbox[0][2].clone();
    assert!(matches!(
        me.reshare(run, 2, &wrong),
        Err(Error::MisaddressedDealing {
            party: 2,
            to: 0,
            expected: 1
        })
    ));

    // Another session, another context.
    let mut wrong = inbox[1].clone();
    wrong[0].session = [9; 32];
    assert!(matches!(
        me.reshare(run, 2, &wrong),
        Err(Error::SessionMismatch { party: 0 })
    ));
    let mut wrong = inbox[1].clone();
    wrong[2].fingerprint[0] ^= 1;
    assert!(matches!(
        me.reshare(run, 2, &wrong),
        Err(Error::ContextMismatch { party: 2 })
    ));

    // Another run or threshold.
    assert!(matches!(
        me.reshare(run + 1, 2, &inbox[1]),
        Err(Error::RoundMismatch { party: 0, .. })
    ));
    assert!(matches!(
        me.reshare(run, 3, &inbox[1]),
        Err(Error::RoundMismatch { party: 0, .. })
    ));
    assert!(matches!(
        me.reshare(run, 4, &inbox[1]),
        Err(Error::InvalidArgument(_))
    ));

    // Missing, repeated and malformed dealings.
    assert!(matches!(
        me.reshare(run, 2, &inbox[1][..2]),
        Err(Error::MissingDealings { ref missing }) if missing == &[2]
    ));
    let mut wrong = inbox[1].clone();
    wrong[2] = inbox[1][0].clone();
    assert!(matches!(
        me.reshare(run, 2, &wrong),
        Err(Error::DuplicateShare { party: 0 })
    ));
    let mut wrong = inbox[1].clone();
    wrong[1].residues.pop();
    assert!(matches!(
        me.reshare(run, 2, &wrong),
        Err(Error::MalformedShare { party: 1, .. })
    ));
    let mut wrong = inbox[1].clone();
    wrong[1].residues[0] = u64::MAX;
    assert!(matches!(
        me.reshare(run, 2, &wrong),
        Err(Error::MalformedShare { party: 1, .. })
    ));
    let mut wrong = inbox[1].clone();
    wrong[1].from = 7;
    assert!(matches!(
        me.reshare(run, 2, &wrong),
        Err(Error::UnknownParty {
            party: 7,
            parties: 3
        })
    ));

    // Dealings are wiped when dropped.
    fn wiped_on_drop<T: zeroize::ZeroizeOnDrop>() {}
    wiped_on_drop::<DealingMessage>();
    let mut wiped = inbox[1][0].clone();
    zeroize::Zeroize::zeroize(&mut wiped);
    assert!(wiped.residues.iter().all(|&x| x == 0));

    // The wire format: round trip, corruption, truncation.
    let bytes = inbox[1][0].to_bytes();
    assert_eq!(DealingMessage::from_bytes(&bytes).unwrap(), inbox[1][0]);
    let mut corrupted = bytes.to_vec();
    corrupted[80] ^= 1;
    assert!(matches!(
        DealingMessage::from_bytes(&corrupted),
        Err(Error::MalformedMessage(_))
    ));
    assert!(matches!(
        DealingMessage::from_bytes(&bytes[..bytes.len() - 1]),
        Err(Error::MalformedMessage(_))
    ));
}

#[test]
fn active_set_errors() {
    let context = context(&t65537(), 5, 1);
    let mut net = ShamirNet::new(&context, 5, 3, 5);
    let s = &net.session;
    assert!(matches!(
        ActiveSet::new(s, 3, &[0, 4]),
        Err(Error::BelowThreshold {
            active: 2,
            threshold: 3
        })
    ));
    assert!(matches!(
        ActiveSet::new(s, 3, &[0, 2, 2]),
        Err(Error::DuplicateParty { party: 2 })
    ));
    assert!(matches!(
        ActiveSet::new(s, 3, &[0, 1, 5]),
        Err(Error::UnknownParty {
            party: 5,
            parties: 5
        })
    ));
    assert!(matches!(
        ActiveSet::new(s, 0, &[0, 1, 2]),
        Err(Error::InvalidArgument(_))
    ));
    let set = ActiveSet::new(s, 3, &[0, 1, 2]).unwrap();
    assert!(matches!(
        net.shamir[3].activate(&set),
        Err(Error::InvalidArgument(_))
    ));
    let other_threshold = ActiveSet::new(s, 2, &[0, 1, 2]).unwrap();
    assert!(matches!(
        net.shamir[0].activate(&other_threshold),
        Err(Error::InvalidArgument(_))
    ));

    let pk = net.public_key();
    let mut rng = StdRng::seed_from_u64(2);
    let m = random_plaintext(&context, &mut rng);
    let ct = pk.encrypt(&m).unwrap();
    let smudging = net.session.smudging(ct.level()).unwrap();
    let run = net.next_run();
    let (set_a, active_a) = net.active(&[0, 1, 2]);
    let (_, active_b) = net.active(&[0, 1, 3]);
    let mut agg = net
        .session
        .active_aggregator(run, Step::Decrypt, &ct, &set_a)
        .unwrap();
    agg.add(&active_a[0].decryption_share(run, &ct, &smudging).unwrap())
        .unwrap();
    // A share computed for another active set: its Lagrange coefficient
    // belongs to another sum.
    assert!(matches!(
        agg.add(&active_b[1].decryption_share(run, &ct, &smudging).unwrap()),
        Err(Error::ActiveSetMismatch { party: 1 })
    ));
    // An N-out-of-N share (no active set) is refused alike.
    assert!(matches!(
        agg.add(
            &net.parties[1]
                .decryption_share(run, &ct, &smudging)
                .unwrap()
        ),
        Err(Error::ActiveSetMismatch { party: 1 })
    ));
    // A party outside the set, with a share for a set it belongs to.
    let (_, active_c) = net.active(&[0, 1, 2, 3]);
    assert!(matches!(
        agg.add(&active_c[3].decryption_share(run, &ct, &smudging).unwrap()),
        Err(Error::ActiveSetMismatch { party: 3 })
    ));
    assert!(matches!(
        agg.add(&active_a[0].decryption_share(run, &ct, &smudging).unwrap()),
        Err(Error::DuplicateShare { party: 0 })
    ));
    agg.add(&active_a[1].decryption_share(run, &ct, &smudging).unwrap())
        .unwrap();
    assert_eq!(agg.missing(), vec![2]);
    assert!(matches!(agg.finish(), Err(Error::MissingShares { ref missing }) if missing == &[2]));

    // A member of the set, and one outside it forging the set's digest.
    let mut agg = net
        .session
        .active_aggregator(run, Step::Decrypt, &ct, &set_a)
        .unwrap();
    let mut forged = active_c[3].decryption_share(run, &ct, &smudging).unwrap();
    forged.binding.active = *set_a.digest();
    assert!(matches!(
        agg.add(&forged),
        Err(Error::InactiveParty { party: 3 })
    ));
    for p in &active_a {
        // Through the wire format, which carries the active set's digest.
        let wire = p.decryption_share(run, &ct, &smudging).unwrap().to_bytes();
        let share = ShareMessage::from_bytes(&wire).unwrap();
        assert_eq!(share.binding.active, *set_a.digest());
        agg.add(&share).unwrap();
    }
    assert_eq!(
        net.session
            .decrypt(&ct, &agg.finish().unwrap(), &smudging)
            .unwrap(),
        m
    );

    // Shares of one set whose digest was swapped for another's are summed
    // only if the engine's noise check passes: mixing Lagrange coefficients
    // does not decrypt.
    let (set_b, _) = net.active(&[0, 1, 3]);
    let mut agg = net
        .session
        .active_aggregator(run, Step::Decrypt, &ct, &set_b)
        .unwrap();
    for (k, p) in [&active_a[0], &active_a[1], &active_b[2]]
        .into_iter()
        .enumerate()
    {
        let mut share = p.decryption_share(run, &ct, &smudging).unwrap();
        if k < 2 {
            share.binding.active = *set_b.digest();
        }
        agg.add(&share).unwrap();
    }
    assert!(matches!(
        net.session.decrypt(&ct, &agg.finish().unwrap(), &smudging),
        Err(Error::InconsistentShares(_))
    ));
}
