//! Encrypted polynomials in coefficient form over BGV, for coSNARK work at
//! plaintext speed.
//!
//! The BGV plaintext ring F\[X\]/(X^N + 1) *is* a polynomial ring: with
//! coefficient encoding ([`helib_rs::FieldCoefficientEncoder`]) a ciphertext
//! product is a polynomial product, with no FFT, rotation or key involved.
//! This crate builds polynomials of any length on that:
//!
//! * [`EncryptedPolynomial`] holds a polynomial as blocks of `stride`
//!   coefficients, one ciphertext each (stride ≤ N/2 so block products do
//!   not wrap around X^N + 1). Encrypt it with a public key, a secret key or
//!   an `he-cache` pool; add, subtract, multiply by scalars and plaintext
//!   polynomials, multiply two of them, cut off low coefficients, serialize.
//! * Products are block convolutions computed exactly modulo every
//!   ciphertext prime by an NTT *across* the blocks
//!   ([`helib_rs::Ciphertext::multiply_blocks`]): for c blocks per operand,
//!   L = 2c pointwise ciphertext products instead of c², and the noise of the
//!   schoolbook sum (one product's, plus log2 c bits). See "Design" below.
//! * [`EncryptedPolynomial::groth16_quotient`]: the Groth16 quotient h is
//!   the upper half of A·B for the interpolants of a valid witness — one
//!   product ([`quotient`] explains why, and what it assumes).
//! * [`NegacyclicSplit`]: F\[X\]/(X^n + 1) for n above the ring degree N
//!   as n/N copies of the ring (Chinese remainder split, linear, in the
//!   clear): a product modulo X^n + 1 is n/N ciphertext products, one per
//!   component, with nothing across ciphertexts.
//! * [`PolyParameters`] picks the smallest ≥128-bit ring for a length and a
//!   number of products.
//! * With the feature `groth16`, the module `groth16`: an ark-groth16
//!   `R1CSToQAP` whose witness map computes h under encryption, for real
//!   proofs.
//!
//! Every operation checks its operands (contexts, layouts, levels) and the
//! engine's noise estimate before any work.
//!
//! ```
//! use ark_bn254::Fr;
//! use he_poly::{EncryptedPolynomial, PolyParameters};
//! use helib_rs::{Context, SecretKey};
//!
//! // The smallest 128-bit parameters for one product of two polynomials of 2 coefficients.
//! let params = PolyParameters::for_field::<Fr>(2, 1)?;
//! let context = Context::new(params.parameters())?;
//! let sk = SecretKey::generate(&context)?;
//! let pk = sk.public_key()?;
//! // (1 + X)·(1 − X) = 1 − X².
//! let a = EncryptedPolynomial::encrypt(&pk, &[Fr::from(1u64), Fr::from(1u64)], params.stride())?;
//! let b = EncryptedPolynomial::encrypt(&pk, &[Fr::from(1u64), -Fr::from(1u64)], params.stride())?;
//! let product = a.mul(&b)?.decrypt(&sk)?;
//! assert_eq!(product, [Fr::from(1u64), Fr::from(0u64), -Fr::from(1u64)]);
//! # Ok::<(), he_poly::Error>(())
//! ```
//!
//! # Design: why an NTT across blocks and not Nussbaumer or Karatsuba
//! The block products D_k = Σ_{i+j=k} A_i·B_j are a convolution over the
//! ring R_N. Nussbaumer's method would transform across blocks with
//! monomial twiddles X^(2N/L) (valid in both F_t and Z_Q), paying about
//! log2 L bits of noise per transform. Ciphertexts are already held in NTT
//! form, slot by slot, so the convolution splits into N independent length-L
//! convolutions over Z_q per prime — and any primitive 2L-th root of unity
//! mod q computes those *exactly*. Transform, pointwise tensor and inverse
//! transform together then give exactly the ciphertext the schoolbook sum
//! would: no transform noise at all, and every butterfly a vectorized Shoup
//! product on a whole row of slots, run per prime and per cache-sized slot
//! chunk in the engine. Karatsuba would need c^1.58 products and additions
//! of ciphertexts in memory; this needs 2c products and touches each input
//! and output once.
#![deny(missing_docs)]

mod arith;
mod error;
#[cfg(feature = "groth16")]
pub mod groth16;
mod layout;
mod negacyclic;
mod params;
mod polynomial;
pub mod quotient;
mod serialize;

pub use arith::blocks_at_level;
pub use error::{Error, Result};
pub use layout::BlockLayout;
pub use negacyclic::NegacyclicSplit;
pub use params::PolyParameters;
pub use polynomial::EncryptedPolynomial;
