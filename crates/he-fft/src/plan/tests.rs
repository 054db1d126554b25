//! Plan tests: memory estimates against what built plans hold.

use super::{level_after, Direction, FftPlan, Pipeline, Strategy, Twiddled};
use crate::memory::Sizes;
use crate::stages::Order;
use ark_bn254::Fr;
use helib_rs::lintrans::{EncodedTransform, KeyMode};
use helib_rs::{Context, Parameters};

/// The bytes of the diagonals a built plan actually holds.
fn held_bytes(plan: &FftPlan<Fr>) -> usize {
    let sizes = Sizes::new(&plan.context).unwrap();
    let of = |t: &EncodedTransform| t.encoded_bytes().unwrap();
    match &plan.pipeline {
        Pipeline::Levels(levels) => levels.iter().map(of).sum(),
        Pipeline::Dense(_) => 0,
        Pipeline::Split(split) => {
            let own: usize = match &split.twiddled {
                Twiddled::Encoded(t) => t.iter().map(of).sum(),
                Twiddled::Plain(t) => t
                    .iter()
                    .map(|t| t.multiplications() * sizes.plaintext())
                    .sum(),
            };
            own + split.shared.iter().map(of).sum::<usize>()
        }
    }
}

/// An insecure N = 1024 context over BN254's scalar field with `primes`
/// chain primes of 60 bits.
fn bn254_context(primes: usize) -> Context {
    let params = Parameters::builder()
        .ring_degree(1 << 10)
        .plaintext_modulus_from_field::<Fr>()
        .chain_bits(&vec![60; primes])
        .allow_insecure()
        .build()
        .unwrap();
    Context::new(&params).unwrap()
}

/// The estimate, made from shapes before anything is encoded, counts
/// exactly the diagonals and Galois keys the built plan has.
#[test]
fn estimates_count_what_the_plan_holds() {
    let context = bn254_context(19);
    let sizes = Sizes::new(&context).unwrap();
    let factored = |levels| Strategy::Factored {
        levels: Some(levels),
    };
    let cases = [
        (8, factored(1), Order::Natural, KeyMode::Fast, false),
        (64, factored(2), Order::BitReversed, KeyMode::Fast, false),
        (64, factored(2), Order::Natural, KeyMode::Fast, true),
        (
            256,
            factored(3),
            Order::Natural,
            KeyMode::MinimalKeys,
            false,
        ),
        (1024, factored(3), Order::Natural, KeyMode::Fast, false),
        (2048, factored(2), Order::Natural, KeyMode::Fast, false),
        (32, Strategy::Dense, Order::Natural, KeyMode::Fast, false),
    ];
    let pool_limit = helib_rs::buffer_pool_limit_bytes().unwrap();
    for (n, strategy, order, mode, natural_output) in cases {
        for direction in [Direction::Forward, Direction::Inverse] {
            let mut builder = FftPlan::<Fr>::builder(&context, n)
                .direction(direction)
                .strategy(strategy)
                .input_order(order)
                .key_mode(mode)
                .coset(Fr::from(5u64));
            if natural_output {
                builder = builder.natural_output();
            }
            let before = builder.memory_estimate().unwrap();
            let plan = builder.build().unwrap();
            let what = plan.describe();
            assert_eq!(plan.memory_estimate(), before, "{what}");
            assert_eq!(before.plan_bytes, held_bytes(&plan), "{what}");
            assert_eq!(
                before.galois_key_bytes,
                plan.required_galois_elements().len() * sizes.galois_key(),
                "{what}"
            );
            assert!(before.execution_bytes > 0 && before.build_bytes < before.peak_bytes());
            // The engine may keep freed transient buffers, never more than
            // its pool limit.
            assert_eq!(
                before.pooled_bytes,
                pool_limit.min(before.build_bytes + before.execution_bytes),
                "{what}"
            );
            if strategy == Strategy::Dense {
                assert_eq!(before.plan_bytes, 0);
                // Its diagonals are encoded at every execution instead.
                assert!(
                    before.execution_bytes > n * sizes.encoded(plan.prep.level, true, n),
                    "{what}"
                );
            }
        }
    }
    // Four-step plans keeping their own levels as plaintexts: the
    // estimate counts those plaintexts, a fraction of the encodings.
    for groups in [2, 4] {
        for direction in [Direction::Forward, Direction::Inverse] {
            let builder = || {
                FftPlan::<Fr>::builder(&context, groups << 10)
                    .direction(direction)
                    .strategy(factored(2))
            };
            let encoded = builder().memory_estimate().unwrap();
            let lean = builder().encode_per_execution();
            let before = lean.memory_estimate().unwrap();
            let plan = lean.build().unwrap();
            assert_eq!(before.plan_bytes, held_bytes(&plan), "{}", plan.describe());
            assert!(before.plan_bytes < encoded.plan_bytes);
            assert!(before.execution_bytes > encoded.execution_bytes);
        }
    }
}

