//! Choosing parameters for polynomial products: the smallest ≥128-bit ring.

use ark_ff::PrimeField;
use helib_rs::{Parameters, MAX_RING_DEGREE, MIN_RING_DEGREE};
use num_bigint::BigUint;

use crate::error::{Error, Result};

/// Parameters for encrypted polynomials of up to `max_len` coefficients and
/// `products` sequential ciphertext products, with the block stride to use.
///
/// [`suggest`](Self::suggest) walks the ring degrees N = 2^10 … 2^17 and
/// takes the first whose chain holds the products at ≥ 128-bit security
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
        let mut reasons = Vec::new();
        let mut n = MIN_RING_DEGREE;
        while n <= MAX_RING_DEGREE {
            let stride = n / (products + 1).next_power_of_two();
            let blocks = max_len.div_ceil(stride.max(1));
            if stride == 0 || 2 * blocks - 1 > n {
                reasons.push(format!("N = {n}: {blocks} blocks do not fit"));
                n *= 2;
                continue;
            }
            let chain = helib_rs::product_chain_bits(n, t, products, blocks);
            let mut builder = Parameters::builder()
                .ring_degree(n)
                .plaintext_modulus(t.clone())
                .chain_bits(&chain);
            builder = if products > 1 {
                builder.key_switching_digits(2)
            } else {
                builder.special_bits(&[])
            };
            match builder.build() {
                Ok(parameters) => {
                    return Ok(Self {
                        parameters,
                        stride,
                        max_len,
                        products,
                    })
                }
                Err(e) => reasons.push(format!("N = {n}: {e}")),
            }
            n *= 2;
        }
        Err(Error::NoParameters(reasons.join("; ")))
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
