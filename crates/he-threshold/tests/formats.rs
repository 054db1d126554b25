//! The byte formats of what a party and a server keep or exchange between
//! processes: a party's state and its re-shared key (secret), the round-1
//! commitment set and aggregates (public). Restored parties hold the same
//! keys and take part in every protocol; truncated, changed or foreign bytes
//! are typed errors, never a panic.

mod common;

use std::sync::OnceLock;

use common::{bn254, context, t65537, Net};
use he_threshold::{
    ActiveSet, AdditiveShare, Aggregate, Commitment, Commitments, DealingMessage, Error, Opening,
    Party, Result, Session, ShamirShare, Step,
};
use helib_rs::zeroize::{ZeroizeOnDrop, Zeroizing};
use helib_rs::{Ciphertext, Context, ExportSecret, Plaintext, RelinKey};

const CONSENT: ExportSecret = ExportSecret::IUnderstandTheBytesAreTheKey;
const PARTIES: u32 = 3;
const THRESHOLD: u32 = 2;
/// Magic, version, context fingerprint and session id.
const FRAME: usize = 4 + 1 + 32 + 32;

fn test_context() -> Context {
    context(&t65537(), PARTIES, 1)
}

fn message(context: &Context) -> Plaintext {
    Plaintext::from_u64s(context, &[1, 2, 3, 65536]).unwrap()
}

/// A session of `PARTIES` parties with id `[id; 32]`, [`message`] and its
/// encryption under the session's collective public key.
fn encrypted_message(id: u8) -> (Net, Plaintext, Ciphertext) {
    let context = test_context();
    let (net, pk) = Net::with_public_key(&context, PARTIES, [id; 32]);
    let m = message(&context);
    let ct = pk.encrypt(&m).unwrap();
    (net, m, ct)
}

fn export(party: &Party) -> Zeroizing<Vec<u8>> {
    party.export_secret(CONSENT).unwrap()
}

/// Replaces the BLAKE3 trailer by the checksum of the changed body, as a
/// writer that meant the change would (the checksum is no MAC).
fn resign(bytes: &mut [u8]) {
    let body = bytes.len() - 32;
    let digest = blake3::hash(&bytes[..body]);
    bytes[body..].copy_from_slice(digest.as_bytes());
}

/// Writes `v` at `at` and recomputes the checksum.
fn put(bytes: &mut [u8], at: usize, v: &[u8]) {
    bytes[at..at + v.len()].copy_from_slice(v);
    resign(bytes);
}

/// Re-shares the parties' secrets with `threshold`.
fn reshare(net: &mut Net, threshold: u32) -> Vec<ShamirShare> {
    let run = net.next_run();
    let mut inbox: Vec<Vec<DealingMessage>> = (0..PARTIES).map(|_| Vec::new()).collect();
    for p in &net.parties {
        for d in p.shamir_dealings(run, threshold).unwrap() {
            inbox[d.to as usize].push(d);
        }
    }
    net.parties
        .iter()
        .zip(&inbox)
        .map(|(p, received)| p.reshare(run, threshold, received).unwrap())
        .collect()
}

/// Collective decryption of `ct` by `parties` (one share each).
fn decrypt_by(session: &Session, parties: &[&Party], ct: &Ciphertext) -> Result<Plaintext> {
    let smudging = session.smudging(ct.level())?;
    let mut agg = session.ciphertext_aggregator(41, Step::Decrypt, ct)?;
    for p in parties {
        agg.add(&p.decryption_share(41, ct, &smudging)?)?;
    }
    session.decrypt(ct, &agg.finish()?, &smudging)
}

/// Collective decryption of `ct` by the active set of `shares`.
fn decrypt_set(session: &Session, shares: &[&ShamirShare], ct: &Ciphertext) -> Result<Plaintext> {
    let members: Vec<u32> = shares.iter().map(|s| s.index()).collect();
    let set = ActiveSet::new(session, THRESHOLD, &members)?;
    let smudging = session.smudging(ct.level())?;
    let mut agg = session.active_aggregator(43, Step::Decrypt, ct, &set)?;
    for s in shares {
        agg.add(&s.activate(&set)?.decryption_share(43, ct, &smudging)?)?;
    }
    session.decrypt(ct, &agg.finish()?, &smudging)
}

