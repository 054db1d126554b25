//! The plaintext stochastic arithmetic: the reference model every encrypted operation is checked against.
//!
//! * multiplication: bit-wise AND (unipolar) or XOR (inverted bipolar);
//! * addition by random multiplexing ([`mux_add`], [`scaled_add`]): the
//!   normalized sum Σ w_k·A_k at the same length, with added sampling error;
//! * the paper's concatenated addition ([`concat_add`]): (A¹+…+Aᶠ)/f as
//!   A¹‖…‖Aᶠ, exact (no added error) at f times the length.

use crate::bits::BitStream;
use crate::error::{Error, Result};
use crate::number::{Encoding, StochasticNumber};
use crate::selection::Selection;

/// Stochastic multiplication a·b: AND for unipolar, XOR for inverted bipolar.
///
/// # Errors
/// [`Error::EncodingMismatch`] or [`Error::LengthMismatch`] when the operands differ.
pub fn multiply(a: &StochasticNumber, b: &StochasticNumber) -> Result<StochasticNumber> {
    let encoding = same_encoding(&[a, b])?;
    let bits = match encoding {
        Encoding::Unipolar => a.bits().and(b.bits())?,
        Encoding::InvertedBipolar => a.bits().xor(b.bits())?,
    };
    Ok(StochasticNumber::from_bits(bits, encoding))
}

/// The product of all `factors` (at least one).
///
/// # Errors
/// As for [`multiply`], and [`Error::InvalidArgument`] for no factor.
pub fn product(factors: &[&StochasticNumber]) -> Result<StochasticNumber> {
    let (first, rest) = factors
        .split_first()
        .ok_or_else(|| Error::InvalidArgument("a product needs a factor".into()))?;
    rest.iter()
        .try_fold((*first).clone(), |acc, f| multiply(&acc, f))
}

/// Stochastic addition by multiplexing: bit i of the result is bit i of
/// `terms[selection.choice(i)]`. With selection weights w_k it represents
/// Σ w_k·A_k.
///
/// # Errors
/// [`Error::InvalidArgument`] when the number of terms is not the
/// selection's arity; [`Error::LengthMismatch`] / [`Error::EncodingMismatch`]
/// when a term differs from the selection's length or the others' encoding.
pub fn mux_add(terms: &[&StochasticNumber], selection: &Selection) -> Result<StochasticNumber> {
    let encoding = same_encoding(terms)?;
    if terms.len() != selection.arity() {
        return Err(Error::InvalidArgument(format!(
            "{} terms for a {}-input multiplexer",
            terms.len(),
            selection.arity()
        )));
    }
    for t in terms {
        if t.len() != selection.len() {
            return Err(Error::LengthMismatch {
                left: selection.len(),
                right: t.len(),
            });
        }
    }
    let bits = BitStream::from_fn(selection.len(), |i| {
        selection
            .choice(i)
            .and_then(|k| terms[k].bits().get(i))
            .unwrap_or(false)
    });
    Ok(StochasticNumber::from_bits(bits, encoding))
}

/// The paper's two-input addition A = S·A¹ + S̄·A²: where S is 1 take `a`,
/// elsewhere `b`. With HW(S)/L = 1/2 it is (A¹ + A²)/2.
///
/// # Errors
/// As for [`mux_add`].
pub fn scaled_add(
    a: &StochasticNumber,
    b: &StochasticNumber,
    s: &BitStream,
) -> Result<StochasticNumber> {
    mux_add(&[a, b], &Selection::from_stream(s))
}

/// The concatenated addition A¹‖…‖Aᶠ. For equal lengths it represents the
/// normalized sum (A¹+…+Aᶠ)/f exactly (no error beyond that of the inputs);
/// in general the length-weighted mean of the values.
///
/// # Errors
/// [`Error::InvalidArgument`] for no term; [`Error::EncodingMismatch`].
pub fn concat_add(terms: &[&StochasticNumber]) -> Result<StochasticNumber> {
    let encoding = same_encoding(terms)?;
    let bits = BitStream::concat_all(terms.iter().map(|t| t.bits()));
    Ok(StochasticNumber::from_bits(bits, encoding))
}

