//! Polynomial products across ciphertexts (block convolutions) and monomial products.
//!
//! In coefficient encoding a ciphertext product is a product of polynomials
//! in F_t\[X\]/(X^N + 1). A polynomial of higher degree is held as blocks
//! P = Σ_k P_k·X^(k·s), one ciphertext per block; the blocks of a product are
//! the convolution D_k = Σ_{i+j=k} A_i·B_j of the two block sequences. The
//! engine computes it exactly modulo every ciphertext prime with a negacyclic
//! NTT of length L ≥ c_a + c_b − 1 *across* the blocks (each butterfly acts on
//! a whole row of evaluation slots), L pointwise tensor products and the
//! inverse NTT: the results are the very ciphertexts the schoolbook sum of
//! c_a·c_b products would give — same plaintext, same noise — for the price of
//! L products. No key is involved.

use std::ops::Range;

use helib_sys as sys;

use crate::ciphertext::Ciphertext;
use crate::context::Context;
use crate::encoded::EncodedPlaintext;
use crate::error::{Error, Result};

impl Ciphertext {
    /// `self · X^exponent` in the plaintext ring, for any integer exponent
    /// (taken mod 2N, as X^(2N) = 1 and X^N = −1): the plaintext's
    /// coefficients move up by `exponent` places and change sign where they
    /// wrap. The noise's norm does not change and no key is needed.
    ///
    /// ```
    /// use helib_rs::{Context, Parameters, Plaintext, SecretKey};
    ///
    /// let context = Context::new(&Parameters::for_tests())?;
    /// let sk = SecretKey::generate(&context)?;
    /// let n = context.ring_degree() as i64;
    /// let ct = sk.encrypt(&Plaintext::from_i64s(&context, &[1, 2])?)?; // 1 + 2X
    /// let shifted = ct.mul_monomial(n - 1)?; // X^(N-1) + 2X^N = -2 + X^(N-1)
    /// let mut expected = vec![0i64; n as usize];
    /// expected[0] = -2;
    /// expected[n as usize - 1] = 1;
    /// assert_eq!(sk.decrypt(&shifted)?, Plaintext::from_i64s(&context, &expected)?);
    /// assert_eq!(shifted.noise_estimate_bits(), ct.noise_estimate_bits());
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    ///
    /// # Errors
    /// Engine failures only (memory).
    pub fn mul_monomial(&self, exponent: i64) -> Result<Ciphertext> {
        let k = monomial_exponent(self.context(), exponent);
        let src = self.as_ptr();
        // SAFETY: both handles are live; the engine only reads `src`.
        Ciphertext::produce(self.context(), |dst| unsafe {
            sys::helib_ciphertext_mul_monomial(src, k, dst)
        })
    }

    /// In-place [`mul_monomial`](Self::mul_monomial).
    ///
    /// # Errors
    /// As for [`mul_monomial`](Self::mul_monomial); on error `self` is unchanged.
    pub fn mul_monomial_assign(&mut self, exponent: i64) -> Result<()> {
        let k = monomial_exponent(self.context(), exponent);
        // SAFETY: the handle is live; `dst` may alias `a` per the header.
        self.compute_assign(|a, dst| unsafe { sys::helib_ciphertext_mul_monomial(a, k, dst) })
    }

    /// The blocks `outputs` of the product of two block polynomials: block k
    /// is D_k = Σ_{i+j=k} a_i·b_j, a size-3 ciphertext (decrypting with
    /// (1, s, s²); relinearize it only if it is to be multiplied again).
    ///
    /// The blocks of `a` (and of `b`) must be size-2 ciphertexts sharing a
    /// context, a level and a correction factor; `a` and `b` share the level.
    /// If every block's plaintext has degree below N/2, no product wraps
    /// around X^N + 1 and Σ_k D_k·X^(k·N/2) is the product polynomial.
    ///
    /// ```
    /// use helib_rs::{Ciphertext, Context, Parameters, Plaintext, SecretKey};
    ///
    /// let context = Context::new(&Parameters::for_tests())?;
    /// let sk = SecretKey::generate(&context)?;
    /// let enc = |c: &[i64]| sk.encrypt(&Plaintext::from_i64s(&context, c)?);
    /// // (1 + 2Y)(3 + Y) = 3 + 7Y + 2Y^2 with blocks 1, 2 and 3, 1.
    /// let a = [enc(&[1])?, enc(&[2])?];
    /// let b = [enc(&[3])?, enc(&[1])?];
    /// let d = Ciphertext::multiply_blocks(&a, &b, 0..3)?;
    /// let decrypted: Vec<_> = d.iter().map(|c| sk.decrypt(c)).collect::<Result<_, _>>()?;
    /// assert_eq!(decrypted, [
    ///     Plaintext::from_i64s(&context, &[3])?,
    ///     Plaintext::from_i64s(&context, &[7])?,
    ///     Plaintext::from_i64s(&context, &[2])?,
    /// ]);
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    ///
    /// # Errors
    /// * [`Error::InvalidArgument`] when an operand has no blocks, there are
    ///   more than N product blocks, or `outputs` is empty or reaches past
    ///   block c_a + c_b − 2;
    /// * [`Error::ContextMismatch`], [`Error::LevelMismatch`],
    ///   [`Error::CorrectionFactorMismatch`] and
    ///   [`Error::InvalidCiphertextSize`] for blocks that do not agree;
    /// * [`Error::NoiseBudgetExhausted`] before any work when the estimate
    ///   says a result would not decrypt.
    pub fn multiply_blocks(
        a: &[Ciphertext],
        b: &[Ciphertext],
        outputs: Range<usize>,
    ) -> Result<Vec<Ciphertext>> {
        let context = check_blocks(a)?;
        check_blocks(b)?;
        context.ensure_same(b[0].context())?;
        check_outputs(a.len(), b.len(), &outputs)?;
        let b_raw: Vec<_> = b.iter().map(Ciphertext::as_ptr).collect();
        convolve(
            context,
            a,
            &b_raw,
            outputs,
            sys::helib_ciphertext_multiply_blocks,
        )
    }

