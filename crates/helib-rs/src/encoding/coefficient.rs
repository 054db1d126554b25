//! Integers ↔ plaintext coefficients, for any plaintext modulus.

use num_bigint::{BigInt, BigUint, Sign};

use crate::context::Context;
use crate::error::{Error, Result};
use crate::plaintext::Plaintext;

/// Puts integers into plaintext coefficients and reads them back, for any t.
///
/// Unsigned values must be below t; signed values are taken mod t on the way
/// in and read back in the centered range (−t/2, t/2], so small negative
/// numbers survive a round trip.
///
/// ```
/// use helib_rs::{CoefficientEncoder, Context, Parameters};
///
/// let context = Context::new(&Parameters::for_tests())?;
/// let encoder = CoefficientEncoder::new(&context);
/// let p = encoder.encode_i64(&[-3, 0, 7])?;
/// assert_eq!(encoder.decode_i64(&p)?[..4], [-3, 0, 7, 0]);
/// # Ok::<(), helib_rs::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct CoefficientEncoder {
    context: Context,
}

impl CoefficientEncoder {
    /// An encoder for plaintexts of `context`.
    pub fn new(context: &Context) -> Self {
        Self {
            context: context.clone(),
        }
    }

    /// Encodes unsigned values below t as coefficients (constant term first).
    ///
    /// # Errors
    /// [`Error::InvalidPlaintext`] for more than N values or a value ≥ t.
    pub fn encode_u64(&self, values: &[u64]) -> Result<Plaintext> {
        Plaintext::from_u64s(&self.context, values)
    }

    /// Encodes signed values, each taken mod t.
    ///
    /// # Errors
    /// [`Error::InvalidPlaintext`] for more than N values.
    pub fn encode_i64(&self, values: &[i64]) -> Result<Plaintext> {
        Plaintext::from_i64s(&self.context, values)
    }

    /// Encodes big values below t.
    ///
    /// # Errors
    /// [`Error::InvalidPlaintext`] for more than N values or a value ≥ t.
    pub fn encode_biguint(&self, values: &[BigUint]) -> Result<Plaintext> {
        Plaintext::from_biguints(&self.context, values)
    }

    /// The N coefficients in [0, t).
    ///
    /// # Errors
    /// [`Error::ContextMismatch`] for a plaintext of another context.
    pub fn decode_biguint(&self, plaintext: &Plaintext) -> Result<Vec<BigUint>> {
        self.context.ensure_same(plaintext.context())?;
        Ok(plaintext.coefficients())
    }

    /// The N coefficients in [0, t) as `u64`.
    ///
    /// # Errors
    /// [`Error::ContextMismatch`] for a plaintext of another context;
    /// [`Error::InvalidPlaintext`] when a coefficient does not fit in 64 bits.
    pub fn decode_u64(&self, plaintext: &Plaintext) -> Result<Vec<u64>> {
        self.decode_biguint(plaintext)?
            .iter()
            .enumerate()
            .map(|(i, c)| {
                u64::try_from(c).map_err(|_| {
                    Error::InvalidPlaintext(format!("coefficient {i} ({c}) does not fit in a u64"))
                })
            })
            .collect()
    }

    /// The N coefficients lifted to the centered range (−t/2, t/2].
    ///
    /// # Errors
    /// [`Error::ContextMismatch`] for a plaintext of another context.
    pub fn decode_centered(&self, plaintext: &Plaintext) -> Result<Vec<BigInt>> {
        let t = self.context.plaintext_modulus();
        let half = t >> 1u32;
        Ok(self
            .decode_biguint(plaintext)?
            .into_iter()
            .map(|c| {
                if c > half {
                    BigInt::from_biguint(Sign::Minus, t - c)
                } else {
                    BigInt::from(c)
                }
            })
            .collect())
    }

    /// The N coefficients lifted to (−t/2, t/2] as `i64`.
    ///
    /// # Errors
    /// [`Error::ContextMismatch`] for a plaintext of another context;
    /// [`Error::InvalidPlaintext`] when a centered coefficient does not fit in an `i64`.
    pub fn decode_i64(&self, plaintext: &Plaintext) -> Result<Vec<i64>> {
        self.decode_centered(plaintext)?
            .iter()
            .enumerate()
            .map(|(i, c)| {
                i64::try_from(c).map_err(|_| {
                    Error::InvalidPlaintext(format!("coefficient {i} ({c}) does not fit in an i64"))
                })
            })
            .collect()
    }

    /// The context of the plaintexts this encoder makes.
    pub fn context(&self) -> &Context {
        &self.context
    }
}
