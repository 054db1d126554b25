//! Arithmetic on encrypted polynomials: sums, scalar and plaintext products,
//! ciphertext products and quotients by powers of X.

use std::borrow::Cow;

use ark_ff::PrimeField;
use helib_rs::{Ciphertext, EncodedPlaintext};
use num_bigint::BigUint;

use crate::error::{Error, Result};
use crate::layout::BlockLayout;
use crate::polynomial::{encoder, EncryptedPolynomial};

impl<F: PrimeField> EncryptedPolynomial<F> {
    /// `self + other`. The operands are brought to a common level and
    /// correction factor first (see [`Ciphertext::align`]), so a product
    /// can be added to a fresh polynomial.
    ///
    /// # Errors
    /// [`Error::LayoutMismatch`] for different strides or origins; engine
    /// errors (contexts, an exhausted budget).
    pub fn add(&self, other: &Self) -> Result<Self> {
        self.combine(other, false)
    }

    /// `self − other`; see [`add`](Self::add).
    ///
    /// # Errors
    /// As for [`add`](Self::add).
    pub fn sub(&self, other: &Self) -> Result<Self> {
        self.combine(other, true)
    }

    /// `−self`.
    ///
    /// # Errors
    /// Engine failures.
    pub fn neg(&self) -> Result<Self> {
        let blocks = self
            .blocks
            .iter()
            .map(Ciphertext::negate)
            .collect::<helib_rs::Result<Vec<_>>>()?;
        Ok(Self::from_parts(blocks, self.layout))
    }

    /// `k · self`. The noise grows by log2 of k's centred representative
    /// (up to log2 t bits).
    ///
    /// # Errors
    /// Engine errors (an exhausted budget).
    pub fn mul_scalar(&self, k: F) -> Result<Self> {
        let k: BigUint = k.into_bigint().into();
        let blocks = self
            .blocks
            .iter()
            .map(|b| b.mul_scalar(&k))
            .collect::<helib_rs::Result<Vec<_>>>()?;
        Ok(Self::from_parts(blocks, self.layout))
    }

    /// `self · p` for a plaintext polynomial p (coefficients, constant term
    /// first), by one block convolution.
    ///
    /// # Errors
    /// [`Error::PendingCut`], [`Error::WouldWrap`] as for [`mul`](Self::mul);
    /// [`Error::InvalidArgument`] for an empty p; engine errors.
    pub fn mul_plain(&self, p: &[F]) -> Result<Self> {
        if p.is_empty() {
            return Err(Error::InvalidArgument(
                "the plaintext polynomial has no coefficients".into(),
            ));
        }
        let plain_layout = BlockLayout::fresh(self.layout.stride, p.len());
        let layout = self
            .layout
            .product(&plain_layout, self.context().ring_degree())?;
        let encoder = encoder::<F>(self.context())?;
        let level = self.level();
        let plain = p
            .chunks(self.layout.stride)
            .map(|block| encoder.encode_for_multiplication(block, level))
            .collect::<helib_rs::Result<Vec<EncodedPlaintext>>>()?;
        let total = self.blocks.len() + plain.len() - 1;
        let blocks = Ciphertext::multiply_plain_blocks(&self.blocks, &plain, 0..total)?;
        Ok(Self::from_parts(blocks, layout))
    }

    /// `self · other`: one block convolution (an exact NTT across the
    /// blocks, see [`Ciphertext::multiply_blocks`]), no key. The result's
    /// blocks are size-3 ciphertexts; decrypt them as they are, or
    /// [`relinearize`](Self::relinearize) before another product.
    ///
    /// Operands at different levels are first switched to the lower one.
    ///
    /// # Errors
    /// * [`Error::LayoutMismatch`] for different strides;
    /// * [`Error::PendingCut`] for a quotient operand;
    /// * [`Error::WouldWrap`] when the product's blocks would not fit the
    ///   ring (the stride is too large for this many products);
    /// * engine errors, among them [`helib_rs::Error::NoiseBudgetExhausted`]
    ///   before any work when the result would not decrypt.
    pub fn mul(&self, other: &Self) -> Result<Self> {
        let layout = self
            .layout
            .product(&other.layout, self.context().ring_degree())?;
        let total = self.blocks.len() + other.blocks.len() - 1;
        self.product_blocks(other, 0..total, layout)
    }

    /// ⌊(self · other) / X^cut⌋: the product's coefficients from X^cut on,
    /// computing only the blocks that reach them.
    ///
    /// # Errors
    /// As for [`mul`](Self::mul); [`Error::InvalidArgument`] when the
    /// product has no coefficient at X^cut or above.
    pub fn mul_high(&self, other: &Self, cut: usize) -> Result<Self> {
        let product = self
            .layout
            .product(&other.layout, self.context().ring_degree())?;
        let (first, layout) = product.cut_below(cut)?;
        let total = self.blocks.len() + other.blocks.len() - 1;
        self.product_blocks(other, first..total, layout)
    }

    /// ⌊self / X^cut⌋: drops the `cut` lowest coefficients and the blocks
    /// that only held those. The result can be added to others cut alike,
    /// not multiplied (the dropped part still lives in its lowest block).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when nothing is left.
    pub fn div_by_monomial(&self, cut: usize) -> Result<Self> {
        let (first, layout) = self.layout.cut_below(cut)?;
        let kept = self.blocks.get(first..).filter(|kept| !kept.is_empty());
        let kept = kept.ok_or_else(|| {
            Error::InvalidArgument(format!("no block reaches X^{cut} ({})", self.layout))
        })?;
        Ok(Self::from_parts(kept.to_vec(), layout))
    }

    fn product_blocks(
        &self,
        other: &Self,
        outputs: std::ops::Range<usize>,
        layout: BlockLayout,
    ) -> Result<Self> {
        if !self.context().same_as(other.context()) {
            return Err(helib_rs::Error::ContextMismatch.into());
        }
        let level = self.level().min(other.level());
        let a = blocks_at_level(&self.blocks, level)?;
        let b = blocks_at_level(&other.blocks, level)?;
        let blocks = Ciphertext::multiply_blocks(&a, &b, outputs)?;
        Ok(Self::from_parts(blocks, layout))
    }

    fn combine(&self, other: &Self, subtract: bool) -> Result<Self> {
        self.layout.ensure_addable(&other.layout)?;
        let (mut blocks, b) = Ciphertext::align_groups(&self.blocks, &other.blocks)?;
        for (i, y) in b.into_iter().enumerate() {
            match blocks.get_mut(i) {
                Some(x) if subtract => x.sub_assign(&y)?,
                Some(x) => x.add_assign(&y)?,
                None if subtract => blocks.push(y.negate()?),
                None => blocks.push(y),
            }
        }
        Ok(Self::from_parts(blocks, self.layout.sum(&other.layout)))
    }
}

/// The blocks at `level`: borrowed when they are there already, else
/// switched down (for products of polynomials whose blocks sit at
/// different levels; he-mpi's products use it on each rank's blocks).
///
/// # Errors
/// The engine's error for a block below `level`.
pub fn blocks_at_level(
    blocks: &[Ciphertext],
    level: usize,
) -> helib_rs::Result<Cow<'_, [Ciphertext]>> {
    if blocks.iter().all(|b| b.level() == level) {
        return Ok(Cow::Borrowed(blocks));
    }
    let switched = blocks
        .iter()
        .map(|b| b.mod_switch_to(level))
        .collect::<helib_rs::Result<Vec<_>>>()?;
    Ok(Cow::Owned(switched))
}
