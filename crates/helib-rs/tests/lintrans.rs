//! Linear-transform objects (`helib_rs::lintrans`) against their slot model:
//! random small transforms decrypt to `SlotTransform::apply_plain` of the
//! input, and `required_galois_elements` names exactly the keys `apply` uses.

mod common;

use std::sync::{Mutex, OnceLock};

use ark_bn254::Fr;
use ark_ff::{FftField, PrimeField, UniformRand};
use common::{rng, t65537, Keyed, F65537};
use helib_rs::lintrans::{
    EncodedTransform, KeyMode, KeyPolicy, PlainTransform, Schedule, Shift, SlotTransform,
};
use helib_rs::{BatchEncoder, Ciphertext, Error, GaloisKeys};
use proptest::prelude::*;
use rand::Rng;

/// A keyed context and the Galois keys generated for it so far.
struct Fixture {
    keyed: Keyed,
    keys: Mutex<GaloisKeys>,
}

impl Fixture {
    fn new(keyed: Keyed) -> Self {
        let keys = Mutex::new(GaloisKeys::new(&keyed.context).unwrap());
        Self { keyed, keys }
    }

    /// Runs `f` with keys that hold at least `elements`.
    fn with_keys<T>(&self, elements: &[u64], f: impl FnOnce(&GaloisKeys) -> T) -> T {
        let mut keys = self.keys.lock().unwrap();
        let missing: Vec<u64> = elements
            .iter()
            .copied()
            .filter(|&g| !keys.contains(g))
            .collect();
        if !missing.is_empty() {
            keys.add_elements(&self.keyed.sk, &missing).unwrap();
        }
        f(&keys)
    }
}

/// N = 1024 with t = the BN254 scalar field (depth 2).
fn bn254() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| Fixture::new(Keyed::new(1024, &common::bn254(), 2)))
}

/// N = 2048 with t = 65537 (depth 2).
fn small_t() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| Fixture::new(Keyed::new(2048, &t65537(), 2)))
}

fn random_slots<F: UniformRand>(n: usize, rng: &mut impl Rng) -> Vec<F> {
    (0..n).map(|_| F::rand(rng)).collect()
}

/// Two rows of `row` random values that repeat with period `period` (a
/// power of two up to `row`; the rows differ).
fn periodic_slots<F: UniformRand + Copy>(row: usize, period: usize, rng: &mut impl Rng) -> Vec<F> {
    let patterns: [Vec<F>; 2] = [random_slots(period, rng), random_slots(period, rng)];
    (0..2 * row)
        .map(|slot| patterns[slot / row][slot % row % period])
        .collect()
}

/// A transform with up to `terms` random diagonals; rotations are drawn
/// from `0..span` and its negatives, so the schedules stay varied but small.
/// Half the diagonals repeat along the rows with a random period, so the
/// engine keeps their encodings compact (`EncodedPlaintext::stride`) and
/// transforms mix compact and full encodings.
fn random_transform<F: PrimeField>(
    row: usize,
    terms: usize,
    span: usize,
    swaps: bool,
    rng: &mut impl Rng,
) -> SlotTransform<F> {
    let mut t = SlotTransform::zero(row);
    for _ in 0..terms {
        let step = rng.gen_range(0..span);
        let rotation = if rng.gen_bool(0.5) {
            step
        } else {
            (row - step) % row
        };
        let shift = Shift {
            swap: swaps && rng.gen_bool(0.5),
            rotation,
        };
        let values = if rng.gen_bool(0.5) {
            random_slots(2 * row, rng)
        } else {
            let period = 1 << rng.gen_range(0..=row.trailing_zeros());
            periodic_slots(row, period, rng)
        };
        t.add_term(shift, &values);
    }
    t
}

/// Encrypts `x`, applies `t` as an encoded (or plain) transform under
/// `policy` and decrypts.
fn evaluate<F: PrimeField + FftField>(
    fixture: &Fixture,
    t: &SlotTransform<F>,
    policy: KeyPolicy,
    per_execution: bool,
    x: &[F],
) -> Vec<F> {
    let keyed = &fixture.keyed;
    let encoder = BatchEncoder::<F>::new(&keyed.context).unwrap();
    let ct = keyed.pk.encrypt(&encoder.encode(x).unwrap()).unwrap();
    let level = ct.level();
    let y: Ciphertext = if per_execution {
        let plain = PlainTransform::new(t, policy, &encoder, level).unwrap();
        fixture.with_keys(&plain.required_galois_elements(), |keys| {
            plain.apply(&ct, keys).unwrap()
        })
    } else {
        let encoded = EncodedTransform::new(t, policy, &encoder, level).unwrap();
        assert_eq!(encoded.multiplications(), t.len());
        fixture.with_keys(&encoded.required_galois_elements(), |keys| {
            encoded.apply(&ct, keys).unwrap()
        })
    };
    encoder.decode(&keyed.sk.decrypt(&y).unwrap()).unwrap()
}

