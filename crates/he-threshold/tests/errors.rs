//! Dropped, duplicated, reordered, forged and mismatched shares, and bad
//! inputs: each an error naming the problem, before anything is released.

use ark_ff::PrimeField;
use he_threshold::{with_smudging_room, Error, Party, Session, ShareMessage, Step};
use helib_rs::{Context, Parameters, Plaintext, PublicKey};
use num_bigint::BigUint;

const PARTIES: u32 = 3;

fn context_for(t: BigUint, ring_degree: usize) -> Context {
    let builder = Parameters::builder()
        .ring_degree(ring_degree)
        .plaintext_modulus(t)
        .multiplicative_depth(1)
        .threads(2)
        .allow_insecure();
    Context::new(&with_smudging_room(builder, PARTIES, 40).unwrap()).unwrap()
}

fn context() -> Context {
    context_for(BigUint::from(65537u32), 1024)
}

fn session(context: &Context, id: u8) -> (Session, Vec<Party>) {
    let session = Session::new(context, [id; 32], PARTIES).unwrap();
    let parties = (0..PARTIES)
        .map(|i| Party::new(&session, i).unwrap())
        .collect();
    (session, parties)
}

fn public_key(session: &Session, parties: &[Party]) -> PublicKey {
    let mut agg = session.key_aggregator(1, Step::PublicKey).unwrap();
    for p in parties {
        agg.add(&p.public_key_share(1).unwrap()).unwrap();
    }
    session.public_key(&agg.finish().unwrap()).unwrap()
}

fn message(context: &Context) -> Plaintext {
    Plaintext::from_u64s(context, &[1, 2, 3, 65536]).unwrap()
}

#[test]
fn a_dropped_share_is_missing() {
    let context = context();
    let (session, parties) = session(&context, 1);
    let mut agg = session.key_aggregator(1, Step::PublicKey).unwrap();
    agg.add(&parties[0].public_key_share(1).unwrap()).unwrap();
    agg.add(&parties[2].public_key_share(1).unwrap()).unwrap();
    match agg.finish() {
        Err(Error::MissingShares { missing }) => assert_eq!(missing, vec![1]),
        other => panic!("expected MissingShares, got {other:?}"),
    }
}

#[test]
fn a_duplicated_share_names_its_sender() {
    let context = context();
    let (session, parties) = session(&context, 2);
    let pk = public_key(&session, &parties);
    let ct = pk.encrypt(&message(&context)).unwrap();
    let smudging = session.smudging(ct.level()).unwrap();
    let mut agg = session
        .ciphertext_aggregator(5, Step::Decrypt, &ct)
        .unwrap();
    let share = parties[1].decryption_share(5, &ct, &smudging).unwrap();
    agg.add(&share).unwrap();
    assert!(matches!(
        agg.add(&share),
        Err(Error::DuplicateShare { party: 1 })
    ));
    // A second, fresh share of the same party is a duplicate too.
    let again = parties[1].decryption_share(5, &ct, &smudging).unwrap();
    assert!(matches!(
        agg.add(&again),
        Err(Error::DuplicateShare { party: 1 })
    ));
}

