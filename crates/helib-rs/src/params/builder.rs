//! [`ParametersBuilder`]: the chained setters and the checks of
//! [`build`](ParametersBuilder::build).

use ark_ff::PrimeField;
use num_bigint::BigUint;

use super::{
    invalid, Parameters, DEFAULT_KEY_SWITCHING_DIGITS, MAX_PRIMES, MAX_RING_DEGREE, MIN_RING_DEGREE,
};
use crate::error::Result;
use crate::limbs::log2;
use crate::noise::{
    chain_bits_for_depth, chain_total_bits, special_bits_for_digits, MAX_DERIVED_PRIME_BITS,
};

/// How the builder was told to make the chain.
#[derive(Debug, Clone)]
enum ChainSpec {
    Bits(Vec<u32>),
    Depth(usize),
    /// No chain, and why (the advisor found none for the ring).
    Refused(String),
}

/// How the builder was told to make the special primes.
#[derive(Debug, Clone)]
enum SpecialSpec {
    Digits(usize),
    Bits(Vec<u32>),
}

/// Builds [`Parameters`] with chained setters; [`build`](Self::build) validates.
///
/// ```
/// use helib_rs::Parameters;
/// use num_bigint::BigUint;
///
/// let params = Parameters::builder()
///     .ring_degree(1 << 14)
///     .plaintext_modulus(BigUint::from(65537u32))
///     .multiplicative_depth(4)
///     .build()?;
/// assert!(params.security_level().bits() >= 128);
///
/// // Too big a modulus for N = 2^12 is refused unless explicitly allowed.
/// let small = Parameters::builder()
///     .ring_degree(1 << 12)
///     .plaintext_modulus(BigUint::from(65537u32))
///     .chain_bits(&[60, 60]);
/// assert!(small.clone().build().is_err());
/// assert!(small.allow_insecure().build().is_ok());
/// # Ok::<(), helib_rs::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct ParametersBuilder {
    ring_degree: Option<usize>,
    plaintext_modulus: Option<BigUint>,
    chain: Option<ChainSpec>,
    special: SpecialSpec,
    threads: u32,
    allow_insecure: bool,
}

impl Default for ParametersBuilder {
    fn default() -> Self {
        Self {
            ring_degree: None,
            plaintext_modulus: None,
            chain: None,
            special: SpecialSpec::Digits(DEFAULT_KEY_SWITCHING_DIGITS),
            threads: 0,
            allow_insecure: false,
        }
    }
}

impl ParametersBuilder {
    /// Sets the ring degree N: a power of two in 2^10 ..= 2^17 (required).
    pub fn ring_degree(mut self, ring_degree: usize) -> Self {
        self.ring_degree = Some(ring_degree);
        self
    }

    /// Sets the plaintext modulus t ≥ 2 (required; it must be coprime to the
    /// generated primes, which the engine checks).
    pub fn plaintext_modulus(mut self, t: BigUint) -> Self {
        self.plaintext_modulus = Some(t);
        self
    }

    /// Sets the plaintext modulus to the modulus of the prime field `F`.
    pub fn plaintext_modulus_from_field<F: PrimeField>(self) -> Self {
        self.plaintext_modulus(F::MODULUS.into())
    }

    /// A chain that [`build`](Self::build) refuses with `reason` (what
    /// [`Advisor::builder_at`](crate::advice::Advisor::builder_at) sets when it has none).
    pub(crate) fn refused_chain(mut self, reason: String) -> Self {
        self.chain = Some(ChainSpec::Refused(reason));
        self
    }

    /// Sets the chain prime sizes explicitly, q_0 first, each in 30 ..= 61 bits.
    ///
    /// Replaces an earlier [`multiplicative_depth`](Self::multiplicative_depth).
    pub fn chain_bits(mut self, bits: &[u32]) -> Self {
        self.chain = Some(ChainSpec::Bits(bits.to_vec()));
        self
    }

    /// Sizes the chain for `depth` ciphertext × plaintext multiplications.
    ///
    /// Replaces earlier [`chain_bits`](Self::chain_bits). The noise model
    /// ([`noise::chain_bits_for_depth`](crate::noise::chain_bits_for_depth)), in
    /// bits, with σ = 3.2:
    /// fresh noise `log2 t + log2(8σ(2√(2N/3) + 1) + 1/2)` (the engine's bound),
    /// plus `log2 t + log2 N`
    /// per multiplication (the L1 norm of a plaintext mod t), plus a 10-bit
    /// margin and 1 bit for the decryption bound Q/2. The total is split into
    /// primes of at most 60 bits, as equal as possible; the chain has one level
    /// per prime, which [`Ciphertext::mod_switch_reduce_noise`](crate::Ciphertext::mod_switch_reduce_noise)
    /// drops as the noise allows.
    pub fn multiplicative_depth(mut self, depth: usize) -> Self {
        self.chain = Some(ChainSpec::Depth(depth));
        self
    }

