//! A malicious server or party against honest ones: a ciphertext whose noise
//! estimate is forged, a party that sends its round-1 relinearization share
//! last (rushing), round-1 sums of another session or chosen to expose a
//! secret. Each must either be refused before an honest party releases
//! anything, or leave the honest party's share as well hidden as the
//! protocol promises.

mod common;

use common::{t65537, Net};
use he_threshold::{with_smudging_room, Commitments, Error, Opening, Step};
use helib_rs::threshold::{self as engine, secret_key_sum, Smudging};
use helib_rs::{Ciphertext, Context, Parameters, Plaintext, SecretKey};
use num_bigint::BigUint;
use sha2::{Digest, Sha256};

const PARTIES: u32 = 2;
const LAMBDA: u32 = 40;

/// N = 1024, t = 65537, room for five products with a 16-bit scalar and the
/// smudging of two parties, one special prime (key switching).
fn context() -> Context {
    let builder = Parameters::builder()
        .ring_degree(1024)
        .plaintext_modulus(t65537())
        .chain_bits(&[60, 60, 60])
        .special_bits(&[61])
        .threads(2)
        .allow_insecure();
    Context::new(&with_smudging_room(builder, PARTIES, LAMBDA).unwrap()).unwrap()
}

/// Where a t = 65537 ciphertext's noise estimate (f64) sits in its encoding:
/// after the 48-byte header, the level (u32), the size and flags (u8 each)
/// and the 3-byte correction factor.
const NOISE_AT: usize = 48 + 9;

/// `ct` as it arrives from someone claiming the noise estimate `bits`
/// (the checksum recomputed: it is not a MAC).
fn with_claimed_noise(ct: &Ciphertext, bits: f64) -> Ciphertext {
    let mut bytes = ct.to_bytes().unwrap();
    bytes[NOISE_AT..NOISE_AT + 8].copy_from_slice(&bits.to_le_bytes());
    let body = bytes.len() - 32;
    let sum = Sha256::digest(&bytes[..body]);
    bytes[body..].copy_from_slice(&sum);
    Ciphertext::from_bytes(ct.context(), &bytes).unwrap()
}

/// The measured noise of `ct` under `sk`: bits of the largest coefficient of
/// its phase.
fn measured_noise(sk: &SecretKey, ct: &Ciphertext) -> f64 {
    let log2_q: f64 = ct.noise_estimate_bits() + ct.estimated_budget_bits();
    log2_q - sk.noise_budget(ct).unwrap()
}

#[test]
fn a_forged_low_noise_estimate_does_not_narrow_the_smudging() {
    let context = context();
    let (mut net, pk) = Net::with_public_key(&context, PARTIES, [1; 32]);
    let collective = net.summed_secret();
    let m = Plaintext::from_u64s(&context, &[3, 1, 4, 1, 5]).unwrap();
    // A ciphertext with much more noise than a fresh one (five products with
    // a 16-bit scalar: about 80 bits more), handed over with its estimate
    // forged down to the floor.
    let mut noisy = pk.encrypt(&m).unwrap();
    for _ in 0..5 {
        noisy = noisy.mul_scalar(&BigUint::from(40_503u32)).unwrap();
    }
    let real_noise = measured_noise(&collective, &noisy);
    let forged = with_claimed_noise(&noisy, 1.0);
    assert!(forged.noise_estimate_bits() < real_noise - 70.0);
    assert_eq!(measured_noise(&collective, &forged), real_noise);

    // The parties switch it to a key whose owner then measures the noise:
    // the smudging terms show in the result, and they must hide the real
    // error (the forged estimate would have asked for about 80 bits less).
    let smudging = net.session.smudging(forged.level()).unwrap();
    let target = SecretKey::generate(&context).unwrap();
    let target_pk = target.public_key().unwrap();
    let run = net.next_run();
    let mut agg = net
        .session
        .ciphertext_aggregator(run, Step::KeySwitch, &forged)
        .unwrap();
    for p in &net.parties {
        agg.add(
            &p.key_switch_share(run, &forged, &target_pk, &smudging)
                .unwrap(),
        )
        .unwrap();
    }
    let switched = net
        .session
        .key_switch(&forged, &agg.finish().unwrap(), &smudging)
        .unwrap();
    let error_bits = real_noise - context.plaintext_modulus().bits() as f64;
    let smudged = measured_noise(&target, &switched);
    let needed = real_noise + f64::from(LAMBDA) + (context.ring_degree() as f64).log2();
    assert!(
        smudged >= needed - 2.0,
        "the smudging ({smudged:.1} bits) does not hide an error of {error_bits:.1} bits \
         (needs {needed:.1})"
    );
    assert_eq!(
        target.decrypt(&switched).unwrap(),
        collective.decrypt(&noisy).unwrap()
    );
    // The width is the level's, whatever the ciphertext claims.
    assert_eq!(
        smudging.width_bits(&context).unwrap(),
        net.session
            .smudging(noisy.level())
            .unwrap()
            .width_bits(&context)
            .unwrap()
    );
}

