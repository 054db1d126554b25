//! Statistical checks with fixed seeds: SC errors shrink as 1/√L, and the
//! concatenated sum has exactly the spread Proposition 1 predicts.

use hesc::{model, B2s, Encoding, Selection, StochasticNumber};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const VALUES: [f64; 4] = [0.8, -0.3, 0.1, -0.9];
const TRIALS: usize = 400;

/// Empirical standard deviation of (sum estimate − true sum) for the
/// concatenated (or, with `mux`, the multiplexed) sum of VALUES.
fn sum_error_std(len: usize, mux: bool, rng: &mut ChaCha8Rng) -> f64 {
    let f = VALUES.len() as f64;
    let truth: f64 = VALUES.iter().sum();
    let mut sq = 0.0;
    for _ in 0..TRIALS {
        let streams: Vec<StochasticNumber> = VALUES
            .iter()
            .map(|&v| {
                StochasticNumber::encode(v, len, Encoding::InvertedBipolar, B2s::Bernoulli, rng)
                    .unwrap()
            })
            .collect();
        let refs: Vec<&StochasticNumber> = streams.iter().collect();
        let sum = if mux {
            let sel = Selection::uniform(VALUES.len(), len, B2s::Bernoulli, rng).unwrap();
            model::mux_add(&refs, &sel).unwrap()
        } else {
            model::concat_add(&refs).unwrap()
        };
        let err = f * sum.value() - truth;
        sq += err * err;
    }
    (sq / TRIALS as f64).sqrt()
}

fn ones_probabilities() -> Vec<f64> {
    VALUES.iter().map(|v| (1.0 - v) / 2.0).collect()
}

#[test]
fn concatenated_sum_matches_proposition_1() {
    let mut rng = ChaCha8Rng::seed_from_u64(50);
    let p = ones_probabilities();
    let mut previous: Option<f64> = None;
    for len in [32usize, 128, 512, 2048] {
        let measured = sum_error_std(len, false, &mut rng);
        let predicted = model::proposition1_std(&p, len);
        // 400 trials estimate a standard deviation to about ±3.5 %; allow 15 %.
        assert!(
            (measured / predicted - 1.0).abs() < 0.15,
            "L = {len}: {measured} vs {predicted}"
        );
        // Four times the length halves the error (1/√L).
        if let Some(prev) = previous {
            let ratio = prev / measured;
            assert!((1.7..2.3).contains(&ratio), "L = {len}: ratio {ratio}");
        }
        previous = Some(measured);
    }
}

#[test]
fn multiplexed_sum_is_noisier_and_also_shrinks_as_one_over_sqrt_l() {
    let mut rng = ChaCha8Rng::seed_from_u64(51);
    let f = VALUES.len() as f64;
    let mean_p = ones_probabilities().iter().sum::<f64>() / f;
    let mut previous: Option<f64> = None;
    for len in [128usize, 512, 2048] {
        let mux = sum_error_std(len, true, &mut rng);
        let concat = sum_error_std(len, false, &mut rng);
        // Each multiplexed bit is Bernoulli(mean p): std f·2·√(p̄(1 − p̄)/L).
        let predicted = f * 2.0 * (mean_p * (1.0 - mean_p) / len as f64).sqrt();
        assert!(
            (mux / predicted - 1.0).abs() < 0.15,
            "L = {len}: {mux} vs {predicted}"
        );
        assert!(
            mux > 1.5 * concat,
            "L = {len}: mux {mux}, concatenation {concat}"
        );
        if let Some(prev) = previous {
            let ratio = prev / mux;
            assert!((1.7..2.3).contains(&ratio), "L = {len}: ratio {ratio}");
        }
        previous = Some(mux);
    }
}

#[test]
fn products_err_as_one_over_sqrt_l() {
    let mut rng = ChaCha8Rng::seed_from_u64(52);
    let (a, b) = (0.6, -0.7);
    let rms = |len: usize, rng: &mut ChaCha8Rng| {
        let mut sq = 0.0;
        for _ in 0..TRIALS {
            let x =
                StochasticNumber::encode(a, len, Encoding::InvertedBipolar, B2s::Bernoulli, rng)
                    .unwrap();
            let y =
                StochasticNumber::encode(b, len, Encoding::InvertedBipolar, B2s::Bernoulli, rng)
                    .unwrap();
            let e = model::multiply(&x, &y).unwrap().value() - a * b;
            sq += e * e;
        }
        (sq / TRIALS as f64).sqrt()
    };
    // The XOR of independent Bernoulli streams is Bernoulli((1 − ab)/2).
    let p = (1.0 - a * b) / 2.0;
    for len in [128usize, 512, 2048] {
        let measured = rms(len, &mut rng);
        let predicted = 2.0 * (p * (1.0 - p) / len as f64).sqrt();
        assert!(
            (measured / predicted - 1.0).abs() < 0.15,
            "L = {len}: {measured} vs {predicted}"
        );
    }
}
