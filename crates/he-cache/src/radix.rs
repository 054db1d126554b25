//! Radix arithmetic shared by Rache and Smuche: pivots r^i, digits, and the
//! largest cached power dividing a value.

use num_bigint::BigUint;
use num_traits::{One, Zero};

use crate::error::{Error, Result};

/// Most pivots a cache may hold (each pivot is a whole ciphertext).
pub const MAX_PIVOTS: usize = 4096;

/// A radix r ≥ 2 with a number of cached pivots r^0 … r^(k−1), k ≥ 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Radix {
    radix: u64,
    pivots: usize,
}

impl Radix {
    /// The radix `radix` with `pivots` cached powers.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] when `radix < 2`, `pivots == 0` or
    /// `pivots > MAX_PIVOTS`.
    pub fn new(radix: u64, pivots: usize) -> Result<Self> {
        if radix < 2 {
            return Err(Error::InvalidConfig(format!(
                "the radix must be at least 2, not {radix}"
            )));
        }
        if pivots == 0 || pivots > MAX_PIVOTS {
            return Err(Error::InvalidConfig(format!(
                "the pivot count must be in 1..={MAX_PIVOTS}, not {pivots}"
            )));
        }
        Ok(Self { radix, pivots })
    }

    /// The radix with just enough pivots for every value below `bound`
    /// (⌈log_r bound⌉ of them, at least one).
    ///
    /// # Errors
    /// As for [`new`](Self::new) (also when more than `MAX_PIVOTS` would be needed).
    pub fn covering(radix: u64, bound: &BigUint) -> Result<Self> {
        Self::new(radix, 1)?;
        let below = bound.clone().max(BigUint::one()) - 1u32;
        Self::new(radix, digit_count(&below, radix).max(1))
    }

    /// The radix r.
    pub fn radix(&self) -> u64 {
        self.radix
    }

    /// The number of pivots k.
    pub fn pivots(&self) -> usize {
        self.pivots
    }

    /// The pivots r^0, …, r^(k−1) as integers.
    pub fn powers(&self) -> Vec<BigUint> {
        std::iter::successors(Some(BigUint::one()), |p| Some(p * self.radix))
            .take(self.pivots)
            .collect()
    }

    /// The k radix-r digits of `value`, least significant first.
    ///
    /// # Errors
    /// [`Error::ValueTooLarge`] when `value ≥ r^k`.
    pub fn digits(&self, value: &BigUint) -> Result<Vec<u64>> {
        let mut digits = Vec::with_capacity(self.pivots);
        let mut rest = value.clone();
        while !rest.is_zero() {
            let digit = &rest % self.radix;
            digits.push(digit.iter_u64_digits().next().unwrap_or(0));
            rest /= self.radix;
        }
        if digits.len() > self.pivots {
            return Err(Error::ValueTooLarge {
                radix: self.radix,
                needed: digits.len(),
                pivots: self.pivots,
            });
        }
        digits.resize(self.pivots, 0);
        Ok(digits)
    }

    /// Splits a nonzero `value` as `quotient · r^index` with the largest
    /// cached power r^index (index < k) that divides it; zero gives `(0, 0)`.
    ///
    /// This is Smuche's "nearest pivot": the smallest scalar, hence the least noise.
    pub fn split_power(&self, value: &BigUint) -> (usize, BigUint) {
        let mut quotient = value.clone();
        let mut index = 0;
        if quotient.is_zero() {
            return (0, quotient);
        }
        while index + 1 < self.pivots && (&quotient % self.radix).is_zero() {
            quotient /= self.radix;
            index += 1;
        }
        (index, quotient)
    }
}

/// The number of radix-r digits of `value` (0 for zero).
fn digit_count(value: &BigUint, radix: u64) -> usize {
    let mut count = 0;
    let mut rest = value.clone();
    while !rest.is_zero() {
        rest /= radix;
        count += 1;
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big(v: u64) -> BigUint {
        BigUint::from(v)
    }

    #[test]
    fn digits_recompose_the_value() {
        let radix = Radix::new(7, 5).unwrap();
        for value in [0u64, 1, 6, 7, 48, 16806] {
            let digits = radix.digits(&big(value)).unwrap();
            assert_eq!(digits.len(), 5);
            let back: BigUint = digits.iter().zip(radix.powers()).map(|(d, p)| p * *d).sum();
            assert_eq!(back, big(value));
        }
        assert_eq!(
            radix.digits(&big(16807)),
            Err(Error::ValueTooLarge {
                radix: 7,
                needed: 6,
                pivots: 5
            })
        );
    }

    #[test]
    fn covering_holds_every_value_below_the_bound() {
        let t = big(65537);
        let radix = Radix::covering(2, &t).unwrap();
        assert_eq!(radix.pivots(), 17);
        assert!(radix.digits(&big(65536)).is_ok());
        assert_eq!(Radix::covering(16, &big(65536)).unwrap().pivots(), 4);
        assert_eq!(Radix::covering(10, &big(1)).unwrap().pivots(), 1);
    }

    #[test]
    fn split_power_takes_the_largest_cached_power() {
        let radix = Radix::new(10, 3).unwrap();
        assert_eq!(radix.split_power(&big(0)), (0, big(0)));
        assert_eq!(radix.split_power(&big(7)), (0, big(7)));
        assert_eq!(radix.split_power(&big(1200)), (2, big(12)));
        // Only r^0..r^2 are cached: 10^5 = 1000 · 10^2.
        assert_eq!(radix.split_power(&big(100_000)), (2, big(1000)));
    }

    #[test]
    fn bad_configurations_are_refused() {
        assert!(matches!(Radix::new(1, 3), Err(Error::InvalidConfig(_))));
        assert!(matches!(Radix::new(2, 0), Err(Error::InvalidConfig(_))));
        assert!(matches!(
            Radix::new(2, MAX_PIVOTS + 1),
            Err(Error::InvalidConfig(_))
        ));
        assert!(Radix::covering(2, &(BigUint::one() << 5000u32)).is_err());
    }
}