/// Going forward, the products across ciphertexts come first and take a
/// level of the chain (more than two ciphertexts, or two with a coset), so
/// every group level after them is encoded one level further down, where
/// its input is once that level's modulus is dropped; two ciphertexts
/// without a coset are only added and subtracted, and keep the top level.
#[test]
fn forward_split_levels_start_below_the_products_across_ciphertexts() {
    let context = bn254_context(24);
    for (groups, coset, first) in [(4, false, 1), (2, true, 1), (2, false, 0)] {
        let mut builder = FftPlan::<Fr>::builder(&context, groups << 10)
            .strategy(Strategy::Factored { levels: Some(3) });
        if coset {
            builder = builder.coset(Fr::from(5u64));
        }
        let before = builder.memory_estimate().unwrap();
        let plan = builder.build().unwrap();
        let what = format!("{groups} ciphertexts, coset {coset}");
        let Pipeline::Split(split) = &plan.pipeline else {
            panic!("{what}: not a four-step plan");
        };
        let Twiddled::Encoded(own) = &split.twiddled else {
            panic!("{what}: own levels not encoded");
        };
        let top = plan.prep.level;
        assert_eq!(own.len(), groups, "{what}");
        for t in own {
            assert_eq!(t.level(), level_after(&context, top, first), "{what}");
        }
        assert_eq!(split.shared.len(), 2, "{what}");
        for (i, t) in split.shared.iter().enumerate() {
            assert_eq!(
                t.level(),
                level_after(&context, top, first + 1 + i),
                "{what}"
            );
        }
        // A level lower holds fewer primes, and the estimate knows it.
        assert_eq!(own[0].level() < top, first == 1, "{what}");
        assert_eq!(before.plan_bytes, held_bytes(&plan), "{what}");
    }
}

/// The levels and ciphertexts the pipeline actually runs, counted from its
/// structure: what the plan's geometry must have decided.
fn pipeline_depth_and_ciphertexts(plan: &FftPlan<Fr>) -> (usize, usize) {
    match &plan.pipeline {
        Pipeline::Levels(levels) => (levels.len(), 1),
        Pipeline::Dense(_) => (1, 1),
        Pipeline::Split(split) => {
            let across = split
                .across_scalars
                .iter()
                .flatten()
                .any(|s| *s != 1u8.into() && s + 1u8 != *plan.context.plaintext_modulus());
            (1 + split.shared.len() + usize::from(across), split.groups)
        }
    }
}

/// The geometry decided before anything was built agrees with the plan
/// built from it: its depth and ciphertexts are what the pipeline runs,
/// `plan_depth` gives the same depth from sizes alone, and the spec is
/// the builder's.
#[test]
fn the_geometry_is_what_the_pipeline_runs() {
    let context = bn254_context(24);
    let factored = |levels| Strategy::Factored { levels };
    let cases = [
        (16, factored(None), Order::Natural, false, false),
        (16, factored(Some(2)), Order::Natural, true, true),
        (64, factored(Some(3)), Order::BitReversed, true, true),
        (512, Strategy::Dense, Order::BitReversed, true, false),
        (1024, factored(Some(2)), Order::Natural, false, true),
        (2048, factored(Some(2)), Order::Natural, false, false),
        (2048, factored(Some(2)), Order::Natural, true, false),
        (4096, factored(None), Order::Natural, false, false),
    ];
    for (n, strategy, order, coset, natural_output) in cases {
        for direction in [Direction::Forward, Direction::Inverse] {
            let mut builder = FftPlan::<Fr>::builder(&context, n)
                .direction(direction)
                .strategy(strategy)
                .input_order(order);
            if coset {
                builder = builder.coset(Fr::from(3u64));
            }
            if natural_output {
                builder = builder.natural_output();
            }
            let spec = *builder.spec();
            let plan = builder.build().unwrap();
            let what = plan.describe();
            assert_eq!(*plan.spec(), spec, "{what}");
            assert_eq!(
                (plan.depth(), plan.ciphertexts()),
                pipeline_depth_and_ciphertexts(&plan),
                "{what}"
            );
            let explicit = crate::PlanOptions {
                strategy: plan.geometry.strategy(),
                ..spec.options()
            };
            if order == Order::Natural {
                assert_eq!(
                    crate::plan_depth::<Fr>(n, 1 << 10, explicit).unwrap(),
                    (plan.depth(), plan.geometry.strategy()),
                    "{what}"
                );
            }
        }
    }
}

