//! Choosing parameters for polynomial products: the smallest ≥128-bit ring.

use ark_ff::PrimeField;
use helib_rs::advice::{Circuit, Demand, KeySwitching, Operations};
use helib_rs::{Advisor, Parameters, Workload};
use num_bigint::BigUint;

use crate::error::{Error, Result};

/// Parameters for encrypted polynomials of up to `max_len` coefficients and
/// `products` sequential ciphertext products, with the block stride to use.
///
/// [`suggest`](Self::suggest) describes the products as a
/// [`Workload`] ([`workload`](Self::workload)) and takes the
/// [`Advisor`]'s ring: the first of N = 2^10 … 2^17 whose chain
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
    /// The smallest ≥128-bit parameters for plaintext modulus `t`: the
    /// advice of [`helib_rs::Advisor`] for [`workload`](Self::workload).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for `max_len` or `products` of 0;
    /// [`Error::NoParameters`] when no ring up to 2^17 holds them.
    pub fn suggest(t: &BigUint, max_len: usize, products: usize) -> Result<Self> {
        let workload = Self::workload(t, max_len, products)?;
        let split = block_split(products)?;
        match Advisor::new(workload).advise() {
            Ok(advice) => Ok(Self {
                stride: advice.ring_degree() / split,
                parameters: advice.into_parameters(),
                max_len,
                products,
            }),
            Err(helib_rs::Error::InvalidParameters(reasons)) => Err(Error::NoParameters(reasons)),
            Err(other) => Err(other.into()),
        }
    }

    /// What `products` sequential products of polynomials of up to `max_len`
    /// coefficients ask of each ring N: blocks of stride N/2^⌈log2(products + 1)⌉,
    /// `c = ⌈max_len / stride⌉` per operand, a product of 2c − 1 blocks that
    /// must fit (at most N), and the noise of block products summing c
    /// terms ([`Circuit::CiphertextProducts`]); key switching only for more
    /// than one product (relinearization, two digits). The operations
    /// counted: two operands of c blocks encrypted, per product a block
    /// convolution of L pointwise products (L the power of two ≥ 2c − 1,
    /// as [`helib_rs::Ciphertext::multiply_blocks`] computes it) and, when
    /// another product follows, its 2c − 1 blocks relinearized; the last
    /// product's 2c − 1 blocks decrypted.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for `max_len` or `products` of 0;
    /// [`Error::NoParameters`] for more products than any ring holds.
    pub fn workload(t: &BigUint, max_len: usize, products: usize) -> Result<Workload> {
        if max_len == 0 || products == 0 {
            return Err(Error::InvalidArgument(format!(
                "need at least one coefficient and one product (got {max_len} and {products})"
            )));
        }
        let split = block_split(products)?;
        let key_switching = if products > 1 {
            KeySwitching::Digits(2)
        } else {
            KeySwitching::None
        };
        let workload = Workload::per_ring(t.clone(), |n| {
            let stride = n / split;
            let blocks = max_len.div_ceil(stride.max(1));
            let product_blocks = blocks.checked_mul(2).map(|twice| twice - 1);
            match product_blocks {
                Some(count) if stride > 0 && count <= n => {
                    let pointwise = count.next_power_of_two();
                    let operations = Operations {
                        encryptions: 2 * blocks,
                        decryptions: count,
                        ciphertext_products: products.saturating_mul(pointwise),
                        relinearizations: (products - 1).saturating_mul(count),
                        ..Operations::default()
                    };
                    Ok(Demand::new(Circuit::CiphertextProducts {
                        products,
                        terms: blocks,
                    })
                    .operations(operations))
                }
                _ => Err(format!("{blocks} blocks do not fit")),
            }
        });
        Ok(workload.key_switching(&[key_switching]))
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

/// The divisor of N giving the block stride for `products` (≥ 1) products:
/// the power of two above `products` (2 for one product: stride N/2).
fn block_split(products: usize) -> Result<usize> {
    products
        .checked_add(1)
        .and_then(usize::checked_next_power_of_two)
        .ok_or_else(|| Error::NoParameters(format!("{products} products: no ring holds that many")))
}
