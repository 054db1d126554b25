//! The noise and parameter model: how much noise each operation adds, and
//! the chains (prime sizes) and rings that hold a given sequence of
//! operations. Every crate of the workspace sizes its parameters here.
//!
//! All sizes are in bits (log2 of an infinity norm). For ring degree N,
//! plaintext modulus t and a ternary secret with error standard deviation
//! σ = [`ERROR_STD_DEV`] (3.2):
//!
//! * a fresh encryption has noise of at most
//!   `log2 t + log2(8σ·(2·√(2N/3) + 1) + 1/2)` bits ([`fresh_bits`]): `t·e`
//!   terms whose sums stay below [`NOISE_TAIL`] = 8 standard deviations,
//!   where the error meets a ternary polynomial (standard deviation
//!   `σ·√(2N/3)`), plus the message (below t/2). The engine owns the
//!   formula and the constants; this module reads them through the C
//!   interface, so the model and the engine's own estimate of a fresh
//!   ciphertext are the same number;
//! * a sum of k ciphertexts adds `log2 k` ([`addition_bits`]);
//! * a product with a plaintext (coefficients below t, so L1 norm at most
//!   N·t) adds `log2 t + log2 N` ([`plain_product_bits`]); a product with a
//!   scalar of s bits adds min(s, log2 t) ([`scalar_product_bits`]);
//! * a ciphertext product, after a modulus switch down to about the fresh
//!   noise and a relinearization, adds about one fresh noise plus
//!   `log2 N + 1` ([`ciphertext_product_bits`]); switched before it is
//!   relinearized, it keeps at least `log2 t + log2(8·N/√27)`
//!   ([`squared_secret_rounding_bits`]);
//! * a rotation (key switching with the special modulus) adds noise below
//!   the fresh noise, so at most one bit once the noise is above it; the
//!   linear transforms of `he-fft` budget it with their levels
//!   ([`transform_fresh_bits`], [`transform_level_bits`]);
//! * a modulus switch divides the noise by the dropped prime, down to a
//!   floor of about the fresh noise: a level costs nothing while the noise
//!   is above the floor ([`transform_level_drop_bits`]);
//! * decryption needs the noise below `Q/2` (one bit, [`DECRYPTION_BITS`])
//!   and the chains keep [`MARGIN_BITS`] on top;
//! * collective (threshold) decryption adds smudging noise of
//!   [`smudging_bits`] over an ordinary decryption.
//!
//! The engine tracks its own conservative estimate of every ciphertext's
//! noise ([`Ciphertext::noise_estimate_bits`](crate::Ciphertext::noise_estimate_bits));
//! the tests check this model against that estimate and against the noise
//! measured with the secret key, on small rings.
//!
//! [`chain_bits_for_depth`], [`product_chain_bits`] and
//! [`transform_chain_bits`] add these up for a depth; [`split_bits`] and
//! [`uniform_primes`] cut a total into primes. The search for the smallest
//! secure ring whose chain holds what the caller asks belongs to the
//! parameter advisor above this module (`advice::smallest_ring`, and the
//! `Advisor` for a workload described in the terms of this model).
//!
//! ```
//! use helib_rs::noise;
//!
//! // A fresh BN254-sized encryption at N = 2^15 has about 266.9 bits of noise,
//! // and each product with a plaintext adds 269.
//! let fresh = noise::fresh_bits(1 << 15, 254.0);
//! assert!((fresh - 266.9).abs() < 0.1);
//! assert_eq!(noise::plain_product_bits(1 << 15, 254.0), 269.0);
//! // Two products need a chain of fresh + 2·269 + margin + decryption bits.
//! let chain = noise::chain_bits_for_depth(1 << 15, 254.0, 2);
//! assert!(chain.iter().sum::<u32>() as f64 >= fresh + 2.0 * 269.0 + 11.0);
//! assert!(chain.iter().all(|&b| b <= 60));
//! ```

#[cfg(test)]
mod tests;

use helib_sys as sys;
use num_bigint::BigUint;

use crate::error::Result;
use crate::ffi::query;

/// Standard deviation of the discrete Gaussian error (the engine's sampler).
pub const ERROR_STD_DEV: f64 = sys::HELIB_ERROR_STD_DEV;

