//! Plan files cannot lie: a file whose diagonals were tampered with (one
//! negated, two swapped, one residue changed) or whose labels were changed
//! (direction, coset offset), with every checksum recomputed (the checksum
//! is keyless, so anyone can), is refused when loaded, as is a valid plan of
//! another spec (an inverse plan stored under the forward plan's file name).
//!
//! Files saved with a plan key: untouched, they load on their tag alone
//! (`PlanCheck::Authenticated`); tampered with, their checksums recomputed
//! and the key's id kept, the tag fails and the full verification refuses
//! them; files of another key load by verification.

use ark_bn254::Fr;
use ark_ff::{Fp64, MontBackend, MontConfig};
use he_fft::{Error, FftPlan, FftPlanBuilder, PlanCheck, PlanKey, Strategy, Unauthenticated};
use helib_rs::{Context, Parameters};
use std::sync::OnceLock;

#[derive(MontConfig)]
#[modulus = "65537"]
#[generator = "3"]
struct F65537Config;
type F65537 = Fp64<MontBackend<F65537Config, 1>>;

/// N = 1024, t = 65537, four 50-bit chain primes.
fn tiny() -> &'static Context {
    static TINY: OnceLock<Context> = OnceLock::new();
    TINY.get_or_init(|| {
        let params = Parameters::builder()
            .ring_degree(1 << 10)
            .plaintext_modulus(65537u32.into())
            .chain_bits(&[50; 4])
            .allow_insecure()
            .build()
            .expect("parameters");
        Context::new(&params).expect("context")
    })
}

/// N = 1024 over BN254 with room for a few levels.
fn bn254() -> &'static Context {
    static BN254: OnceLock<Context> = OnceLock::new();
    BN254.get_or_init(|| {
        let params = Parameters::builder()
            .ring_degree(1 << 10)
            .plaintext_modulus_from_field::<Fr>()
            .chain_bits(&[60; 19])
            .allow_insecure()
            .build()
            .expect("parameters");
        Context::new(&params).expect("context")
    })
}

/// A forward size-16 plan of two levels over F65537 (compact diagonals of
/// several lengths), or with the given settings.
fn tiny_builder() -> FftPlanBuilder<F65537> {
    FftPlan::<F65537>::builder(tiny(), 16).strategy(Strategy::Factored { levels: Some(2) })
}

fn save<F: ark_ff::PrimeField + ark_ff::FftField>(builder: FftPlanBuilder<F>) -> Vec<u8> {
    let plan = builder.build().expect("build");
    let mut bytes = Vec::new();
    plan.write_to(&mut bytes).expect("save");
    bytes
}

/// Loads `bytes` as the plan `builder` describes.
fn load<F: ark_ff::PrimeField + ark_ff::FftField>(
    builder: &FftPlanBuilder<F>,
    bytes: &[u8],
) -> he_fft::Result<FftPlan<F>> {
    builder.load_from(&mut &bytes[..])
}

/// The error loading `bytes` as `builder`'s plan gives (a loaded plan fails
/// the test).
fn load_err<F: ark_ff::PrimeField + ark_ff::FftField>(
    builder: &FftPlanBuilder<F>,
    bytes: &[u8],
) -> Error {
    match load(builder, bytes) {
        Ok(plan) => panic!("a tampered file loaded: {}", plan.describe()),
        Err(e) => e,
    }
}

/// The stream checksum of `helib_rs::lintrans::io`, written out here from
/// its description: sixteen lanes of `(lane ^ word) · K` rotated, lane i
/// taking the words at positions ≡ i mod 16, folded with the word count.
/// Anyone can compute it: that is the point of these tests.
#[derive(Clone, Copy)]
struct Checksum {
    lanes: [u64; 16],
    words: u64,
}

const MIX: u64 = 0x9e37_79b9_7f4a_7c15;
const FOLD: u64 = 0xc2b2_ae3d_27d4_eb4f;

impl Checksum {
    fn new() -> Self {
        let mut lanes = [0u64; 16];
        let mut seed = 0x243f_6a88_85a3_08d3u64;
        for lane in &mut lanes {
            *lane = seed;
            seed = Self::step(seed, 0x1319_8a2e_0370_7344);
        }
        Self { lanes, words: 0 }
    }

    fn step(lane: u64, word: u64) -> u64 {
        (lane ^ word).wrapping_mul(MIX).rotate_left(29)
    }

    fn push(&mut self, word: u64) {
        let i = (self.words % 16) as usize;
        self.lanes[i] = Self::step(self.lanes[i], word);
        self.words += 1;
    }

    fn value(&self) -> u64 {
        let mut h = self.words.wrapping_mul(FOLD);
        for lane in self.lanes {
            h = (h ^ lane).wrapping_mul(FOLD).rotate_left(31);
        }
        h ^ (h >> 29)
    }
}

/// A plan file as words, with the positions of its checkpoints (a word
/// equal to the checksum of everything before it).
struct File {
    words: Vec<u64>,
    checkpoints: Vec<usize>,
}