/// The relinearization key with every broadcast through its bytes, as
/// separate processes would run it: the commitment set and the round-1
/// aggregate from the server to each party, the round-2 aggregate back.
fn relin_key_through_bytes(net: &mut Net) -> RelinKey {
    let run = net.next_run();
    let session = net.session.clone();
    let broadcast = net.relin_commitments(run).to_bytes();
    // The server's own copy, and each party's from the broadcast.
    let mut agg = session
        .relin_round1_aggregator(&Commitments::from_bytes(&session, &broadcast).unwrap())
        .unwrap();
    for p in &mut net.parties {
        let commitments = Commitments::from_bytes(&session, &broadcast).unwrap();
        agg.add_opening(&p.relin_key_open(&commitments).unwrap())
            .unwrap();
    }
    let round1 = agg.finish().unwrap().to_bytes();
    let mut agg2 = session.key_aggregator(run, Step::RelinRound2).unwrap();
    for p in &mut net.parties {
        let round1 = Aggregate::from_bytes(&session, &round1).unwrap();
        agg2.add(&p.relin_key_round2(&round1).unwrap()).unwrap();
    }
    let round2 = agg2.finish().unwrap().to_bytes();
    session
        .relin_key(
            &Aggregate::from_bytes(&session, &round1).unwrap(),
            &Aggregate::from_bytes(&session, &round2).unwrap(),
        )
        .unwrap()
}

#[test]
fn restored_parties_hold_the_same_keys_and_take_part() {
    let (mut net, m, ct) = encrypted_message(1);

    let restored: Vec<Party> = net
        .parties
        .iter()
        .map(|p| Party::import_secret(&net.session, &export(p)).unwrap())
        .collect();
    for (original, copy) in net.parties.iter().zip(&restored) {
        assert_eq!(copy.index(), original.index());
        // The same key: the engine writes the same bytes for both shares.
        assert_eq!(
            *copy.secret_share().export_secret(CONSENT).unwrap(),
            *original.secret_share().export_secret(CONSENT).unwrap()
        );
        assert_eq!(*export(copy), *export(original));
    }

    // Shares of one run by originals and restored parties combine.
    let mixed = [&net.parties[0], &restored[1], &net.parties[2]];
    assert_eq!(decrypt_by(&net.session, &mixed, &ct).unwrap(), m);
    let smudging = net.session.smudging(ct.level()).unwrap();
    assert_eq!(
        restored[1]
            .decryption_share(5, &ct, &smudging)
            .unwrap()
            .binding,
        net.parties[1]
            .decryption_share(5, &ct, &smudging)
            .unwrap()
            .binding
    );
    // A party of the same index with another key does not combine.
    let stranger = Party::new(&net.session, 1).unwrap();
    let wrong = [&net.parties[0], &stranger, &net.parties[2]];
    assert!(matches!(
        decrypt_by(&net.session, &wrong, &ct),
        Err(Error::InconsistentShares(_))
    ));

    // In place of the originals: decryption, encryption to shares, and a
    // relinearization key made through the broadcast formats.
    net.parties = restored;
    assert_eq!(net.decrypt(&ct), m);
    let shares = net.encryption_to_shares(&ct);
    assert_eq!(AdditiveShare::reconstruct(&shares).unwrap(), m);
    let rk = relin_key_through_bytes(&mut net);
    let square = ct.multiply(&ct).unwrap().relinearize(&rk).unwrap();
    assert_eq!(
        net.decrypt(&square),
        net.summed_secret().decrypt(&square).unwrap()
    );
    assert_ne!(net.decrypt(&square), m);
}