#[test]
fn a_ciphertext_claiming_more_noise_than_agreed_is_refused() {
    let context = context();
    let (net, pk) = Net::with_public_key(&context, PARTIES, [2; 32]);
    let ct = pk
        .encrypt(&Plaintext::from_u64s(&context, &[7]).unwrap())
        .unwrap();
    let smudging = net.session.smudging(ct.level()).unwrap();
    let inflated = with_claimed_noise(&ct, smudging.noise_bits() + 1.0);
    let party = &net.parties[0];
    for result in [
        party.decryption_share(1, &inflated, &smudging).map(|_| ()),
        party
            .encryption_to_shares(1, &inflated, &smudging)
            .map(|_| ()),
    ] {
        assert!(
            matches!(
                result,
                Err(Error::Engine(helib_rs::Error::NoiseBudgetExhausted))
            ),
            "{result:?}"
        );
    }
    // A tighter bound agreed for a fresh encryption refuses a product.
    let fresh = smudging
        .with_noise_bound(&context, ct.noise_estimate_bits())
        .unwrap();
    assert!(party.decryption_share(2, &ct, &fresh).is_ok());
    let doubled = ct.mul_scalar(&BigUint::from(60_000u32)).unwrap();
    assert!(matches!(
        party.decryption_share(3, &doubled, &fresh),
        Err(Error::Engine(helib_rs::Error::NoiseBudgetExhausted))
    ));
    // Bounds a level cannot hide, or below any ciphertext's noise, are refused.
    assert!(smudging
        .with_noise_bound(&context, smudging.noise_bits() + 1.0)
        .is_err());
    assert!(smudging.with_noise_bound(&context, 0.0).is_err());
    assert!(smudging.with_noise_bound(&context, f64::NAN).is_err());
}

/// Three parties of the session `[id; 32]`, each committed to its round-1
/// relinearization share: the context, the parties and the commitment set.
fn committed_round_one(id: u8) -> (Context, Net, Commitments) {
    let context = context();
    let mut net = Net::new(&context, 3, [id; 32]);
    let run = net.next_run();
    let commitments = net.relin_commitments(run);
    (context, net, commitments)
}

/// The rushing attack on round 1: the last party picks its share so that
/// the sums are h0 = 1, h1 = 0, which would make every honest round-2 share
/// `s_i + t·e`. With commitments, its share is fixed before it sees any
/// other: an opening that differs from its commitment is refused.
#[test]
fn a_party_cannot_change_its_round_one_share_after_committing() {
    let (context, mut net, commitments) = committed_round_one(3);
    let mut agg = net.session.relin_round1_aggregator(&commitments).unwrap();
    let honest: Vec<_> = net.parties[..2]
        .iter_mut()
        .map(|p| p.relin_key_open(&commitments).unwrap())
        .collect();
    for opening in &honest {
        agg.add_opening(opening).unwrap();
    }
    // The rusher saw both honest openings; it replaces its share by
    // (1, 0) − (the honest sum), so the sums would be exactly (1, 0). Its
    // opening carries the checksum of the share it sends (an opening's
    // checksum is always computed from its share).
    let original = net.parties[2].relin_key_open(&commitments).unwrap();
    let mut rushed_share = original.share().clone();
    for k in 0..2 {
        for (j, x) in rushed_share.polynomials[k].iter_mut().enumerate() {
            let q = key_modulus(&context, j);
            let honest_sum = (honest[0].share().polynomials[k][j] as u128
                + honest[1].share().polynomials[k][j] as u128)
                % q as u128;
            let target = if k == 0 { 1 } else { 0 };
            *x = ((target + 2 * q as u128 - honest_sum) % q as u128) as u64;
        }
    }
    let rushed = Opening::new(*original.nonce(), *original.commitments(), rushed_share);
    assert!(matches!(
        agg.add_opening(&rushed),
        Err(Error::CommitmentMismatch { party: 2 })
    ));
    // The same through the wire format.
    assert!(matches!(
        agg.add_opening(&Opening::from_bytes(&rushed.to_bytes()).unwrap()),
        Err(Error::CommitmentMismatch { party: 2 })
    ));
    // Changing only the random bytes is caught as well.
    let mut nonce = *original.nonce();
    nonce[0] ^= 1;
    let renonced = Opening::new(nonce, *original.commitments(), original.share().clone());
    assert!(matches!(
        agg.add_opening(&renonced),
        Err(Error::CommitmentMismatch { party: 2 })
    ));
    // The opening as committed is taken.
    agg.add_opening(&original).unwrap();
    agg.finish().unwrap();
}