/// The tail bound of the noise model, in standard deviations: every sum of
/// random terms is taken to stay below 8σ.
///
/// A sum of many independent error products is close to Gaussian, and a
/// Gaussian exceeds 8σ with probability about 2^-49.5; a ciphertext has N
/// coefficients, so at N = 2^17 its noise exceeds the bound with probability
/// at most 2^-32.5. The engine refuses operations by this bound, so it must
/// hold for every ciphertext a computation makes: 6σ (2^-28.9 a coefficient)
/// would leave 2^-11.9 a ciphertext at N = 2^17, one ciphertext in about
/// 4000. 8σ costs 0.4 bits of modulus over 6σ. The engine owns the value
/// (`HELIB_NOISE_TAIL`).
pub const NOISE_TAIL: f64 = sys::HELIB_NOISE_TAIL;

/// The most parties a threshold protocol may have (the engine's bound,
/// `HELIB_MAX_PARTIES`).
pub const MAX_PARTIES: u32 = sys::HELIB_MAX_PARTIES;
/// Safety margin added to every chain derived from a depth.
pub const MARGIN_BITS: f64 = 10.0;
/// Margin of the linear-transform chains ([`transform_chain_bits`]).
pub const TRANSFORM_MARGIN_BITS: f64 = 8.0;
/// Decryption recovers `m + t·e` only while it is below `Q/2`.
pub const DECRYPTION_BITS: f64 = 1.0;
/// Largest prime the derived chains use.
pub const MAX_DERIVED_PRIME_BITS: u32 = 60;
/// Smallest prime the engine accepts.
pub const MIN_PRIME_BITS: u32 = 30;
/// Largest prime the engine accepts.
pub const MAX_PRIME_BITS: u32 = 61;
/// Bits added to the special modulus above the largest key-switching digit.
pub const KEY_SWITCHING_EXTRA_BITS: u32 = 4;

/// log2 of a plaintext modulus (or any positive integer; 0 for zero).
pub fn log2(t: &BigUint) -> f64 {
    crate::limbs::log2(t)
}

/// log2 of the noise bound of a fresh public-key encryption (see the module
/// docs): the engine's estimate of a fresh ciphertext, which the engine
/// computes.
///
/// # Panics
/// If `ring_degree` is 0 or `log_t` is not finite.
pub fn fresh_bits(ring_degree: usize, log_t: f64) -> f64 {
    // SAFETY: `out` is a valid out-pointer; the call reads nothing else.
    query(|out| unsafe { sys::helib_noise_fresh_bits(ring_degree, log_t, out) })
        .expect("the fresh-noise bound needs a ring degree of at least 1 and a finite log2 t")
}

/// Bits a sum of `terms` ciphertexts of equal noise adds (0 for one).
pub fn addition_bits(terms: usize) -> f64 {
    (terms.max(1) as f64).log2()
}

/// Bits one product with a plaintext of full-size coefficients adds.
pub fn plain_product_bits(ring_degree: usize, log_t: f64) -> f64 {
    log_t + (ring_degree as f64).log2()
}

/// Bits one product with a scalar of `scalar_bits` bits adds (the engine
/// reduces the scalar mod t first, so never more than `log_t`).
pub fn scalar_product_bits(scalar_bits: u32, log_t: f64) -> f64 {
    f64::from(scalar_bits).min(log_t)
}

/// Bits a ciphertext × ciphertext product adds to operands of about the
/// fresh noise, once modulus-switched back to that floor and relinearized
/// (the key-switching noise is of the same size), when the result is a sum
/// of `terms` products (block convolutions).
pub fn ciphertext_product_bits(ring_degree: usize, log_t: f64, terms: usize) -> f64 {
    fresh_bits(ring_degree, log_t) + (ring_degree as f64).log2() + addition_bits(terms) + 1.0
}

/// Bits a modulus switch of a ciphertext product that is not relinearized
/// yet (three parts) keeps beyond a relinearized one's floor: the rounding
/// of its third part meets s², `log2 t + log2(8·N/√27)`. Switching first and
/// relinearizing at the lower level makes the key switch cheaper (it runs
/// over the lower level's primes) and costs this much noise. The engine owns
/// the formula; this reads it through the C interface.
///
/// # Panics
/// If `ring_degree` is 0 or `log_t` is not finite.
pub fn squared_secret_rounding_bits(ring_degree: usize, log_t: f64) -> f64 {
    // SAFETY: `out` is a valid out-pointer; the call reads nothing else.
    query(|out| unsafe { sys::helib_noise_squared_secret_rounding_bits(ring_degree, log_t, out) })
        .expect("the rounding bound needs a ring degree of at least 1 and a finite log2 t")
}

