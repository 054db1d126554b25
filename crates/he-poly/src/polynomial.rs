//! Encrypted polynomials: blocks of coefficient-encoded ciphertexts.

use std::marker::PhantomData;

use ark_ff::PrimeField;
use he_cache::PlaintextEncryptor;
use helib_rs::{Ciphertext, Context, FieldCoefficientEncoder, PublicKey, RelinKey, SecretKey};

use crate::error::{Error, Result};
use crate::layout::BlockLayout;

/// A polynomial over F = Z_t of any length, encrypted in coefficient form.
///
/// Its coefficients are cut into blocks of `stride` (at most N/2 for one
/// product, see [`PolyParameters`](crate::PolyParameters)), one BGV
/// ciphertext each, so that products of blocks never wrap around X^N + 1.
/// Every block shares the context, level and correction factor.
///
/// ```
/// use ark_bn254::Fr;
/// use he_poly::EncryptedPolynomial;
/// use helib_rs::{Context, Parameters, SecretKey};
///
/// let context = Context::new(&Parameters::for_tests())?; // N = 4096, stride 2048
/// let sk = SecretKey::generate(&context)?;
/// let pk = sk.public_key()?;
/// let a: Vec<Fr> = (1..=5000u64).map(Fr::from).collect();
/// let encrypted = EncryptedPolynomial::encrypt(&pk, &a, 2048)?;
/// assert_eq!(encrypted.blocks().len(), 3);
/// assert_eq!(encrypted.decrypt(&sk)?, a);
/// # Ok::<(), he_poly::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct EncryptedPolynomial<F: PrimeField> {
    pub(crate) blocks: Vec<Ciphertext>,
    pub(crate) layout: BlockLayout,
    pub(crate) field: PhantomData<F>,
}

impl<F: PrimeField> EncryptedPolynomial<F> {
    /// Encrypts Σ coefficients\[i\]·X^i with the public key, in blocks of `stride`.
    ///
    /// # Errors
    /// [`Error::FieldMismatch`] when t is not F's modulus;
    /// [`Error::InvalidArgument`] for a stride that is 0 or above N;
    /// engine failures.
    pub fn encrypt(pk: &PublicKey, coefficients: &[F], stride: usize) -> Result<Self> {
        Self::encrypt_blocks(pk.context(), coefficients, stride, |p| Ok(pk.encrypt(p)?))
    }

    /// As [`encrypt`](Self::encrypt) with the secret key (the owner of the
    /// key can encrypt this way; the ciphertexts are of the same form).
    ///
    /// # Errors
    /// As for [`encrypt`](Self::encrypt).
    pub fn encrypt_symmetric(sk: &SecretKey, coefficients: &[F], stride: usize) -> Result<Self> {
        Self::encrypt_blocks(sk.context(), coefficients, stride, |p| Ok(sk.encrypt(p)?))
    }

    /// As [`encrypt`](Self::encrypt) with any plaintext encryptor of
    /// `he-cache` — such as a [`SecurePool`](he_cache::SecurePool), whose
    /// prepared encryptions of zero make the online cost one encoding and
    /// one addition per block.
    ///
    /// # Errors
    /// As for [`encrypt`](Self::encrypt), and the encryptor's errors.
    pub fn encrypt_with(
        encryptor: &dyn PlaintextEncryptor,
        coefficients: &[F],
        stride: usize,
    ) -> Result<Self> {
        Self::encrypt_blocks(encryptor.context(), coefficients, stride, |p| {
            Ok(encryptor.encrypt_plaintext(p)?)
        })
    }

