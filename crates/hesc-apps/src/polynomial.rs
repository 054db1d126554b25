//! Evaluation of f(x) = Σ_{i=0..n} xⁱ in inverted-bipolar SC, in the clear and packed over BGV.
//!
//! The client sends n independent streams X₁…Xₙ of x; the powers are
//! P₀ = 1 (the all-zero stream), Pᵢ = Pᵢ₋₁ ⊕ Xᵢ (one XOR each), and the sum is
//! either the conventional multiplexed sum (each position picks one of the
//! n + 1 powers uniformly at random) or the concatenation P₀‖…‖Pₙ. Either
//! represents f(x)/(n + 1); S2B multiplies back by n + 1.

use ark_ff::{FftField, PrimeField};
use helib_rs::{PublicKey, SecretKey};
use rand::Rng;

use hesc::model;
use hesc::BitStream;
use hesc::Selection;
use hesc::{B2s, Encoding, StochasticNumber};
use hesc::{Error, Result};
use hesc::{PackedHesc, PackedStream};

const IBP: Encoding = Encoding::InvertedBipolar;

/// How the n + 1 powers are added.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Addition {
    /// Random multiplexing: same length L, added sampling error.
    Conventional,
    /// The paper's concatenation: length (n + 1)·L, no added error.
    Concatenated,
}

/// f(x) = 1 + x + … + xⁿ, exactly.
pub fn all_ones(x: f64, degree: usize) -> f64 {
    (0..=degree).map(|i| x.powi(i as i32)).sum()
}

/// The client's input: n independent B2S streams of x.
///
/// # Errors
/// [`Error::ValueOutOfRange`] for x outside \[−1, 1\]; [`Error::InvalidArgument`] for L = 0.
pub fn input_streams(
    x: f64,
    degree: usize,
    len: usize,
    method: B2s,
    rng: &mut impl Rng,
) -> Result<Vec<StochasticNumber>> {
    (0..degree)
        .map(|_| StochasticNumber::encode(x, len, IBP, method, rng))
        .collect()
}

/// The powers P₀ … Pₙ from the input streams (plaintext model).
///
/// # Errors
/// [`Error::InvalidArgument`] when there is no stream; length mismatches.
pub fn powers(inputs: &[StochasticNumber]) -> Result<Vec<StochasticNumber>> {
    let len = inputs
        .first()
        .ok_or_else(|| Error::InvalidArgument("no input stream".into()))?
        .len();
    let mut out = vec![StochasticNumber::from_bits(BitStream::zeros(len), IBP)];
    for x in inputs {
        let next = model::multiply(&out[out.len() - 1], x)?;
        out.push(next);
    }
    Ok(out)
}

/// Evaluates f on the plaintext stochastic model, returning the stochastic
/// sum (representing f(x)/(n+1)). For the conventional sum `selection`
/// picks the power at each position (uniform over n + 1 inputs).
///
/// # Errors
/// As for [`powers`] and [`model::mux_add`].
pub fn evaluate_model(
    inputs: &[StochasticNumber],
    addition: Addition,
    selection: Option<&Selection>,
) -> Result<StochasticNumber> {
    let p = powers(inputs)?;
    let refs: Vec<&StochasticNumber> = p.iter().collect();
    match (addition, selection) {
        (Addition::Concatenated, _) => model::concat_add(&refs),
        (Addition::Conventional, Some(sel)) => model::mux_add(&refs, sel),
        (Addition::Conventional, None) => Err(Error::InvalidArgument(
            "the conventional sum needs a selection".into(),
        )),
    }
}

/// One stochastic evaluation of f(x) (B2S, powers, sum, S2B, rescaling).
///
/// # Errors
/// As for [`input_streams`] and [`evaluate_model`].
pub fn evaluate_once(
    x: f64,
    degree: usize,
    len: usize,
    addition: Addition,
    method: B2s,
    rng: &mut impl Rng,
) -> Result<f64> {
    let inputs = input_streams(x, degree, len, method, rng)?;
    let selection = match addition {
        Addition::Conventional => Some(Selection::uniform(degree + 1, len, B2s::Bernoulli, rng)?),
        Addition::Concatenated => None,
    };
    let sum = evaluate_model(&inputs, addition, selection.as_ref())?;
    Ok(sum.value() * (degree + 1) as f64)
}

/// Mean and maximum absolute error over a grid of inputs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ErrorStats {
    /// Mean of |SC − exact|.
    pub mean: f64,
    /// Maximum of |SC − exact|.
    pub max: f64,
}