/// An opening whose header names another commitment set than the one
/// aggregated is refused, even with its share and random bytes intact and
/// every checksum right: a party opens under the set it checked, and the
/// aggregate is bound to that set.
#[test]
fn an_opening_under_another_commitment_set_is_refused() {
    let (_, mut net, commitments) = committed_round_one(7);
    let mut agg = net.session.relin_round1_aggregator(&commitments).unwrap();
    let opening = net.parties[0].relin_key_open(&commitments).unwrap();
    assert_eq!(*opening.commitments(), commitments.digest());
    let mut other_set = commitments.digest();
    other_set[31] ^= 1;
    let moved = Opening::new(*opening.nonce(), other_set, opening.share().clone());
    assert!(matches!(
        agg.add_opening(&moved),
        Err(Error::CommitmentSetMismatch { party: 0 })
    ));
    // Through the wire, with the header's checksum recomputed.
    let bytes = moved.to_bytes();
    assert!(matches!(
        agg.add_opening(&Opening::from_bytes(&bytes).unwrap()),
        Err(Error::CommitmentSetMismatch { party: 0 })
    ));
    // The set digest changed in the bytes, checksum not recomputed: malformed.
    let mut bytes = opening.to_bytes();
    bytes[4 + 1 + 32] ^= 1;
    assert!(matches!(
        Opening::from_bytes(&bytes),
        Err(Error::MalformedMessage(_))
    ));
    agg.add_opening(&opening).unwrap();
}

/// The parts of an opening's encoding: header (magic, version, random bytes,
/// set digest), the share message (ending with its checksum), the header's
/// checksum.
fn opening_parts(bytes: &[u8]) -> (&[u8], &[u8], &[u8]) {
    let (header, rest) = bytes.split_at(4 + 1 + 32 + 32);
    let (share, trailer) = rest.split_at(rest.len() - 32);
    (header, share, trailer)
}

/// An opening with `header` and `share` (a share message's bytes) and the
/// header's checksum recomputed over them, as anyone can.
fn opening_bytes(header: &[u8], share: &[u8]) -> Vec<u8> {
    let share_checksum = &share[share.len() - 32..];
    let mut out = [header, share].concat();
    let mut trailer = blake3::Hasher::new();
    trailer.update(header);
    trailer.update(share_checksum);
    out.extend_from_slice(trailer.finalize().as_bytes());
    out
}

