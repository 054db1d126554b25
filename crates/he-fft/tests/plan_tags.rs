//! Plan files saved with a plan key: untouched, they load on their tag
//! alone (`PlanCheck::Authenticated`); with any byte changed and every
//! checksum recomputed (all an attacker without the key can do), the tag
//! fails and the file is verified by recomputation, which refuses a changed
//! transform; files of another key, untagged copies and files of format
//! version 6 (HMAC-SHA256 tags, never checked now) load by verification.

mod plan_file;
mod support;

use ark_bn254::Fr;
use he_fft::{Error, FftPlan, FftPlanBuilder, PlanCheck, PlanKey, Strategy, Unauthenticated};
use plan_file::*;
use sha2::{Digest, Sha256};

/// `builder`'s plan saved with `key`.
fn save_keyed<F: ark_ff::PrimeField + ark_ff::FftField>(
    builder: FftPlanBuilder<F>,
    key: &PlanKey,
) -> Vec<u8> {
    let plan = builder.build().expect("build");
    let mut bytes = Vec::new();
    plan.write_to_with_key(&mut bytes, key).expect("save");
    bytes
}

/// Loads `bytes` with `key` as the plan `builder` describes.
fn load_keyed<F: ark_ff::PrimeField + ark_ff::FftField>(
    builder: &FftPlanBuilder<F>,
    bytes: &[u8],
    key: &PlanKey,
) -> he_fft::Result<(FftPlan<F>, PlanCheck)> {
    builder.load_with_key(&mut &bytes[..], key)
}

/// The word after the header's checkpoint: the tag marker (1 when tagged),
/// followed by the key's id (two words), the nonce (two words: 12 bytes
/// and 4 zero bytes) and a checkpoint.
fn tag_marker(file: &File) -> usize {
    file.checkpoints[0] + 1
}

/// Words of a tag (16 bytes) at the end of a tagged file.
const TAG_WORDS: usize = 2;

/// Whether `a` and `b` are tagged files of the same bytes up to their
/// nonces (and so their checkpoints and tags, which depend on the nonce).
fn same_but_nonce(a: &[u8], b: &[u8]) -> bool {
    let mut file = File::parse(a);
    let at = tag_marker(&file);
    file.words[at + 3..at + 5].copy_from_slice(&File::parse(b).words[at + 3..at + 5]);
    let resealed = file.sealed();
    let untagged = |bytes: &[u8]| bytes[..bytes.len() - 8 * TAG_WORDS].to_vec();
    a.len() == b.len() && untagged(&resealed) == untagged(b)
}

#[test]
fn an_untouched_tagged_file_loads_on_its_tag() {
    let key = PlanKey::from_bytes([7; 32]);
    let bytes = save_keyed(tiny_builder(), &key);
    let file = File::parse(&bytes);
    let at = tag_marker(&file);
    assert_eq!(file.words[at], 1, "tagged");
    assert_eq!(
        file.words[at + 1..at + 3]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<_>>(),
        key.id(),
        "the key's id follows the marker"
    );
    assert_eq!(file.words[at + 4] >> 32, 0, "the nonce's padding");
    assert_eq!(file.checkpoints[1], at + 5, "a checkpoint after the nonce");
    let (plan, check) = load_keyed(&tiny_builder(), &bytes, &key).expect("load");
    assert_eq!(check, PlanCheck::Authenticated);
    // The plan is the one saved: saved again with the key, the same bytes
    // but for a fresh nonce and its tag.
    let mut again = Vec::new();
    plan.write_to_with_key(&mut again, &key).expect("save");
    assert!(same_but_nonce(&again, &bytes));
    let nonce = |b: &[u8]| File::parse(b).words[at + 3..at + 5].to_vec();
    assert_ne!(nonce(&again), nonce(&bytes), "each file has its own nonce");
    let (_, check) = load_keyed(&tiny_builder(), &again, &key).expect("load");
    assert_eq!(check, PlanCheck::Authenticated);
    // Without a key, the same file loads by verification.
    load(&tiny_builder(), &bytes).expect("load without a key");
    // Over BN254 as well.
    let bn =
        || FftPlan::<Fr>::builder(bn254(), 64).strategy(Strategy::Factored { levels: Some(2) });
    let bytes = save_keyed(bn(), &key);
    let (_, check) = load_keyed(&bn(), &bytes, &key).expect("load");
    assert_eq!(check, PlanCheck::Authenticated);
}