/// The paper's error experiment: x in \[−1, 1\] with step 0.01 (201 points),
/// each result the average of `averaging` independent evaluations.
///
/// # Errors
/// As for [`evaluate_once`]; [`Error::InvalidArgument`] for 0 averaging.
pub fn error_stats(
    degree: usize,
    len: usize,
    addition: Addition,
    averaging: usize,
    method: B2s,
    rng: &mut impl Rng,
) -> Result<ErrorStats> {
    if averaging == 0 {
        return Err(Error::InvalidArgument(
            "averaging over 0 evaluations".into(),
        ));
    }
    let (mut sum, mut max) = (0.0, 0.0f64);
    let points = 201;
    for k in 0..points {
        let x = -1.0 + 0.01 * k as f64;
        let mut acc = 0.0;
        for _ in 0..averaging {
            acc += evaluate_once(x, degree, len, addition, method, rng)?;
        }
        let err = (acc / averaging as f64 - all_ones(x, degree)).abs();
        sum += err;
        max = max.max(err);
    }
    Ok(ErrorStats {
        mean: sum / points as f64,
        max,
    })
}

/// The server side of the encrypted evaluation: powers by XOR (ciphertext
/// additions), the constant power P₀ encrypted with the public key, and the
/// sum (multiplexed with plaintext masks, or concatenated).
///
/// `inputs` are the n encrypted input streams (all with the same layout);
/// `selections` (one per lane) are needed for the conventional sum.
///
/// # Errors
/// [`Error::InvalidArgument`] for no input or missing selections; engine errors.
pub fn evaluate_packed<F: PrimeField + FftField>(
    hesc: &PackedHesc<F>,
    pk: &PublicKey,
    inputs: &[PackedStream],
    addition: Addition,
    selections: Option<&[Selection]>,
) -> Result<PackedStream> {
    let first = inputs
        .first()
        .ok_or_else(|| Error::InvalidArgument("no input stream".into()))?;
    let zeros = StochasticNumber::from_bits(BitStream::zeros(first.lane_len()), IBP);
    let mut powers = vec![hesc.encrypt(pk, &vec![zeros; first.lanes()])?];
    for x in inputs {
        let next = hesc.xor(&powers[powers.len() - 1], x)?;
        powers.push(next);
    }
    let refs: Vec<&PackedStream> = powers.iter().collect();
    match (addition, selections) {
        (Addition::Concatenated, _) => hesc.concat(&refs),
        (Addition::Conventional, Some(sel)) => hesc.mux(&refs, sel),
        (Addition::Conventional, None) => Err(Error::InvalidArgument(
            "the conventional sum needs selections".into(),
        )),
    }
}

/// Decrypts the packed result (optionally fusing first) and rescales: f(x) per lane.
///
/// # Errors
/// Engine errors.
pub fn decrypt_packed<F: PrimeField + FftField>(
    hesc: &PackedHesc<F>,
    sk: &SecretKey,
    result: &PackedStream,
    degree: usize,
    fuse: bool,
) -> Result<Vec<f64>> {
    let lanes = if fuse {
        let fused = hesc.fuse(&[result], None)?;
        hesc.decrypt_fused(sk, &fused)?.pop().unwrap_or_default()
    } else {
        hesc.decrypt(sk, result)?
    };
    Ok(lanes
        .iter()
        .map(|s| s.value() * (degree + 1) as f64)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn powers_multiply_values() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(30);
        let inputs = input_streams(-0.8, 3, 1 << 15, B2s::ExactWeight, &mut rng).unwrap();
        let p = powers(&inputs).unwrap();
        assert_eq!(p[0].value(), 1.0);
        for (i, pi) in p.iter().enumerate() {
            assert!(
                (pi.value() - (-0.8f64).powi(i as i32)).abs() < 0.04,
                "x^{i}: {}",
                pi.value()
            );
        }
    }

    #[test]
    fn concatenation_beats_multiplexing() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(31);
        let conv =
            error_stats(4, 256, Addition::Conventional, 1, B2s::Bernoulli, &mut rng).unwrap();
        let cat = error_stats(4, 256, Addition::Concatenated, 1, B2s::Bernoulli, &mut rng).unwrap();
        assert!(cat.mean < conv.mean, "{cat:?} vs {conv:?}");
        assert!(cat.max <= conv.max * 1.2, "{cat:?} vs {conv:?}");
        assert!(all_ones(0.5, 2) == 1.75);
    }
}
