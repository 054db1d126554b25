//! Bad inputs to plans give typed errors — never a panic, never a silently
//! wrong result: builder settings (tables and a property test) and the
//! inputs of `encrypt`, `execute` and `decrypt`, at a small (insecure) ring.

use ark_bn254::Fr;
use ark_ff::{FftField, Zero};
use ark_std::UniformRand;
use he_fft::{Direction, Error, FftPlan, FftPlanBuilder, KeyMode, Order, Strategy};
use helib_rs::{Context, GaloisKeys, Parameters, PublicKey, SecretKey};
use proptest::prelude::{
    any, prop_assert, prop_assert_eq, prop_oneof, proptest, Just, ProptestConfig,
};
use proptest::strategy::Strategy as _;
use rand::SeedableRng;
use std::sync::OnceLock;

const LOG_N: u32 = 11;
const SLOTS: usize = 1 << LOG_N;

struct Setup {
    context: Context,
    sk: SecretKey,
    pk: PublicKey,
}

fn params() -> Parameters {
    Parameters::builder()
        .ring_degree(SLOTS)
        .plaintext_modulus_from_field::<Fr>()
        .chain_bits(&[60; 19])
        .allow_insecure()
        .build()
        .expect("parameters")
}

fn keys_for(context: Context) -> Setup {
    let sk = SecretKey::generate(&context).expect("sk");
    let pk = sk.public_key().expect("pk");
    Setup { context, sk, pk }
}

fn setup() -> &'static Setup {
    static SETUP: OnceLock<Setup> = OnceLock::new();
    SETUP.get_or_init(|| keys_for(Context::new(&params()).expect("context")))
}

/// A second context with the same parameters: equal in every number, yet
/// its keys and ciphertexts must not mix with the first's.
fn other() -> &'static Setup {
    static OTHER: OnceLock<Setup> = OnceLock::new();
    OTHER.get_or_init(|| keys_for(Context::new(&params()).expect("context")))
}

fn random_vector(n: usize, seed: u64) -> Vec<Fr> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..n).map(|_| Fr::rand(&mut rng)).collect()
}

fn factored(levels: usize) -> Strategy {
    Strategy::Factored {
        levels: Some(levels),
    }
}

fn builder(n: usize) -> FftPlanBuilder<Fr> {
    FftPlan::<Fr>::builder(&setup().context, n)
}

/// A zero offset is no coset (and the inverse would divide by it): every
/// direction, strategy and size class refuses it at `build`, where an
/// inverse plan used to come out as the plain ifft.
#[test]
fn zero_coset_offset_is_refused_everywhere() {
    for n in [8, SLOTS, 2 * SLOTS] {
        for direction in [Direction::Forward, Direction::Inverse] {
            for strategy in [
                Strategy::Dense,
                Strategy::Factored { levels: None },
                factored(1),
            ] {
                let built = builder(n)
                    .direction(direction)
                    .strategy(strategy)
                    .coset(Fr::zero())
                    .build();
                assert!(
                    matches!(built, Err(Error::InvalidCosetOffset)),
                    "n={n} {direction:?} {strategy:?}: {:?}",
                    built.err()
                );
            }
        }
    }
}