/// Openings that reuse another party's share checksum or commitment: the
/// checksum is recomputed from the share's bytes and covers its sender, and
/// the commitment covers the sender too, so none is taken for the sender's.
#[test]
fn an_opening_cannot_borrow_another_partys_checksum_or_commitment() {
    let context = context();
    let mut net = Net::new(&context, 3, [8; 32]);
    let run = net.next_run();
    let commits: Vec<_> = net
        .parties
        .iter_mut()
        .map(|p| p.relin_key_commit(run).unwrap())
        .collect();
    // Party 2 (with a colluding server, which sees commitments first) sends
    // party 0's commitment digest as its own.
    let mut collector = net.session.relin_commitments(run);
    collector.add(&commits[0]).unwrap();
    collector.add(&commits[1]).unwrap();
    let copied = he_threshold::Commitment {
        party: 2,
        ..commits[0].clone()
    };
    collector.add(&copied).unwrap();
    let commitments = collector.finish().unwrap();
    let mut agg = net.session.relin_round1_aggregator(&commitments).unwrap();
    let o0 = net.parties[0].relin_key_open(&commitments).unwrap();
    let o1 = net.parties[1].relin_key_open(&commitments).unwrap();
    // Party 2's own commitment is not in the set: it cannot open.
    assert!(net.parties[2].relin_key_open(&commitments).is_err());
    agg.add_opening(&o0).unwrap();
    agg.add_opening(&o1).unwrap();

    // Party 0's share, nonce and set relabelled as party 2's: its checksum
    // changes with the sender, and the copied commitment covers sender 0.
    let mut share = o0.share().clone();
    share.party = 2;
    let relabelled = Opening::new(*o0.nonce(), *o0.commitments(), share);
    assert_ne!(relabelled.share_checksum(), o0.share_checksum());
    assert!(matches!(
        agg.add_opening(&relabelled),
        Err(Error::CommitmentMismatch { party: 2 })
    ));

    // Party 1's share bytes with party 0's checksum trailer (header checksum
    // recomputed): the share's checksum is recomputed from its bytes.
    let b0 = o0.to_bytes();
    let b1 = o1.to_bytes();
    let (header1, share1, _) = opening_parts(&b1);
    let (_, share0, _) = opening_parts(&b0);
    let mut borrowed = share1.to_vec();
    let at = borrowed.len() - 32;
    borrowed[at..].copy_from_slice(&share0[share0.len() - 32..]);
    assert!(matches!(
        Opening::from_bytes(&opening_bytes(header1, &borrowed)),
        Err(Error::MalformedMessage(_))
    ));

    // Party 0's whole share under party 1's header: it is party 0's share
    // with party 1's random bytes, which match no commitment of party 0
    // (and party 0's opening is in already).
    let swapped = Opening::from_bytes(&opening_bytes(header1, share0)).unwrap();
    assert_eq!(swapped.share().party, 0);
    assert!(matches!(
        agg.add_opening(&swapped),
        Err(Error::CommitmentMismatch { party: 0 })
    ));
    // The missing party stays missing: no round-1 aggregate without it.
    assert_eq!(agg.missing(), vec![2]);
}

/// The prime of residue `j` of a key share: one polynomial modulo every
/// prime (chain, then special) per digit.
fn key_modulus(context: &Context, j: usize) -> u64 {
    let primes: Vec<u64> = context
        .chain_primes()
        .iter()
        .chain(context.special_primes())
        .copied()
        .collect();
    primes[(j / context.ring_degree()) % primes.len()]
}

/// Round-1 sums chosen to expose a secret (h0 = 1, h1 = 0 in NTT form: a
/// constant polynomial is that constant in every slot) are refused by the
/// engine before any round-2 share is made, the second line behind the
/// commitments (an aggregator colluding with a party could hand them over).
#[test]
fn round_one_sums_no_honest_run_produces_are_refused() {
    let context = context();
    let sk = SecretKey::generate(&context).unwrap();
    let ephemeral = SecretKey::generate(&context).unwrap();
    let len = engine::key_share_len(&context).unwrap();
    let ones = vec![1u64; len];
    let zeros = vec![0u64; len];
    for (h0, h1) in [(&ones, &zeros), (&zeros, &zeros), (&ones, &ones)] {
        assert!(matches!(
            engine::relin_key_round2(&sk, &ephemeral, h0, h1),
            Err(helib_rs::Error::Malformed(_))
        ));
    }
    // Honest sums are taken.
    let seed = [4u8; 32];
    let (h0, h1) = engine::relin_key_round1(&sk, &ephemeral, &seed).unwrap();
    assert!(engine::relin_key_round2(&sk, &ephemeral, &h0, &h1).is_ok());
}