/// The common encoding of `numbers` (at least one).
pub(crate) fn same_encoding(numbers: &[&StochasticNumber]) -> Result<Encoding> {
    let first = numbers
        .first()
        .ok_or_else(|| Error::InvalidArgument("no operand".into()))?
        .encoding();
    if numbers.iter().any(|n| n.encoding() != first) {
        return Err(Error::EncodingMismatch);
    }
    Ok(first)
}

/// Proposition 1: the standard deviation of the sum A¹+…+Aᶠ of f independent
/// inverted-bipolar streams of length L whose bits are 1 with probabilities
/// p^j is sqrt((4/L)·Σ p^j(1 − p^j)). Divide by f for the normalized
/// (concatenated) sum.
pub fn proposition1_std(probabilities: &[f64], len: usize) -> f64 {
    let var: f64 = probabilities.iter().map(|p| p * (1.0 - p)).sum();
    (4.0 * var / len.max(1) as f64).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::number::B2s;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn num(bits: &[u8], encoding: Encoding) -> StochasticNumber {
        let bools: Vec<bool> = bits.iter().map(|&b| b == 1).collect();
        StochasticNumber::from_bits(BitStream::from_bools(&bools), encoding)
    }

    #[test]
    fn multiplication_is_and_or_xor() {
        let up = multiply(
            &num(&[1, 1, 0, 1], Encoding::Unipolar),
            &num(&[1, 0, 0, 1], Encoding::Unipolar),
        )
        .unwrap();
        assert_eq!(up.bits().to_bools(), [true, false, false, true]);
        let ibp = multiply(
            &num(&[1, 1, 0, 1], Encoding::InvertedBipolar),
            &num(&[1, 0, 0, 1], Encoding::InvertedBipolar),
        )
        .unwrap();
        assert_eq!(ibp.bits().to_bools(), [false, true, false, false]);
        assert!(matches!(
            multiply(
                &num(&[1], Encoding::Unipolar),
                &num(&[1], Encoding::InvertedBipolar)
            ),
            Err(Error::EncodingMismatch)
        ));
    }

    #[test]
    fn mux_takes_the_selected_bits() {
        let a = num(&[1, 1, 1, 1], Encoding::Unipolar);
        let b = num(&[0, 0, 0, 0], Encoding::Unipolar);
        let s = BitStream::from_bools(&[true, false, true, false]);
        let sum = scaled_add(&a, &b, &s).unwrap();
        assert_eq!(sum.bits(), &s);
        assert_eq!(sum.value(), 0.5);
    }

    #[test]
    fn concatenation_is_the_exact_mean() {
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        let values = [0.5, -0.25, 1.0, -1.0];
        let streams: Vec<StochasticNumber> = values
            .iter()
            .map(|&v| {
                StochasticNumber::encode(
                    v,
                    64,
                    Encoding::InvertedBipolar,
                    B2s::ExactWeight,
                    &mut rng,
                )
                .unwrap()
            })
            .collect();
        let refs: Vec<&StochasticNumber> = streams.iter().collect();
        let sum = concat_add(&refs).unwrap();
        assert_eq!(sum.len(), 256);
        let mean_of_values = streams.iter().map(StochasticNumber::value).sum::<f64>() / 4.0;
        assert!((sum.value() - mean_of_values).abs() < 1e-12);
    }

    #[test]
    fn products_of_independent_streams_multiply_values() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let len = 1 << 16;
        for encoding in [Encoding::Unipolar, Encoding::InvertedBipolar] {
            let (a, b) = (
                0.6,
                if encoding == Encoding::Unipolar {
                    0.3
                } else {
                    -0.7
                },
            );
            let x = StochasticNumber::encode(a, len, encoding, B2s::ExactWeight, &mut rng).unwrap();
            let y = StochasticNumber::encode(b, len, encoding, B2s::ExactWeight, &mut rng).unwrap();
            let p = multiply(&x, &y).unwrap().value();
            // The product's error is within a few 1/sqrt(L) = 0.004.
            assert!((p - a * b).abs() < 0.02, "{encoding:?}: {p} vs {}", a * b);
        }
    }
}