/// Every invalid builder setting, one at a time, with the error it must give.
#[test]
fn invalid_builder_settings_give_typed_errors() {
    let max = setup().context.max_level();
    type Check = fn(&Error) -> bool;
    let cases: Vec<(&str, FftPlanBuilder<Fr>, Check)> = vec![
        ("n = 0", builder(0), |e| matches!(e, Error::InvalidSize(0))),
        ("n = 1", builder(1), |e| matches!(e, Error::InvalidSize(1))),
        ("n = 3", builder(3), |e| matches!(e, Error::InvalidSize(3))),
        ("n = 12", builder(12), |e| {
            matches!(e, Error::InvalidSize(12))
        }),
        ("n = usize::MAX", builder(usize::MAX), |e| {
            matches!(e, Error::InvalidSize(usize::MAX))
        }),
        // BN254's scalar field has 2-adicity 28: no root of unity of order 2^29.
        (
            "n = 2^29",
            builder(1 << 29),
            |e| matches!(e, Error::InvalidSize(n) if *n == 1 << 29),
        ),
        (
            "n = 2^63",
            builder(1 << 63),
            |e| matches!(e, Error::InvalidSize(n) if *n == 1 << 63),
        ),
        ("zero coset", builder(16).inverse().coset(Fr::zero()), |e| {
            matches!(e, Error::InvalidCosetOffset)
        }),
        ("max_baby_steps(0)", builder(16).max_baby_steps(0), |e| {
            matches!(e, Error::InvalidMaxBabySteps(0))
        }),
        ("executions(0)", builder(16).executions(0), |e| {
            matches!(e, Error::InvalidExecutions(0))
        }),
        ("0 levels", builder(16).strategy(factored(0)), |e| {
            matches!(e, Error::InvalidLevels(0))
        }),
        ("5 levels", builder(16).strategy(factored(5)), |e| {
            matches!(e, Error::InvalidLevels(5))
        }),
        (
            "level above the top",
            builder(16).input_level(max + 1),
            |e| matches!(e, Error::InputLevelOutOfRange { level, max } if *level == max + 1),
        ),
        (
            "level usize::MAX",
            builder(16).input_level(usize::MAX),
            |e| {
                matches!(
                    e,
                    Error::InputLevelOutOfRange {
                        level: usize::MAX,
                        ..
                    }
                )
            },
        ),
        (
            "dense beyond one ciphertext",
            builder(2 * SLOTS).strategy(Strategy::Dense),
            |e| matches!(e, Error::Unsupported(_)),
        ),
        (
            "bit-reversed input beyond one ciphertext",
            builder(2 * SLOTS).input_order(Order::BitReversed),
            |e| matches!(e, Error::Unsupported(_)),
        ),
        (
            "too deep for level 3",
            builder(16).strategy(factored(4)).input_level(3),
            |e| matches!(e, Error::InsufficientBudget { .. }),
        ),
        (
            "over a 1 MiB memory limit",
            builder(1024).memory_limit(1 << 20),
            |e| matches!(e, Error::InsufficientMemory { estimated, limit: 1048576 } if *estimated > 1 << 20),
        ),
    ];
    for (what, builder, expected) in cases {
        match builder.build() {
            Err(e) => assert!(expected(&e), "{what}: got {e:?}"),
            Ok(plan) => panic!("{what}: built {}", plan.describe()),
        }
    }
}

/// Automatic level counts leave room for the levels a plan adds (here the
/// coset's products across ciphertexts): the choice used to take the whole
/// budget and then fail the budget check.
#[test]
fn automatic_levels_leave_room_for_extra_levels() {
    let available = he_fft::affordable_levels(&setup().context, setup().context.max_level());
    let plan = builder(2 * SLOTS)
        .coset(Fr::from(3u64))
        .build()
        .expect("plan");
    assert_eq!(plan.depth(), available, "{}", plan.describe());
}

/// `decrypt` takes exactly the plan's number of ciphertexts: none used to
/// panic (index out of bounds), too few came back as a zero-filled or
/// half-length vector, too many were silently ignored.
#[test]
fn decrypt_refuses_the_wrong_number_of_outputs() {
    let s = setup();
    for (n, direction) in [
        (16, Direction::Forward),
        (SLOTS, Direction::Inverse),
        (2 * SLOTS, Direction::Forward),
        (2 * SLOTS, Direction::Inverse),
    ] {
        let plan = builder(n)
            .direction(direction)
            .strategy(factored(3))
            .build()
            .expect("plan");
        let expected = plan.ciphertexts();
        // Any ciphertexts of the context do for decryption.
        let mut cts = plan.encrypt(&s.pk, &random_vector(n, 1)).expect("encrypt");
        assert_eq!(cts.len(), expected);
        let one_more = cts[0].clone();
        cts.push(one_more);
        for got in [0, expected - 1, expected + 1] {
            if got == expected {
                continue;
            }
            let result = plan.decrypt(&s.sk, &cts[..got]);
            assert!(
                matches!(result, Err(Error::WrongOutputCount { expected: e, got: g }) if e == expected && g == got),
                "n={n} {direction:?}, {got} of {expected} outputs: {result:?}"
            );
        }
        assert_eq!(
            plan.decrypt(&s.sk, &cts[..expected])
                .expect("decrypt")
                .len(),
            n
        );
    }
}