/// A negated diagonal or a changed residue, every checksum recomputed and
/// the key's id kept (all an attacker without the key can do): the tag
/// fails, and the full verification refuses the changed transform.
#[test]
fn a_tampered_tagged_file_is_verified_and_refused() {
    let key = PlanKey::from_bytes([7; 32]);
    let bytes = save_keyed(tiny_builder(), &key);
    let terms = File::parse(&bytes).terms(tiny());
    let mut negated = File::parse(&bytes);
    negate(&mut negated, tiny(), terms[1]);
    let mut nudged = File::parse(&bytes);
    let primes = terms[0].primes(tiny());
    let w = &mut nudged.words[terms[0].residues + 5];
    *w = (*w + 1) % primes[0];
    for file in [negated, nudged] {
        let sealed = file.sealed();
        assert_ne!(sealed, bytes);
        match load_keyed(&tiny_builder(), &sealed, &key) {
            Ok((plan, check)) => panic!("a tampered file loaded ({check}): {}", plan.describe()),
            Err(err) => assert!(matches!(err, Error::PlanVerification(_)), "{err}"),
        }
    }
    // A changed tag or nonce alone leaves the plan intact: the tag fails,
    // the verification passes, and the load says so.
    let at = tag_marker(&File::parse(&bytes));
    for word in [bytes.len() / 8 - 1, bytes.len() / 8 - 2, at + 3, at + 4] {
        let mut file = File::parse(&bytes);
        file.words[word] ^= 1;
        let (_, check) = load_keyed(&tiny_builder(), &file.sealed(), &key).expect("load");
        assert_eq!(
            check,
            PlanCheck::Recomputed(Unauthenticated::TagMismatch),
            "word {word}"
        );
    }
}

/// Any changed byte, checksums recomputed: the file is never accepted on
/// its tag. Every byte outside the diagonals' residues (header, marker, id,
/// nonce, schedules, each diagonal's fields, the end, the tag) and 24 bytes
/// of each diagonal's residues are changed in turn; a changed residue that
/// stays below its prime makes the verification refuse the file.
#[test]
fn any_changed_byte_fails_the_tag() {
    let key = PlanKey::from_bytes([7; 32]);
    let bytes = save_keyed(tiny_builder(), &key);
    let original = File::parse(&bytes);
    let terms = original.terms(tiny());
    let in_residues = |word: usize| {
        terms
            .iter()
            .find(|t| (t.residues..t.residues + t.len).contains(&word))
    };
    let mut places: Vec<usize> = (0..bytes.len())
        .filter(|&b| in_residues(b / 8).is_none())
        .collect();
    for t in &terms {
        let start = 8 * t.residues;
        places.extend((0..24).map(|i| start + (i * 8 * t.len) / 24 + i % 8));
    }
    let (mut refused, mut verified) = (0, 0);
    for at in places {
        let mut file = File::parse(&bytes);
        let mut word = file.words[at / 8].to_le_bytes();
        word[at % 8] ^= 1 << (at % 7);
        file.words[at / 8] = u64::from_le_bytes(word);
        let sealed = file.sealed();
        if sealed == bytes {
            // A checkpoint: resealing puts it back.
            continue;
        }
        let residue = in_residues(at / 8).map(|t| {
            let primes = t.primes(tiny());
            let row = (at / 8 - t.residues) / (t.len / primes.len());
            file.words[at / 8] < primes[row]
        });
        match load_keyed(&tiny_builder(), &sealed, &key) {
            Ok((_, PlanCheck::Authenticated)) => panic!("byte {at} changed, accepted on its tag"),
            Ok((_, check)) => {
                assert!(
                    residue.is_none(),
                    "byte {at}: a changed residue loaded ({check})"
                );
                verified += 1;
            }
            Err(err) => {
                if residue == Some(true) {
                    assert!(
                        matches!(err, Error::PlanVerification(_)),
                        "byte {at}: {err}"
                    );
                }
                refused += 1;
            }
        }
    }
    assert!(
        refused > 100 && verified > 10,
        "{refused} refused, {verified} verified"
    );
}

/// A tagged file corrupted after it was saved (checksums not recomputed):
/// its checkpoints are not compared once the file names the loader's key
/// (the tag covers the same bytes), so the tag fails and the verification
/// refuses it; a residue pushed to its prime is refused as it is read.
#[test]
fn a_corrupted_tagged_file_fails_its_tag_and_is_refused() {
    let key = PlanKey::from_bytes([7; 32]);
    let bytes = save_keyed(tiny_builder(), &key);
    let term = File::parse(&bytes).terms(tiny())[1];
    let primes = term.primes(tiny());
    let at = 8 * (term.residues + 3);
    let original = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
    // The residue moved by one (still below its prime), or set to its prime.
    for (changed, verified) in [((original + 1) % primes[0], true), (primes[0], false)] {
        let mut corrupted = bytes.clone();
        corrupted[at..at + 8].copy_from_slice(&changed.to_le_bytes());
        let err = load_keyed(&tiny_builder(), &corrupted, &key).map(|(p, _)| p.describe());
        match err {
            Err(Error::PlanVerification(_)) if verified => {}
            Err(Error::PlanFormat(m)) if !verified => assert!(m.contains("prime"), "{m}"),
            other => panic!("{other:?}"),
        }
        // Without the key, the checksum catches it first.
        assert!(matches!(
            load_err(&tiny_builder(), &corrupted),
            Error::PlanFormat(_)
        ));
    }
}

