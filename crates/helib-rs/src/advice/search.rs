//! The parameter search: the smallest ring whose chain holds the caller's
//! operations at 128-bit security.

use num_bigint::BigUint;

use crate::error::{Error, Result};
use crate::params::{Parameters, ParametersBuilder};
use crate::security::SecurityLevel;

/// How the parameters a search tries switch keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeySwitching {
    /// No special primes: for computations without relinearization or
    /// rotations (the whole 128-bit budget of log2 Q goes to the chain).
    None,
    /// Special primes for hybrid key switching with this many digits.
    Digits(usize),
}

/// The smallest ring degree 2^log_n, for log_n in `log_ring_degrees` in
/// increasing order, whose chain `chain(N)` builds into parameters at
/// ≥ 128-bit security with plaintext modulus `t`, trying on each ring the
/// key-switching choices `key_switching` in turn (more digits: a smaller
/// special modulus, so a longer chain fits the same bound). `chain` gives
/// the prime sizes for ring degree N, or why N cannot hold the computation.
///
/// Returns the parameters and the key-switching choice that fit.
///
/// ```
/// use helib_rs::advice::{smallest_ring, KeySwitching};
/// use helib_rs::noise;
/// use num_bigint::BigUint;
///
/// // Two plaintext products with t = 65537: the smallest ring that holds them.
/// let t = BigUint::from(65537u32);
/// let (params, ks) = smallest_ring(&t, 10..=17, &[KeySwitching::Digits(3)], 1, |n| {
///     Ok(noise::chain_bits_for_depth(n, noise::log2(&t), 2))
/// })?;
/// assert_eq!((params.ring_degree(), ks), (1 << 13, KeySwitching::Digits(3)));
/// # Ok::<(), helib_rs::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidParameters`] listing, ring by ring, why none fits.
pub fn smallest_ring(
    t: &BigUint,
    log_ring_degrees: std::ops::RangeInclusive<u32>,
    key_switching: &[KeySwitching],
    threads: u32,
    mut chain: impl FnMut(usize) -> std::result::Result<Vec<u32>, String>,
) -> Result<(Parameters, KeySwitching)> {
    first_secure_ring(t, log_ring_degrees, key_switching, threads, |n| {
        chain(n).map(|bits| (bits, ()))
    })
    .map(|(params, ks, ())| (params, ks))
}

/// The walk of [`smallest_ring`] and of the [`Advisor`](super::Advisor):
/// `chain(N)` gives the prime sizes with what the caller wants back with the
/// parameters that fit.
pub(super) fn first_secure_ring<T>(
    t: &BigUint,
    log_ring_degrees: impl IntoIterator<Item = u32>,
    key_switching: &[KeySwitching],
    threads: u32,
    mut chain: impl FnMut(usize) -> std::result::Result<(Vec<u32>, T), String>,
) -> Result<(Parameters, KeySwitching, T)> {
    let mut reasons = Vec::new();
    for log_n in log_ring_degrees {
        let Some(n) = 1usize.checked_shl(log_n) else {
            break;
        };
        let (bits, found) = match chain(n) {
            Ok(chain) => chain,
            Err(reason) => {
                reasons.push(format!("N = {n}: {reason}"));
                continue;
            }
        };
        for &ks in key_switching {
            let builder = Parameters::builder()
                .ring_degree(n)
                .plaintext_modulus(t.clone())
                .chain_bits(&bits)
                .threads(threads);
            match with_key_switching(builder, ks).build() {
                Ok(params) if params.security_level() != SecurityLevel::Below128 => {
                    return Ok((params, ks, found))
                }
                Ok(_) => reasons.push(format!("N = {n}: below 128-bit security")),
                Err(e) => reasons.push(format!("N = {n}: {e}")),
            }
        }
    }
    if reasons.is_empty() {
        reasons.push("no ring degree to try".to_owned());
    }
    Err(Error::InvalidParameters(reasons.join("; ")))
}

/// Sets `choice` on `builder`.
pub(super) fn with_key_switching(
    builder: ParametersBuilder,
    choice: KeySwitching,
) -> ParametersBuilder {
    match choice {
        KeySwitching::None => builder.special_bits(&[]),
        KeySwitching::Digits(digits) => builder.key_switching_digits(digits),
    }
}
