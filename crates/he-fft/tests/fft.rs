//! Encrypted FFTs against ark-poly's `Radix2EvaluationDomain`, for every
//! strategy and size class, at a small (insecure) ring.

mod support;

use ark_bn254::Fr;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::UniformRand;
use he_fft::{
    bit_reverse_permute, Direction, Error, FftPlan, FftPlanBuilder, KeyMode, KeyPolicy, Order,
    Strategy,
};
use helib_rs::{Context, Parameters, SecretKey};
use rand::SeedableRng;
use std::sync::OnceLock;
use support::{bn254_builder, context_of, Keys};

const LOG_N: u32 = 11;

fn setup() -> &'static Keys {
    static SETUP: OnceLock<Keys> = OnceLock::new();
    SETUP.get_or_init(|| Keys::new(context_of(bn254_builder(LOG_N, 19))))
}

fn random_vector(n: usize, seed: u64) -> Vec<Fr> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..n).map(|_| Fr::rand(&mut rng)).collect()
}

/// ark-poly's answer for the plan's transform, in natural order.
fn reference(n: usize, direction: Direction, coset: Option<Fr>, x: &[Fr]) -> Vec<Fr> {
    let mut domain = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
    if let Some(g) = coset {
        domain = domain.get_coset(g).unwrap();
    }
    match direction {
        Direction::Forward => domain.fft(x),
        Direction::Inverse => domain.ifft(x),
    }
}

struct Case {
    n: usize,
    direction: Direction,
    coset: Option<Fr>,
    strategy: Strategy,
    order: Order,
    mode: KeyMode,
}

fn run(case: Case) {
    run_with(case, |builder| builder);
}

/// `run` with extra builder settings.
fn run_with(case: Case, configure: impl FnOnce(FftPlanBuilder<Fr>) -> FftPlanBuilder<Fr>) {
    let s = setup();
    let mut builder = FftPlan::<Fr>::builder(&s.context, case.n)
        .direction(case.direction)
        .strategy(case.strategy)
        .input_order(case.order)
        .key_mode(case.mode);
    if let Some(g) = case.coset {
        builder = builder.coset(g);
    }
    let plan = configure(builder).build().expect("plan");
    let keys = plan.generate_galois_keys(&s.sk).expect("keys");
    let x = random_vector(case.n, case.n as u64);
    let inputs = plan.encrypt(&s.pk, &x).expect("encrypt");
    let outputs = plan.execute(&inputs, &keys).expect("execute");
    let got = plan.decrypt(&s.sk, &outputs).expect("decrypt");
    // Inputs and outputs in the plan's orders.
    let natural_in = match case.order {
        Order::Natural => x.clone(),
        Order::BitReversed => bit_reverse_permute(&x),
    };
    let want_natural = reference(case.n, case.direction, case.coset, &natural_in);
    let slots = s.context.ring_degree();
    let natural_out =
        case.n > slots || case.strategy == Strategy::Dense || case.order == Order::BitReversed;
    let expected_order = if natural_out {
        Order::Natural
    } else {
        Order::BitReversed
    };
    assert_eq!(plan.output_order(), expected_order);
    let want = if natural_out {
        want_natural
    } else {
        bit_reverse_permute(&want_natural)
    };
    assert_eq!(got, want, "{}", plan.describe());
}

fn factored(levels: usize) -> Strategy {
    Strategy::Factored {
        levels: Some(levels),
    }
}

#[test]
fn factored_fft_every_size_class() {
    let row = 1usize << (LOG_N - 1);
    for (n, levels) in [(2, 1), (8, 1), (64, 2), (row, 3), (2 * row, 3)] {
        for direction in [Direction::Forward, Direction::Inverse] {
            run(Case {
                n,
                direction,
                coset: None,
                strategy: factored(levels),
                order: Order::Natural,
                mode: KeyMode::Fast,
            });
        }
    }
}

#[test]
fn factored_fft_bit_reversed_input_and_cosets() {
    let g = Fr::from(7u64);
    for n in [16usize, 1 << LOG_N] {
        run(Case {
            n,
            direction: Direction::Forward,
            coset: Some(g),
            strategy: factored(2),
            order: Order::BitReversed,
            mode: KeyMode::Fast,
        });
        run(Case {
            n,
            direction: Direction::Inverse,
            coset: Some(g),
            strategy: factored(2),
            order: Order::Natural,
            mode: KeyMode::Fast,
        });
    }
}

