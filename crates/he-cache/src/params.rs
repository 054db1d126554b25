//! Parameter sets sized for cached encryption at 128-bit security.

use helib_rs::{noise, Parameters, ParametersBuilder};
use num_bigint::BigUint;

/// Bits of budget kept beyond a fresh encryption and one scalar product:
/// room for Rache's additions (a few hundred ciphertexts) and a safety margin.
pub const ADDITION_MARGIN_BITS: f64 = 24.0;

/// A builder for parameters that hold one fresh public-key encryption
/// followed by a scalar product with a `scalar_bits`-bit scalar (Smuche's
/// construction) or a few hundred additions (Rache's), still decrypting.
///
/// The chain is sized with [`helib_rs::noise`]: the fresh noise
/// ([`noise::fresh_bits`], taking log2 t as t's bit length), the scalar
/// product ([`noise::scalar_product_bits`]), [`ADDITION_MARGIN_BITS`] and
/// the decryption bit, in primes of one size, at most 60 bits
/// ([`noise::uniform_primes`]). Encryption needs no key switching, so there are no
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
    let fresh = noise::fresh_bits(ring_degree.max(2), log_t);
    let total = fresh
        + noise::scalar_product_bits(scalar_bits, log_t)
        + ADDITION_MARGIN_BITS
        + noise::DECRYPTION_BITS;
    Parameters::builder()
        .ring_degree(ring_degree)
        .plaintext_modulus(t)
        .chain_bits(&noise::uniform_primes(total, noise::MIN_PRIME_BITS))
        .special_bits(&[])
}

#[cfg(test)]
mod tests {
    use super::*;

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
