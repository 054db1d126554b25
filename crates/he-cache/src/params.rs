//! Parameter sets sized for cached encryption at 128-bit security.

use helib_rs::{Parameters, ParametersBuilder};
use num_bigint::BigUint;

/// Bits of budget kept beyond a fresh encryption and one scalar product:
/// room for Rache's additions (a few hundred ciphertexts) and a safety margin.
pub const ADDITION_MARGIN_BITS: f64 = 24.0;

/// A builder for parameters that hold one fresh public-key encryption
/// followed by a scalar product with a `scalar_bits`-bit scalar (Smuche's
/// construction) or a few hundred additions (Rache's), still decrypting.
///
/// The chain is sized with the noise model of
/// [`ParametersBuilder::multiplicative_depth`] — fresh noise
/// `log2 t + log2(6σ(2√(2N/3) + 1)) + 1` with σ = 3.2 — plus `scalar_bits`,
/// [`ADDITION_MARGIN_BITS`] and 1 bit for the decryption bound, in primes of
/// at most 60 bits. Encryption needs no key switching, so there are no
/// special primes: the whole 128-bit budget of log2 Q goes to the chain.
/// [`ParametersBuilder::build`] refuses the result when it is below 128-bit
/// security (e.g. t = BN254 Fr needs N ≥ 2^14, and N ≥ 2^15 with full-size scalars).
///
/// ```
/// use he_cache::params::cached_encryption;
/// use num_bigint::BigUint;
///
/// let params = cached_encryption(1 << 13, BigUint::from(65537u32), 16).build()?;
/// assert!(params.security_level().bits() >= 128);
/// # Ok::<(), helib_rs::Error>(())
/// ```
pub fn cached_encryption(ring_degree: usize, t: BigUint, scalar_bits: u32) -> ParametersBuilder {
    let log_t = t.bits() as f64;
    let n = ring_degree.max(2) as f64;
    let fresh = log_t + (6.0 * 3.2 * (2.0 * (2.0 * n / 3.0).sqrt() + 1.0)).log2() + 1.0;
    let total = fresh + f64::from(scalar_bits) + ADDITION_MARGIN_BITS + 1.0;
    Parameters::builder()
        .ring_degree(ring_degree)
        .plaintext_modulus(t)
        .chain_bits(&split_into_primes(total))
        .special_bits(&[])
}

/// Splits `total` bits into as few primes of 30 ..= 60 bits as possible, sizes as equal as possible.
fn split_into_primes(total: f64) -> Vec<u32> {
    let total = total.ceil().max(30.0) as u32;
    let count = total.div_ceil(60);
    let size = total.div_ceil(count).max(30);
    vec![size; count as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_are_in_range_and_cover_the_total() {
        for total in [1.0, 30.0, 61.0, 120.0, 121.5, 548.0] {
            let primes = split_into_primes(total);
            assert!(primes.iter().all(|b| (30..=60).contains(b)), "{primes:?}");
            assert!(f64::from(primes.iter().sum::<u32>()) >= total);
            assert!(primes.iter().sum::<u32>() < total.max(30.0) as u32 + primes.len() as u32 + 1);
        }
    }

    #[test]
    fn bn254_needs_a_large_ring_for_full_scalars() {
        let bn254 = || {
            BigUint::parse_bytes(
                b"21888242871839275222246405745257275088548364400416034343698204186575808495617",
                10,
            )
            .unwrap_or_default()
        };
        assert!(cached_encryption(1 << 14, bn254(), 254).build().is_err());
        assert!(cached_encryption(1 << 14, bn254(), 40).build().is_ok());
        assert!(cached_encryption(1 << 15, bn254(), 254).build().is_ok());
        assert!(cached_encryption(1 << 13, bn254(), 0).build().is_err());
    }
}
