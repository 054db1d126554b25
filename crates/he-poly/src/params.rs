//! Choosing parameters for polynomial products: the smallest ≥128-bit ring.

use ark_ff::PrimeField;
use helib_rs::noise::{self, KeySwitching};
use helib_rs::{Parameters, MAX_RING_DEGREE, MIN_RING_DEGREE};
use num_bigint::BigUint;

use crate::error::{Error, Result};

/// Parameters for encrypted polynomials of up to `max_len` coefficients and
/// `products` sequential ciphertext products, with the block stride to use.
///
/// [`suggest`](Self::suggest) walks the ring degrees N = 2^10 … 2^17 with
/// [`helib_rs::noise::smallest_ring`] and takes the first whose chain
/// ([`helib_rs::noise::product_chain_bits`]) holds the products at ≥ 128-bit security
/// (by the HomomorphicEncryption.org table) and whose block products fit
/// (at most N product blocks). One product needs no key switching, so the
/// chain has no special primes; more products need a relinearization key
/// and get them (two key-switching digits).
///
/// The stride is N/2 for one product — a block's plaintext has degree below
/// N/2, so the product of two blocks never wraps around X^N + 1 — and
/// N/2^⌈log2(products + 1)⌉ for more.
///
/// ```
/// use ark_bn254::Fr;
/// use he_poly::PolyParameters;
///
/// let p = PolyParameters::for_field::<Fr>(1 << 20, 1)?;
/// assert_eq!(p.parameters().ring_degree(), 1 << 15);
/// assert_eq!(p.stride(), 1 << 14);
/// assert!(p.parameters().special_bits().is_empty());
/// assert!(p.parameters().security_level().bits() >= 128);
/// # Ok::<(), he_poly::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct PolyParameters {
    parameters: Parameters,
    stride: usize,
    max_len: usize,
    products: usize,
}

impl PolyParameters {
    /// The smallest ≥128-bit parameters for plaintext modulus `t`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for `max_len` or `products` of 0;
    /// [`Error::NoParameters`] when no ring up to 2^17 holds them.
    pub fn suggest(t: &BigUint, max_len: usize, products: usize) -> Result<Self> {
        if max_len == 0 || products == 0 {
            return Err(Error::InvalidArgument(format!(
                "need at least one coefficient and one product (got {max_len} and {products})"
            )));
        }
        // The block stride divides N by a power of two above `products`.
        let split = products
            .checked_add(1)
            .and_then(usize::checked_next_power_of_two)
            .ok_or_else(|| {
                Error::NoParameters(format!("{products} products: no ring holds that many"))
            })?;
        let stride_for = |n: usize| n / split;
        let key_switching = if products > 1 {
            KeySwitching::Digits(2)
        } else {
            KeySwitching::None
        };
        let log_min = MIN_RING_DEGREE.trailing_zeros();
        let log_max = MAX_RING_DEGREE.trailing_zeros();
        let found = noise::smallest_ring(t, log_min..=log_max, &[key_switching], 0, |n| {
            let stride = stride_for(n);
            let blocks = max_len.div_ceil(stride.max(1));
            let product_blocks = blocks.checked_mul(2).map(|twice| twice - 1);
            if stride == 0 || product_blocks.is_none_or(|count| count > n) {
                return Err(format!("{blocks} blocks do not fit"));
            }
            Ok(noise::product_chain_bits(n, t, products, blocks))
        });
        match found {
            Ok((parameters, _)) => Ok(Self {
                stride: stride_for(parameters.ring_degree()),
                parameters,
                max_len,
                products,
            }),
            Err(helib_rs::Error::InvalidParameters(reasons)) => Err(Error::NoParameters(reasons)),
            Err(other) => Err(other.into()),
        }
    }

    /// [`suggest`](Self::suggest) with t = F's modulus.
    ///
    /// # Errors
    /// As for [`suggest`](Self::suggest).
    pub fn for_field<F: PrimeField>(max_len: usize, products: usize) -> Result<Self> {
        Self::suggest(&F::MODULUS.into(), max_len, products)
    }

    /// The BGV parameters (make a [`helib_rs::Context`] from them).
    pub fn parameters(&self) -> &Parameters {
        &self.parameters
    }

    /// The block stride to encrypt with.
    pub fn stride(&self) -> usize {
        self.stride
    }

    /// The longest polynomial these parameters were chosen for.
    pub fn max_len(&self) -> usize {
        self.max_len
    }

    /// The sequential products these parameters hold.
    pub fn products(&self) -> usize {
        self.products
    }
}
