//! Choosing parameters for a plan: the smallest secure ring whose chain holds its levels.

use crate::error::{Error, Result};
use crate::plan::{AutoLevels, PlanGeometry, Strategy};
use crate::special::{Conversion, Geometry, SlotForm};
use crate::stages::Order;
use ark_ff::{FftField, PrimeField};
use helib_rs::noise::{self, KeySwitching};
use helib_rs::Parameters;
use num_bigint::BigUint;

pub use crate::plan::{default_levels, PlanOptions};

/// The smallest ring degree N (2^12..=2^17) with 2N | p − 1 whose chain for
/// `levels` levels, with special primes for 3 key-switching digits, stays
/// within the 128-bit security bound; the chain uses primes of at most 60 bits.
///
/// # Errors
/// [`Error::Unsupported`] when no ring up to 2^17 fits.
pub fn suggest_parameters<F: PrimeField + FftField>(
    levels: usize,
    threads: u32,
) -> Result<Parameters> {
    let log_t = F::MODULUS_BIT_SIZE as f64;
    smallest_ring::<F>(12, threads, |log_n| {
        Some(noise::transform_chain_bits(1 << log_n, log_t, levels))
    })
}

/// [`suggest_parameters`] among ring degrees N ≥ `min_ring_degree` only
/// (e.g. N ≥ 2n for a conversion of n values with a chosen level count),
/// with `extra_bits` of budget on top of the levels (e.g. `k ·`
/// [`noise::transformed_product_bits`] for k ciphertext products afterwards).
///
/// # Errors
/// [`Error::Unsupported`] when no ring from `min_ring_degree` up to 2^17 fits.
pub fn suggest_parameters_at_least<F: PrimeField + FftField>(
    min_ring_degree: usize,
    levels: usize,
    extra_bits: impl Fn(u32) -> f64,
    threads: u32,
) -> Result<Parameters> {
    let min_log_n = min_ring_degree
        .checked_next_power_of_two()
        .map_or(u32::MAX, usize::trailing_zeros)
        .max(12);
    let log_t = F::MODULUS_BIT_SIZE as f64;
    smallest_ring::<F>(min_log_n, threads, |log_n| {
        Some(noise::transform_chain_bits(1 << log_n, log_t, levels) + extra_bits(log_n))
    })
}

/// Parameters for a plan, with the strategy (its level count made explicit)
/// to build it with and the depth it will have.
#[derive(Debug, Clone)]
pub struct PlanParameters {
    /// The ring, chain and special primes.
    pub parameters: Parameters,
    /// The strategy to pass to [`FftPlanBuilder::strategy`](crate::FftPlanBuilder::strategy).
    pub strategy: Strategy,
    /// Multiplication levels the plan takes ([`FftPlan::depth`](crate::FftPlan::depth)).
    pub depth: usize,
}

/// The multiplication levels a size-`n` plan with `options` takes in a ring
/// of degree `ring_degree`, and its strategy with the level count explicit:
/// the per-ciphertext levels, plus one for the products across ciphertexts
/// (n > N with more than two ciphertexts or a coset) and one for a
/// natural-order output. Computed from sizes alone, with no context.
///
/// # Errors
/// [`Error::InvalidSize`] for n not a power of two ≥ 2 or beyond F's roots of
/// unity; [`Error::InvalidLevels`] for a level count outside 1..=4;
/// [`Error::Unsupported`] for the dense strategy with n > N.
pub fn plan_depth<F: PrimeField + FftField>(
    n: usize,
    ring_degree: usize,
    options: PlanOptions,
) -> Result<(usize, Strategy)> {
    let geometry =
        PlanGeometry::new::<F>(n, ring_degree, options, Order::Natural, AutoLevels::Default)?;
    Ok((geometry.depth(), geometry.strategy()))
}

/// The smallest ring (2^12..=2^17, 2N | p − 1) and chain holding a size-`n`
/// plan with `options` at ≥ 128-bit security, for every n from 2 to 2^22
/// (beyond N the vector spans n/N ciphertexts): on each ring, the depth of
/// [`plan_depth`] in [`noise::transform_chain_bits`] bits, with 3 to 6
/// key-switching digits (the fewest that fit). Plans built with the returned
/// strategy at the top level of a context from these parameters afford
/// their depth.
///
/// ```
/// use ark_bn254::Fr;
/// use he_fft::{suggest_plan_parameters, PlanOptions};
///
/// let p = suggest_plan_parameters::<Fr>(1 << 15, PlanOptions::default(), 1)?;
/// assert_eq!((p.parameters.ring_degree(), p.depth), (1 << 16, 3));
/// # Ok::<(), he_fft::Error>(())
/// ```
///
/// # Errors
/// As for [`plan_depth`]; [`Error::Unsupported`] when no ring up to 2^17 fits.
pub fn suggest_plan_parameters<F: PrimeField + FftField>(
    n: usize,
    options: PlanOptions,
    threads: u32,
) -> Result<PlanParameters> {
    // Checks n and the options once, on the largest ring (where a dense
    // plan fits if it fits anywhere).
    plan_depth::<F>(n, 1 << 17, options)?;
    let log_t = F::MODULUS_BIT_SIZE as f64;
    let parameters = smallest_ring_with_digits::<F>(12, threads, &PLAN_DIGITS, |log_n| {
        let (depth, _) = plan_depth::<F>(n, 1 << log_n, options).ok()?;
        Some(noise::transform_chain_bits(1 << log_n, log_t, depth))
    })?;
    let (depth, strategy) = plan_depth::<F>(n, parameters.ring_degree(), options)?;
    Ok(PlanParameters {
        parameters,
        strategy,
        depth,
    })
}

