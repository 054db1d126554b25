//! Schedules that count key generation (`KeyPolicy::executions`): against
//! the rotation-only schedules of the default policy, on random and
//! FFT-like diagonal shapes.

use helib_rs::lintrans::{KeyMode, KeyPolicy, Schedule, Shift, GALOIS_KEY_COST};
use helib_rs::{Context, Parameters};
use proptest::prelude::*;

/// The shifts `(swap, signed rotation)` as a shape on rows of length `row`.
fn shape(row: usize, shifts: &[(bool, i64)]) -> Vec<Shift> {
    shifts
        .iter()
        .map(|&(swap, rotation)| Shift {
            swap,
            rotation: rotation.rem_euclid(row as i64) as usize,
        })
        .collect()
}

fn policy(executions: u64) -> KeyPolicy {
    KeyPolicy {
        executions,
        ..KeyPolicy::default()
    }
}

/// The shape of a radix-2 FFT level grouping `stages` butterfly stages
/// whose smallest stride is `stride`: every sum of ±stride·2^i over the
/// group (both signs, each stage used or not).
fn fft_level(stride: i64, stages: u32) -> Vec<(bool, i64)> {
    let mut steps = vec![0i64];
    for i in 0..stages {
        let d = stride << i;
        steps = steps.iter().flat_map(|&s| [s - d, s, s + d]).collect();
    }
    steps.sort_unstable();
    steps.dedup();
    steps.into_iter().map(|s| (false, s)).collect()
}

/// The shapes the deterministic checks run on: contiguous runs, FFT
/// levels (with and without the row swap), sparse spreads.
fn fixed_shapes(row: usize) -> Vec<Vec<Shift>> {
    let contiguous: Vec<(bool, i64)> = (0..64).map(|k| (false, k)).collect();
    let swapped: Vec<(bool, i64)> = fft_level(1, 5)
        .into_iter()
        .flat_map(|(_, s)| [(false, s), (true, s)])
        .collect();
    let sparse: Vec<(bool, i64)> = (0..12).map(|k| (false, 37 * k - 200)).collect();
    [
        contiguous,
        fft_level(1, 4),
        fft_level(1, 6),
        fft_level(8, 3),
        swapped,
        sparse,
        vec![(false, 0)],
        vec![(true, 0)],
    ]
    .iter()
    .map(|s| shape(row, s))
    .collect()
}

const EXECUTIONS: [u64; 6] = [1, 2, 3, 10, 1000, 1 << 40];

/// The unbounded policy reproduces the rotation-only schedule exactly,
/// whatever the cap and the mode.
#[test]
fn unbounded_executions_keep_the_rotation_only_schedule() {
    let row = 1024;
    for s in fixed_shapes(row) {
        for mode in [KeyMode::Fast, KeyMode::MinimalKeys] {
            for cap in [1usize, 4, 16, usize::MAX] {
                let old = Schedule::for_shifts(row, &s, mode, cap);
                let policy = KeyPolicy {
                    mode,
                    max_baby_steps: cap,
                    executions: KeyPolicy::UNBOUNDED,
                };
                assert_eq!(policy.schedule_for_shape(row, &s), old);
            }
        }
        assert_eq!(
            KeyPolicy::default().schedule_for_shape(row, &s),
            Schedule::for_shifts(row, &s, KeyMode::Fast, usize::MAX)
        );
    }
}

/// One execution: no more keys than the default, never a higher total cost
/// under the model, and fewer keys as the executions shrink.
#[test]
fn fewer_executions_take_fewer_keys_at_no_higher_cost() {
    let row = 1024;
    for s in fixed_shapes(row) {
        check_against_default(row, &s);
    }
}

fn check_against_default(row: usize, s: &[Shift]) {
    let default = KeyPolicy::default().schedule_for_shape(row, s);
    let mut keys_before = 0usize;
    for executions in EXECUTIONS {
        let p = policy(executions);
        let chosen = p.schedule_for_shape(row, s);
        assert!(
            chosen.key_count() <= default.key_count(),
            "{executions} executions: {} keys, default {}",
            chosen.key_count(),
            default.key_count()
        );
        assert!(
            chosen.cost(&p) <= default.cost(&p) + 1e-9,
            "{executions} executions: cost {} above the default schedule's {}",
            chosen.cost(&p),
            default.cost(&p)
        );
        // A larger count weighs keys less, so never picks fewer of them.
        assert!(chosen.key_count() >= keys_before);
        keys_before = chosen.key_count();
        assert!(chosen.rotation_cost() >= default.rotation_cost() - 1e-9);
    }
}

