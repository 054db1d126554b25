//! Every size from 2 to 2^22 and every plan option gets parameters whose
//! top level affords the plan's depth, and the builder accepts the plan
//! (its requirements and memory are computed from shapes, nothing encoded).

use ark_bn254::Fr;
use he_fft::{
    affordable_levels, plan_depth, suggest_plan_parameters, Error, FftPlan, KeyMode, PlanOptions,
    Strategy,
};
use helib_rs::{Context, Parameters, SecurityLevel};
use std::collections::HashMap;

fn options() -> Vec<PlanOptions> {
    let mut out = Vec::new();
    for strategy in [
        Strategy::Factored { levels: None },
        Strategy::Factored { levels: Some(1) },
        Strategy::Factored { levels: Some(2) },
        Strategy::Factored { levels: Some(3) },
        Strategy::Factored { levels: Some(4) },
        Strategy::Dense,
    ] {
        for coset in [false, true] {
            for natural_output in [false, true] {
                if strategy == Strategy::Dense && natural_output {
                    continue;
                }
                out.push(PlanOptions {
                    strategy,
                    coset,
                    natural_output,
                });
            }
        }
    }
    out
}

#[test]
fn every_size_and_option_fits_its_suggested_parameters() {
    let mut contexts: HashMap<String, Context> = HashMap::new();
    let mut checked = 0;
    for log_n in 1..=22u32 {
        let n = 1usize << log_n;
        for o in options() {
            let suggested = match suggest_plan_parameters::<Fr>(n, o, 1) {
                Err(Error::Unsupported(_)) if o.strategy == Strategy::Dense && n > 1 << 17 => {
                    continue
                }
                other => other.unwrap_or_else(|e| panic!("n = 2^{log_n}, {o:?}: {e}")),
            };
            let params = &suggested.parameters;
            assert_ne!(params.security_level(), SecurityLevel::Below128);
            let ring = params.ring_degree();
            let what = format!("n = 2^{log_n}, {o:?}, N = {ring}");
            if o == PlanOptions::default() {
                assert_eq!(
                    params.special_bits(),
                    fewest_secure_digits_special_bits(params),
                    "{what}: not the fewest secure key-switching digits"
                );
            }
            assert_eq!(
                plan_depth::<Fr>(n, ring, o).unwrap(),
                (suggested.depth, suggested.strategy),
                "{what}"
            );
            let key = format!(
                "{ring} {:?} {:?}",
                params.chain_bits(),
                params.special_bits()
            );
            let context = contexts
                .entry(key)
                .or_insert_with(|| Context::new(params).unwrap());
            let top = context.max_level();
            assert!(
                affordable_levels(context, top) >= suggested.depth,
                "{what}: the top level affords {} levels, the plan needs {}",
                affordable_levels(context, top),
                suggested.depth
            );
            // The builder's own checks (sizes, levels, budget) and its
            // memory estimate, without encoding anything: every option for
            // small sizes, the default options for every size (the shapes
            // of large plans take a while in a debug build).
            let small = log_n <= 12;
            if !small && o != PlanOptions::default() {
                continue;
            }
            let modes: &[KeyMode] = if small {
                &[KeyMode::Fast, KeyMode::MinimalKeys]
            } else {
                &[KeyMode::Fast]
            };
            for &mode in modes {
                let mut builder = FftPlan::<Fr>::builder(context, n)
                    .strategy(suggested.strategy)
                    .key_mode(mode);
                if o.coset {
                    builder = builder.coset(Fr::from(7u64));
                }
                if o.natural_output {
                    builder = builder.natural_output();
                }
                let estimate = builder
                    .memory_estimate()
                    .unwrap_or_else(|e| panic!("{what} {mode:?}: {e}"));
                assert!(estimate.peak_bytes() > 0, "{what}");
                checked += 1;
            }
        }
    }
    assert!(checked > 150, "{checked}");
}

/// The special primes of the fewest key-switching digits (two or more) that
/// keep `params`'s ring and chain at 128-bit security.
fn fewest_secure_digits_special_bits(params: &Parameters) -> Vec<u32> {
    (2..=6)
        .find_map(|digits| {
            let fewer = Parameters::builder()
                .ring_degree(params.ring_degree())
                .plaintext_modulus_from_field::<Fr>()
                .chain_bits(params.chain_bits())
                .key_switching_digits(digits)
                .build()
                .ok()?;
            (fewer.security_level() != SecurityLevel::Below128)
                .then(|| fewer.special_bits().to_vec())
        })
        .expect("some digit count is secure")
}

/// `plan_depth` agrees with the plans the builder makes, one ciphertext or
/// several (at a small insecure ring: building at the suggested rings takes
/// too long for a unit test).
#[test]
fn plan_depth_matches_built_plans() {
    let params = helib_rs::Parameters::builder()
        .ring_degree(1 << 10)
        .plaintext_modulus_from_field::<Fr>()
        .chain_bits(&[60; 30])
        .allow_insecure()
        .build()
        .unwrap();
    let context = Context::new(&params).unwrap();
    for n in [8usize, 1 << 11, 1 << 12] {
        for o in options() {
            let (depth, strategy) = match plan_depth::<Fr>(n, 1 << 10, o) {
                Err(Error::Unsupported(_)) if o.strategy == Strategy::Dense => continue,
                other => other.unwrap(),
            };
            if matches!(
                o.strategy,
                Strategy::Factored {
                    levels: Some(1 | 3)
                }
            ) {
                continue;
            }
            let mut builder = FftPlan::<Fr>::builder(&context, n).strategy(strategy);
            if o.coset {
                builder = builder.coset(Fr::from(7u64));
            }
            if o.natural_output {
                builder = builder.natural_output();
            }
            let plan = builder.build().unwrap();
            assert_eq!(plan.depth(), depth, "n = {n}, {o:?}");
        }
    }
}

#[test]
fn sizes_without_parameters_are_refused() {
    let o = PlanOptions::default();
    assert!(matches!(
        suggest_plan_parameters::<Fr>(3, o, 1),
        Err(Error::InvalidSize(3))
    ));
    assert!(matches!(
        suggest_plan_parameters::<Fr>(0, o, 1),
        Err(Error::InvalidSize(0))
    ));
    // Beyond BN254's 2-adicity (2^28).
    assert!(matches!(
        suggest_plan_parameters::<Fr>(1 << 29, o, 1),
        Err(Error::InvalidSize(_))
    ));
    let dense = PlanOptions {
        strategy: Strategy::Dense,
        ..o
    };
    assert!(matches!(
        suggest_plan_parameters::<Fr>(1 << 18, dense, 1),
        Err(Error::Unsupported(_))
    ));
    let five = PlanOptions {
        strategy: Strategy::Factored { levels: Some(5) },
        ..o
    };
    assert!(matches!(
        suggest_plan_parameters::<Fr>(1 << 10, five, 1),
        Err(Error::InvalidLevels(5))
    ));
}