/// A party releases its round-2 share only for the aggregate of its own
/// session, of round 1, under the commitment set it opened under.
#[test]
fn round_two_refuses_an_aggregate_it_did_not_open_for() {
    let context = context();
    let mut net = Net::new(&context, PARTIES, [5; 32]);
    let mut other = Net::new(&context, PARTIES, [6; 32]);
    let run = net.next_run();
    let other_run = other.next_run();
    assert_eq!(run, other_run);
    let foreign = other.relin_round1(other_run);
    // Party 0 of `net` has opened nothing yet: refused.
    let commitments = net.relin_commitments(run);
    assert!(matches!(
        net.parties[0].relin_key_round2(&foreign),
        Err(Error::InvalidArgument(_))
    ));
    let own = net.relin_openings(&commitments);
    // Another session's aggregate of the same run: refused, and the party's
    // run is still there for its own aggregate.
    assert!(matches!(
        net.parties[0].relin_key_round2(&foreign),
        Err(Error::InvalidArgument(_))
    ));
    // Commitments of another session cannot be opened or aggregated here.
    let next = other.next_run();
    let foreign_commitments = other.relin_commitments(next);
    assert!(matches!(
        net.session.relin_round1_aggregator(&foreign_commitments),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        net.parties[1].relin_key_open(&foreign_commitments),
        Err(Error::InvalidArgument(_))
    ));
    let shares: Vec<_> = net
        .parties
        .iter_mut()
        .map(|p| p.relin_key_round2(&own).unwrap())
        .collect();
    let a2 = net.aggregate_keys(run, Step::RelinRound2, &shares);
    let rk = net.session.relin_key(&own, &a2).unwrap();
    // The key works: a product decrypts under the summed secret.
    let pk = net.public_key();
    let m = Plaintext::from_u64s(&context, &[2, 3]).unwrap();
    let ct = pk.encrypt(&m).unwrap();
    let product = ct.multiply(&ct).unwrap().relinearize(&rk).unwrap();
    let expected = Plaintext::from_u64s(&context, &[4, 12, 9]).unwrap();
    assert_eq!(
        secret_key_sum(&[net.parties[0].secret_share(), net.parties[1].secret_share()])
            .unwrap()
            .decrypt(&product)
            .unwrap(),
        expected
    );
}

mod campaigns {
    //! Randomized: every single-byte change of a commitment or an opening is
    //! refused, and the level bound is the widest the engine accepts.

    use super::*;
    use crate::common::byte_change;
    use he_threshold::Commitment;
    use proptest::prelude::*;
    use std::sync::OnceLock;

    /// One committed and opened round 1 of three parties, shared by the cases.
    struct Round {
        session: he_threshold::Session,
        commitments: he_threshold::Commitments,
        commitment: Vec<u8>,
        openings: Vec<Opening>,
    }

