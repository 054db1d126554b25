//! Conversions between big integers and the engine's little-endian 64-bit limbs.

use num_bigint::BigUint;

/// The value of little-endian 64-bit limbs.
pub(crate) fn to_biguint(limbs: &[u64]) -> BigUint {
    let digits: Vec<u32> = limbs
        .iter()
        .flat_map(|&limb| [limb as u32, (limb >> 32) as u32])
        .collect();
    BigUint::new(digits)
}

/// Writes `value` into `out` as little-endian limbs, zero-padded.
///
/// Returns `false` (leaving `out` partly written) when `value` needs more limbs
/// than `out` has.
pub(crate) fn write_biguint(value: &BigUint, out: &mut [u64]) -> bool {
    let digits = value.to_u64_digits();
    if digits.len() > out.len() {
        return false;
    }
    out[..digits.len()].copy_from_slice(&digits);
    out[digits.len()..].fill(0);
    true
}

/// `value` as little-endian limbs, at least one.
pub(crate) fn from_biguint(value: &BigUint) -> Vec<u64> {
    let mut digits = value.to_u64_digits();
    if digits.is_empty() {
        digits.push(0);
    }
    digits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limbs_round_trip() {
        let value = (BigUint::from(0xdead_beef_u64) << 130u32) + 7u32;
        let limbs = from_biguint(&value);
        assert_eq!(limbs.len(), 3);
        assert_eq!(to_biguint(&limbs), value);
        let mut padded = [1u64; 5];
        assert!(write_biguint(&value, &mut padded));
        assert_eq!(padded[3..], [0, 0]);
        assert_eq!(to_biguint(&padded), value);
        assert!(!write_biguint(&value, &mut [0u64; 2]));
        assert_eq!(from_biguint(&BigUint::default()), vec![0]);
    }
}