#[test]
fn minimal_key_mode_matches() {
    run(Case {
        n: 256,
        direction: Direction::Forward,
        coset: None,
        strategy: factored(2),
        order: Order::Natural,
        mode: KeyMode::MinimalKeys,
    });
    run(Case {
        n: 1 << LOG_N,
        direction: Direction::Inverse,
        coset: Some(Fr::from(5u64)),
        strategy: factored(3),
        order: Order::BitReversed,
        mode: KeyMode::MinimalKeys,
    });
}

/// Fast plans pay full key switches only for giant steps (their baby steps
/// are double-hoisted); minimal-key plans pay one for every rotation, and
/// need far fewer keys.
#[test]
fn plan_costs_count_key_switches() {
    let context = &setup().context;
    let plan = |mode| {
        FftPlan::<Fr>::builder(context, 1024)
            .strategy(factored(2))
            .key_mode(mode)
            .build()
            .expect("plan")
    };
    let (fast, minimal) = (plan(KeyMode::Fast), plan(KeyMode::MinimalKeys));
    let (fast_cost, minimal_cost) = (fast.cost(), minimal.cost());
    assert!(fast_cost.key_switches > 0 && fast_cost.key_switches < fast_cost.rotations);
    assert_eq!(minimal_cost.key_switches, minimal_cost.rotations);
    assert_eq!(fast_cost.multiplications, minimal_cost.multiplications);
    assert!(
        minimal.required_galois_elements().len() < fast.required_galois_elements().len(),
        "minimal keys: {} elements, fast: {}",
        minimal.required_galois_elements().len(),
        fast.required_galois_elements().len()
    );
}

/// Capping the baby steps trades keys for giant steps, and stays exact.
#[test]
fn capped_baby_steps_use_fewer_keys() {
    let context = &setup().context;
    let plan = |cap: usize| {
        FftPlan::<Fr>::builder(context, 1024)
            .strategy(factored(2))
            .max_baby_steps(cap)
            .build()
            .expect("plan")
    };
    let (free, capped) = (plan(usize::MAX), plan(2));
    assert!(
        capped.required_galois_elements().len() < free.required_galois_elements().len(),
        "capped: {} keys, free: {}",
        capped.required_galois_elements().len(),
        free.required_galois_elements().len()
    );
    assert!(capped.cost().key_switches > free.cost().key_switches);
    run_with(
        Case {
            n: 1024,
            direction: Direction::Forward,
            coset: None,
            strategy: factored(2),
            order: Order::Natural,
            mode: KeyMode::Fast,
        },
        |builder| builder.max_baby_steps(2),
    );
    run_with(
        Case {
            n: 2 << LOG_N,
            direction: Direction::Inverse,
            coset: Some(Fr::from(7u64)),
            strategy: factored(2),
            order: Order::Natural,
            mode: KeyMode::Fast,
        },
        |builder| builder.max_baby_steps(1),
    );
}

/// Plans scheduled for one execution count key generation: no more keys
/// than the default plan's, no cheaper rotations, and still exact (one and
/// two ciphertexts, the dense strategy); an unbounded count is the default.
#[test]
fn one_execution_plans_take_fewer_keys_and_stay_exact() {
    let context = &setup().context;
    let plan = |n: usize, executions: Option<u64>| {
        let builder = FftPlan::<Fr>::builder(context, n).strategy(factored(2));
        match executions {
            Some(e) => builder.executions(e),
            None => builder,
        }
        .build()
        .expect("plan")
    };
    for n in [1024usize, 2 << LOG_N] {
        let (default, unbounded, once) = (
            plan(n, None),
            plan(n, Some(KeyPolicy::UNBOUNDED)),
            plan(n, Some(1)),
        );
        assert_eq!(unbounded.cost(), default.cost());
        assert_eq!(
            unbounded.required_galois_elements(),
            default.required_galois_elements()
        );
        let keys = |p: &FftPlan<Fr>| p.required_galois_elements().len();
        assert!(keys(&once) <= keys(&default), "n = {n}");
        assert!(once.cost().key_switches >= default.cost().key_switches);
    }
    // At n = 1024 the one-run plan takes strictly fewer keys.
    assert!(
        plan(1024, Some(1)).required_galois_elements().len()
            < plan(1024, None).required_galois_elements().len()
    );
    for (n, direction, coset, strategy) in [
        (1024, Direction::Forward, None, factored(2)),
        (256, Direction::Inverse, Some(Fr::from(5u64)), factored(3)),
        (2 << LOG_N, Direction::Forward, None, factored(2)),
        (32, Direction::Forward, None, Strategy::Dense),
    ] {
        run_with(
            Case {
                n,
                direction,
                coset,
                strategy,
                order: Order::Natural,
                mode: KeyMode::Fast,
            },
            |builder| builder.executions(1),
        );
    }
}

