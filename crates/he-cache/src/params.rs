//! Parameter sets sized for cached encryption at 128-bit security.

use helib_rs::advice::{ChainLayout, Circuit, Demand, KeySwitching, Operations};
use helib_rs::{noise, Advisor, ParametersBuilder, Workload};
use num_bigint::BigUint;

/// Bits of budget kept beyond a fresh encryption and one scalar product:
/// room for Rache's additions (a few hundred ciphertexts) and a safety margin.
pub const ADDITION_MARGIN_BITS: f64 = 24.0;

/// A builder for parameters that hold one fresh public-key encryption
/// followed by a scalar product with a `scalar_bits`-bit scalar (Smuche's
/// construction) or a few hundred additions (Rache's), still decrypting:
/// the [`Advisor`]'s chain for [`workload`] at ring degree `ring_degree`.
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
    Advisor::new(workload(t, scalar_bits)).builder_at(ring_degree)
}

/// Cached encryption as a [`Workload`]: one fresh encryption and a product
/// with a `scalar_bits`-bit scalar ([`Circuit::ScalarProduct`] with
/// [`ADDITION_MARGIN_BITS`]), t sized by its bit length, uniform primes of
/// at least 30 bits, no key switching; counted: one encryption, one scalar
/// product (priced as a plaintext product) and one decryption. With it the
/// [`Advisor`] also finds the smallest ring:
///
/// ```
/// use he_cache::params::workload;
/// use helib_rs::Advisor;
///
/// let t = <helib_rs::ark_bn254::Fr as helib_rs::ark_ff::PrimeField>::MODULUS.into();
/// assert_eq!(Advisor::new(workload(t, 254)).advise()?.ring_degree(), 1 << 15);
/// # Ok::<(), helib_rs::Error>(())
/// ```
pub fn workload(t: BigUint, scalar_bits: u32) -> Workload {
    let circuit = Circuit::ScalarProduct {
        scalar_bits,
        margin_bits: ADDITION_MARGIN_BITS,
    };
    let operations = Operations {
        encryptions: 1,
        decryptions: 1,
        plain_products: 1,
        ..Operations::default()
    };
    Workload::new(t, Demand::new(circuit).operations(operations))
        .log_t_as_bit_length()
        .chain_layout(ChainLayout::Uniform {
            min_prime_bits: noise::MIN_PRIME_BITS,
        })
        .key_switching(&[KeySwitching::None])
}

#[cfg(test)]
mod tests {
    use super::*;
    use helib_rs::advice::{reference_moduli, ChoiceLog};

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

    /// The builder gives what it gave before it asked the advisor (its own
    /// sum of the noise model's terms): the expected fingerprint is of the
    /// lines it printed, built as they are and with insecure parameters
    /// allowed, for the advisor's reference moduli, rings (valid and not)
    /// and scalar sizes.
    #[test]
    fn the_builder_gives_what_it_gave_before_the_advisor() {
        let mut lines = ChoiceLog::new();
        for (name, t) in &reference_moduli() {
            let rings = [
                512usize,
                1024,
                3000,
                4096,
                1 << 13,
                1 << 14,
                1 << 15,
                1 << 16,
                1 << 17,
                1 << 18,
            ];
            for ring in rings {
                for bits in [0u32, 16, 17, 40, 64, 254, 300] {
                    let builder = cached_encryption(ring, t.clone(), bits);
                    lines.record_parameters(
                        format_args!("cache {name} cached({ring},{bits})"),
                        &builder.clone().build(),
                    );
                    lines.record_parameters(
                        format_args!("cache {name} cached_insecure({ring},{bits})"),
                        &builder.allow_insecure().build(),
                    );
                }
            }
        }
        assert_eq!(lines.len(), 700);
        assert_eq!(
            lines.fingerprint(),
            0x2a28_fe39_effc_7459,
            "the parameters changed:\n{lines}"
        );
    }
}