/// Keys and ciphertexts of another context (even one with equal parameters)
/// are refused by `encrypt`, `execute` and `decrypt` before any work.
#[test]
fn other_contexts_are_refused() {
    let (s, o) = (setup(), other());
    let plan = builder(16).strategy(factored(1)).build().expect("plan");
    let keys = plan.generate_galois_keys(&s.sk).expect("keys");
    let x = random_vector(16, 2);
    let mine = plan.encrypt(&s.pk, &x).expect("encrypt");
    let foreign_plan = FftPlan::<Fr>::builder(&o.context, 16)
        .strategy(factored(1))
        .build()
        .expect("plan");
    let theirs = foreign_plan.encrypt(&o.pk, &x).expect("encrypt");
    let their_keys = foreign_plan.generate_galois_keys(&o.sk).expect("keys");

    let mismatch = |e: Option<Error>| matches!(e, Some(Error::ContextMismatch));
    assert!(mismatch(plan.encrypt(&o.pk, &x).err()));
    assert!(mismatch(plan.execute(&theirs, &keys).err()));
    assert!(mismatch(plan.execute(&mine, &their_keys).err()));
    assert!(mismatch(plan.decrypt(&s.sk, &theirs).err()));
    assert!(mismatch(plan.decrypt(&o.sk, &mine).err()));
    // The plan itself still works.
    let y = plan.execute(&mine, &keys).expect("execute");
    assert_eq!(plan.decrypt(&s.sk, &y).expect("decrypt").len(), 16);
}

/// Wrong counts, lengths, sizes and levels of `encrypt` / `execute` inputs.
#[test]
fn execute_and_encrypt_inputs_are_checked() {
    let s = setup();
    let plan = builder(16)
        .strategy(factored(1))
        .key_mode(KeyMode::MinimalKeys)
        .build()
        .expect("plan");
    let keys = plan.generate_galois_keys(&s.sk).expect("keys");
    for len in [0, 15, 17, 32] {
        assert!(matches!(
            plan.encrypt(&s.pk, &random_vector(len, 3)),
            Err(Error::WrongLength { expected: 16, got }) if got == len
        ));
    }
    let inputs = plan.encrypt(&s.pk, &random_vector(16, 3)).expect("encrypt");
    let two = [inputs[0].clone(), inputs[0].clone()];
    for cts in [&[][..], &two[..]] {
        assert!(matches!(
            plan.execute(cts, &keys),
            Err(Error::WrongInputCount { expected: 1, got }) if got == cts.len()
        ));
    }
    // A product not relinearized has three parts.
    let square = inputs[0].multiply(&inputs[0]).expect("square");
    assert_eq!(square.size(), 3);
    assert!(matches!(
        plan.execute(&[square], &keys),
        Err(Error::InputNotRelinearized { parts: 3 })
    ));
    let low = inputs[0].mod_switch().expect("mod switch");
    assert!(matches!(
        plan.execute(&[low], &keys),
        Err(Error::WrongInputLevel { .. })
    ));
    let empty = GaloisKeys::new(&s.context).expect("keys");
    assert!(matches!(
        plan.execute(&inputs, &empty),
        Err(Error::MissingGaloisKey { .. })
    ));
}