/// The contiguous run 0..64: sixteen baby steps are fastest, but for one
/// execution eight are cheaper once their keys are counted:
/// 0.25·7 + 7 + 0.6·8 = 13.55 against 0.25·15 + 3 + 0.6·16 = 16.35.
#[test]
fn one_execution_trades_keys_for_key_switches() {
    let row = 1024;
    let s = shape(row, &(0..64).map(|k| (false, k)).collect::<Vec<_>>());
    let many = KeyPolicy::default().schedule_for_shape(row, &s);
    let once = policy(1).schedule_for_shape(row, &s);
    assert_eq!(GALOIS_KEY_COST, 0.6);
    assert_eq!((many.baby_steps(), many.key_count()), (16, 16));
    assert_eq!((once.baby_steps(), once.key_count()), (8, 8));
    assert!(once.key_switches() > many.key_switches());
    // A cap still applies on top.
    let capped = KeyPolicy {
        max_baby_steps: 4,
        ..policy(1)
    };
    assert_eq!(capped.schedule_for_shape(row, &s).baby_steps(), 4);
}

/// The key-free count matches the elements a context names, for the
/// schedules every policy picks.
#[test]
fn key_count_matches_the_required_elements() {
    let context = Context::new(&Parameters::for_tests()).unwrap();
    let row = context.ring_degree() / 2;
    let mut shapes = fixed_shapes(row);
    shapes.push(shape(
        row,
        &[(false, -6), (false, -1), (false, 2), (true, 0), (true, 5)],
    ));
    shapes.push(shape(
        row,
        &[(false, row as i64 / 2), (true, row as i64 / 2)],
    ));
    for s in shapes {
        for mode in [KeyMode::Fast, KeyMode::MinimalKeys] {
            for executions in [1, 5, KeyPolicy::UNBOUNDED] {
                for cap in [1usize, 2, usize::MAX] {
                    let p = KeyPolicy {
                        mode,
                        max_baby_steps: cap,
                        executions,
                    };
                    let schedule = p.schedule_for_shape(row, &s);
                    assert_eq!(
                        schedule.key_count(),
                        schedule.required_galois_elements(&context).len(),
                        "{p:?} {s:?}"
                    );
                }
            }
        }
    }
}

/// Minimal-keys schedules take a few keys whatever the count: it is ignored.
#[test]
fn minimal_keys_ignore_executions() {
    let row = 1024;
    for s in fixed_shapes(row) {
        let old = Schedule::for_shifts(row, &s, KeyMode::MinimalKeys, usize::MAX);
        for executions in EXECUTIONS {
            let p = KeyPolicy {
                mode: KeyMode::MinimalKeys,
                ..policy(executions)
            };
            assert_eq!(p.schedule_for_shape(row, &s), old);
        }
    }
}

/// A key serves every ciphertext a transform runs on.
#[test]
fn keys_are_amortized_over_ciphertexts() {
    assert_eq!(policy(3).per_ciphertext(4).executions, 12);
    assert_eq!(policy(3).per_ciphertext(0).executions, 3);
    assert_eq!(
        policy(KeyPolicy::UNBOUNDED).per_ciphertext(4).executions,
        KeyPolicy::UNBOUNDED
    );
    assert_eq!(policy(u64::MAX - 1).per_ciphertext(2).executions, u64::MAX);
    // Zero counts as one run.
    let row = 1024;
    let s = shape(row, &(0..64).map(|k| (false, k)).collect::<Vec<_>>());
    assert_eq!(
        policy(0).schedule_for_shape(row, &s),
        policy(1).schedule_for_shape(row, &s)
    );
    // Four ciphertexts run once weigh keys like one run four times.
    assert_eq!(
        policy(1).per_ciphertext(4).schedule_for_shape(row, &s),
        policy(4).schedule_for_shape(row, &s)
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random shapes: the checks of the fixed ones.
    #[test]
    fn random_shapes_against_the_default(
        shifts in proptest::collection::vec((any::<bool>(), -300i64..300), 1..40),
    ) {
        let row = 1024;
        let s = shape(row, &shifts);
        check_against_default(row, &s);
    }
}