fn mode(minimal: bool) -> KeyMode {
    if minimal {
        KeyMode::MinimalKeys
    } else {
        KeyMode::Fast
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, ..ProptestConfig::default() })]

    #[test]
    fn random_transforms_match_the_slot_model_bn254(
        seed: u64,
        terms in 1usize..7,
        span in 1usize..20,
        swaps: bool,
        minimal: bool,
        per_execution: bool,
        cap_log in 0u32..5,
    ) {
        let fixture = bn254();
        let row = fixture.keyed.context.ring_degree() / 2;
        let mut rng = rng(seed);
        let t = random_transform::<Fr>(row, terms, span, swaps, &mut rng);
        prop_assume!(!t.is_empty());
        let policy = KeyPolicy { mode: mode(minimal), max_baby_steps: 1 << cap_log, ..KeyPolicy::default() };
        let x: Vec<Fr> = random_slots(2 * row, &mut rng);
        prop_assert_eq!(evaluate(fixture, &t, policy, per_execution, &x), t.apply_plain(&x));
    }

    #[test]
    fn random_transforms_match_the_slot_model_65537(
        seed: u64,
        terms in 1usize..7,
        span in 1usize..40,
        swaps: bool,
        minimal: bool,
        per_execution: bool,
        cap_log in 0u32..6,
    ) {
        let fixture = small_t();
        let row = fixture.keyed.context.ring_degree() / 2;
        let mut rng = rng(seed);
        let t = random_transform::<F65537>(row, terms, span, swaps, &mut rng);
        prop_assume!(!t.is_empty());
        let policy = KeyPolicy { mode: mode(minimal), max_baby_steps: 1 << cap_log, ..KeyPolicy::default() };
        let x: Vec<F65537> = random_slots(2 * row, &mut rng);
        prop_assert_eq!(evaluate(fixture, &t, policy, per_execution, &x), t.apply_plain(&x));
    }

    /// Composition in the slot model is applying one map after the other.
    #[test]
    fn composition_is_sequential_application(seed: u64, a in 1usize..6, b in 1usize..6) {
        let row = 32;
        let mut rng = rng(seed);
        let first = random_transform::<Fr>(row, a, row, true, &mut rng);
        let second = random_transform::<Fr>(row, b, row, true, &mut rng);
        let x: Vec<Fr> = random_slots(2 * row, &mut rng);
        prop_assert_eq!(
            second.after(&first).apply_plain(&x),
            second.apply_plain(&first.apply_plain(&x))
        );
    }
}

/// A transform with diagonals at the given (swap, signed step) pairs.
fn transform_at(row: usize, shifts: &[(bool, i64)], seed: u64) -> SlotTransform<Fr> {
    let mut rng = rng(seed);
    let mut t = SlotTransform::zero(row);
    for &(swap, step) in shifts {
        let rotation = step.rem_euclid(row as i64) as usize;
        t.add_term(Shift { swap, rotation }, &random_slots(2 * row, &mut rng));
    }
    t
}

/// With keys for exactly `required_galois_elements` the transform runs and
/// matches the slot model; without any one of them it fails with the typed
/// missing-key error naming that element.
fn check_exact_keys(t: &SlotTransform<Fr>, policy: KeyPolicy) {
    let keyed = &bn254().keyed;
    let encoder = BatchEncoder::<Fr>::new(&keyed.context).unwrap();
    let x: Vec<Fr> = random_slots(encoder.slot_count(), &mut rng(7));
    let ct = keyed.sk.encrypt(&encoder.encode(&x).unwrap()).unwrap();
    let encoded = EncodedTransform::new(t, policy, &encoder, ct.level()).unwrap();
    let required = encoded.required_galois_elements();
    assert_eq!(
        required,
        encoded.schedule().required_galois_elements(&keyed.context),
        "the transform's keys are its schedule's"
    );
    assert!(!required.contains(&1), "the identity needs no key");

    let keys = GaloisKeys::for_elements(&keyed.sk, &required).unwrap();
    let y = encoded.apply(&ct, &keys).unwrap();
    let slots = encoder.decode(&keyed.sk.decrypt(&y).unwrap()).unwrap();
    assert_eq!(slots, t.apply_plain(&x));

    for &missing in &required {
        let fewer: Vec<u64> = required.iter().copied().filter(|&g| g != missing).collect();
        let keys = GaloisKeys::for_elements(&keyed.sk, &fewer).unwrap();
        match encoded.apply(&ct, &keys) {
            Err(Error::MissingGaloisKey { element, .. }) => assert_eq!(
                element, missing,
                "{policy:?}: the error names the missing element"
            ),
            other => panic!(
                "{policy:?}: without the key for {missing} expected MissingGaloisKey, got {:?}",
                other.map(|_| "a ciphertext")
            ),
        }
    }
}