/// Which error a builder with these settings must give first, if any is
/// certain (the budget and memory checks depend on the plan).
fn expected_error(
    n: usize,
    coset_zero: bool,
    babies: usize,
    strategy: Strategy,
    level: usize,
) -> Option<Error> {
    let max = setup().context.max_level();
    if n < 2 || !n.is_power_of_two() || n > 1 << Fr::TWO_ADICITY {
        Some(Error::InvalidSize(n))
    } else if coset_zero {
        Some(Error::InvalidCosetOffset)
    } else if babies == 0 {
        Some(Error::InvalidMaxBabySteps(0))
    } else if let Strategy::Factored {
        levels: Some(k @ (0 | 5..)),
    } = strategy
    {
        Some(Error::InvalidLevels(k))
    } else if level > max {
        Some(Error::InputLevelOutOfRange { level, max })
    } else {
        None
    }
}

/// Sizes biased towards small valid ones (which get built), with any
/// power of two and any number at all mixed in.
fn sizes() -> impl proptest::strategy::Strategy<Value = usize> {
    prop_oneof![
        4 => (1u32..=6).prop_map(|k| 1usize << k),
        1 => (0u32..usize::BITS).prop_map(|k| 1usize << k),
        1 => 0usize..70,
        1 => any::<usize>(),
    ]
}

/// The property test's memory limit: plans up to n ≈ 64 fit, larger ones
/// are refused from their estimate (so the test stays fast).
const LIMIT: usize = 32 << 20;

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 48,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Any builder settings give a plan or a typed error, never a panic; the
    /// invalid ones give their own error, and the memory check holds.
    #[test]
    fn builder_never_panics(
        n in sizes(),
        inverse in any::<bool>(),
        coset in proptest::option::of(0u64..4),
        dense in proptest::bool::weighted(0.3),
        levels in proptest::option::of(prop_oneof![4 => 1usize..=4, 1 => Just(0usize), 1 => 5usize..8]),
        babies in prop_oneof![1 => Just(0usize), 5 => 1usize..8],
        level in proptest::option::weighted(0.3, 0usize..24),
        bit_reversed in any::<bool>(),
        natural_output in proptest::bool::weighted(0.2),
    ) {
        let strategy = if dense { Strategy::Dense } else { Strategy::Factored { levels } };
        let mut b = builder(n)
            .strategy(strategy)
            .max_baby_steps(babies)
            .input_order(if bit_reversed { Order::BitReversed } else { Order::Natural })
            .memory_limit(LIMIT);
        if inverse {
            b = b.inverse();
        }
        if let Some(g) = coset {
            b = b.coset(Fr::from(g));
        }
        if let Some(l) = level {
            b = b.input_level(l);
        }
        if natural_output {
            b = b.natural_output();
        }
        let max = setup().context.max_level();
        let want = expected_error(n, coset == Some(0), babies, strategy, level.unwrap_or(max));
        let estimate = b.memory_estimate();
        match (b.build(), want) {
            (Err(e), Some(w)) => prop_assert_eq!(format!("{e:?}"), format!("{w:?}")),
            (Ok(plan), None) => {
                prop_assert!(plan.estimated_memory_bytes() <= LIMIT);
                prop_assert_eq!(Some(plan.memory_estimate()), estimate.ok());
            }
            (Err(Error::InsufficientMemory { estimated, limit }), None) => {
                prop_assert!(estimated > limit);
                prop_assert_eq!(Some(estimated), estimate.ok().map(|e| e.peak_bytes()));
            }
            (Err(e), None) => prop_assert!(
                matches!(
                    e,
                    Error::Unsupported(_) | Error::InsufficientBudget { .. }
                ),
                "unexpected {:?}", e
            ),
            (Ok(plan), Some(w)) => prop_assert!(false, "built {} despite {:?}", plan.describe(), w),
        }
    }
}
