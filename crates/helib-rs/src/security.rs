//! Security estimates from the HomomorphicEncryption.org standard.
//!
//! The table is the one of the Homomorphic Encryption Security Standard
//! (Albrecht et al., 2018) for a ternary secret (uniform in {-1, 0, 1}) against
//! classical attacks: for each ring degree N it gives the largest bit size of
//! the key modulus that still reaches a security level. The key modulus is the
//! whole modulus a key lives under: the ciphertext chain Q **and** the special
//! primes P used for key switching, so the table is read with log2(Q·P).

use std::fmt;

/// Ring degrees covered by the table: 2^10 ..= 2^17.
const LOG_DEGREES: std::ops::RangeInclusive<u32> = 10..=17;

/// Largest log2(Q·P) for 128-bit security, N = 2^10 ..= 2^17.
const MAX_LOG_QP_128: [u32; 8] = [27, 54, 109, 218, 438, 881, 1772, 3523];
/// Largest log2(Q·P) for 192-bit security, N = 2^10 ..= 2^17.
const MAX_LOG_QP_192: [u32; 8] = [19, 37, 75, 152, 305, 611, 1228, 2411];
/// Largest log2(Q·P) for 256-bit security, N = 2^10 ..= 2^17.
const MAX_LOG_QP_256: [u32; 8] = [14, 29, 58, 118, 237, 476, 956, 1866];

/// A security level in bits, as estimated from the HomomorphicEncryption.org table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SecurityLevel {
    /// Less than 128 bits: for tests only.
    Below128,
    /// At least 128 bits.
    Bits128,
    /// At least 192 bits.
    Bits192,
    /// At least 256 bits.
    Bits256,
}

impl SecurityLevel {
    /// Estimates the security of ring degree `ring_degree` with a key modulus of
    /// `log_qp` bits (log2 of Q·P, chain and special primes together).
    ///
    /// Ring degrees outside the table (not a power of two in 2^10 ..= 2^17)
    /// are reported as [`SecurityLevel::Below128`].
    ///
    /// ```
    /// use helib_rs::SecurityLevel;
    /// assert_eq!(SecurityLevel::estimate(1 << 15, 881.0), SecurityLevel::Bits128);
    /// assert_eq!(SecurityLevel::estimate(1 << 15, 882.0), SecurityLevel::Below128);
    /// assert_eq!(SecurityLevel::estimate(1 << 16, 1000.0), SecurityLevel::Bits192);
    /// ```
    pub fn estimate(ring_degree: usize, log_qp: f64) -> Self {
        [Self::Bits256, Self::Bits192, Self::Bits128]
            .into_iter()
            .find(|&level| {
                max_log_qp(ring_degree, level).is_some_and(|max| log_qp <= f64::from(max))
            })
            .unwrap_or(Self::Below128)
    }

    /// The number of bits of security this level guarantees (0 for [`Below128`](Self::Below128)).
    pub fn bits(self) -> u32 {
        match self {
            Self::Below128 => 0,
            Self::Bits128 => 128,
            Self::Bits192 => 192,
            Self::Bits256 => 256,
        }
    }
}

impl fmt::Display for SecurityLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Below128 => f.write_str("below 128 bits (insecure)"),
            other => write!(f, "{} bits", other.bits()),
        }
    }
}

/// The largest log2(Q·P) that reaches `level` at ring degree `ring_degree`.
///
/// `None` when the table has no entry: `ring_degree` is not a power of two in
/// 2^10 ..= 2^17, or `level` is [`SecurityLevel::Below128`] (which has no bound).
///
/// ```
/// use helib_rs::{max_log_qp, SecurityLevel};
/// assert_eq!(max_log_qp(1 << 16, SecurityLevel::Bits128), Some(1772));
/// assert_eq!(max_log_qp(1000, SecurityLevel::Bits128), None);
/// ```
pub fn max_log_qp(ring_degree: usize, level: SecurityLevel) -> Option<u32> {
    if !ring_degree.is_power_of_two() {
        return None;
    }
    let log_n = ring_degree.trailing_zeros();
    if !LOG_DEGREES.contains(&log_n) {
        return None;
    }
    let table = match level {
        SecurityLevel::Below128 => return None,
        SecurityLevel::Bits128 => &MAX_LOG_QP_128,
        SecurityLevel::Bits192 => &MAX_LOG_QP_192,
        SecurityLevel::Bits256 => &MAX_LOG_QP_256,
    };
    table.get((log_n - LOG_DEGREES.start()) as usize).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_inclusive_and_levels_nest() {
        for log_n in 10..=17u32 {
            let n = 1usize << log_n;
            let m128 = max_log_qp(n, SecurityLevel::Bits128).unwrap();
            let m192 = max_log_qp(n, SecurityLevel::Bits192).unwrap();
            let m256 = max_log_qp(n, SecurityLevel::Bits256).unwrap();
            assert!(m256 < m192 && m192 < m128);
            assert_eq!(
                SecurityLevel::estimate(n, f64::from(m256)),
                SecurityLevel::Bits256
            );
            assert_eq!(
                SecurityLevel::estimate(n, f64::from(m256) + 0.5),
                SecurityLevel::Bits192
            );
            assert_eq!(
                SecurityLevel::estimate(n, f64::from(m192)),
                SecurityLevel::Bits192
            );
            assert_eq!(
                SecurityLevel::estimate(n, f64::from(m128)),
                SecurityLevel::Bits128
            );
            assert_eq!(
                SecurityLevel::estimate(n, f64::from(m128) + 1.0),
                SecurityLevel::Below128
            );
        }
    }

    #[test]
    fn unknown_degrees_are_insecure() {
        assert_eq!(SecurityLevel::estimate(512, 1.0), SecurityLevel::Below128);
        assert_eq!(SecurityLevel::estimate(3000, 1.0), SecurityLevel::Below128);
        assert_eq!(
            SecurityLevel::estimate(1 << 18, 1.0),
            SecurityLevel::Below128
        );
        assert_eq!(max_log_qp(0, SecurityLevel::Bits128), None);
        assert_eq!(max_log_qp(1 << 12, SecurityLevel::Below128), None);
    }

    #[test]
    fn table_matches_the_standard() {
        assert_eq!(max_log_qp(1 << 10, SecurityLevel::Bits128), Some(27));
        assert_eq!(max_log_qp(1 << 17, SecurityLevel::Bits128), Some(3523));
        assert_eq!(max_log_qp(1 << 14, SecurityLevel::Bits192), Some(305));
        assert_eq!(max_log_qp(1 << 17, SecurityLevel::Bits256), Some(1866));
        assert!(SecurityLevel::Below128 < SecurityLevel::Bits128);
    }
}
