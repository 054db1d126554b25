//! Up-front memory estimates: plans over the limit are refused at `build`,
//! before any diagonal is encoded, with the estimate in the error; the Galois
//! key part matches the keys generated; at a small (insecure) ring.

mod support;

use ark_bn254::Fr;
use ark_ff::FftField;
use he_fft::{available_memory_bytes, Error, FftPlan, KeyMode, Strategy};
use helib_rs::{Context, SecretKey};
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use support::{bn254_builder, context_of};

const LOG_N: u32 = 11;

fn context() -> &'static Context {
    static CONTEXT: OnceLock<Context> = OnceLock::new();
    CONTEXT.get_or_init(|| context_of(bn254_builder(LOG_N, 19)))
}

fn factored(levels: usize) -> Strategy {
    Strategy::Factored {
        levels: Some(levels),
    }
}

/// The limit is inclusive: a plan is built at exactly its estimate and
/// refused one byte below, with the estimate and the limit in the error.
#[test]
fn an_explicit_limit_is_enforced_at_the_estimate() {
    let builder = || FftPlan::<Fr>::builder(context(), 256).strategy(factored(2));
    let estimate = builder().memory_estimate().expect("estimate");
    let peak = estimate.peak_bytes();
    assert!(estimate.plan_bytes > 0 && estimate.galois_key_bytes > 0);
    match builder().memory_limit(peak - 1).build() {
        Err(e @ Error::InsufficientMemory { estimated, limit }) => {
            assert_eq!((estimated, limit), (peak, peak - 1));
            let message = e.to_string();
            assert!(
                message.contains(&peak.to_string()) && message.contains("GiB"),
                "{message}"
            );
        }
        other => panic!("expected a refusal, got {:?}", other.map(|p| p.describe())),
    }
    let plan = builder().memory_limit(peak).build().expect("plan");
    assert_eq!(plan.estimated_memory_bytes(), peak);
}

/// The key part of the estimate is the size of the keys the plan then
/// generates, in both key modes and across ciphertexts.
#[test]
fn galois_key_estimate_matches_the_generated_keys() {
    let sk = SecretKey::generate(context()).expect("sk");
    for (n, mode, strategy) in [
        (64, KeyMode::Fast, factored(2)),
        (1 << LOG_N, KeyMode::MinimalKeys, factored(3)),
        (16, KeyMode::Fast, Strategy::Dense),
        (2 << LOG_N, KeyMode::MinimalKeys, factored(2)),
    ] {
        let plan = FftPlan::<Fr>::builder(context(), n)
            .key_mode(mode)
            .strategy(strategy)
            .build()
            .expect("plan");
        let keys = plan.generate_galois_keys(&sk).expect("keys");
        assert_eq!(
            plan.memory_estimate().galois_key_bytes,
            keys.size_bytes(),
            "{}",
            plan.describe()
        );
    }
}

/// A size far beyond any machine (the largest the field allows: 2^17
/// ciphertexts of this ring) is refused at once under the default limit,
/// the available memory, instead of growing until memory runs out.
#[test]
fn plans_beyond_the_machine_are_refused_up_front() {
    let Some(available) = available_memory_bytes() else {
        eprintln!("the system does not report its available memory: nothing to check");
        return;
    };
    let n = 1usize << Fr::TWO_ADICITY;
    let start = Instant::now();
    let estimate = FftPlan::<Fr>::builder(context(), n)
        .memory_estimate()
        .expect("estimate");
    let built = FftPlan::<Fr>::builder(context(), n).build();
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "estimating took {:?}",
        start.elapsed()
    );
    match built {
        Err(Error::InsufficientMemory { estimated, limit }) => {
            assert_eq!(estimated, estimate.peak_bytes());
            assert!(estimated > limit);
            // The default limit is what the system reported (give or take
            // what other processes did meanwhile).
            assert!(
                limit.abs_diff(available) < available / 2,
                "{limit} vs {available}"
            );
        }
        other => panic!("expected a refusal, got {:?}", other.map(|p| p.describe())),
    }
}
