//! Stochastic numbers: encodings, B2S (binary → stochastic) and S2B (stochastic → binary).

use rand::seq::index::sample;
use rand::Rng;

use crate::bits::BitStream;
use crate::error::{Error, Result};

/// How a bit stream X of length L represents a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// Unipolar (UP): HW(X)/L in \[0, 1\]; multiplication is AND.
    Unipolar,
    /// Inverted bipolar (IBP): 1 − 2·HW(X)/L in \[−1, 1\]; multiplication is XOR.
    InvertedBipolar,
}

impl Encoding {
    /// The closed range of values the encoding represents.
    pub fn range(self) -> (f64, f64) {
        match self {
            Self::Unipolar => (0.0, 1.0),
            Self::InvertedBipolar => (-1.0, 1.0),
        }
    }

    /// The probability p that a bit is 1 in a stream representing `value`.
    ///
    /// # Errors
    /// [`Error::ValueOutOfRange`] when `value` is outside [`range`](Self::range) or not finite.
    pub fn ones_probability(self, value: f64) -> Result<f64> {
        let (min, max) = self.range();
        if !(min..=max).contains(&value) {
            return Err(Error::ValueOutOfRange { value, min, max });
        }
        Ok(match self {
            Self::Unipolar => value,
            Self::InvertedBipolar => (1.0 - value) / 2.0,
        })
    }

    /// S2B: the value of a stream with `ones` one bits out of `len` (0 for an empty stream).
    pub fn value_of_count(self, ones: f64, len: f64) -> f64 {
        if len == 0.0 {
            return 0.0;
        }
        match self {
            Self::Unipolar => ones / len,
            Self::InvertedBipolar => 1.0 - 2.0 * ones / len,
        }
    }

    /// The resolution: the value step of one bit in a stream of `len` bits.
    pub fn resolution(self, len: usize) -> f64 {
        let scale = match self {
            Self::Unipolar => 1.0,
            Self::InvertedBipolar => 2.0,
        };
        scale / len.max(1) as f64
    }
}

/// How B2S draws the random stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum B2s {
    /// Exactly round(p·L) one bits at uniformly random positions: the
    /// stream's value is the input rounded to the resolution.
    ExactWeight,
    /// Every bit independently 1 with probability p (the classic SC source:
    /// the value itself is random, with variance p(1 − p)/L per bit count).
    Bernoulli,
}

/// A stochastic number: a bit stream together with its encoding.
///
/// ```
/// use hesc::{B2s, Encoding, StochasticNumber};
/// use rand::SeedableRng;
///
/// let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
/// let x = StochasticNumber::encode(-0.5, 1024, Encoding::InvertedBipolar, B2s::ExactWeight, &mut rng)?;
/// assert_eq!(x.bits().count_ones(), 768); // 1 − 2·768/1024 = −0.5
/// assert_eq!(x.value(), -0.5);
/// # Ok::<(), hesc::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StochasticNumber {
    bits: BitStream,
    encoding: Encoding,
}

impl StochasticNumber {
    /// Wraps a bit stream.
    pub fn from_bits(bits: BitStream, encoding: Encoding) -> Self {
        Self { bits, encoding }
    }

    /// B2S: a random stream of `len` bits representing `value`.
    ///
    /// # Errors
    /// [`Error::ValueOutOfRange`] when `value` is outside the encoding's range;
    /// [`Error::InvalidArgument`] when `len` is 0.
    pub fn encode(
        value: f64,
        len: usize,
        encoding: Encoding,
        method: B2s,
        rng: &mut impl Rng,
    ) -> Result<Self> {
        if len == 0 {
            return Err(Error::InvalidArgument(
                "a stream needs at least one bit".into(),
            ));
        }
        let p = encoding.ones_probability(value)?;
        let bits = match method {
            B2s::ExactWeight => exact_weight(p, len, rng),
            B2s::Bernoulli => BitStream::from_fn(len, |_| rng.gen::<f64>() < p),
        };
        Ok(Self { bits, encoding })
    }

    /// S2B: the value the stream represents.
    pub fn value(&self) -> f64 {
        self.encoding
            .value_of_count(self.bits.count_ones() as f64, self.bits.len() as f64)
    }

    /// The bit stream.
    pub fn bits(&self) -> &BitStream {
        &self.bits
    }

    /// Takes the bit stream out.
    pub fn into_bits(self) -> BitStream {
        self.bits
    }

    /// The encoding.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// The stream length L.
    pub fn len(&self) -> usize {
        self.bits.len()
    }

    /// Whether the stream is empty.
    pub fn is_empty(&self) -> bool {
        self.bits.is_empty()
    }
}

/// A stream of `len` bits with exactly round(p·len) ones at random positions.
fn exact_weight(p: f64, len: usize, rng: &mut impl Rng) -> BitStream {
    let ones = ((p * len as f64).round() as usize).min(len);
    let mut bits = BitStream::zeros(len);
    for index in sample(rng, len, ones) {
        bits.set(index, true);
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn exact_weight_round_trips_to_the_resolution() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for encoding in [Encoding::Unipolar, Encoding::InvertedBipolar] {
            let (min, max) = encoding.range();
            for len in [1usize, 7, 64, 1000] {
                for k in 0..=20 {
                    let v = min + (max - min) * k as f64 / 20.0;
                    let x = StochasticNumber::encode(v, len, encoding, B2s::ExactWeight, &mut rng)
                        .unwrap();
                    assert_eq!(x.len(), len);
                    assert!((x.value() - v).abs() <= encoding.resolution(len) / 2.0 + 1e-12);
                }
            }
        }
    }

    #[test]
    fn known_streams_decode_as_the_paper_says() {
        // 0001, 0010, 0100, 1000: 1/4 in UP and 1/2 in IBP.
        for i in 0..4 {
            let bits = BitStream::from_fn(4, |j| j == i);
            let up = StochasticNumber::from_bits(bits.clone(), Encoding::Unipolar);
            let ibp = StochasticNumber::from_bits(bits, Encoding::InvertedBipolar);
            assert_eq!(up.value(), 0.25);
            assert_eq!(ibp.value(), 0.5);
        }
    }

    #[test]
    fn bernoulli_mean_is_the_value() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let x = StochasticNumber::encode(
            0.3,
            200_000,
            Encoding::InvertedBipolar,
            B2s::Bernoulli,
            &mut rng,
        )
        .unwrap();
        // std of the value is 2·sqrt(p(1-p)/L) ≈ 0.002; allow 5 sigma.
        assert!((x.value() - 0.3).abs() < 0.011, "{}", x.value());
    }

    #[test]
    fn out_of_range_values_are_errors() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut enc = |v: f64, e| StochasticNumber::encode(v, 8, e, B2s::Bernoulli, &mut rng);
        assert!(matches!(
            enc(1.5, Encoding::InvertedBipolar),
            Err(Error::ValueOutOfRange { .. })
        ));
        assert!(enc(-0.1, Encoding::Unipolar).is_err());
        assert!(enc(f64::NAN, Encoding::Unipolar).is_err());
        assert!(
            StochasticNumber::encode(0.5, 0, Encoding::Unipolar, B2s::ExactWeight, &mut rng)
                .is_err()
        );
    }
}
