//! Prime-field elements ↔ plaintext coefficients (coefficient encoding).

use std::marker::PhantomData;

use ark_ff::PrimeField;

use super::field_limbs;
use crate::ciphertext::Ciphertext;
use crate::context::Context;
use crate::encoded::EncodedPlaintext;
use crate::error::{Error, Result};
use crate::plaintext::Plaintext;

/// Puts up to N elements of the field F = Z_t into the coefficients of one
/// plaintext polynomial (constant term first, zero-padded) and reads them back.
///
/// Coefficient encoding keeps the plaintext a polynomial: ciphertext products
/// are products of polynomials in F\[X\]/(X^N + 1), which is what polynomial
/// arithmetic under encryption needs (the slots of a [`BatchEncoder`]
/// instead multiply element by element). It works for any t that is F's
/// modulus; t need not be NTT-friendly.
///
/// [`BatchEncoder`]: crate::BatchEncoder
///
/// ```
/// use ark_bn254::Fr;
/// use helib_rs::{Context, FieldCoefficientEncoder, Parameters, SecretKey};
///
/// let context = Context::new(&Parameters::for_tests())?;
/// let encoder = FieldCoefficientEncoder::<Fr>::new(&context)?;
/// let sk = SecretKey::generate(&context)?;
/// // (1 + 2X) · (3 + X) = 3 + 7X + 2X².
/// let a = sk.encrypt(&encoder.encode(&[Fr::from(1u64), Fr::from(2u64)])?)?;
/// let b = sk.encrypt(&encoder.encode(&[Fr::from(3u64), Fr::from(1u64)])?)?;
/// let product = encoder.decode(&sk.decrypt(&a.multiply(&b)?)?)?;
/// assert_eq!(product[..4], [3u64, 7, 2, 0].map(Fr::from));
/// # Ok::<(), helib_rs::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct FieldCoefficientEncoder<F: PrimeField> {
    context: Context,
    field: PhantomData<F>,
}

impl<F: PrimeField> FieldCoefficientEncoder<F> {
    /// An encoder for plaintexts of `context`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when t is not F's modulus.
    pub fn new(context: &Context) -> Result<Self> {
        field_limbs::check_modulus::<F>(context).map_err(Error::InvalidArgument)?;
        Ok(Self {
            context: context.clone(),
            field: PhantomData,
        })
    }

    /// The context this encoder works for.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// The polynomial Σ values\[i\]·X^i.
    ///
    /// # Errors
    /// [`Error::InvalidPlaintext`] for more than N values.
    pub fn encode(&self, values: &[F]) -> Result<Plaintext> {
        field_limbs::to_plaintext(&self.context, values)
    }

    /// The N coefficients of `plaintext`, constant term first.
    ///
    /// # Errors
    /// [`Error::ContextMismatch`] for a plaintext of another context.
    pub fn decode(&self, plaintext: &Plaintext) -> Result<Vec<F>> {
        self.context.ensure_same(plaintext.context())?;
        field_limbs::from_plaintext(plaintext)
    }

    /// Encodes `values` straight into an [`EncodedPlaintext`] for
    /// multiplication at `level`.
    ///
    /// # Errors
    /// As for [`encode`](Self::encode) and [`EncodedPlaintext::for_multiplication`].
    pub fn encode_for_multiplication(
        &self,
        values: &[F],
        level: usize,
    ) -> Result<EncodedPlaintext> {
        EncodedPlaintext::for_multiplication(&self.encode(values)?, level)
    }

    /// Encodes `values` straight into an [`EncodedPlaintext`] for addition to
    /// `ciphertext`.
    ///
    /// # Errors
    /// As for [`encode`](Self::encode) and [`EncodedPlaintext::for_addition_to`].
    pub fn encode_for_addition_to(
        &self,
        values: &[F],
        ciphertext: &Ciphertext,
    ) -> Result<EncodedPlaintext> {
        EncodedPlaintext::for_addition_to(&self.encode(values)?, ciphertext)
    }
}
