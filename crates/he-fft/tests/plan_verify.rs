//! Plan files cannot lie: a file whose diagonals were tampered with (one
//! negated, two swapped, one residue changed) or whose labels were changed
//! (direction, coset offset), with every checksum recomputed (the checksum
//! is keyless, so anyone can), is refused when loaded, as is a valid plan of
//! another spec (an inverse plan stored under the forward plan's file name).
//! Files saved with a plan key: `plan_tags.rs`.

mod plan_file;
mod support;

use ark_bn254::Fr;
use he_fft::{Error, FftPlan, Strategy};
use plan_file::*;

#[test]
fn an_intact_file_loads() {
    let bytes = save(tiny_builder());
    let file = File::parse(&bytes);
    assert_eq!(file.sealed(), bytes, "resealing changes nothing");
    assert!(file.terms(tiny()).len() >= 3);
    load(&tiny_builder(), &bytes).expect("load");
}

#[test]
fn a_negated_diagonal_is_refused() {
    let bytes = save(tiny_builder());
    for which in [0, 2] {
        let mut file = File::parse(&bytes);
        let term = file.terms(tiny())[which];
        negate(&mut file, tiny(), term);
        let err = load_err(&tiny_builder(), &file.sealed());
        assert!(matches!(err, Error::PlanVerification(_)), "{err}");
    }
}

#[test]
fn two_swapped_diagonals_are_refused() {
    let bytes = save(tiny_builder());
    let mut file = File::parse(&bytes);
    let terms = file.terms(tiny());
    // Two diagonals of the same level and length, payloads swapped whole
    // (norms included): each slot now holds the other's diagonal.
    let (a, b) = terms
        .iter()
        .enumerate()
        .find_map(|(i, a)| {
            terms[i + 1..]
                .iter()
                .find(|b| b.len == a.len && b.level == a.level)
                .map(|b| (*a, *b))
        })
        .expect("two diagonals of one length");
    let size = 7 + a.len;
    let first: Vec<u64> = file.words[a.at..a.at + size].to_vec();
    let second: Vec<u64> = file.words[b.at..b.at + size].to_vec();
    assert_ne!(first, second);
    file.words[a.at..a.at + size].copy_from_slice(&second);
    file.words[b.at..b.at + size].copy_from_slice(&first);
    let err = load_err(&tiny_builder(), &file.sealed());
    assert!(matches!(err, Error::PlanVerification(_)), "{err}");
}

#[test]
fn any_single_residue_change_is_refused() {
    let bytes = save(tiny_builder());
    let terms = File::parse(&bytes).terms(tiny());
    for term in [terms[0], terms[terms.len() - 1]] {
        let primes = term.primes(tiny());
        let per_row = term.len / primes.len();
        // The first and last residue of the first and last row, and one
        // inside, each moved by one (still below its prime).
        for (row, at) in [
            (0, 0),
            (0, per_row - 1),
            (primes.len() - 1, 0),
            (primes.len() - 1, per_row / 2),
        ] {
            let mut file = File::parse(&bytes);
            let w = &mut file.words[term.residues + row * per_row + at];
            *w = (*w + 1) % primes[row];
            let err = load_err(&tiny_builder(), &file.sealed());
            assert!(
                matches!(err, Error::PlanVerification(_)),
                "row {row}, residue {at}: {err}"
            );
        }
    }
}

/// The header's direction word (after the magic, the version, the
/// fingerprint, F's modulus and n).
fn direction_word(modulus_limbs: usize) -> usize {
    2 + 4 + 1 + modulus_limbs + 1
}