/// Total chain size, in bits, for `depth` plaintext products of a fresh
/// encryption, with [`MARGIN_BITS`] and [`DECRYPTION_BITS`].
pub fn chain_total_bits(ring_degree: usize, log_t: f64, depth: usize) -> f64 {
    fresh_bits(ring_degree, log_t)
        + depth as f64 * plain_product_bits(ring_degree, log_t)
        + MARGIN_BITS
        + DECRYPTION_BITS
}

/// Prime sizes (q_0 first) for `depth` plaintext products: the chain
/// [`ParametersBuilder::multiplicative_depth`](crate::ParametersBuilder::multiplicative_depth) uses.
pub fn chain_bits_for_depth(ring_degree: usize, log_t: f64, depth: usize) -> Vec<u32> {
    split_bits(chain_total_bits(ring_degree, log_t, depth).ceil() as u32)
}

/// Total chain size, in bits, for `products` sequential ciphertext ×
/// ciphertext products whose results are sums of up to `terms` products
/// (block convolutions) — the chain of coefficient-form polynomial products.
///
/// The first product of fresh operands leaves about
/// `2·fresh + log2 N + log2 terms` bits of noise; each further one adds
/// [`ciphertext_product_bits`].
pub fn product_chain_total_bits(
    ring_degree: usize,
    log_t: f64,
    products: usize,
    terms: usize,
) -> f64 {
    let fresh = fresh_bits(ring_degree, log_t);
    let first = 2.0 * fresh + (ring_degree as f64).log2() + addition_bits(terms);
    let further =
        products.saturating_sub(1) as f64 * ciphertext_product_bits(ring_degree, log_t, terms);
    first + further + MARGIN_BITS + DECRYPTION_BITS
}

/// Prime sizes (q_0 first) for the chain of [`product_chain_total_bits`].
///
/// ```
/// // One product of fresh BN254-sized ciphertexts at N = 2^15, 64 terms per block.
/// let t = num_bigint::BigUint::from(1u32) << 254u32;
/// let bits = helib_rs::noise::product_chain_bits(1 << 15, &t, 1, 64);
/// let total: u32 = bits.iter().sum();
/// assert!((560..620).contains(&total));
/// ```
pub fn product_chain_bits(
    ring_degree: usize,
    t: &BigUint,
    products: usize,
    terms: usize,
) -> Vec<u32> {
    split_bits(product_chain_total_bits(ring_degree, log2(t), products, terms).ceil() as u32)
}

/// Noise of a fresh ciphertext plus the key-switching noise of the
/// rotations of a baby-step giant-step linear transform, as the FFT and
/// conversion plans budget it: `log2 t + log2(N)/2 + 20` (conservative: the
/// fresh noise alone is about `log2 t + log2(N)/2 + 5`).
pub fn transform_fresh_bits(ring_degree: usize, log_t: f64) -> f64 {
    log_t + (ring_degree as f64).log2() / 2.0 + 20.0
}

/// Budget one level of a linear transform costs: a product with a dense
/// plaintext ([`plain_product_bits`]) plus two bits for its sums and rotations.
pub fn transform_level_bits(ring_degree: usize, log_t: f64) -> f64 {
    plain_product_bits(ring_degree, log_t) + 2.0
}

/// Modulus a later transform level may drop without losing budget: each
/// earlier level grew the noise by at least a plaintext product less 10 bits.
pub fn transform_level_drop_bits(ring_degree: usize, log_t: f64) -> f64 {
    plain_product_bits(ring_degree, log_t) - 10.0
}

/// Chain bits for `levels` linear-transform levels on a fresh ciphertext:
/// [`transform_fresh_bits`] + levels × [`transform_level_bits`] +
/// [`DECRYPTION_BITS`] + [`TRANSFORM_MARGIN_BITS`]; the inverse of
/// [`affordable_transform_levels`] plus the margin.
pub fn transform_chain_bits(ring_degree: usize, log_t: f64, levels: usize) -> f64 {
    transform_fresh_bits(ring_degree, log_t)
        + levels as f64 * transform_level_bits(ring_degree, log_t)
        + DECRYPTION_BITS
        + TRANSFORM_MARGIN_BITS
}

/// How many linear-transform levels a fresh ciphertext at a level of
/// `log_q` bits of modulus affords.
pub fn affordable_transform_levels(log_q: f64, ring_degree: usize, log_t: f64) -> usize {
    let room = log_q - DECRYPTION_BITS - transform_fresh_bits(ring_degree, log_t);
    (room / transform_level_bits(ring_degree, log_t))
        .floor()
        .max(0.0) as usize
}

