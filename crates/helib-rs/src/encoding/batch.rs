//! Batching: N prime-field elements ↔ one plaintext polynomial (SIMD slots).

use std::cell::RefCell;

use ark_ff::{FftField, PrimeField};
use num_bigint::BigUint;

use super::field_limbs;
use super::slots::{Route, SlotLayout};
use crate::ciphertext::Ciphertext;
use crate::context::Context;
use crate::encoded::EncodedPlaintext;
use crate::error::{Error, Result};
use crate::plaintext::Plaintext;

/// Packs N elements of the field F = Z_t into one plaintext, so that
/// ciphertext × plaintext products and additions act slot by slot.
///
/// It needs t to be F's modulus and 2N | t − 1 (so X^N + 1 splits into
/// linear factors mod t). The slots form two rows of N/2; see [`SlotLayout`]
/// for exactly which evaluation of the polynomial each slot holds and how the
/// Galois automorphisms X ↦ X^3 (rotate both rows left by one) and
/// X ↦ X^(2N−1) (swap the rows) act on them.
///
/// ```
/// use ark_bn254::Fr;
/// use helib_rs::{BatchEncoder, Context, Parameters, SecretKey};
///
/// let context = Context::new(&Parameters::for_tests())?;
/// let encoder = BatchEncoder::<Fr>::new(&context)?;
/// let sk = SecretKey::generate(&context)?;
///
/// let x: Vec<Fr> = (1..=4u64).map(Fr::from).collect();
/// let ct = sk.encrypt(&encoder.encode(&x)?)?;
/// let y = encoder.encode_for_multiplication(&x, ct.level())?;
/// let squares = encoder.decode(&sk.decrypt(&(&ct * &y)?)?)?;
/// assert_eq!(squares[..5], [1u64, 4, 9, 16, 0].map(Fr::from));
/// # Ok::<(), helib_rs::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct BatchEncoder<F: PrimeField + FftField> {
    context: Context,
    layout: SlotLayout<F>,
}

impl<F: PrimeField + FftField> BatchEncoder<F> {
    /// A batch encoder for `context`.
    ///
    /// # Errors
    /// [`Error::BatchingUnsupported`] when t is not F's modulus or 2N does not
    /// divide t − 1.
    pub fn new(context: &Context) -> Result<Self> {
        field_limbs::check_modulus::<F>(context)
            .map_err(|reason| Error::BatchingUnsupported { reason })?;
        let t = context.plaintext_modulus();
        let two_n = 2 * context.ring_degree();
        if (t - 1u32) % two_n != BigUint::default() {
            return Err(Error::BatchingUnsupported {
                reason: format!(
                    "2N = {two_n} does not divide t - 1, so X^N + 1 does not split mod t"
                ),
            });
        }
        Ok(Self {
            context: context.clone(),
            layout: SlotLayout::new(context.ring_degree())?,
        })
    }

    /// The slot layout (which evaluation each slot holds).
    pub fn layout(&self) -> &SlotLayout<F> {
        &self.layout
    }

    /// The number of slots, N.
    pub fn slot_count(&self) -> usize {
        self.layout.slot_count()
    }

    /// The context of the plaintexts this encoder makes.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// Encodes up to N values into the slots 0, 1, … (the rest are zero).
    ///
    /// # Errors
    /// [`Error::InvalidPlaintext`] for more than N values.
    pub fn encode(&self, values: &[F]) -> Result<Plaintext> {
        self.encode_by(values, Route::Full)
    }

    /// [`encode`](Self::encode) of public values (a linear transform's
    /// diagonals): slots repeating along the rows take the small route of
    /// [`SlotLayout`]'s periodic slots, whose work depends on the values.
    pub(crate) fn encode_public(&self, values: &[F]) -> Result<Plaintext> {
        self.encode_by(values, Route::Periodic)
    }

    fn encode_by(&self, values: &[F], route: Route) -> Result<Plaintext> {
        let width = self.context.plain_limbs();
        let mut limbs = vec![0u64; self.slot_count() * width];
        self.layout
            .slots_to_coefficient_limbs(values, width, &mut limbs, route)?;
        Ok(Plaintext::from_engine_limbs(&self.context, limbs))
    }

