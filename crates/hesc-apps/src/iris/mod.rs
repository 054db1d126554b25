//! Oblivious inference on the Iris data set with a 4-4-3 network and x² activation (paper §4.3).
//!
//! * [`Dataset`], [`Normalizer`], [`stratified_split`]: the 150 samples,
//!   features scaled to \[−1, 1\] (bounds from the training set, clipped), a
//!   deterministic 120/30 split;
//! * [`Network`], [`train`]: the model h = ((W₁x + b₁)/5)², o = (W₂h + b₂)/5
//!   with weights clipped to \[−1, 1\], trained by a small deterministic
//!   full-batch trainer (softmax cross-entropy on scaled outputs plus center
//!   loss to widen the margins);
//! * [`sc`]: the same network in stochastic computing — conventional
//!   (multiplexed) and concatenated (expanded form, one concatenation per
//!   output) — in the clear and over packed BGV, on identical streams.

mod network;
pub mod sc;

pub use network::{train, Network, TrainConfig, HIDDEN, INPUTS, OUTPUTS};

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use hesc::{Error, Result};

/// Labelled samples with four features each.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dataset {
    /// The feature vectors.
    pub features: Vec<[f64; INPUTS]>,
    /// The class of each sample, in 0 .. [`OUTPUTS`].
    pub labels: Vec<usize>,
}

impl Dataset {
    /// A data set from features and labels.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the lengths differ or a label is ≥ [`OUTPUTS`].
    pub fn new(features: Vec<[f64; INPUTS]>, labels: Vec<usize>) -> Result<Self> {
        if features.len() != labels.len() {
            return Err(Error::InvalidArgument(format!(
                "{} feature vectors but {} labels",
                features.len(),
                labels.len()
            )));
        }
        if let Some(bad) = labels.iter().find(|&&l| l >= OUTPUTS) {
            return Err(Error::InvalidArgument(format!(
                "label {bad} is not a class"
            )));
        }
        Ok(Self { features, labels })
    }

    /// The number of samples.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// Whether there is no sample.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    fn subset(&self, indices: &[usize]) -> Self {
        Self {
            features: indices.iter().map(|&i| self.features[i]).collect(),
            labels: indices.iter().map(|&i| self.labels[i]).collect(),
        }
    }
}

/// Splits each class, shuffled with `seed`, into its first `test_per_class`
/// samples for testing and the rest for training: (train, test).
pub fn stratified_split(data: &Dataset, test_per_class: usize, seed: u64) -> (Dataset, Dataset) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut train, mut test) = (Vec::new(), Vec::new());
    for class in 0..OUTPUTS {
        let mut members: Vec<usize> = (0..data.len())
            .filter(|&i| data.labels[i] == class)
            .collect();
        members.shuffle(&mut rng);
        let cut = test_per_class.min(members.len());
        test.extend_from_slice(&members[..cut]);
        train.extend_from_slice(&members[cut..]);
    }
    (data.subset(&train), data.subset(&test))
}

/// Per-feature affine map onto \[−1, 1\] (bounds from the data it was fitted to; clipped).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Normalizer {
    min: [f64; INPUTS],
    max: [f64; INPUTS],
}

impl Normalizer {
    /// Fits the bounds to `data`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an empty data set.
    pub fn fit(data: &Dataset) -> Result<Self> {
        if data.is_empty() {
            return Err(Error::InvalidArgument(
                "cannot normalize an empty data set".into(),
            ));
        }
        let mut min = [f64::INFINITY; INPUTS];
        let mut max = [f64::NEG_INFINITY; INPUTS];
        for x in &data.features {
            for a in 0..INPUTS {
                min[a] = min[a].min(x[a]);
                max[a] = max[a].max(x[a]);
            }
        }
        Ok(Self { min, max })
    }

    /// Maps one sample into \[−1, 1\]⁴.
    pub fn apply(&self, x: &[f64; INPUTS]) -> [f64; INPUTS] {
        std::array::from_fn(|a| {
            let span = self.max[a] - self.min[a];
            let v = if span > 0.0 {
                2.0 * (x[a] - self.min[a]) / span - 1.0
            } else {
                0.0
            };
            v.clamp(-1.0, 1.0)
        })
    }

    /// Maps every sample of `data`.
    pub fn apply_all(&self, data: &Dataset) -> Dataset {
        Dataset {
            features: data.features.iter().map(|x| self.apply(x)).collect(),
            labels: data.labels.clone(),
        }
    }
}

/// The index of the largest output (the predicted class).
pub fn argmax(outputs: &[f64; OUTPUTS]) -> usize {
    (0..OUTPUTS).fold(
        0,
        |best, k| if outputs[k] > outputs[best] { k } else { best },
    )
}

/// The fraction of samples whose prediction matches the label.
///
/// # Errors
/// Whatever `predict` returns.
pub fn accuracy(
    data: &Dataset,
    mut predict: impl FnMut(&[f64; INPUTS]) -> Result<[f64; OUTPUTS]>,
) -> Result<f64> {
    if data.is_empty() {
        return Ok(0.0);
    }
    let mut correct = 0usize;
    for (x, &y) in data.features.iter().zip(&data.labels) {
        if argmax(&predict(x)?) == y {
            correct += 1;
        }
    }
    Ok(correct as f64 / data.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_is_stratified_and_deterministic() {
        let features: Vec<[f64; 4]> = (0..30).map(|i| [i as f64; 4]).collect();
        let labels: Vec<usize> = (0..30).map(|i| i % 3).collect();
        let data = Dataset::new(features, labels).unwrap();
        let (train, test) = stratified_split(&data, 2, 1);
        assert_eq!((train.len(), test.len()), (24, 6));
        for class in 0..3 {
            assert_eq!(test.labels.iter().filter(|&&l| l == class).count(), 2);
        }
        assert_eq!(stratified_split(&data, 2, 1), (train, test));
        assert!(Dataset::new(vec![[0.0; 4]], vec![3]).is_err());
        assert!(Dataset::new(vec![], vec![0]).is_err());
    }

    #[test]
    fn normalizer_maps_onto_the_unit_box() {
        let data = Dataset::new(
            vec![[0.0, 1.0, 2.0, 5.0], [10.0, 3.0, 2.0, 6.0]],
            vec![0, 1],
        )
        .unwrap();
        let n = Normalizer::fit(&data).unwrap();
        assert_eq!(n.apply(&[5.0, 2.0, 2.0, 5.5]), [0.0, 0.0, 0.0, 0.0]);
        assert_eq!(n.apply(&[-5.0, 9.0, 2.0, 6.0]), [-1.0, 1.0, 0.0, 1.0]);
        assert!(Normalizer::fit(&Dataset::default()).is_err());
    }
}