/// Budget to reserve for one ciphertext × ciphertext product of two
/// ciphertexts that went through a linear transform: `log2 t + 2·log2 N + 30`.
/// Such a product really costs about [`floor_product_bits`], but the engine
/// refuses it unless its key-free estimate, which runs about 12 bits above
/// the real noise after a transform, leaves a bit; the difference is that margin.
pub fn transformed_product_bits(ring_degree: usize, log_t: f64) -> f64 {
    log_t + 2.0 * (ring_degree as f64).log2() + 30.0
}

/// Budget a ciphertext × ciphertext product of two operands at their noise
/// floor costs: `log2 t + 1.5·log2 N + 20` (297.5 measured for BN254 at
/// N = 2^16: the operands' floor noise plus the ring expansion).
pub fn floor_product_bits(ring_degree: usize, log_t: f64) -> f64 {
    log_t + 1.5 * (ring_degree as f64).log2() + 20.0
}

/// The engine's margin below `Q/2` once every party's smudging is in, so that
/// a combination with a missing or forged share (a phase spread over `Z_Q`)
/// is told apart from an honest one (`HELIB_SMUDGING_CHECK_BITS`).
pub const SMUDGING_CHECK_BITS: u32 = sys::HELIB_SMUDGING_CHECK_BITS;

/// The extra modulus bits collective decryption (and encryption to shares,
/// key switching) needs at the level it runs at, beyond an ordinary
/// decryption: each of `parties` parties adds `t·E` with
/// `|E| ≤ 2^λ · N · ||e||` for λ = `security_bits`, so the noise grows by
/// `λ + log2 N + log2(parties) + 1` bits over `||t·e||` (one more bit for
/// the rounding of `||e||` up), and the engine keeps
/// [`SMUDGING_CHECK_BITS`] free above it. The engine computes it, with the
/// smudging width it bounds.
///
/// ```
/// assert_eq!(helib_rs::noise::smudging_bits(1024, 3, 40)?, 40 + 10 + 2 + 2 + 2);
/// # Ok::<(), helib_rs::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for `parties`
/// outside `1..=`[`MAX_PARTIES`], `security_bits` outside `1..=128` or a
/// zero `ring_degree`.
pub fn smudging_bits(ring_degree: usize, parties: u32, security_bits: u32) -> Result<u32> {
    // SAFETY: `out` is a valid out-pointer; the call reads nothing else.
    query(|out| unsafe {
        sys::helib_threshold_smudging_room_bits(ring_degree, parties, security_bits, out)
    })
}

/// Prime sizes for a special modulus P suited to `digits` key-switching digits.
///
/// The chain is cut into `digits` groups of `ceil(len / digits)` consecutive
/// primes (the usual hybrid key switching); P must exceed the largest group's
/// product, plus [`KEY_SWITCHING_EXTRA_BITS`]. `digits == 0` gives no special
/// primes (the parameter builder rejects it beforehand).
pub fn special_bits_for_digits(chain_bits: &[u32], digits: usize) -> Vec<u32> {
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
///
/// ```
/// assert_eq!(helib_rs::noise::split_bits(121), vec![41, 40, 40]);
/// ```
pub fn split_bits(total: u32) -> Vec<u32> {
    let total = total.max(MIN_PRIME_BITS);
    let count = total.div_ceil(MAX_DERIVED_PRIME_BITS);
    let base = total / count;
    let larger = total % count;
    (0..count)
        .map(|i| if i < larger { base + 1 } else { base })
        .collect()
}

/// As few primes of one size (at most 60 bits, at least `min_bits`) as hold
/// `bits` bits: the chain layout of the linear-transform parameter searches,
/// whose uniform primes let a plan drop any prime at the same cost.
///
/// ```
/// assert_eq!(helib_rs::noise::uniform_primes(121.5, 40), vec![41, 41, 41]);
/// assert_eq!(helib_rs::noise::uniform_primes(50.0, 40), vec![50]);
/// ```
pub fn uniform_primes(bits: f64, min_bits: u32) -> Vec<u32> {
    let primes = (bits / f64::from(MAX_DERIVED_PRIME_BITS)).ceil().max(1.0) as usize;
    let per_prime = ((bits / primes as f64).ceil() as u32).max(min_bits);
    vec![per_prime; primes]
}
