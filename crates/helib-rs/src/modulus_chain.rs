//! The noise model that turns a multiplicative depth into prime bit sizes.
//!
//! All sizes are in bits (log2). For ring degree N, plaintext modulus t and a
//! ternary secret with error standard deviation σ = 3.2:
//!
//! * a fresh ciphertext has noise of about
//!   `log2 t + log2(6σ·(2·√(2N/3) + 1)) + 1` bits
//!   ([`fresh_noise_bits`]): `t·e` terms whose coefficients stay below 6σ,
//!   multiplied by a ternary polynomial of expected norm `√(2N/3)`;
//! * multiplying by a plaintext (coefficients below t, so L1 norm at most N·t)
//!   adds about `log2 t + log2 N` bits ([`plain_multiplication_noise_bits`]);
//! * decryption needs the noise below `Q/2` (one bit), and we keep a margin of
//!   10 bits on top.
//!
//! [`chain_bits_for_depth`] adds these up and splits the total into primes of
//! at most 60 bits, as equal as possible. [`special_bits_for_digits`] sizes the
//! special modulus P for key switching with `dnum` digits.

use num_bigint::BigUint;

/// Standard deviation of the discrete Gaussian error.
pub(crate) const ERROR_STD_DEV: f64 = 3.2;
/// Safety margin added to every derived chain.
pub(crate) const MARGIN_BITS: f64 = 10.0;
/// Decryption recovers `m + t·e` only while it is below `Q/2`.
pub(crate) const DECRYPTION_BITS: f64 = 1.0;
/// Largest prime the derived chains use.
pub(crate) const MAX_DERIVED_PRIME_BITS: u32 = 60;
/// Smallest prime the engine accepts.
pub(crate) const MIN_PRIME_BITS: u32 = 30;
/// Largest prime the engine accepts.
pub(crate) const MAX_PRIME_BITS: u32 = 61;
/// Bits added to the special modulus above the largest key-switching digit.
pub(crate) const KEY_SWITCHING_EXTRA_BITS: u32 = 4;

/// log2 of the noise of a fresh encryption (see the module docs).
pub(crate) fn fresh_noise_bits(ring_degree: usize, log_t: f64) -> f64 {
    let n = ring_degree as f64;
    let expansion = 2.0 * (2.0 * n / 3.0).sqrt() + 1.0;
    log_t + (6.0 * ERROR_STD_DEV * expansion).log2() + 1.0
}

/// Bits of noise one ciphertext × plaintext multiplication adds.
pub(crate) fn plain_multiplication_noise_bits(ring_degree: usize, log_t: f64) -> f64 {
    log_t + (ring_degree as f64).log2()
}

/// Total chain size, in bits, for `depth` plaintext multiplications.
pub(crate) fn chain_total_bits(ring_degree: usize, log_t: f64, depth: usize) -> f64 {
    fresh_noise_bits(ring_degree, log_t)
        + depth as f64 * plain_multiplication_noise_bits(ring_degree, log_t)
        + MARGIN_BITS
        + DECRYPTION_BITS
}

/// Prime sizes (q_0 first) for `depth` plaintext multiplications.
///
/// `total_bits` from [`chain_total_bits`] must already have been checked to be
/// of a sensible size by the caller.
pub(crate) fn chain_bits_for_depth(ring_degree: usize, log_t: f64, depth: usize) -> Vec<u32> {
    let total = chain_total_bits(ring_degree, log_t, depth).ceil() as u32;
    split_bits(total)
}

/// Total chain size, in bits, for `products` sequential ciphertext ×
/// ciphertext products whose results are sums of up to `terms` products
/// (block convolutions) — the chain of coefficient-form polynomial products.
///
/// The first product of fresh operands leaves about
/// `2·fresh + log2 N + log2 terms` bits of noise; each further one, after a
/// modulus switch back to about a fresh noise and a relinearization (its
/// key-switching noise is of the same size), adds
/// `fresh + log2 N + log2 terms + 1`.
pub(crate) fn product_chain_total_bits(
    ring_degree: usize,
    log_t: f64,
    products: usize,
    terms: usize,
) -> f64 {
    let fresh = fresh_noise_bits(ring_degree, log_t);
    let per_product = (ring_degree as f64).log2() + (terms.max(1) as f64).log2();
    let first = 2.0 * fresh + per_product;
    let further = products.saturating_sub(1) as f64 * (fresh + per_product + 1.0);
    first + further + MARGIN_BITS + DECRYPTION_BITS
}