/// A plan built for some groups holds only their own levels (and the
/// estimate says so), names every key the whole plan needs, runs its groups
/// exactly as the whole plan does, refuses the rest, one-process execution
/// and saving, and keeps its groups of a whole plan's file.
#[test]
fn a_plan_of_some_groups_holds_and_runs_only_those() {
    use crate::Error;
    use helib_rs::SecretKey;
    let context = bn254_context(19);
    let sk = SecretKey::generate(&context).unwrap();
    let pk = sk.public_key().unwrap();
    let held = 1..3;
    for (direction, per_execution) in [
        (Direction::Forward, false),
        (Direction::Inverse, false),
        (Direction::Forward, true),
    ] {
        let builder = || {
            let b = FftPlan::<Fr>::builder(&context, 4 << 10)
                .direction(direction)
                .strategy(Strategy::Factored { levels: Some(2) });
            if per_execution {
                b.encode_per_execution()
            } else {
                b
            }
        };
        let whole = builder().build().unwrap();
        let what = format!("{} (some groups)", whole.describe());
        let partial_builder = builder().only_groups(held.clone());
        let estimate = partial_builder.memory_estimate().unwrap();
        let partial = partial_builder.build().unwrap();
        assert_eq!(partial.held_groups(), held, "{what}");
        assert_eq!(whole.held_groups(), 0..4, "{what}");
        assert_eq!(estimate.plan_bytes, held_bytes(&partial), "{what}");
        assert!(held_bytes(&partial) < held_bytes(&whole), "{what}");
        assert_eq!(
            partial.required_galois_elements(),
            whole.required_galois_elements(),
            "{what}"
        );

        let keys = whole.generate_galois_keys(&sk).unwrap();
        let values: Vec<Fr> = (0..whole.len() as u64)
            .map(|i| Fr::from(i * i + 7))
            .collect();
        let inputs = whole.encrypt(&pk, &values).unwrap();
        let (mine, all) = (partial.four_step().unwrap(), whole.four_step().unwrap());
        // Each group's transform input, as a one-process run forms it.
        let group_input = |k: usize| {
            if !all.across_first() {
                return inputs[k].clone();
            }
            let mut sum = all.across_term(k, 0, &inputs[0]).unwrap();
            for (c, input) in inputs.iter().enumerate().skip(1) {
                sum.add_assign(&all.across_term(k, c, input).unwrap())
                    .unwrap();
            }
            sum
        };
        for k in held.clone() {
            let x = group_input(k);
            let ours = mine.run_group(k, &x, &keys).unwrap();
            let theirs = all.run_group(k, &x, &keys).unwrap();
            assert_eq!(
                sk.decrypt(&ours).unwrap(),
                sk.decrypt(&theirs).unwrap(),
                "{what}: group {k}"
            );
        }
        for k in [0, 3] {
            assert!(
                matches!(
                    mine.run_group(k, &inputs[k], &keys),
                    Err(Error::GroupNotHeld { index, start: 1, end: 3 }) if index == k
                ),
                "{what}: group {k}"
            );
        }
        assert!(matches!(
            partial.execute(&inputs, &keys),
            Err(Error::PartialPlan {
                start: 1,
                end: 3,
                ciphertexts: 4,
                ..
            })
        ));
        let mut bytes = Vec::new();
        assert!(matches!(
            partial.write_to(&mut bytes),
            Err(Error::PartialPlan { .. })
        ));
        assert!(bytes.is_empty(), "{what}: nothing written");

        // Loading a whole plan's file keeps the groups asked for.
        whole.write_to(&mut bytes).unwrap();
        let loaded = builder()
            .only_groups(held.clone())
            .load_from(&mut bytes.as_slice())
            .unwrap();
        assert_eq!(loaded.held_groups(), held, "{what}");
        assert_eq!(held_bytes(&loaded), held_bytes(&partial), "{what}");
        let x = group_input(2);
        assert_eq!(
            sk.decrypt(&loaded.four_step().unwrap().run_group(2, &x, &keys).unwrap())
                .unwrap(),
            sk.decrypt(&all.run_group(2, &x, &keys).unwrap()).unwrap(),
            "{what}: loaded"
        );
    }
}

/// Group ranges a plan cannot hold are refused when it is built.
#[test]
fn group_ranges_a_plan_cannot_hold_are_refused() {
    use crate::Error;
    let context = bn254_context(19);
    let four = || FftPlan::<Fr>::builder(&context, 4 << 10);
    for (start, end) in [(2, 2), (3, 5), (4, 5)] {
        assert!(
            matches!(
                four().only_groups(start..end).build(),
                Err(Error::InvalidGroups { ciphertexts: 4, .. })
            ),
            "{start}..{end}"
        );
    }
    assert!(matches!(
        FftPlan::<Fr>::builder(&context, 1 << 10)
            .only_groups(0..1)
            .build(),
        Err(Error::Unsupported(_))
    ));
}