impl File {
    fn parse(bytes: &[u8]) -> Self {
        let words: Vec<u64> = bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let mut sum = Checksum::new();
        let mut checkpoints = Vec::new();
        for (i, &w) in words.iter().enumerate() {
            if w == sum.value() {
                checkpoints.push(i);
            }
            sum.push(w);
        }
        Self { words, checkpoints }
    }

    /// The bytes with every checkpoint recomputed.
    fn sealed(&self) -> Vec<u8> {
        let mut words = self.words.clone();
        let mut sum = Checksum::new();
        let mut next = self.checkpoints.iter().peekable();
        for (i, w) in words.iter_mut().enumerate() {
            if next.peek() == Some(&&i) {
                *w = sum.value();
                next.next();
            }
            sum.push(*w);
        }
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// The encoded diagonals: (word index of the payload's level word,
    /// level, extended, word index of the residues, residue count).
    fn terms(&self, context: &Context) -> Vec<Term> {
        let n = context.ring_degree();
        let specials = context.special_primes().len();
        let mut out = Vec::new();
        let w = &self.words;
        let mut i = 0;
        // A payload: level, extended flag, factor length 1, factor 1, two
        // norms, the residue count (rows × N / stride), the residues.
        while i + 7 < w.len() {
            let (level, extended, len) = (w[i], w[i + 1], w[i + 6]);
            if level > context.max_level() as u64 || extended > 1 || len > w.len() as u64 {
                i += 1;
                continue;
            }
            let rows = level as usize + 1 + if extended == 1 { specials } else { 0 };
            let fits = w[i + 2] == 1
                && w[i + 3] == 1
                && (len as usize).is_multiple_of(rows)
                && (16..=n).contains(&(len as usize / rows))
                && (len as usize / rows).is_power_of_two()
                && i + 7 + len as usize <= w.len();
            if fits {
                out.push(Term {
                    at: i,
                    level: level as usize,
                    extended: extended == 1,
                    residues: i + 7,
                    len: len as usize,
                });
                i += 7 + len as usize;
            } else {
                i += 1;
            }
        }
        out
    }
}

#[derive(Debug, Clone, Copy)]
struct Term {
    at: usize,
    level: usize,
    extended: bool,
    residues: usize,
    len: usize,
}

impl Term {
    /// The primes of its rows, in order.
    fn primes(&self, context: &Context) -> Vec<u64> {
        let mut primes = context.chain_primes()[..=self.level].to_vec();
        if self.extended {
            primes.extend_from_slice(context.special_primes());
        }
        primes
    }
}

/// Negates every residue of `term`: the encoding of the negated diagonal
/// (the NTT and the Montgomery form are linear; the norms do not change).
fn negate(file: &mut File, context: &Context, term: Term) {
    let primes = term.primes(context);
    let per_row = term.len / primes.len();
    for (r, q) in primes.iter().enumerate() {
        for w in &mut file.words[term.residues + r * per_row..term.residues + (r + 1) * per_row] {
            *w = (q - *w) % q;
        }
    }
}

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
/// followed by the key's id (two words) and a checkpoint.
fn tag_marker(file: &File) -> usize {
    file.checkpoints[0] + 1
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
    let (plan, check) = load_keyed(&tiny_builder(), &bytes, &key).expect("load");
    assert_eq!(check, PlanCheck::Authenticated);
    // The plan is the one saved: saved again with the key, the same bytes.
    let mut again = Vec::new();
    plan.write_to_with_key(&mut again, &key).expect("save");
    assert_eq!(again, bytes);
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
    // A changed tag alone leaves the plan intact: the tag fails, the
    // verification passes, and the load says so.
    let mut file = File::parse(&bytes);
    *file.words.last_mut().expect("the tag") ^= 1;
    let (_, check) = load_keyed(&tiny_builder(), &file.sealed(), &key).expect("load");
    assert_eq!(check, PlanCheck::Recomputed(Unauthenticated::TagMismatch));
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

/// Switching a tagged file's marker to "untagged" (and dropping its id and
/// tag) does not make it skip anything: it is verified.
#[test]
fn an_untagged_copy_of_a_tagged_file_is_verified() {
    let key = PlanKey::from_bytes([7; 32]);
    let bytes = save_keyed(tiny_builder(), &key);
    let mut file = File::parse(&bytes);
    let at = tag_marker(&file);
    file.words[at] = 0;
    file.words.drain(at + 1..at + 3);
    file.words.truncate(file.words.len() - 4);
    file.checkpoints = file
        .checkpoints
        .iter()
        .map(|&c| if c > at { c - 2 } else { c })
        .collect();
    let term = file.terms(tiny())[0];
    negate(&mut file, tiny(), term);
    let err = load_keyed(&tiny_builder(), &file.sealed(), &key).map(|(p, _)| p.describe());
    assert!(matches!(err, Err(Error::PlanVerification(_))), "{err:?}");
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
                supported: 6
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("build the plan again"), "{err}");
}