#[test]
fn a_restored_shamir_share_works_in_an_active_set() {
    let (mut net, m, ct) = encrypted_message(2);
    let shamir = reshare(&mut net, THRESHOLD);
    let restored: Vec<ShamirShare> = shamir
        .iter()
        .map(|s| {
            ShamirShare::import_secret(&net.session, &s.export_secret(CONSENT).unwrap()).unwrap()
        })
        .collect();
    for (original, copy) in shamir.iter().zip(&restored) {
        assert_eq!(copy.index(), original.index());
        assert_eq!(copy.threshold(), original.threshold());
        assert_eq!(
            *copy.export_secret(CONSENT).unwrap(),
            *original.export_secret(CONSENT).unwrap()
        );
    }
    assert_eq!(
        decrypt_set(&net.session, &[&restored[0], &restored[2]], &ct).unwrap(),
        m
    );
    assert_eq!(
        decrypt_set(&net.session, &[&shamir[0], &restored[1]], &ct).unwrap(),
        m
    );
    assert_eq!(
        decrypt_set(&net.session, &[&restored[2], &shamir[1], &restored[0]], &ct).unwrap(),
        m
    );
}

#[test]
fn a_party_in_a_relinearization_run_refuses_to_export() {
    let context = test_context();
    let mut net = Net::new(&context, PARTIES, [3; 32]);
    let refused = |p: &Party| matches!(p.export_secret(CONSENT), Err(Error::InvalidArgument(m)) if m.contains("run"));
    let run = net.next_run();
    let mut collector = net.session.relin_commitments(run);
    for p in &mut net.parties {
        collector.add(&p.relin_key_commit(run).unwrap()).unwrap();
    }
    assert!(net.parties.iter().all(refused));
    let commitments = collector.finish().unwrap();
    let mut agg = net.session.relin_round1_aggregator(&commitments).unwrap();
    for p in &mut net.parties {
        agg.add_opening(&p.relin_key_open(&commitments).unwrap())
            .unwrap();
    }
    assert!(net.parties.iter().all(refused));
    let round1 = agg.finish().unwrap();
    // Round 2 ends the run: the state exports again.
    let share = net.parties[0].relin_key_round2(&round1).unwrap();
    assert_eq!(share.binding.step, Step::RelinRound2);
    assert!(net.parties[0].export_secret(CONSENT).is_ok());
    // A run that will not finish is abandoned (its ephemeral secret wiped).
    assert!(refused(&net.parties[1]));
    assert_eq!(net.parties[1].abandon_relin_key_run(), Some(run));
    assert_eq!(net.parties[1].abandon_relin_key_run(), None);
    let restored = Party::import_secret(&net.session, &export(&net.parties[1])).unwrap();
    assert_eq!(restored.index(), 1);
    // A restored party has no run in progress: it cannot make round 2.
    let mut restored2 = Party::import_secret(&net.session, &export(&net.parties[0])).unwrap();
    assert!(restored2.relin_key_round2(&round1).is_err());
}

/// Every format, written once, for the refusal tests.
struct Fixture {
    context: Context,
    session: Session,
    party: Zeroizing<Vec<u8>>,
    shamir: Zeroizing<Vec<u8>>,
    commitments: Vec<u8>,
    /// A decryption aggregate at the lowest level it fits at (small).
    decryption: Vec<u8>,
    /// The public-key aggregate (one polynomial at the top level).
    public_key: Vec<u8>,
    /// The round-1 relinearization aggregate (two key-share polynomials).
    round1: Vec<u8>,
}

/// The formats, made once for the test binary.
fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(Fixture::new)
}