#[test]
fn dense_strategy_matches() {
    for n in [4usize, 32] {
        run(Case {
            n,
            direction: Direction::Forward,
            coset: None,
            strategy: Strategy::Dense,
            order: Order::Natural,
            mode: KeyMode::Fast,
        });
        run(Case {
            n,
            direction: Direction::Inverse,
            coset: Some(Fr::from(3u64)),
            strategy: Strategy::Dense,
            order: Order::BitReversed,
            mode: KeyMode::Fast,
        });
    }
}

#[test]
fn across_ciphertexts() {
    let n = 2usize << LOG_N;
    for direction in [Direction::Forward, Direction::Inverse] {
        run(Case {
            n,
            direction,
            coset: None,
            strategy: factored(2),
            order: Order::Natural,
            mode: KeyMode::Fast,
        });
    }
    run(Case {
        n,
        direction: Direction::Forward,
        coset: Some(Fr::from(11u64)),
        strategy: factored(2),
        order: Order::Natural,
        mode: KeyMode::Fast,
    });
    // Four ciphertexts: the products across them take a level, whose
    // modulus the groups' levels after them drop (forward, with and
    // without a coset); going back they come last.
    for (direction, coset) in [
        (Direction::Forward, None),
        (Direction::Forward, Some(Fr::from(11u64))),
        (Direction::Inverse, None),
    ] {
        run(Case {
            n: 4 << LOG_N,
            direction,
            coset,
            strategy: factored(2),
            order: Order::Natural,
            mode: KeyMode::Fast,
        });
    }
}

/// The lower-memory four-step mode (each ciphertext's own level kept as
/// plaintexts, encoded at each execution) computes the same transforms.
#[test]
fn across_ciphertexts_encoding_per_execution() {
    for (groups, direction, coset, mode) in [
        (4, Direction::Forward, None, KeyMode::Fast),
        (2, Direction::Inverse, Some(Fr::from(11u64)), KeyMode::Fast),
        (4, Direction::Inverse, None, KeyMode::MinimalKeys),
    ] {
        run_with(
            Case {
                n: groups << LOG_N,
                direction,
                coset,
                strategy: factored(2),
                order: Order::Natural,
                mode,
            },
            |builder| builder.encode_per_execution(),
        );
    }
}

#[test]
fn fft_then_ifft_round_trips_without_permutation() {
    let s = setup();
    let n = 512;
    let forward = FftPlan::<Fr>::builder(&s.context, n)
        .strategy(factored(1))
        .build()
        .unwrap();
    let level_after = forward
        .execute(
            &forward.encrypt(&s.pk, &random_vector(n, 1)).unwrap(),
            &forward.generate_galois_keys(&s.sk).unwrap(),
        )
        .unwrap()[0]
        .level();
    let inverse = FftPlan::<Fr>::builder(&s.context, n)
        .inverse()
        .input_order(Order::BitReversed)
        .strategy(factored(1))
        .input_level(level_after)
        .build()
        .unwrap();
    let x = random_vector(n, 2);
    let mut keys = forward.generate_galois_keys(&s.sk).unwrap();
    keys.add_elements(&s.sk, &inverse.required_galois_elements())
        .unwrap();
    let y = forward
        .execute(&forward.encrypt(&s.pk, &x).unwrap(), &keys)
        .unwrap();
    let back = inverse.execute(&y, &keys).unwrap();
    assert_eq!(inverse.decrypt(&s.sk, &back).unwrap(), x);
}

#[test]
fn bad_inputs_give_clear_errors() {
    let s = setup();
    assert!(matches!(
        FftPlan::<Fr>::builder(&s.context, 12).build(),
        Err(Error::InvalidSize(12))
    ));
    assert!(matches!(
        FftPlan::<Fr>::builder(&s.context, 1).build(),
        Err(Error::InvalidSize(1))
    ));
    assert!(matches!(
        FftPlan::<Fr>::builder(&s.context, 16)
            .strategy(factored(7))
            .build(),
        Err(Error::InvalidLevels(7))
    ));
    assert!(matches!(
        FftPlan::<Fr>::builder(&s.context, 16)
            .strategy(factored(4))
            .input_level(3)
            .build(),
        Err(Error::InsufficientBudget { .. })
    ));
    let plan = FftPlan::<Fr>::builder(&s.context, 16)
        .strategy(factored(2))
        .build()
        .unwrap();
    let inputs = plan.encrypt(&s.pk, &random_vector(16, 3)).unwrap();
    let empty = helib_rs::GaloisKeys::new(&s.context).unwrap();
    assert!(matches!(
        plan.execute(&inputs, &empty),
        Err(Error::MissingGaloisKey { .. })
    ));
    assert!(matches!(
        plan.encrypt(&s.pk, &random_vector(8, 3)),
        Err(Error::WrongLength { .. })
    ));
    let keys = plan.generate_galois_keys(&s.sk).unwrap();
    assert!(matches!(
        plan.execute(&[], &keys),
        Err(Error::WrongInputCount { .. })
    ));
    let low = inputs[0].mod_switch().unwrap();
    assert!(matches!(
        plan.execute(&[low], &keys),
        Err(Error::WrongInputLevel { .. })
    ));
}

