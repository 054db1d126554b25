//! Parameter sets for HESC over BGV: secure defaults and small test sets.
//!
//! HESC needs no ciphertext × ciphertext multiplication, so its BGV
//! parameters only carry the noise of additions, at most one plaintext
//! product (multiplexed addition) and the scalar products of fusion.

use helib_rs::Parameters;
use num_bigint::BigUint;

use crate::error::Result;

/// t = 65537, ring degree 2^`log_n` (11 ..= 15), a chain for `depth`
/// plaintext products; refuses parameters below 128-bit security.
///
/// Depth 2 covers one multiplexed addition followed by fusion. At
/// N = 2^13 that is a 98-bit chain in two primes plus one 53-bit special
/// prime: log2(Q·P) ≈ 151 ≤ 214, 128-bit secure.
///
/// # Errors
/// [`Error::Bgv`](crate::Error::Bgv) when the set is invalid or below
/// 128-bit security (e.g. N = 2^11 with depth 2).
pub fn t65537(log_n: u32, depth: usize) -> Result<Parameters> {
    Ok(Parameters::builder()
        .ring_degree(1 << log_n)
        .plaintext_modulus(BigUint::from(65537u32))
        .multiplicative_depth(depth)
        .build()?)
}

/// The paper's plaintext modulus t = 12289 at N = 2^11 with one 53-bit prime
/// and no special prime: log2(Q·P) = 53, exactly the 128-bit bound for
/// N = 2^11. Its ~27-bit noise budget covers additions and fusion of 5.
///
/// # Errors
/// [`Error::Bgv`](crate::Error::Bgv) if the engine refuses the set.
pub fn t12289_n11() -> Result<Parameters> {
    Ok(Parameters::builder()
        .ring_degree(1 << 11)
        .plaintext_modulus(BigUint::from(12289u32))
        .chain_bits(&[53])
        .special_bits(&[])
        .build()?)
}

/// **Insecure** t = 65537, N = 2^12, depth 2: fast parameters for tests.
///
/// # Errors
/// Never in practice.
pub fn t65537_for_tests() -> Result<Parameters> {
    Ok(Parameters::builder()
        .ring_degree(1 << 12)
        .plaintext_modulus(BigUint::from(65537u32))
        .multiplicative_depth(2)
        .allow_insecure()
        .build()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secure_sets_are_secure() {
        for p in [
            t65537(13, 2).unwrap(),
            t65537(14, 2).unwrap(),
            t12289_n11().unwrap(),
        ] {
            assert!(p.security_level().bits() >= 128, "{p:?}");
        }
        assert_eq!(t12289_n11().unwrap().log_qp_bound(), 53);
        assert!(t65537(11, 2).is_err());
        assert!(t65537_for_tests().unwrap().insecure_allowed());
    }
}
