//! Prime-field elements ↔ the engine's little-endian coefficient limbs.

use ark_ff::PrimeField;
use num_bigint::BigUint;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::plaintext::Plaintext;

/// `Err(reason)` unless t is F's modulus.
pub(crate) fn check_modulus<F: PrimeField>(context: &Context) -> std::result::Result<(), String> {
    let t = context.plaintext_modulus();
    let modulus: BigUint = F::MODULUS.into();
    if *t == modulus {
        Ok(())
    } else {
        Err(format!(
            "the plaintext modulus t = {t} is not the field's modulus {modulus}"
        ))
    }
}

/// The plaintext with coefficients `coefficients` (at most N; the rest zero),
/// for a context whose t is F's modulus.
pub(crate) fn to_plaintext<F: PrimeField>(
    context: &Context,
    coefficients: &[F],
) -> Result<Plaintext> {
    let n = context.ring_degree();
    if coefficients.len() > n {
        return Err(Error::InvalidPlaintext(format!(
            "{} values were given but the ring degree is {n}",
            coefficients.len()
        )));
    }
    let width = context.plain_limbs();
    let mut limbs = vec![0u64; n * width];
    for (&c, out) in coefficients.iter().zip(limbs.chunks_exact_mut(width)) {
        if !write(c, out) {
            return Err(Error::InvalidPlaintext(
                "a field element does not fit the plaintext limbs".into(),
            ));
        }
    }
    Ok(Plaintext::from_engine_limbs(context, limbs))
}

/// The N coefficients of `plaintext` as field elements.
pub(crate) fn from_plaintext<F: PrimeField>(plaintext: &Plaintext) -> Result<Vec<F>> {
    plaintext
        .coefficient_limbs()
        .map(|limbs| {
            read::<F>(limbs).ok_or_else(|| {
                Error::InvalidPlaintext("a coefficient is not a field element".into())
            })
        })
        .collect()
}

/// Writes the canonical integer of `value` into `out`, zero-padded.
///
/// Returns `false` if it needs more limbs than `out` has (impossible when
/// `out` has the plain limbs of a context whose t is F's modulus).
pub(crate) fn write<F: PrimeField>(value: F, out: &mut [u64]) -> bool {
    let repr = value.into_bigint();
    let limbs = repr.as_ref();
    let used = limbs.len().min(out.len());
    if limbs[used..].iter().any(|&limb| limb != 0) {
        return false;
    }
    out[..used].copy_from_slice(&limbs[..used]);
    out[used..].fill(0);
    true
}

/// The field element with canonical integer `limbs`, or `None` if that
/// integer is not below F's modulus.
pub(crate) fn read<F: PrimeField>(limbs: &[u64]) -> Option<F> {
    let mut repr = F::BigInt::default();
    let slots = repr.as_mut();
    let used = limbs.len().min(slots.len());
    if limbs[used..].iter().any(|&limb| limb != 0) {
        return None;
    }
    slots[..used].copy_from_slice(&limbs[..used]);
    F::from_bigint(repr)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::Fr;
    use ark_ff::{Field, UniformRand};

    #[test]
    fn round_trip_and_range_checks() {
        let mut rng = ark_std::test_rng();
        for _ in 0..100 {
            let x = Fr::rand(&mut rng);
            let mut limbs = [7u64; 6];
            assert!(write(x, &mut limbs));
            assert_eq!(limbs[4..], [0, 0]);
            assert_eq!(read::<Fr>(&limbs), Some(x));
        }
        let minus_one = -Fr::ONE;
        let mut short = [0u64; 3];
        assert!(!write(minus_one, &mut short));
        let modulus = Fr::MODULUS;
        assert_eq!(read::<Fr>(modulus.as_ref()), None);
        assert_eq!(read::<Fr>(&[1, 0, 0, 0, 0, 1]), None);
        assert_eq!(read::<Fr>(&[5]), Some(Fr::from(5u64)));
    }
}