    fn encrypt_blocks(
        context: &Context,
        coefficients: &[F],
        stride: usize,
        mut encrypt: impl FnMut(&helib_rs::Plaintext) -> Result<Ciphertext>,
    ) -> Result<Self> {
        let n = context.ring_degree();
        if stride == 0 || stride > n {
            return Err(Error::InvalidArgument(format!(
                "the stride must be in 1..={n}, got {stride}"
            )));
        }
        let encoder = encoder::<F>(context)?;
        let layout = BlockLayout::fresh(stride, coefficients.len());
        let blocks = (0..layout.fresh_blocks())
            .map(|i| {
                let end = coefficients.len().min((i + 1) * stride);
                let block = coefficients.get(i * stride..end).unwrap_or(&[]);
                encrypt(&encoder.encode(block)?)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Self {
            blocks,
            layout,
            field: PhantomData,
        })
    }

    /// A polynomial from ciphertexts that already hold its blocks in
    /// coefficient form — for example the output of a he-fft
    /// `ConversionPlan` from slots to coefficients, which is one block of
    /// `BlockLayout::fresh(N / 2, n)` (N the ring degree).
    ///
    /// ```
    /// use ark_bn254::Fr;
    /// use he_poly::{BlockLayout, EncryptedPolynomial};
    /// use helib_rs::{Context, FieldCoefficientEncoder, Parameters, SecretKey};
    ///
    /// let context = Context::new(&Parameters::for_tests())?; // N = 4096
    /// let sk = SecretKey::generate(&context)?;
    /// let encoder = FieldCoefficientEncoder::<Fr>::new(&context)?;
    /// let a: Vec<Fr> = (1..=100u64).map(Fr::from).collect();
    /// let block = sk.public_key()?.encrypt(&encoder.encode(&a)?)?;
    /// let polynomial = EncryptedPolynomial::<Fr>::from_blocks(vec![block], BlockLayout::fresh(2048, 100))?;
    /// assert_eq!(polynomial.decrypt(&sk)?, a);
    /// # Ok::<(), he_poly::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the layout does not fit the ring or
    /// the blocks (too few to cover `len`, however large it is; a stride or
    /// width above N), or the
    /// blocks differ in context, level, correction factor or size;
    /// [`Error::FieldMismatch`] when t is not F's modulus.
    pub fn from_blocks(blocks: Vec<Ciphertext>, layout: BlockLayout) -> Result<Self> {
        let first = blocks.first().ok_or_else(|| {
            Error::InvalidArgument("a polynomial needs at least one block".into())
        })?;
        encoder::<F>(first.context())?;
        if let Some(reason) = inconsistency(&blocks, &layout) {
            return Err(Error::InvalidArgument(reason));
        }
        Ok(Self::from_parts(blocks, layout))
    }

    /// Wraps blocks produced by an operation, with their layout.
    pub(crate) fn from_parts(blocks: Vec<Ciphertext>, layout: BlockLayout) -> Self {
        Self {
            blocks,
            layout,
            field: PhantomData,
        }
    }

    /// Decrypts the `len()` coefficients, constant term first.
    ///
    /// # Errors
    /// [`Error::Engine`] with [`helib_rs::Error::ContextMismatch`] for a key
    /// of another context, or [`helib_rs::Error::NoiseBudgetExhausted`] when a
    /// block would not decrypt correctly.
    pub fn decrypt(&self, sk: &SecretKey) -> Result<Vec<F>> {
        let encoder = encoder::<F>(self.context())?;
        let layout = &self.layout;
        let mut out = vec![F::zero(); layout.len];
        for (i, block) in self.blocks.iter().enumerate() {
            let values = encoder.decode(&sk.decrypt(block)?)?;
            let start = layout.block_exponent(i);
            for (j, value) in values.into_iter().take(layout.width).enumerate() {
                // Terms below X^0 (cut off) and from X^len on are dropped.
                let exponent = i64::try_from(j).ok().and_then(|j| start.checked_add(j));
                let index = exponent.and_then(|e| usize::try_from(e).ok());
                if let Some(slot) = index.and_then(|e| out.get_mut(e)) {
                    *slot += value;
                }
            }
        }
        Ok(out)
    }

    /// The blocks, in order.
    pub fn blocks(&self) -> &[Ciphertext] {
        &self.blocks
    }

    /// How the coefficients are placed in the blocks.
    pub fn layout(&self) -> &BlockLayout {
        &self.layout
    }

    /// The number of coefficients (the degree is below it).
    pub fn len(&self) -> usize {
        self.layout.len
    }

    /// Whether the polynomial has no coefficients.
    pub fn is_empty(&self) -> bool {
        self.layout.len == 0
    }

    /// The context of the blocks.
    pub fn context(&self) -> &Context {
        self.blocks[0].context()
    }

    /// The blocks' common level.
    pub fn level(&self) -> usize {
        self.blocks[0].level()
    }

    /// The smallest estimated noise budget over the blocks, in bits.
    pub fn estimated_budget_bits(&self) -> f64 {
        self.blocks
            .iter()
            .map(Ciphertext::estimated_budget_bits)
            .fold(f64::INFINITY, f64::min)
    }

    /// The bytes the blocks take in the engine's serialized form (what a
    /// transfer of this polynomial costs).
    ///
    /// # Errors
    /// Engine failures.
    pub fn size_bytes(&self) -> Result<usize> {
        let mut total = 0;
        for block in &self.blocks {
            total += block.to_bytes()?.len();
        }
        Ok(total)
    }

    /// Switches every block down while that shrinks the noise faster than
    /// the modulus (see [`Ciphertext::mod_switch_reduce_noise`]), then all to
    /// the lowest level reached: smaller ciphertexts, for transfer or for a
    /// next product.
    ///
    /// # Errors
    /// Engine failures.
    pub fn mod_switch_reduce_noise(&self) -> Result<Self> {
        let mut blocks = self
            .blocks
            .iter()
            .map(Ciphertext::mod_switch_reduce_noise)
            .collect::<helib_rs::Result<Vec<_>>>()?;
        let level = blocks.iter().map(Ciphertext::level).min().unwrap_or(0);
        for block in &mut blocks {
            block.mod_switch_to_assign(level)?;
        }
        Ok(Self::from_parts(blocks, self.layout))
    }

    /// Every block switched down to `level`.
    ///
    /// # Errors
    /// As for [`Ciphertext::mod_switch_to`].
    pub fn mod_switch_to(&self, level: usize) -> Result<Self> {
        let blocks = self
            .blocks
            .iter()
            .map(|b| b.mod_switch_to(level))
            .collect::<helib_rs::Result<Vec<_>>>()?;
        Ok(Self::from_parts(blocks, self.layout))
    }

    /// Every block relinearized (size 3 → 2), so the polynomial can be
    /// multiplied again.
    ///
    /// # Errors
    /// As for [`Ciphertext::relinearize`].
    pub fn relinearize(&self, rk: &RelinKey) -> Result<Self> {
        let blocks = self
            .blocks
            .iter()
            .map(|b| b.relinearize(rk))
            .collect::<helib_rs::Result<Vec<_>>>()?;
        Ok(Self::from_parts(blocks, self.layout))
    }
}

/// The coefficient encoder of `context` for F.
pub(crate) fn encoder<F: PrimeField>(context: &Context) -> Result<FieldCoefficientEncoder<F>> {
    FieldCoefficientEncoder::new(context).map_err(|_| Error::FieldMismatch)
}

/// Why `blocks` cannot hold a polynomial laid out as `layout`, or `None`:
/// the layout must fit the ring and cover `len` with the blocks given, and
/// the blocks must agree in context, level, correction factor and size.
pub(crate) fn inconsistency(blocks: &[Ciphertext], layout: &BlockLayout) -> Option<String> {
    let first = blocks.first()?;
    let n = first.context().ring_degree();
    let count = blocks.len();
    let BlockLayout {
        stride,
        width,
        origin,
        len,
    } = *layout;
    if stride == 0 || stride > n || width == 0 || width > n {
        return Some(format!("stride {stride} or width {width} outside 1..={n}"));
    }
    // At most N blocks, starting at most N·count below X^0.
    let lowest = n
        .checked_mul(count)
        .and_then(|reach| i64::try_from(reach).ok())
        .map(|reach| -reach);
    if count > n || origin > 0 || lowest.is_none_or(|lowest| origin < lowest) {
        return Some(format!("{count} blocks from exponent {origin}"));
    }
    // The exponent the last block ends at bounds the length (which is what
    // decryption allocates): compared as unsigned numbers, so that no
    // length, however large, passes as a negative one.
    let end = layout
        .checked_block_exponent(count - 1)
        .and_then(|start| start.checked_add(i64::try_from(width).ok()?));
    let covered = end.and_then(|end| usize::try_from(end).ok());
    if covered.is_none_or(|covered| len > covered) {
        let end = end.map_or_else(|| "beyond 2^63".to_string(), |end| end.to_string());
        return Some(format!(
            "{count} blocks cover exponents up to {end}, not {len} coefficients"
        ));
    }
    let consistent = blocks.iter().all(|block| {
        block.context().same_as(first.context())
            && block.level() == first.level()
            && block.correction_factor() == first.correction_factor()
            && block.size() == first.size()
    });
    (!consistent).then(|| "the blocks differ in context, level, correction factor or size".into())
}