    /// As [`multiply_blocks`](Self::multiply_blocks) with plaintext blocks
    /// `b` (encoded at or above the ciphertexts' level, sharing one correction
    /// factor): size-2 results.
    ///
    /// # Errors
    /// As for [`multiply_blocks`](Self::multiply_blocks).
    pub fn multiply_plain_blocks(
        a: &[Ciphertext],
        b: &[EncodedPlaintext],
        outputs: Range<usize>,
    ) -> Result<Vec<Ciphertext>> {
        let context = check_blocks(a)?;
        // The engine checks that `b` has blocks, and each block's context,
        // level and correction factor.
        check_outputs(a.len(), b.len(), &outputs)?;
        let b_raw: Vec<_> = b.iter().map(EncodedPlaintext::as_ptr).collect();
        convolve(
            context,
            a,
            &b_raw,
            outputs,
            sys::helib_ciphertext_multiply_plain_blocks,
        )
    }
}

/// An engine block convolution `f(a, b, first, dsts)` of ciphertext blocks
/// `a` with blocks `b` of handle type `B`.
type BlockFn<B> = unsafe extern "C" fn(
    *const *const sys::helib_ciphertext,
    usize,
    *const *const B,
    usize,
    usize,
    *const *mut sys::helib_ciphertext,
    usize,
) -> sys::helib_status;

/// Runs the checked block convolution `f` of `a` and the handles `b` into
/// new ciphertexts for the product blocks `outputs`.
fn convolve<B>(
    context: &Context,
    a: &[Ciphertext],
    b: &[*const B],
    outputs: Range<usize>,
    f: BlockFn<B>,
) -> Result<Vec<Ciphertext>> {
    let a_raw: Vec<_> = a.iter().map(Ciphertext::as_ptr).collect();
    Ciphertext::produce_many(context, outputs.len(), |dsts| {
        // SAFETY: every handle is live (borrowed from `a` and from the
        // caller's `b`); the outputs are new handles that alias no input; the
        // counts match the arrays.
        unsafe {
            f(
                a_raw.as_ptr(),
                a_raw.len(),
                b.as_ptr(),
                b.len(),
                outputs.start,
                dsts.as_ptr(),
                dsts.len(),
            )
        }
    })
}

/// `exponent` mod 2N, as the engine takes it.
fn monomial_exponent(context: &Context, exponent: i64) -> u64 {
    let two_n = 2 * context.ring_degree() as i128;
    // The remainder is in [0, 2N), so it fits u64.
    (i128::from(exponent).rem_euclid(two_n)) as u64
}

/// The blocks of one operand are non-empty, of one context and of size 2
/// (the engine checks that they share a level and a correction factor).
fn check_blocks(blocks: &[Ciphertext]) -> Result<&Context> {
    let head = blocks
        .first()
        .ok_or_else(|| Error::InvalidArgument("a block operand has no blocks".into()))?;
    for block in blocks {
        head.context().ensure_same(block.context())?;
        block.ensure_size(2)?;
    }
    Ok(head.context())
}

/// `outputs` is a non-empty range of the c_a + c_b − 1 product blocks. The
/// engine checks this too, with the bound of N blocks a product may have,
/// but the output handles are made before the call: this check keeps a
/// range past the product from allocating them.
fn check_outputs(a_blocks: usize, b_blocks: usize, outputs: &Range<usize>) -> Result<()> {
    let total = (a_blocks + b_blocks).saturating_sub(1);
    if outputs.is_empty() || outputs.end > total {
        return Err(Error::InvalidArgument(format!(
            "output blocks {outputs:?} are not a non-empty part of the product's {total} blocks"
        )));
    }
    Ok(())
}
