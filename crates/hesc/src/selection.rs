//! Selection streams: which input a stochastic multiplexer passes at each bit position.

use rand::seq::SliceRandom;
use rand::Rng;

use crate::bits::BitStream;
use crate::error::{Error, Result};
use crate::number::B2s;

/// For each of L bit positions, the index of the input a multiplexer selects.
///
/// With weights w_k (summing to 1), position i selects input k with
/// probability w_k, so the multiplexed stream represents Σ w_k·A_k. The
/// two-input case with a stream S (1 → first input) is the paper's
/// A = S·A¹ + S̄·A².
///
/// ```
/// use hesc::{B2s, Selection};
/// use rand::SeedableRng;
///
/// let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
/// let s = Selection::weighted(&[1.0, 3.0], 400, B2s::ExactWeight, &mut rng)?;
/// let masks = s.masks();
/// assert_eq!(masks[0].count_ones(), 100);
/// assert_eq!(masks[1].count_ones(), 300);
/// # Ok::<(), hesc::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    choices: Vec<u32>,
    arity: usize,
}

impl Selection {
    /// L positions, each choosing among `weights.len()` inputs in proportion
    /// to `weights`: independently per position ([`B2s::Bernoulli`]) or with
    /// exact counts round(w_k·L) at random positions ([`B2s::ExactWeight`]).
    ///
    /// # Errors
    /// [`Error::InvalidProbability`] for no weights, a negative or non-finite
    /// weight, or weights summing to 0; [`Error::InvalidArgument`] for more
    /// than 2^32 inputs.
    pub fn weighted(weights: &[f64], len: usize, method: B2s, rng: &mut impl Rng) -> Result<Self> {
        let probabilities = normalize(weights)?;
        let arity = probabilities.len();
        if u32::try_from(arity).is_err() {
            return Err(Error::InvalidArgument("too many multiplexer inputs".into()));
        }
        let choices = match method {
            B2s::Bernoulli => (0..len).map(|_| categorical(&probabilities, rng)).collect(),
            B2s::ExactWeight => exact_counts(&probabilities, len, rng),
        };
        Ok(Self { choices, arity })
    }

    /// Uniform choice among `arity` inputs (the normalized sum (A¹+…+Aⁿ)/n).
    ///
    /// # Errors
    /// As for [`weighted`](Self::weighted).
    pub fn uniform(arity: usize, len: usize, method: B2s, rng: &mut impl Rng) -> Result<Self> {
        Self::weighted(&vec![1.0; arity], len, method, rng)
    }

    /// The two-input selection of a stream S: where S is 1 the first input is
    /// taken, where it is 0 the second.
    pub fn from_stream(s: &BitStream) -> Self {
        Self {
            choices: s.iter().map(|bit| u32::from(!bit)).collect(),
            arity: 2,
        }
    }

    /// The number of inputs.
    pub fn arity(&self) -> usize {
        self.arity
    }

    /// The number of positions L.
    pub fn len(&self) -> usize {
        self.choices.len()
    }

    /// Whether there are no positions.
    pub fn is_empty(&self) -> bool {
        self.choices.is_empty()
    }

    /// The input chosen at `position`, or `None` past the end.
    pub fn choice(&self, position: usize) -> Option<usize> {
        self.choices.get(position).map(|&c| c as usize)
    }

    /// One mask per input: bit i of mask k is 1 iff position i selects input k.
    /// The masks are disjoint and cover every position.
    pub fn masks(&self) -> Vec<BitStream> {
        let mut masks = vec![BitStream::zeros(self.len()); self.arity];
        for (i, &c) in self.choices.iter().enumerate() {
            masks[c as usize].set(i, true);
        }
        masks
    }

