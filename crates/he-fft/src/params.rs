//! Choosing parameters for a plan: the smallest secure ring whose chain holds its levels.

use crate::error::{Error, Result};
use ark_ff::{FftField, PrimeField};
use helib_rs::{Parameters, SecurityLevel};

/// Bits a chain needs for `levels` FFT levels with plaintext modulus of
/// `log_t` bits at ring degree 2^`log_n`: the inverse of
/// [`affordable_levels`](crate::affordable_levels) plus an 8-bit margin.
pub fn chain_bits_for_levels(log_t: f64, log_n: u32, levels: usize) -> f64 {
    let log_n = f64::from(log_n);
    let fresh = log_t + log_n / 2.0 + 20.0;
    let per_level = log_t + log_n + 2.0;
    fresh + levels as f64 * per_level + 1.0 + 8.0
}

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
    let two_adicity = F::TWO_ADICITY;
    for log_n in 12..=17u32 {
        if log_n + 1 > two_adicity {
            break;
        }
        let bits = chain_bits_for_levels(log_t, log_n, levels);
        let primes = (bits / 60.0).ceil() as usize;
        let per_prime = (bits / primes as f64).ceil() as u32;
        let chain = vec![per_prime.max(40); primes];
        let built = Parameters::builder()
            .ring_degree(1 << log_n)
            .plaintext_modulus_from_field::<F>()
            .chain_bits(&chain)
            .threads(threads)
            .build();
        if let Ok(params) = built {
            if params.security_level() != SecurityLevel::Below128 {
                return Ok(params);
            }
        }
    }
    Err(Error::Unsupported(
        "no ring degree up to 2^17 holds that many levels at 128-bit security",
    ))
}