#[test]
fn a_file_of_another_key_loads_by_verification() {
    let ours = PlanKey::from_bytes([7; 32]);
    let theirs = PlanKey::generate().expect("key");
    assert_ne!(ours.id(), theirs.id());
    let bytes = save_keyed(tiny_builder(), &theirs);
    let (_, check) = load_keyed(&tiny_builder(), &bytes, &ours).expect("load");
    assert_eq!(check, PlanCheck::Recomputed(Unauthenticated::OtherKey));
    // Tampered with, it is refused as any unkeyed file is.
    let mut file = File::parse(&bytes);
    let term = file.terms(tiny())[0];
    negate(&mut file, tiny(), term);
    let err = load_keyed(&tiny_builder(), &file.sealed(), &ours).map(|(p, _)| p.describe());
    assert!(matches!(err, Err(Error::PlanVerification(_))), "{err:?}");
    // An untagged file loads by verification too.
    let (_, check) = load_keyed(&tiny_builder(), &save(tiny_builder()), &ours).expect("load");
    assert_eq!(check, PlanCheck::Recomputed(Unauthenticated::Untagged));
}

/// Switching a tagged file's marker to "untagged" (and dropping its id,
/// nonce and tag) does not make it skip anything: it is verified.
#[test]
fn an_untagged_copy_of_a_tagged_file_is_verified() {
    let key = PlanKey::from_bytes([7; 32]);
    let bytes = save_keyed(tiny_builder(), &key);
    let mut file = File::parse(&bytes);
    let at = tag_marker(&file);
    file.words[at] = 0;
    file.words.drain(at + 1..at + 5);
    file.words.truncate(file.words.len() - TAG_WORDS);
    file.checkpoints = file
        .checkpoints
        .iter()
        .map(|&c| if c > at { c - 4 } else { c })
        .collect();
    assert_eq!(file.sealed(), save(tiny_builder()), "the untagged file");
    let term = file.terms(tiny())[0];
    negate(&mut file, tiny(), term);
    let err = load_keyed(&tiny_builder(), &file.sealed(), &key).map(|(p, _)| p.describe());
    assert!(matches!(err, Err(Error::PlanVerification(_))), "{err:?}");
}

/// HMAC-SHA256 (RFC 2104) with a 32-byte key, as format version 6 tagged
/// files.
fn hmac_sha256(key: &[u8; 32], data: &[u8]) -> [u8; 32] {
    let pad = |byte: u8| {
        let mut p = [byte; 64];
        for (p, k) in p.iter_mut().zip(key) {
            *p ^= k;
        }
        p
    };
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(data)
        .finalize();
    Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize()
        .into()
}

/// `bytes` (a current file tagged with `key`) as format version 6 wrote
/// it: no nonce, and the 32-byte HMAC-SHA256 tag under `key` of the label
/// "he-fft plan file tag" and every byte before the tag. `change` is
/// applied to the words (checkpoints recomputed) before the tag is made.
fn as_version_6(bytes: &[u8], key: [u8; 32], change: impl FnOnce(&mut File)) -> Vec<u8> {
    let mut file = File::parse(bytes);
    let at = tag_marker(&file);
    file.words[1] = 6;
    file.words.drain(at + 3..at + 5);
    file.words.truncate(file.words.len() - TAG_WORDS);
    file.checkpoints = file
        .checkpoints
        .iter()
        .map(|&c| if c > at { c - 2 } else { c })
        .collect();
    change(&mut file);
    let mut out = file.sealed();
    let mut covered = b"he-fft plan file tag".to_vec();
    covered.extend_from_slice(&out);
    out.extend_from_slice(&hmac_sha256(&key, &covered));
    out
}

/// Files of format version 6 load, but only by verification: a valid
/// HMAC-SHA256 tag under the loader's key is not trusted any more, a
/// changed transform under a tag that no longer matches is refused, and
/// an untagged one loads as any untagged file.
#[test]
fn a_version_6_file_loads_by_verification_only() {
    let secret = [7; 32];
    let key = PlanKey::from_bytes(secret);
    let bytes = save_keyed(tiny_builder(), &key);
    let old = as_version_6(&bytes, secret, |_| {});
    let (plan, check) = load_keyed(&tiny_builder(), &old, &key).expect("load");
    assert_eq!(check, PlanCheck::Recomputed(Unauthenticated::OlderVersion));
    assert!(
        check.to_string().contains("older format version"),
        "{check}"
    );
    assert_eq!(save(tiny_builder()), {
        let mut again = Vec::new();
        plan.write_to(&mut again).expect("save");
        again
    });
    load(&tiny_builder(), &old).expect("without a key");
    let negated = as_version_6(&bytes, secret, |file| {
        let term = file.terms(tiny())[0];
        negate(file, tiny(), term);
    });
    let err = load_keyed(&tiny_builder(), &negated, &key).map(|(p, _)| p.describe());
    assert!(matches!(err, Err(Error::PlanVerification(_))), "{err:?}");
    let mut untagged = File::parse(&save(tiny_builder()));
    untagged.words[1] = 6;
    let (_, check) = load_keyed(&tiny_builder(), &untagged.sealed(), &key).expect("load");
    assert_eq!(check, PlanCheck::Recomputed(Unauthenticated::OlderVersion));
}