    /// Positions `start .. start + len` as a selection of their own.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the range runs past the end.
    pub fn slice(&self, start: usize, len: usize) -> Result<Self> {
        let range = start
            .checked_add(len)
            .filter(|&end| end <= self.len())
            .map(|end| start..end)
            .ok_or_else(|| Error::InvalidArgument("selection slice out of range".into()))?;
        Ok(Self {
            choices: self.choices[range].to_vec(),
            arity: self.arity,
        })
    }
}

/// The weights divided by their sum, after checking them.
fn normalize(weights: &[f64]) -> Result<Vec<f64>> {
    if weights.is_empty() {
        return Err(Error::InvalidProbability(
            "a multiplexer needs an input".into(),
        ));
    }
    if let Some(bad) = weights.iter().find(|w| !w.is_finite() || **w < 0.0) {
        return Err(Error::InvalidProbability(format!("weight {bad}")));
    }
    let total: f64 = weights.iter().sum();
    if !(total > 0.0 && total.is_finite()) {
        return Err(Error::InvalidProbability(format!(
            "the weights sum to {total}"
        )));
    }
    Ok(weights.iter().map(|w| w / total).collect())
}

fn categorical(probabilities: &[f64], rng: &mut impl Rng) -> u32 {
    let u: f64 = rng.gen();
    let mut acc = 0.0;
    for (k, p) in probabilities.iter().enumerate() {
        acc += p;
        if u < acc {
            return k as u32;
        }
    }
    // Rounding left u above the running sum: take the last input with weight.
    probabilities.iter().rposition(|&p| p > 0.0).unwrap_or(0) as u32
}

/// Exact counts (largest-remainder rounding of p_k·len, summing to len), at
/// random positions.
fn exact_counts(probabilities: &[f64], len: usize, rng: &mut impl Rng) -> Vec<u32> {
    let ideal: Vec<f64> = probabilities.iter().map(|p| p * len as f64).collect();
    let mut counts: Vec<usize> = ideal.iter().map(|x| x.floor() as usize).collect();
    let mut by_remainder: Vec<usize> = (0..ideal.len())
        .filter(|&k| probabilities[k] > 0.0)
        .collect();
    by_remainder
        .sort_by(|&a, &b| (ideal[b] - ideal[b].floor()).total_cmp(&(ideal[a] - ideal[a].floor())));
    let missing = len.saturating_sub(counts.iter().sum());
    for &k in by_remainder.iter().cycle().take(missing) {
        counts[k] += 1;
    }
    let mut choices: Vec<u32> = counts
        .iter()
        .enumerate()
        .flat_map(|(k, &c)| std::iter::repeat_n(k as u32, c))
        .take(len)
        .collect();
    choices.shuffle(rng);
    choices
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn exact_counts_cover_every_position() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        for len in [1usize, 3, 10, 1000] {
            for weights in [vec![1.0; 3], vec![1.0, 2.0, 0.0, 5.0], vec![0.1; 11]] {
                let s = Selection::weighted(&weights, len, B2s::ExactWeight, &mut rng).unwrap();
                assert_eq!(s.len(), len);
                let masks = s.masks();
                let total: usize = masks.iter().map(BitStream::count_ones).sum();
                assert_eq!(total, len);
                let sum: f64 = weights.iter().sum();
                for (m, w) in masks.iter().zip(&weights) {
                    let want = w / sum * len as f64;
                    assert!(
                        (m.count_ones() as f64 - want).abs() <= 1.0 + weights.len() as f64 / 2.0
                    );
                }
            }
        }
    }

    #[test]
    fn stream_selection_is_s_then_complement() {
        let s = BitStream::from_bools(&[true, false, false, true]);
        let sel = Selection::from_stream(&s);
        let masks = sel.masks();
        assert_eq!(masks[0], s);
        assert_eq!(masks[1], s.not());
    }

    #[test]
    fn bad_weights_are_errors() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for w in [vec![], vec![-1.0, 2.0], vec![0.0, 0.0], vec![f64::INFINITY]] {
            assert!(Selection::weighted(&w, 10, B2s::Bernoulli, &mut rng).is_err());
        }
    }
}