#[test]
fn a_flipped_direction_label_is_refused() {
    let bytes = save(tiny_builder());
    let mut file = File::parse(&bytes);
    let at = direction_word(1);
    assert_eq!(file.words[at], 0, "a forward plan");
    file.words[at] = 1;
    let sealed = file.sealed();
    // As the inverse plan it now claims to be: its diagonals are not.
    let err = load_err(&tiny_builder().inverse(), &sealed);
    assert!(
        matches!(err, Error::PlanVerification(_) | Error::PlanFormat(_)),
        "{err}"
    );
    // As the forward plan the caller wants: the label differs.
    let err = load_err(&tiny_builder(), &sealed);
    assert!(
        matches!(
            err,
            Error::PlanMismatch {
                field: "direction",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn a_changed_coset_label_is_refused() {
    let builder = || tiny_builder().coset(F65537::from(3u64));
    let bytes = save(builder());
    let mut file = File::parse(&bytes);
    // The coset flag, its length (one limb) and the offset follow the direction.
    let at = direction_word(1) + 3;
    assert_eq!(file.words[at - 2..=at], [1, 1, 3]);
    file.words[at] = 5;
    let sealed = file.sealed();
    let err = load_err(&tiny_builder().coset(F65537::from(5u64)), &sealed);
    assert!(matches!(err, Error::PlanVerification(_)), "{err}");
    let err = load_err(&builder(), &sealed);
    assert!(
        matches!(err, Error::PlanMismatch { field: "coset", .. }),
        "{err}"
    );
}

/// An inverse plan saved under the file name of the forward plan is a
/// valid file of another spec: loading it as the forward plan is refused.
#[test]
fn an_inverse_plan_under_the_forward_name_is_refused() {
    let forward =
        FftPlan::<Fr>::builder(bn254(), 64).strategy(Strategy::Factored { levels: Some(2) });
    let inverse = FftPlan::<Fr>::builder(bn254(), 64)
        .inverse()
        .strategy(Strategy::Factored { levels: Some(2) });
    let path = std::env::temp_dir().join(format!(
        "{}-{}",
        std::process::id(),
        forward.plan_file_name().expect("name")
    ));
    std::fs::write(&path, save(inverse)).expect("write");
    let result = forward.load_from(&mut std::fs::File::open(&path).expect("open"));
    std::fs::remove_file(&path).expect("remove");
    match result {
        Ok(plan) => panic!("loaded {}", plan.describe()),
        Err(err) => {
            assert!(
                matches!(
                    err,
                    Error::PlanMismatch {
                        field: "direction",
                        ..
                    }
                ),
                "{err}"
            );
            let message = err.to_string();
            assert!(message.contains("direction"), "{message}");
        }
    }
}

/// Tampering with a BN254 plan's diagonals (full 254-bit coefficients,
/// special primes, several levels) is caught as well.
#[test]
fn tampered_bn254_diagonals_are_refused() {
    let builder =
        || FftPlan::<Fr>::builder(bn254(), 64).strategy(Strategy::Factored { levels: Some(2) });
    let bytes = save(builder());
    let terms = File::parse(&bytes).terms(bn254());
    assert!(terms.len() >= 3 && terms.iter().all(|t| t.extended));
    let last = terms[terms.len() - 1];
    let mut file = File::parse(&bytes);
    negate(&mut file, bn254(), last);
    let err = load_err(&builder(), &file.sealed());
    assert!(matches!(err, Error::PlanVerification(_)), "{err}");
    // One residue of a special prime's row.
    let mut file = File::parse(&bytes);
    let primes = terms[0].primes(bn254());
    let per_row = terms[0].len / primes.len();
    let w = &mut file.words[terms[0].residues + (primes.len() - 1) * per_row + 3];
    *w = (*w + 1) % primes[primes.len() - 1];
    let err = load_err(&builder(), &file.sealed());
    assert!(matches!(err, Error::PlanVerification(_)), "{err}");
}

/// A file of format version 5 (before tags) is refused with a message
/// saying to build the plan again.
#[test]
fn an_older_version_is_refused() {
    let mut file = File::parse(&save(tiny_builder()));
    file.words[1] = 5;
    let err = load_err(&tiny_builder(), &file.sealed());
    assert!(
        matches!(
            err,
            Error::PlanVersion {
                found: 5,
                supported: 7
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("build the plan again"), "{err}");
}