    fn round() -> &'static Round {
        static ROUND: OnceLock<Round> = OnceLock::new();
        ROUND.get_or_init(|| {
            let context = context();
            let mut net = Net::new(&context, 3, [9; 32]);
            let mut collector = net.session.relin_commitments(1);
            let mut first = Vec::new();
            for p in &mut net.parties {
                let c = p.relin_key_commit(1).unwrap();
                first.push(c.to_bytes());
                collector.add(&c).unwrap();
            }
            let commitments = collector.finish().unwrap();
            let openings = net
                .parties
                .iter_mut()
                .map(|p| p.relin_key_open(&commitments).unwrap())
                .collect();
            Round {
                session: net.session.clone(),
                commitments,
                commitment: first.swap_remove(0),
                openings,
            }
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn a_changed_byte_of_an_opening_is_refused(
            party in 0usize..3,
            change in byte_change(),
        ) {
            let round = round();
            let mut bytes = round.openings[party].to_bytes();
            let at = change.apply(&mut bytes);
            let accepted = Opening::from_bytes(&bytes).and_then(|opening| {
                let mut agg = round.session.relin_round1_aggregator(&round.commitments)?;
                agg.add_opening(&opening)
            });
            prop_assert!(accepted.is_err(), "byte {} changed, the opening was taken", at);
        }

        #[test]
        fn a_changed_byte_of_a_commitment_is_refused(
            change in byte_change(),
        ) {
            let mut bytes = round().commitment.clone();
            change.apply(&mut bytes);
            prop_assert!(Commitment::from_bytes(&bytes).is_err());
        }

        #[test]
        fn the_level_bound_is_the_widest_accepted(
            parties in 1u32..=64,
            lambda in 20u32..=80,
        ) {
            let context = context();
            for level in 0..=context.max_level() {
                let Ok(widest) = Smudging::for_level(&context, parties, lambda, level) else {
                    continue;
                };
                prop_assert!(widest.width_bits(&context).is_ok());
                prop_assert!(widest
                    .with_noise_bound(&context, widest.noise_bits() + 1.0 / 32.0)
                    .is_err());
            }
        }
    }
}

/// `ct` (a size-2 ciphertext with c1 stored in full) with its polynomials
/// replaced: c0 = 0 and c1 = 1 (the constant 1 is 1 at every evaluation
/// point), written in the engine's format (residues packed in bitlen(q)
/// bits, least significant bit first, after the noise estimate) with the
/// checksum recomputed. For BGV this is a valid, low-noise encryption of the
/// secret key s itself: its phase c0 + c1·s is s.
fn zero_one_ciphertext(ct: &Ciphertext) -> Ciphertext {
    let mut bytes = ct.to_bytes().unwrap();
    let n = ct.context().ring_degree();
    let primes = &ct.context().chain_primes()[..=ct.level()];
    let mut at = NOISE_AT + 8;
    for part in 0..2u64 {
        for &q in primes {
            let width = (64 - q.leading_zeros()) as usize;
            let block = &mut bytes[at..at + n * width / 8];
            block.fill(0);
            for j in 0..n {
                // The value `part` (0 or 1) in the j-th field of `width` bits.
                let bit = j * width;
                block[bit / 8] |= (part as u8) << (bit % 8);
            }
            at += n * width / 8;
        }
    }
    assert_eq!(at + 32, bytes.len(), "c0 and c1 fill the payload");
    let body = bytes.len() - 32;
    let sum = Sha256::digest(&bytes[..body]);
    bytes[body..].copy_from_slice(&sum);
    let crafted = Ciphertext::from_bytes(ct.context(), &bytes).unwrap();
    assert!(crafted.residues(1, 0).unwrap().iter().all(|&r| r == 1));
    crafted
}

/// The coefficients of `p` centred in (−t/2, t/2], as far as they fit an i64.
fn centred(p: &Plaintext) -> Vec<Option<i64>> {
    let t = p.context().plaintext_modulus().clone();
    p.coefficients()
        .into_iter()
        .map(|c| {
            if c > &t >> 1 {
                i64::try_from(&t - c).ok().map(|v| -v)
            } else {
                i64::try_from(c).ok()
            }
        })
        .collect()
}

/// A weakness of collective decryption in BGV, shown: whoever chooses the
/// ciphertext the parties decrypt can choose (0, 1), a valid encryption of
/// the collective secret key (its noise is the key's coefficients, far below
/// any bound), and collective decryption then hands it the key. No check a
/// party can make on a ciphertext tells it apart. Encryption to shares of
/// the same ciphertext reveals nothing: the opening is masked by uniform
/// values mod t. This is why `he-cosnark` parties only ever convert the
/// server's ciphertexts to shares, and why SECURITY.md says never to send a
/// plain decryption share of a ciphertext one did not compute oneself.
#[test]
fn plain_decryption_of_a_chosen_ciphertext_reveals_the_collective_key() {
    let context = context();
    let (mut net, pk) = Net::with_public_key(&context, PARTIES, [5; 32]);
    let collective = net.summed_secret();
    let honest = pk
        .encrypt(&Plaintext::from_u64s(&context, &[1, 2, 3]).unwrap())
        .unwrap();
    let chosen = zero_one_ciphertext(&honest);

    // The parties release their shares: level, size and noise all pass.
    let revealed = net.decrypt(&chosen);
    assert_eq!(revealed, collective.decrypt(&chosen).unwrap());
    let coefficients = centred(&revealed);
    let bound = i64::from(PARTIES);
    assert!(
        coefficients
            .iter()
            .all(|c| matches!(c, Some(v) if v.abs() <= bound)),
        "the revealed plaintext is the collective secret: a sum of {PARTIES} ternary polynomials"
    );
    assert!(coefficients.iter().filter(|c| **c != Some(0)).count() > context.ring_degree() / 4);

    // Encryption to shares of the same ciphertext: the opening the server
    // sees is uniform mod t, almost none of it small.
    let run = net.next_run();
    let smudging = net.session.smudging(chosen.level()).unwrap();
    let mut agg = net
        .session
        .ciphertext_aggregator(run, Step::EncryptionToShares, &chosen)
        .unwrap();
    for p in &net.parties {
        agg.add(&p.encryption_to_shares(run, &chosen, &smudging).unwrap().1)
            .unwrap();
    }
    let opening = net
        .session
        .open_masked(&chosen, &agg.finish().unwrap(), &smudging)
        .unwrap();
    let small = centred(&opening)
        .iter()
        .filter(|c| matches!(c, Some(v) if v.abs() <= bound))
        .count();
    assert!(
        small < 32,
        "{small} small coefficients in the masked opening"
    );
}