#[test]
fn shares_arrive_in_any_order_but_not_from_another_step() {
    let context = context();
    let (session, mut parties) = session(&context, 3);
    let pk = public_key(&session, &parties);
    let ct = pk.encrypt(&message(&context)).unwrap();
    let smudging = session.smudging(ct.level()).unwrap();
    // Arrival order does not matter.
    let mut agg = session
        .ciphertext_aggregator(7, Step::Decrypt, &ct)
        .unwrap();
    for p in parties.iter().rev() {
        agg.add(&p.decryption_share(7, &ct, &smudging).unwrap())
            .unwrap();
    }
    assert_eq!(
        session
            .decrypt(&ct, &agg.finish().unwrap(), &smudging)
            .unwrap(),
        message(&context)
    );

    // A round-1 opening given to round 2 or to an ordinary aggregator, a
    // commitment of another run: each is refused, naming the sender.
    let c0 = parties[0].relin_key_commit(9).unwrap();
    let c1 = parties[1].relin_key_commit(9).unwrap();
    let c2_other_run = parties[2].relin_key_commit(10).unwrap();
    let mut collector = session.relin_commitments(9);
    collector.add(&c0).unwrap();
    collector.add(&c1).unwrap();
    assert!(matches!(
        collector.add(&c2_other_run),
        Err(Error::RoundMismatch { party: 2, .. })
    ));
    assert!(matches!(
        collector.add(&c1),
        Err(Error::DuplicateShare { party: 1 })
    ));
    let c2 = parties[2].relin_key_commit(9).unwrap();
    collector.add(&c2).unwrap();
    let commitments = collector.finish().unwrap();
    let o0 = parties[0].relin_key_open(&commitments).unwrap();
    let mut round2 = session.key_aggregator(9, Step::RelinRound2).unwrap();
    assert!(matches!(
        round2.add(o0.share()),
        Err(Error::RoundMismatch { party: 0, .. })
    ));
    assert!(matches!(
        session.key_aggregator(9, Step::RelinRound1),
        Err(Error::InvalidArgument(_))
    ));
    let mut round1 = session.relin_round1_aggregator(&commitments).unwrap();
    assert!(matches!(
        round1.add(o0.share()),
        Err(Error::InvalidArgument(_))
    ));
    round1.add_opening(&o0).unwrap();
    for p in &mut parties[1..] {
        round1
            .add_opening(&p.relin_key_open(&commitments).unwrap())
            .unwrap();
    }
    let a1 = round1.finish().unwrap();
    // Round 2 once, then not again (the ephemeral secret is gone).
    assert!(parties[2].relin_key_round2(&a1).is_ok());
    assert!(matches!(
        parties[2].relin_key_round2(&a1),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn a_share_for_another_ciphertext_is_refused() {
    let context = context();
    let (session, parties) = session(&context, 4);
    let pk = public_key(&session, &parties);
    let ct = pk.encrypt(&message(&context)).unwrap();
    let smudging = session.smudging(ct.level()).unwrap();
    let other = pk.encrypt(&message(&context)).unwrap();
    let mut agg = session
        .ciphertext_aggregator(3, Step::Decrypt, &ct)
        .unwrap();
    agg.add(&parties[0].decryption_share(3, &ct, &smudging).unwrap())
        .unwrap();
    let wrong = parties[1].decryption_share(3, &other, &smudging).unwrap();
    assert!(matches!(
        agg.add(&wrong),
        Err(Error::RoundMismatch { party: 1, .. })
    ));
}

#[test]
fn forged_shares_give_errors_never_a_wrong_plaintext() {
    let context = context();
    let (session, parties) = session(&context, 5);
    let pk = public_key(&session, &parties);
    let ct = pk.encrypt(&message(&context)).unwrap();
    let smudging = session.smudging(ct.level()).unwrap();

    // A share whose residues were replaced by other reduced values (a party
    // that did not compute it from its key): well-formed, so the aggregator
    // takes it, but the combination does not decrypt.
    let mut forged = parties[2].decryption_share(4, &ct, &smudging).unwrap();
    let primes = context.chain_primes().to_vec();
    let n = context.ring_degree();
    for (i, x) in forged.polynomials[0].iter_mut().enumerate() {
        *x = (*x)
            .wrapping_mul(6364136223846793005)
            .wrapping_add(i as u64)
            % primes[i / n];
    }
    let mut agg = session
        .ciphertext_aggregator(4, Step::Decrypt, &ct)
        .unwrap();
    agg.add(&parties[0].decryption_share(4, &ct, &smudging).unwrap())
        .unwrap();
    agg.add(&parties[1].decryption_share(4, &ct, &smudging).unwrap())
        .unwrap();
    agg.add(&forged).unwrap();
    assert!(matches!(
        session.decrypt(&ct, &agg.finish().unwrap(), &smudging),
        Err(Error::InconsistentShares(_))
    ));

    // The same for encryption to shares: no opening is released.
    let mut agg = session
        .ciphertext_aggregator(6, Step::EncryptionToShares, &ct)
        .unwrap();
    agg.add(
        &parties[0]
            .encryption_to_shares(6, &ct, &smudging)
            .unwrap()
            .1,
    )
    .unwrap();
    agg.add(
        &parties[1]
            .encryption_to_shares(6, &ct, &smudging)
            .unwrap()
            .1,
    )
    .unwrap();
    let mut bad = parties[2]
        .encryption_to_shares(6, &ct, &smudging)
        .unwrap()
        .1;
    bad.polynomials[0]
        .iter_mut()
        .zip(0u64..)
        .for_each(|(x, i)| *x = i % 1000);
    agg.add(&bad).unwrap();
    assert!(matches!(
        session.open_masked(&ct, &agg.finish().unwrap(), &smudging),
        Err(Error::InconsistentShares(_))
    ));

    // A forged party index, and an unreduced residue.
    let mut outsider = parties[0].decryption_share(8, &ct, &smudging).unwrap();
    outsider.party = 7;
    let mut agg = session
        .ciphertext_aggregator(8, Step::Decrypt, &ct)
        .unwrap();
    assert!(matches!(
        agg.add(&outsider),
        Err(Error::UnknownParty {
            party: 7,
            parties: 3
        })
    ));
    let mut unreduced = parties[0].decryption_share(8, &ct, &smudging).unwrap();
    unreduced.polynomials[0][0] = u64::MAX;
    assert!(matches!(
        agg.add(&unreduced),
        Err(Error::MalformedShare { party: 0, .. })
    ));
    let mut short = parties[0].decryption_share(8, &ct, &smudging).unwrap();
    short.polynomials[0].pop();
    assert!(matches!(
        agg.add(&short),
        Err(Error::MalformedShare { party: 0, .. })
    ));
    let mut extra = parties[0].decryption_share(8, &ct, &smudging).unwrap();
    extra.polynomials.push(vec![0; n]);
    assert!(matches!(
        agg.add(&extra),
        Err(Error::MalformedShare { party: 0, .. })
    ));
}

#[test]
fn corrupted_bytes_are_refused() {
    let context = context();
    let (_, parties) = session(&context, 6);
    let bytes = parties[0].public_key_share(1).unwrap().to_bytes();
    let decoded = ShareMessage::from_bytes(&bytes).unwrap();
    assert_eq!(decoded.to_bytes(), bytes);
    for position in [0, 5, 40, 100, bytes.len() / 2, bytes.len() - 1] {
        let mut flipped = bytes.clone();
        flipped[position] ^= 1;
        assert!(matches!(
            ShareMessage::from_bytes(&flipped),
            Err(Error::MalformedMessage(_))
        ));
    }
    assert!(matches!(
        ShareMessage::from_bytes(&bytes[..bytes.len() - 1]),
        Err(Error::MalformedMessage(_))
    ));
    assert!(matches!(
        ShareMessage::from_bytes(&[]),
        Err(Error::MalformedMessage(_))
    ));
}

#[test]
fn shares_of_other_parameters_or_sessions_are_refused() {
    let context = context();
    let other_context = context_for(BigUint::from(65537u32), 2048);
    let (session, _) = session(&context, 7);
    let (_, strangers) = self::session(&other_context, 7);
    let (_, other_session) = self::session(&context, 8);
    let mut agg = session.key_aggregator(1, Step::PublicKey).unwrap();
    assert!(matches!(
        agg.add(&strangers[0].public_key_share(1).unwrap()),
        Err(Error::ContextMismatch { party: 0 })
    ));
    assert!(matches!(
        agg.add(&other_session[2].public_key_share(1).unwrap()),
        Err(Error::SessionMismatch { party: 2 })
    ));
    // Nothing was added: the aggregator still misses everyone.
    assert_eq!(agg.missing(), vec![0, 1, 2]);
    // A wrong number of parties.
    assert!(matches!(
        Session::new(&context, [0; 32], 1),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        Party::new(&session, 3),
        Err(Error::UnknownParty {
            party: 3,
            parties: 3
        })
    ));
    // An aggregate given to the wrong finishing step.
    let (session, parties) = self::session(&context, 9);
    let mut agg = session.key_aggregator(1, Step::PublicKey).unwrap();
    for p in &parties {
        agg.add(&p.public_key_share(1).unwrap()).unwrap();
    }
    let aggregate = agg.finish().unwrap();
    let pk = session.public_key(&aggregate).unwrap();
    let ct = pk.encrypt(&message(&context)).unwrap();
    let smudging = session.smudging(ct.level()).unwrap();
    assert!(matches!(
        session.decrypt(&ct, &aggregate, &smudging),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn smudging_that_does_not_fit_is_refused_before_any_share() {
    let t: BigUint = ark_bn254::Fr::MODULUS.into();
    // No smudging room: the chain of one product, without the extra prime.
    let params = Parameters::builder()
        .ring_degree(1024)
        .plaintext_modulus(t)
        .multiplicative_depth(1)
        .threads(2)
        .allow_insecure()
        .build()
        .unwrap();
    let context = Context::new(&params).unwrap();
    let (session, parties) = session(&context, 10);
    let pk = public_key(&session, &parties);
    let ct = pk
        .encrypt(&Plaintext::from_u64s(&context, &[5]).unwrap())
        .unwrap();
    // The lowest level the ciphertext reaches still decrypts with one key, but
    // has no room for the smudging: no spec can be made for it.
    let low = (0..context.max_level())
        .find_map(|level| ct.mod_switch_to(level).ok())
        .unwrap();
    let single = helib_rs::SecretKey::generate(&context).unwrap();
    let single_ct = single
        .public_key()
        .unwrap()
        .encrypt_at_level(&Plaintext::from_u64s(&context, &[5]).unwrap(), low.level())
        .unwrap();
    assert_eq!(
        single.decrypt(&single_ct).unwrap(),
        Plaintext::from_u64s(&context, &[5]).unwrap()
    );
    assert!(matches!(
        session.smudging(low.level()),
        Err(Error::Engine(helib_rs::Error::NoiseBudgetExhausted))
    ));
    // The top level holds the default 40-bit smudging; a spec for it refuses
    // the low ciphertext (another level) before any share.
    let top = session.smudging(ct.level()).unwrap();
    assert!(parties[0].decryption_share(2, &ct, &top).is_ok());
    for result in [
        parties[0].decryption_share(1, &low, &top).map(|_| ()),
        parties[0].encryption_to_shares(1, &low, &top).map(|_| ()),
        parties[0].key_switch_share(1, &low, &pk, &top).map(|_| ()),
    ] {
        assert!(
            matches!(
                result,
                Err(Error::Engine(helib_rs::Error::LevelMismatch { .. }))
            ),
            "{result:?}"
        );
    }
    // A spec of another session's parties or a weaker λ is refused.
    let strict = Session::new(&context, [10; 32], PARTIES)
        .unwrap()
        .with_security_bits(128)
        .unwrap();
    let strict_party = Party::new(&strict, 0).unwrap();
    assert!(matches!(
        strict_party.decryption_share(2, &ct, &top),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        Session::new(&context, [0; 32], 3)
            .unwrap()
            .with_security_bits(0),
        Err(Error::InvalidArgument(_))
    ));
}
