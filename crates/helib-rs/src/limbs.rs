//! Big integers: conversions to and from the engine's little-endian 64-bit
//! limbs, and their size in bits.

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

/// log2 of a positive big integer (0 for zero).
pub(crate) fn log2(value: &BigUint) -> f64 {
    let bits = value.bits();
    if bits <= 64 {
        let small = value.iter_u64_digits().next().unwrap_or(0);
        return if small == 0 {
            0.0
        } else {
            (small as f64).log2()
        };
    }
    let shift = bits - 64;
    let top = (value >> shift).iter_u64_digits().next().unwrap_or(0);
    (top as f64).log2() + shift as f64
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

    #[test]
    fn log2_of_big_values() {
        assert_eq!(log2(&BigUint::from(1u32)), 0.0);
        assert_eq!(log2(&BigUint::from(65536u32)), 16.0);
        assert!((log2(&(BigUint::from(3u32) << 200u32)) - (200.0 + 3f64.log2())).abs() < 1e-12);
        assert!(
            (log2(
                &BigUint::parse_bytes(
                    b"30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001",
                    16,
                )
                .unwrap()
            ) - 253.6)
                .abs()
                < 0.1
        );
    }
}