/// The fewest levels whose estimated diagonals stay at most 256 per level
/// for a length-`n` conversion in a ring of degree `ring_degree`: what
/// [`ConversionPlanBuilder`](crate::ConversionPlanBuilder) chooses for
/// evaluations in natural order when the input's budget allows it (1 for
/// n ≤ 256; 3 for n = 1,024; 5 for n = 2^16 at N = 2^17). Other forms and
/// orders route their bits differently and may take a level more.
///
/// # Errors
/// [`Error::InvalidSize`] for n not a power of two ≥ 2 or F without the
/// roots of unity; [`Error::ConversionSize`] for n > N/2.
pub fn conversion_levels<F: PrimeField + FftField>(
    ring_degree: usize,
    n: usize,
    conversion: Conversion,
) -> Result<usize> {
    Geometry::<F>::check_size(ring_degree, n)?;
    let geometry = Geometry::<F>::new(ring_degree, n, SlotForm::Evaluations, Order::Natural)
        .ok_or(Error::InvalidSize(n))?;
    Ok(geometry.automatic_levels(conversion, usize::MAX))
}

/// Parameters for a length-`n` conversion followed by `products`
/// sequential ciphertext × ciphertext products of converted ciphertexts
/// (1 for the product A·B of two interpolants): the smallest ring
/// N ≥ max(2n, 2^12) with 2N | p − 1 whose chain holds
/// [`conversion_levels`] levels ([`noise::transform_chain_bits`]) and
/// `products` × [`noise::transformed_product_bits`] within the 128-bit bound, with special
/// primes for 3 key-switching digits. A plan on them with the default level
/// choice (evaluations in natural order) takes `conversion_levels` levels.
///
/// ```
/// use ark_bn254::Fr;
/// use he_fft::{conversion_levels, suggest_conversion_parameters, Conversion};
///
/// let to = Conversion::SlotsToCoefficients;
/// let params = suggest_conversion_parameters::<Fr>(256, to, 1, 1)?;
/// assert_eq!(params.ring_degree(), 1 << 16);
/// assert_eq!(conversion_levels::<Fr>(1 << 16, 256, to)?, 1);
/// # Ok::<(), he_fft::Error>(())
/// ```
///
/// # Errors
/// As for [`conversion_levels`]; [`Error::Unsupported`] when no ring up to
/// 2^17 fits.
pub fn suggest_conversion_parameters<F: PrimeField + FftField>(
    n: usize,
    conversion: Conversion,
    products: usize,
    threads: u32,
) -> Result<Parameters> {
    if n < 2 || !n.is_power_of_two() {
        return Err(Error::InvalidSize(n));
    }
    let min_log_n = (n.trailing_zeros() + 1).max(12);
    if min_log_n > 17 {
        return Err(Error::ConversionSize { n, max: 1 << 16 });
    }
    let log_t = F::MODULUS_BIT_SIZE as f64;
    smallest_ring::<F>(min_log_n, threads, |log_n| {
        let levels = conversion_levels::<F>(1 << log_n, n, conversion).ok()?;
        Some(
            noise::transform_chain_bits(1 << log_n, log_t, levels)
                + products as f64 * noise::transformed_product_bits(1 << log_n, log_t),
        )
    })
}

/// The first ring degree 2^log_n, from `min_log_n` up to 2^17, whose chain
/// of `bits(log_n)` bits is 128-bit secure.
fn smallest_ring<F: PrimeField + FftField>(
    min_log_n: u32,
    threads: u32,
    bits: impl Fn(u32) -> Option<f64>,
) -> Result<Parameters> {
    smallest_ring_with_digits::<F>(min_log_n, threads, &[DEFAULT_DIGITS], bits)
}

/// The key-switching digits of [`suggest_parameters`].
const DEFAULT_DIGITS: usize = 3;

/// The key-switching digit counts [`suggest_plan_parameters`] tries on each
/// ring, fewest first. Fewer digits make the Galois keys smaller and faster
/// to generate (at n = 2^15, 2 digits instead of 3: 2.8 instead of 3.8 GiB of
/// keys and about a quarter less key-generation time) for a larger P, which
/// costs the plan's encoded diagonals about 12 % more memory; the 128-bit
/// security check decides where 2 digits are too few.
const PLAN_DIGITS: [usize; 5] = [2, 3, 4, 5, 6];

/// The smallest prime of the chains these searches make: uniform primes of
/// at least 40 bits ([`noise::uniform_primes`]).
const MIN_CHAIN_PRIME_BITS: u32 = 40;

/// [`smallest_ring`] trying, on each ring, each of `digits` key-switching
/// digit counts in turn, by [`noise::smallest_ring`] (rings with 2N | p − 1 only).
fn smallest_ring_with_digits<F: PrimeField + FftField>(
    min_log_n: u32,
    threads: u32,
    digits: &[usize],
    bits: impl Fn(u32) -> Option<f64>,
) -> Result<Parameters> {
    let max_log_n = 17u32.min(F::TWO_ADICITY.saturating_sub(1));
    let digits: Vec<KeySwitching> = digits.iter().map(|&d| KeySwitching::Digits(d)).collect();
    let t: BigUint = F::MODULUS.into();
    noise::smallest_ring(&t, min_log_n..=max_log_n, &digits, threads, |n| {
        let bits = bits(n.trailing_zeros()).ok_or("the plan does not fit this ring")?;
        Ok(noise::uniform_primes(bits, MIN_CHAIN_PRIME_BITS))
    })
    .map(|(parameters, _)| parameters)
    .map_err(|_| {
        Error::Unsupported("no ring degree up to 2^17 holds that many levels at 128-bit security")
    })
}