    /// Sizes the special primes for key switching with `digits` digits
    /// (default 3): the chain is cut into `digits` groups of consecutive
    /// primes and P gets the largest group's size plus 4 bits, split into
    /// primes of at most 60 bits. More digits mean a smaller P (more security
    /// for the same chain) and slower key switching.
    ///
    /// Replaces earlier [`special_bits`](Self::special_bits).
    pub fn key_switching_digits(mut self, digits: usize) -> Self {
        self.special = SpecialSpec::Digits(digits);
        self
    }

    /// Sets the special prime sizes explicitly (each in 30 ..= 61 bits; may be empty).
    ///
    /// Replaces an earlier [`key_switching_digits`](Self::key_switching_digits).
    pub fn special_bits(mut self, bits: &[u32]) -> Self {
        self.special = SpecialSpec::Bits(bits.to_vec());
        self
    }

    /// Sets the engine's worker threads (0, the default, means one per hardware
    /// thread); [`Context::new`](crate::Context::new) accepts at most
    /// [`Context::MAX_THREADS`](crate::Context::MAX_THREADS).
    pub fn threads(mut self, threads: u32) -> Self {
        self.threads = threads;
        self
    }

    /// Accepts parameters below 128-bit security. For tests and benchmarks only.
    pub fn allow_insecure(mut self) -> Self {
        self.allow_insecure = true;
        self
    }

    /// Validates the settings and returns the parameters.
    ///
    /// # Errors
    /// * [`Error::InvalidParameters`](crate::Error::InvalidParameters) when N or t is missing or out of range, no
    ///   chain was asked for, a prime size is outside 30 ..= 61, there are more
    ///   than [`MAX_PRIMES`] primes, `key_switching_digits(0)` was asked for, or
    ///   t has at least as many bits as the whole chain.
    /// * [`Error::InsecureParameters`](crate::Error::InsecureParameters) when log2(Q·P) exceeds the 128-bit bound
    ///   for N and [`allow_insecure`](Self::allow_insecure) was not called.
    pub fn build(self) -> Result<Parameters> {
        let ring_degree = self
            .ring_degree
            .ok_or_else(|| invalid("the ring degree was not set".into()))?;
        let plaintext_modulus = self
            .plaintext_modulus
            .ok_or_else(|| invalid("the plaintext modulus was not set".into()))?;
        let chain_bits = match self.chain {
            None => {
                return Err(invalid(
                    "no modulus chain: call chain_bits or multiplicative_depth".into(),
                ))
            }
            Some(ChainSpec::Bits(bits)) => bits,
            Some(ChainSpec::Depth(depth)) => derived_chain(ring_degree, &plaintext_modulus, depth)?,
            Some(ChainSpec::Refused(reason)) => return Err(invalid(reason)),
        };
        // Bound the lengths before any sum over them.
        let too_many = |count: usize| count > MAX_PRIMES;
        if too_many(chain_bits.len())
            || matches!(&self.special, SpecialSpec::Bits(b) if too_many(b.len()))
        {
            return Err(invalid(format!(
                "at most {MAX_PRIMES} primes are supported"
            )));
        }
        let special_bits = match self.special {
            SpecialSpec::Bits(bits) => bits,
            SpecialSpec::Digits(0) => {
                return Err(invalid("key switching needs at least one digit".into()))
            }
            SpecialSpec::Digits(digits) => special_bits_for_digits(&chain_bits, digits),
        };
        let params = Parameters {
            ring_degree,
            plaintext_modulus,
            chain_bits,
            special_bits,
            threads: self.threads,
            insecure_allowed: self.allow_insecure,
        };
        params.validate()?;
        Ok(params)
    }
}

/// The chain for `depth` multiplications, refusing absurd sizes before allocating.
fn derived_chain(ring_degree: usize, t: &BigUint, depth: usize) -> Result<Vec<u32>> {
    // The model needs a sensible N; the full check comes in `validate`.
    let n = ring_degree.clamp(MIN_RING_DEGREE, MAX_RING_DEGREE);
    let total = chain_total_bits(n, log2(t), depth);
    let limit = (MAX_PRIMES as u32 * MAX_DERIVED_PRIME_BITS) as f64;
    // `total` is finite for any depth, but compare so that NaN is refused too.
    if total.partial_cmp(&limit) != Some(std::cmp::Ordering::Less) {
        return Err(invalid(format!(
            "depth {depth} needs a chain of about {total:.0} bits, more than {MAX_PRIMES} primes"
        )));
    }
    Ok(chain_bits_for_depth(n, log2(t), depth))
}
