//! Security estimates, read from the engine's table.
//!
//! The engine (`helib-sys`, `cpp/src/ring/security.cpp`) owns the table and the
//! 128-bit floor that [`Context::new`](crate::Context::new) enforces; this
//! module only asks it. For each ring degree N the table gives the largest bit
//! size of the key modulus that still reaches a security level against
//! classical attacks with a ternary secret (uniform in {-1, 0, 1}): the
//! 128-bit row of the 2024 HomomorphicEncryption.org guidelines (Bossuat et
//! al., "Security Guidelines for Implementing Homomorphic Encryption", IACR
//! ePrint 2024/463) and the 192- and 256-bit rows of OpenFHE's current table.
//! The key modulus is the whole modulus a key lives under: the ciphertext
//! chain Q **and** the special primes P used for key switching, so the table
//! is read with log2(Q·P).

use std::fmt;

use helib_sys as sys;

use crate::ffi::query;

/// A security level in bits, as estimated from the engine's table.
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
    /// and a `log_qp` that is not a number are reported as
    /// [`SecurityLevel::Below128`].
    ///
    /// ```
    /// use helib_rs::SecurityLevel;
    /// assert_eq!(SecurityLevel::estimate(1 << 15, 868.0), SecurityLevel::Bits128);
    /// assert_eq!(SecurityLevel::estimate(1 << 15, 869.0), SecurityLevel::Below128);
    /// assert_eq!(SecurityLevel::estimate(1 << 16, 1000.0), SecurityLevel::Bits192);
    /// ```
    pub fn estimate(ring_degree: usize, log_qp: f64) -> Self {
        let Ok(n) = u64::try_from(ring_degree) else {
            return Self::Below128;
        };
        // SAFETY: the function reads only its scalar arguments and writes the
        // level through `out`, a valid place.
        let bits = query(|out| unsafe { sys::helib_security_estimate(n, log_qp, out) });
        // The call cannot fail with a valid out-pointer; were it to, the
        // conservative answer is "not secure".
        Self::from_bits(bits.unwrap_or(0))
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

    /// The level guaranteeing `bits` bits: the highest one not above it.
    fn from_bits(bits: u32) -> Self {
        match bits {
            256.. => Self::Bits256,
            192.. => Self::Bits192,
            128.. => Self::Bits128,
            _ => Self::Below128,
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
/// assert_eq!(max_log_qp(1 << 16, SecurityLevel::Bits128), Some(1747));
/// assert_eq!(max_log_qp(1000, SecurityLevel::Bits128), None);
/// ```
pub fn max_log_qp(ring_degree: usize, level: SecurityLevel) -> Option<u32> {
    if level == SecurityLevel::Below128 {
        return None;
    }
    let n = u64::try_from(ring_degree).ok()?;
    let bits = level.bits();
    // SAFETY: the function reads only its scalar arguments and writes the
    // bound through `out`, a valid place.
    query(|out| unsafe { sys::helib_security_max_log_qp(n, bits, out) }).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const LEVELS: [SecurityLevel; 3] = [
        SecurityLevel::Bits128,
        SecurityLevel::Bits192,
        SecurityLevel::Bits256,
    ];

    #[test]
    fn bounds_are_inclusive_and_levels_nest() {
        for log_n in 10..=17u32 {
            let n = 1usize << log_n;
            let [m128, m192, m256] = LEVELS.map(|level| max_log_qp(n, level).unwrap());
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
            assert_eq!(
                SecurityLevel::estimate(n, f64::NAN),
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
        assert_eq!(max_log_qp(usize::MAX, SecurityLevel::Bits128), None);
        assert_eq!(max_log_qp(1 << 12, SecurityLevel::Below128), None);
    }

    /// The current table (ternary secret, classical): the 2024 guidelines'
    /// 128-bit row and OpenFHE's 192- and 256-bit rows, N = 2^10 ..= 2^17.
    #[test]
    fn table_is_the_current_one() {
        let rows = LEVELS.map(|level| {
            (10..=17u32)
                .map(|log_n| max_log_qp(1 << log_n, level).unwrap())
                .collect::<Vec<_>>()
        });
        assert_eq!(rows[0], [26, 53, 106, 214, 430, 868, 1747, 3523]);
        assert_eq!(rows[1], [19, 37, 75, 152, 305, 611, 1199, 2411]);
        assert_eq!(rows[2], [14, 29, 58, 118, 237, 476, 929, 1866]);
        // The 2018 N = 2^16 bounds no longer hold.
        assert_eq!(
            SecurityLevel::estimate(1 << 16, 1772.0),
            SecurityLevel::Below128
        );
        assert_eq!(
            SecurityLevel::estimate(1 << 16, 1228.0),
            SecurityLevel::Bits128
        );
        assert_eq!(
            SecurityLevel::estimate(1 << 16, 956.0),
            SecurityLevel::Bits192
        );
        assert!(SecurityLevel::Below128 < SecurityLevel::Bits128);
    }
}