fn policies() -> [KeyPolicy; 3] {
    [
        KeyPolicy::default(),
        KeyPolicy {
            mode: KeyMode::MinimalKeys,
            max_baby_steps: usize::MAX,
            ..KeyPolicy::default()
        },
        KeyPolicy {
            mode: KeyMode::Fast,
            max_baby_steps: 2,
            ..KeyPolicy::default()
        },
    ]
}

/// Shifts {0, 3}: the schedule's baby range covers 0..4 but only two baby
/// steps hold a diagonal, so only those take keys.
#[test]
fn sparse_baby_steps_need_only_their_keys() {
    let row = bn254().keyed.context.ring_degree() / 2;
    let t = transform_at(row, &[(false, 0), (false, 3)], 1);
    for policy in policies() {
        check_exact_keys(&t, policy);
    }
    let fast = Schedule::new(&t, KeyMode::Fast);
    assert_eq!(
        fast.required_galois_elements(&bn254().keyed.context),
        vec![GaloisKeys::element_for_step(&bn254().keyed.context, 3)],
        "baby count {}: one key, for the rotation by 3",
        fast.baby_steps()
    );
}

/// Negative steps (a final alignment with iterated baby steps), the row
/// swap, and several giant steps.
#[test]
fn mixed_shifts_need_exactly_their_keys() {
    let row = bn254().keyed.context.ring_degree() / 2;
    let t = transform_at(
        row,
        &[
            (false, -6),
            (false, -1),
            (false, 2),
            (true, 0),
            (true, 5),
            (false, 9),
        ],
        2,
    );
    for policy in policies() {
        check_exact_keys(&t, policy);
    }
}

/// A lone diagonal at shift 0 is a plaintext product: no key at all.
#[test]
fn a_plain_diagonal_needs_no_key() {
    let keyed = &bn254().keyed;
    let row = keyed.context.ring_degree() / 2;
    let t = transform_at(row, &[(false, 0)], 3);
    let encoder = BatchEncoder::<Fr>::new(&keyed.context).unwrap();
    for policy in policies() {
        let encoded = EncodedTransform::new(&t, policy, &encoder, 1).unwrap();
        assert!(encoded.required_galois_elements().is_empty(), "{policy:?}");
    }
}

#[test]
fn bad_transforms_are_refused() {
    let keyed = &bn254().keyed;
    let encoder = BatchEncoder::<Fr>::new(&keyed.context).unwrap();
    let row = keyed.context.ring_degree() / 2;
    let ct = keyed
        .sk
        .encrypt(&encoder.encode(&[Fr::from(1u64)]).unwrap())
        .unwrap();
    let keys = GaloisKeys::new(&keyed.context).unwrap();
    for policy in policies() {
        // The zero map has nothing to evaluate.
        let zero = SlotTransform::<Fr>::zero(row);
        let encoded = EncodedTransform::new(&zero, policy, &encoder, ct.level()).unwrap();
        assert!(matches!(
            encoded.apply(&ct, &keys),
            Err(Error::InvalidArgument(_))
        ));
        let plain = PlainTransform::new(&zero, policy, &encoder, ct.level()).unwrap();
        assert!(matches!(
            plain.apply(&ct, &keys),
            Err(Error::InvalidArgument(_))
        ));
        // A transform on another slot count.
        let small = transform_at(row / 2, &[(false, 1)], 4);
        assert!(matches!(
            EncodedTransform::new(&small, policy, &encoder, ct.level()),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            PlainTransform::new(&small, policy, &encoder, ct.level()),
            Err(Error::InvalidArgument(_))
        ));
        // A level above the top.
        let one = transform_at(row, &[(false, 1)], 5);
        assert!(EncodedTransform::new(&one, policy, &encoder, ct.level() + 1).is_err());
    }
}