/// A four-step plan encodes the twiddle-absorbing level once per
/// ciphertext and shares the others: doubling the ciphertexts adds only
/// copies of that level (it used to double the whole plan).
#[test]
fn four_step_plans_share_all_but_one_level() {
    let s = setup();
    let estimate = |groups: usize, direction: Direction| {
        FftPlan::<Fr>::builder(&s.context, groups << LOG_N)
            .direction(direction)
            .strategy(factored(2))
            .memory_estimate()
            .expect("estimate")
            .plan_bytes
    };
    for direction in [Direction::Forward, Direction::Inverse] {
        let (two, four) = (estimate(2, direction), estimate(4, direction));
        assert!(two > 0);
        assert!(
            four < 2 * two,
            "{direction:?}: {four} bytes for 4 ciphertexts, {two} for 2"
        );
    }
}

/// A plan depends on the context, n and its options, not on keys: one plan
/// serves clients with different secret keys (each bringing its own Galois
/// keys), and may be shared between threads.
#[test]
fn one_plan_serves_several_clients() {
    fn shareable<T: Send + Sync>(_: &T) {}
    let s = setup();
    let n = 2usize << LOG_N;
    let plan = FftPlan::<Fr>::builder(&s.context, n)
        .strategy(factored(2))
        .build()
        .expect("plan");
    shareable(&plan);
    let other = SecretKey::generate(&s.context).expect("second client's key");
    let want = reference(n, Direction::Forward, None, &random_vector(n, 5));
    std::thread::scope(|scope| {
        for sk in [&s.sk, &other] {
            let plan = &plan;
            let want = &want;
            scope.spawn(move || {
                let pk = sk.public_key().expect("pk");
                let keys = plan.generate_galois_keys(sk).expect("keys");
                let inputs = plan.encrypt(&pk, &random_vector(n, 5)).expect("encrypt");
                let outputs = plan.execute(&inputs, &keys).expect("execute");
                assert_eq!(&plan.decrypt(sk, &outputs).expect("decrypt"), want);
            });
        }
    });
}

/// Encryption and decryption of a plan's four ciphertexts run in parallel on
/// a 2-thread context and must give what one thread gives: the transform of
/// inputs encrypted on two threads decrypts, on two threads and on one, to
/// the reference FFT, as does the transform of inputs encrypted on one.
#[test]
fn parallel_encryption_and_decryption_equal_serial() {
    let params = Parameters::builder()
        .ring_degree(1 << LOG_N)
        .plaintext_modulus_from_field::<Fr>()
        .chain_bits(&[60; 19])
        .allow_insecure()
        .threads(2)
        .build()
        .expect("parameters");
    let context = Context::new(&params).expect("context");
    let sk = SecretKey::generate(&context).expect("sk");
    let pk = sk.public_key().expect("pk");
    let n = 4 << LOG_N;
    let plan = FftPlan::<Fr>::builder(&context, n)
        .strategy(factored(2))
        .build()
        .expect("plan");
    assert_eq!(plan.ciphertexts(), 4);
    let x = random_vector(n, 77);
    let inputs = plan.encrypt(&pk, &x).expect("encrypt on two threads");
    assert_eq!(inputs.len(), 4);
    let outputs = plan
        .execute(&inputs, &plan_keys(&plan, &sk))
        .expect("execute");
    let want = reference(n, Direction::Forward, None, &x);
    assert_eq!(plan.decrypt(&sk, &outputs).expect("decrypt"), want);
    context.set_threads(1).expect("one thread");
    assert_eq!(plan.decrypt(&sk, &outputs).expect("decrypt"), want);
    let serial_inputs = plan.encrypt(&pk, &x).expect("encrypt on one thread");
    let serial = plan
        .execute(&serial_inputs, &plan_keys(&plan, &sk))
        .expect("execute");
    assert_eq!(plan.decrypt(&sk, &serial).expect("decrypt"), want);
}

fn plan_keys(plan: &FftPlan<Fr>, sk: &SecretKey) -> helib_rs::GaloisKeys {
    plan.generate_galois_keys(sk).expect("keys")
}