    /// Encodes `values` for the evaluator at `level` (extended when
    /// `extended`), through the coefficient limbs of a buffer kept per
    /// thread: the same encoding as [`encode`](Self::encode) then
    /// [`EncodedPlaintext`]'s constructor, with no [`Plaintext`] or
    /// per-call buffer in between.
    fn encode_direct(
        &self,
        values: &[F],
        level: usize,
        extended: bool,
    ) -> Result<EncodedPlaintext> {
        thread_local! {
            static LIMBS: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
        }
        let width = self.context.plain_limbs();
        LIMBS.with(|cell| {
            // A fresh buffer if this thread's is in use (never, as nothing
            // below encodes again; but a borrow error must not be a panic).
            let mut own = Vec::new();
            let mut guard = cell.try_borrow_mut().ok();
            let limbs = guard.as_deref_mut().unwrap_or(&mut own);
            limbs.resize(self.slot_count() * width, 0);
            // An encoding is public: the periodic route may decide the work.
            self.layout
                .slots_to_coefficient_limbs(values, width, limbs, Route::Periodic)?;
            EncodedPlaintext::from_coefficient_limbs(&self.context, limbs, level, extended)
        })
    }

    /// Encodes two rows of up to N/2 values each (missing ones are zero).
    ///
    /// # Errors
    /// [`Error::InvalidPlaintext`] when a row has more than N/2 values.
    pub fn encode_rows(&self, row0: &[F], row1: &[F]) -> Result<Plaintext> {
        let half = self.layout.row_size();
        if row0.len() > half || row1.len() > half {
            return Err(Error::InvalidPlaintext(format!(
                "rows of {} and {} values were given but a row has {half} slots",
                row0.len(),
                row1.len()
            )));
        }
        let mut values = vec![F::zero(); 2 * half];
        values[..row0.len()].copy_from_slice(row0);
        values[half..half + row1.len()].copy_from_slice(row1);
        self.encode(&values)
    }

    /// The N slot values of `plaintext`.
    ///
    /// # Errors
    /// [`Error::ContextMismatch`] for a plaintext of another context.
    pub fn decode(&self, plaintext: &Plaintext) -> Result<Vec<F>> {
        self.context.ensure_same(plaintext.context())?;
        let coefficients = field_limbs::from_plaintext::<F>(plaintext)?;
        self.layout.coefficients_to_slots(&coefficients)
    }

    /// The two rows of N/2 slot values of `plaintext`.
    ///
    /// # Errors
    /// As for [`decode`](Self::decode).
    pub fn decode_rows(&self, plaintext: &Plaintext) -> Result<(Vec<F>, Vec<F>)> {
        let mut row0 = self.decode(plaintext)?;
        let row1 = row0.split_off(self.layout.row_size());
        Ok((row0, row1))
    }

    /// Encodes `values` straight into an [`EncodedPlaintext`] for
    /// multiplication at `level`. The values are taken as public (the
    /// evaluator's own): slots that repeat along the rows take a smaller
    /// transform and a compact encoding
    /// ([`EncodedPlaintext::public_for_multiplication`]), in a time that
    /// depends on their period; values that may be secret go through
    /// [`encode`](Self::encode) and [`EncodedPlaintext::for_multiplication`].
    ///
    /// # Errors
    /// As for [`encode`](Self::encode) and [`EncodedPlaintext::for_multiplication`].
    pub fn encode_for_multiplication(
        &self,
        values: &[F],
        level: usize,
    ) -> Result<EncodedPlaintext> {
        self.encode_direct(values, level, false)
    }

    /// Encodes `values` in the extended form of
    /// [`EncodedPlaintext::for_linear_transform`], for the diagonals of a
    /// [`Ciphertext::linear_transform`](crate::Ciphertext::linear_transform),
    /// taking them as public as
    /// [`encode_for_multiplication`](Self::encode_for_multiplication) does.
    ///
    /// # Errors
    /// As for [`encode`](Self::encode) and [`EncodedPlaintext::for_linear_transform`].
    pub fn encode_for_linear_transform(
        &self,
        values: &[F],
        level: usize,
    ) -> Result<EncodedPlaintext> {
        self.encode_direct(values, level, true)
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