impl Fixture {
    fn new() -> Self {
        let context = test_context();
        let mut net = Net::new(&context, PARTIES, [4; 32]);
        let party = export(&net.parties[1]);
        let shamir = reshare(&mut net, THRESHOLD)[2]
            .export_secret(CONSENT)
            .unwrap();
        let public_key = net.public_key_aggregate();
        let pk = net.session.public_key(&public_key).unwrap();
        // The lowest level collective decryption fits at.
        let (level, smudging) = (0..=context.max_level())
            .find_map(|l| Some((l, net.session.smudging(l).ok()?)))
            .unwrap();
        let ct = pk
            .encrypt(&message(&context))
            .unwrap()
            .mod_switch_to(level)
            .unwrap();
        let decryption = net.decryption_aggregate(9, &ct, &smudging);
        assert_eq!(
            net.session.decrypt(&ct, &decryption, &smudging).unwrap(),
            message(&context)
        );
        let run = net.next_run();
        let commitments = net.relin_commitments(run);
        let round1 = net.relin_openings(&commitments);
        Fixture {
            context,
            session: net.session.clone(),
            party,
            shamir,
            commitments: commitments.to_bytes(),
            decryption: decryption.to_bytes(),
            public_key: public_key.to_bytes(),
            round1: round1.to_bytes(),
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Party,
    Shamir,
    Commitments,
    Aggregate,
}

/// Reads `bytes` as `kind` for `session` and writes what it read again.
fn reread(kind: Kind, session: &Session, bytes: &[u8]) -> Result<Vec<u8>> {
    Ok(match kind {
        Kind::Party => export(&Party::import_secret(session, bytes)?).to_vec(),
        Kind::Shamir => ShamirShare::import_secret(session, bytes)?
            .export_secret(CONSENT)?
            .to_vec(),
        Kind::Commitments => Commitments::from_bytes(session, bytes)?.to_bytes(),
        Kind::Aggregate => Aggregate::from_bytes(session, bytes)?.to_bytes(),
    })
}

/// A copy of format `which` of [`all`]: its kind and bytes.
fn nth_format(which: usize) -> (Kind, Vec<u8>) {
    let (kind, bytes) = all(fixture())[which];
    (kind, bytes.to_vec())
}

fn all(f: &Fixture) -> [(Kind, &[u8]); 6] {
    [
        (Kind::Party, &f.party[..]),
        (Kind::Shamir, &f.shamir[..]),
        (Kind::Commitments, &f.commitments[..]),
        (Kind::Aggregate, &f.decryption[..]),
        (Kind::Aggregate, &f.public_key[..]),
        (Kind::Aggregate, &f.round1[..]),
    ]
}

#[test]
fn every_format_round_trips_byte_for_byte() {
    let f = fixture();
    for (kind, bytes) in all(f) {
        assert_eq!(reread(kind, &f.session, bytes).unwrap(), bytes, "{kind:?}");
    }
    // The round-1 aggregate carries two key-share polynomials.
    let round1 = Aggregate::from_bytes(&f.session, &f.round1).unwrap();
    assert_eq!(round1.binding().step, Step::RelinRound1);
    assert_eq!(round1.sums().len(), 2);
}

#[test]
fn every_truncation_is_refused() {
    let f = fixture();
    for (kind, bytes) in all(f) {
        // Every prefix of the small formats; of the large key aggregates,
        // every prefix through the first polynomial's header, then a stride.
        let step = if bytes.len() > 100_000 { 997 } else { 1 };
        let lengths = (0..200.min(bytes.len())).chain((200..bytes.len()).step_by(step));
        for len in lengths {
            assert!(
                matches!(
                    reread(kind, &f.session, &bytes[..len]),
                    Err(Error::MalformedMessage(_))
                ),
                "{kind:?} truncated to {len} bytes"
            );
        }
    }
}

#[test]
fn another_session_context_party_count_or_security_is_refused() {
    let f = fixture();
    let id = *f.session.id();
    let other_id = Session::new(&f.context, [5; 32], PARTIES).unwrap();
    let more = Session::new(&f.context, id, PARTIES + 1).unwrap();
    let stricter = f.session.clone().with_security_bits(50).unwrap();
    let other_context = Session::new(&context(&bn254(), PARTIES, 1), id, PARTIES).unwrap();
    let refused = |kind, session: &Session, bytes: &[u8], expected: &str| match reread(
        kind, session, bytes,
    ) {
        Err(Error::ForeignSession { field, .. }) => assert_eq!(field, expected, "{kind:?}"),
        other => panic!("{kind:?}: expected ForeignSession ({expected}), got {other:?}"),
    };
    for (kind, bytes) in all(f) {
        refused(kind, &other_id, bytes, "session id");
        refused(kind, &other_context, bytes, "context fingerprint");
    }
    for (kind, bytes) in &all(f)[..3] {
        refused(*kind, &more, bytes, "number of parties");
    }
    for (kind, bytes) in &all(f)[..2] {
        refused(*kind, &stricter, bytes, "security bits");
    }
}

/// Fields changed with the checksum recomputed (a writer's mistake, or a
/// forger): each refused by its own check, named in the error.
#[test]
fn inconsistent_fields_are_named() {
    let f = fixture();
    let s = &f.session;
    let q0 = f.context.chain_primes()[0];
    let malformed = |kind, bytes: &[u8], field: &str| match reread(kind, s, bytes) {
        Err(Error::MalformedMessage(m)) => assert!(m.contains(field), "{kind:?}: {m}"),
        other => panic!("{kind:?}: expected MalformedMessage ({field}), got {other:?}"),
    };

    // Party state: parties @69, security bits @73, index @77, key length @81, key @89.
    let mut b = f.party.to_vec();
    put(&mut b, FRAME + 8, &PARTIES.to_le_bytes());
    assert!(matches!(
        Party::import_secret(s, &b),
        Err(Error::UnknownParty {
            party: 3,
            parties: 3
        })
    ));
    // Re-shared key: index @77, threshold @81, count @85, residues @93.
    let residues = FRAME + 24;
    let mut b = f.shamir.to_vec();
    put(&mut b, FRAME + 8, &7u32.to_le_bytes());
    assert!(matches!(
        ShamirShare::import_secret(s, &b),
        Err(Error::UnknownParty { party: 7, .. })
    ));
    // Commitment set: run @69, count @77, digests @81.
    let mut b = f.commitments.to_vec();
    put(&mut b, FRAME + 8, &(PARTIES + 1).to_le_bytes());
    assert!(matches!(
        Commitments::from_bytes(s, &b),
        Err(Error::ForeignSession {
            field: "number of parties",
            ..
        })
    ));
    let mut b = f.commitments.to_vec();
    b.splice(b.len() - 32..b.len() - 32, [0u8; 32]);
    resign(&mut b);
    malformed(Kind::Commitments, &b, "digests");

    // Every other field written over: the format, its bytes, where, what,
    // and the field the error must name. Aggregate: binding @69 (run, tag
    // @77, argument @78, level @86, subject @90, active set @122), count
    // @154, length @158, residues @166.
    let u32_at = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let u64_at = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    let key_length = u64_at(&f.party, FRAME + 12);
    let residue_count = u64_at(&f.shamir, FRAME + 16);
    // A decryption aggregate read as of a higher level has too few residues.
    let top = f.context.max_level() as u32;
    let level = u32_at(&f.decryption, FRAME + 17);
    assert!(level < top);
    let le32 = |v: u32| v.to_le_bytes().to_vec();
    let le64 = |v: u64| v.to_le_bytes().to_vec();
    let party: &[_] = &[
        (4, vec![3], "unsupported version 3"),
        (4, vec![1], "version 1 is no longer read"),
        (0, vec![b'X'], "magic"),
        (FRAME + 12, le64(key_length + 1), "key length"),
        (
            FRAME + 40,
            vec![f.party[FRAME + 40] ^ 1],
            "secret key share",
        ),
    ];
    let shamir: &[_] = &[
        (FRAME + 12, le32(0), "threshold"),
        (FRAME + 12, le32(PARTIES + 1), "threshold"),
        (FRAME + 16, le64(residue_count - 1), "residue count"),
        (
            residues + 8 * 5,
            le64(q0),
            "residue 5 of prime 0 is not reduced",
        ),
    ];
    let decryption: &[_] = &[
        (FRAME + 8, vec![99], "step"),
        (FRAME + 17, le32(top + 1), "above the top level"),
        (FRAME + 85, le32(2), "polynomials"),
        (FRAME + 17, le32(level + 1), "residues, expected"),
        (FRAME + 97 + 8 * 3, le64(q0), "not reduced"),
        // A length field larger than the input allocates nothing.
        (FRAME + 89, le64(u64::MAX / 4), "longer than the message"),
    ];
    let public_key: &[_] = &[
        (FRAME + 17, le32(0), "top level"),
        (FRAME + 53, vec![1], "active set"),
        (FRAME + 21, vec![1], "subject"),
    ];
    let formats = [
        (Kind::Party, &f.party[..], party),
        (Kind::Shamir, &f.shamir[..], shamir),
        (Kind::Aggregate, &f.decryption[..], decryption),
        (Kind::Aggregate, &f.public_key[..], public_key),
    ];
    for (kind, bytes, edits) in formats {
        for (at, value, field) in edits {
            let mut b = bytes.to_vec();
            put(&mut b, *at, value);
            malformed(kind, &b, field);
        }
    }
}

#[test]
fn exports_are_wiped_on_drop() {
    fn wiped_on_drop<T: ZeroizeOnDrop>(_: &T) {}
    let f = fixture();
    wiped_on_drop(&export(
        &Party::import_secret(&f.session, &f.party).unwrap(),
    ));
    let share = ShamirShare::import_secret(&f.session, &f.shamir).unwrap();
    wiped_on_drop(&share.export_secret(CONSENT).unwrap());
}

mod campaigns {
    //! Randomized: any changed byte of any format is refused; with the
    //! checksum recomputed, reading never panics and what is accepted writes
    //! back to the same bytes.

    use super::*;
    use crate::common::byte_change;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn a_changed_byte_is_refused(
            which in 0usize..6,
            change in byte_change(),
        ) {
            let (kind, mut changed) = nth_format(which);
            change.apply(&mut changed);
            prop_assert!(reread(kind, &fixture().session, &changed).is_err());
        }

        #[test]
        fn a_resigned_change_never_panics(
            which in 0usize..6,
            change in byte_change(),
        ) {
            let (kind, mut changed) = nth_format(which);
            let body = changed.len() - 32;
            // Mostly the header, where the fields are.
            let span = if change.position.index(2) == 0 { body.min(200) } else { body };
            change.apply_within(&mut changed, span);
            resign(&mut changed);
            if let Ok(again) = reread(kind, &fixture().session, &changed) {
                prop_assert_eq!(again, changed);
            }
        }
    }
}

/// Round-1 commitments and openings of another version are refused with an
/// error naming it (version 1 committed to the residues and bound the
/// opening's share to the set; version 2 ended with SHA-256 checksums: their
/// messages cannot be checked under version 3); version 3 openings
/// round-trip.
#[test]
fn round_one_messages_of_another_version_are_refused_by_name() {
    let mut net = Net::new(&test_context(), PARTIES, [21; 32]);
    let run = net.next_run();
    let mut collector = net.session.relin_commitments(run);
    let mut commitments = Vec::new();
    for p in &mut net.parties {
        let c = p.relin_key_commit(run).unwrap();
        collector.add(&c).unwrap();
        commitments.push(c);
    }
    let set = collector.finish().unwrap();
    let opening = net.parties[0].relin_key_open(&set).unwrap();
    let bytes = opening.to_bytes();
    assert_eq!(Opening::from_bytes(&bytes).unwrap(), opening);
    assert_eq!(bytes[4], 3, "opening version");
    // The checksum an opening carries is its share message's trailer.
    let share = opening.share().to_bytes();
    assert_eq!(opening.share().checksum()[..], share[share.len() - 32..]);
    assert_eq!(opening.share_checksum(), &opening.share().checksum());

    let named = |result: Result<()>, expected: &str| match result {
        Err(Error::MalformedMessage(m)) => assert!(m.contains(expected), "{m}"),
        other => panic!("expected MalformedMessage ({expected}), got {other:?}"),
    };
    let mut commitment = commitments[0].to_bytes();
    assert_eq!(commitment[4], 3, "commitment version");
    for (version, expected) in [
        (1, "version 1 is no longer read"),
        (2, "version 2 is no longer read"),
        (4, "unsupported version 4"),
    ] {
        commitment[4] = version;
        resign(&mut commitment);
        named(Commitment::from_bytes(&commitment).map(drop), expected);
        let mut b = bytes.clone();
        b[4] = version;
        named(Opening::from_bytes(&b).map(drop), expected);
    }
    // A version-1 opening: magic, version, random bytes, then the share
    // message (bound to the set), no header checksum.
    let mut v1 = b"HETO".to_vec();
    v1.push(1);
    v1.extend_from_slice(opening.nonce());
    v1.extend_from_slice(&opening.share().to_bytes());
    named(
        Opening::from_bytes(&v1).map(drop),
        "version 1 is no longer read",
    );
}