/// Prime sizes (q_0 first) for the chain of `product_chain_total_bits`.
///
/// ```
/// // One product of fresh BN254-sized ciphertexts at N = 2^15, 64 terms per block.
/// let t = num_bigint::BigUint::from(1u32) << 254u32;
/// let bits = helib_rs::product_chain_bits(1 << 15, &t, 1, 64);
/// let total: u32 = bits.iter().sum();
/// assert!((560..620).contains(&total));
/// ```
pub fn product_chain_bits(
    ring_degree: usize,
    t: &BigUint,
    products: usize,
    terms: usize,
) -> Vec<u32> {
    let log_t = crate::limbs::log2(t);
    split_bits(product_chain_total_bits(ring_degree, log_t, products, terms).ceil() as u32)
}

/// Prime sizes for a special modulus P suited to `digits` key-switching digits.
///
/// The chain is cut into `digits` groups of `ceil(len / digits)` consecutive
/// primes (the usual hybrid key switching); P must exceed the largest group's
/// product, plus [`KEY_SWITCHING_EXTRA_BITS`]. `digits == 0` gives no special
/// primes (the caller rejects it beforehand).
pub(crate) fn special_bits_for_digits(chain_bits: &[u32], digits: usize) -> Vec<u32> {
    if digits == 0 || chain_bits.is_empty() {
        return Vec::new();
    }
    let per_digit = chain_bits.len().div_ceil(digits);
    let largest_digit = chain_bits
        .chunks(per_digit)
        .map(|group| group.iter().sum::<u32>())
        .max()
        .unwrap_or(0);
    split_bits(largest_digit + KEY_SWITCHING_EXTRA_BITS)
}

/// Splits `total` bits into as few primes of at most 60 bits as possible,
/// with sizes as equal as possible (larger ones first) and each at least 30.
pub(crate) fn split_bits(total: u32) -> Vec<u32> {
    let total = total.max(MIN_PRIME_BITS);
    let count = total.div_ceil(MAX_DERIVED_PRIME_BITS);
    let base = total / count;
    let larger = total % count;
    (0..count)
        .map(|i| if i < larger { base + 1 } else { base })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn product_chains_grow_by_a_fresh_noise_per_further_product() {
        let one = product_chain_total_bits(1 << 15, 254.0, 1, 1);
        assert!((one - (2.0 * fresh_noise_bits(1 << 15, 254.0) + 15.0 + 11.0)).abs() < 1e-9);
        let two = product_chain_total_bits(1 << 15, 254.0, 2, 4);
        let expected = one + 2.0 + fresh_noise_bits(1 << 15, 254.0) + 15.0 + 2.0 + 1.0;
        assert!((two - expected).abs() < 1e-9);
        let t = BigUint::from(1u32) << 254u32;
        assert!(product_chain_bits(1 << 15, &t, 1, 1).iter().sum::<u32>() as f64 >= one);
    }

    #[test]
    fn split_is_balanced_and_bounded() {
        for total in [1, 29, 30, 60, 61, 119, 120, 121, 548, 1000] {
            let parts = split_bits(total);
            let sum: u32 = parts.iter().sum();
            assert_eq!(sum, total.max(30), "total {total}");
            assert!(parts.iter().all(|&b| (30..=60).contains(&b)), "{parts:?}");
            let (min, max) = (parts.iter().min().unwrap(), parts.iter().max().unwrap());
            assert!(max - min <= 1, "{parts:?}");
            assert_eq!(parts.len() as u32, total.max(30).div_ceil(60));
        }
    }

    #[test]
    fn fresh_noise_matches_the_formula() {
        // N = 2^15, t ≈ 2^254: 6·3.2·(2·√21845.33 + 1) ≈ 5695, log2 ≈ 12.48.
        let bits = fresh_noise_bits(1 << 15, 254.0);
        assert!((bits - (254.0 + 12.475 + 1.0)).abs() < 0.01, "{bits}");
        assert_eq!(plain_multiplication_noise_bits(1 << 15, 254.0), 269.0);
    }

    #[test]
    fn depth_adds_one_multiplication_each() {
        let one = chain_total_bits(4096, 17.0, 1);
        let three = chain_total_bits(4096, 17.0, 3);
        assert!((three - one - 2.0 * (17.0 + 12.0)).abs() < 1e-9);
        let chain = chain_bits_for_depth(4096, 17.0, 3);
        assert!(chain.iter().sum::<u32>() as f64 >= three);
    }

    #[test]
    fn special_modulus_covers_the_largest_digit() {
        let chain = [55, 55, 55, 55, 55, 55, 55, 55, 54, 54];
        // 10 primes in 3 digits: groups of 4, 4 and 2 primes, the largest 220 bits.
        let special = special_bits_for_digits(&chain, 3);
        assert_eq!(special.iter().sum::<u32>(), 224);
        assert_eq!(special_bits_for_digits(&chain, 100).iter().sum::<u32>(), 59);
        assert!(special_bits_for_digits(&chain, 0).is_empty());
    }
}
