//! Encoding a plaintext: for multiplication, addition or linear transforms,
//! with a correction factor, kept compact when it is public.

use helib_sys as sys;
use num_bigint::BigUint;
use num_traits::One;

use super::plaintext::EncodedPlaintext;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::ffi::Owned;
use crate::plaintext::Plaintext;

/// Whether a plaintext being encoded may be secret (see
/// [`EncodedPlaintext::public_for_multiplication`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Visibility {
    /// Encoded the same way whatever its coefficients.
    MaySecret,
    /// Kept compact when it is a polynomial in X^s.
    Public,
}

impl EncodedPlaintext {
    /// Encodes `plaintext` at `level` with factor 1, for multiplication.
    ///
    /// # Errors
    /// [`Error::InvalidLevel`] when `level` is above the context's top level.
    pub fn for_multiplication(plaintext: &Plaintext, level: usize) -> Result<Self> {
        Self::with_factor(plaintext, level, &BigUint::one())
    }

    /// Encodes `plaintext` at `level` with factor 1, also modulo the special
    /// primes: the *extended* form [`Ciphertext::linear_transform`](crate::Ciphertext::linear_transform) multiplies
    /// by (in the key-switching basis). It serves
    /// [`Ciphertext::mul_plain`](crate::Ciphertext::mul_plain) too; it takes about K/(level + 1) more
    /// memory, K the number of special primes.
    ///
    /// # Errors
    /// [`Error::InvalidLevel`] when `level` is above the context's top level;
    /// [`Error::InvalidArgument`] when the context has no special primes.
    pub fn for_linear_transform(plaintext: &Plaintext, level: usize) -> Result<Self> {
        Self::encode(
            plaintext,
            level,
            &BigUint::one(),
            true,
            Visibility::MaySecret,
        )
    }

    /// [`for_multiplication`](Self::for_multiplication) for a public
    /// plaintext (the evaluator's own constants, a transform's diagonals):
    /// one that is a polynomial in X^s is kept compact
    /// ([`stride`](Self::stride)), s times smaller and cheaper to make, and
    /// the time that takes depends on s. A plaintext that may be secret takes
    /// [`for_multiplication`](Self::for_multiplication), which works the same
    /// whatever its coefficients.
    ///
    /// ```
    /// use helib_rs::{Context, EncodedPlaintext, Parameters, Plaintext, SecretKey};
    ///
    /// let context = Context::new(&Parameters::for_tests())?;
    /// let sk = SecretKey::generate(&context)?;
    /// let n = context.ring_degree();
    /// // 2 + 3·X^(N/2): a polynomial in X^(N/2), kept as N/16 words a prime.
    /// let mut coefficients = vec![0u64; n];
    /// coefficients[0] = 2;
    /// coefficients[n / 2] = 3;
    /// let b = Plaintext::from_u64s(&context, &coefficients)?;
    /// let ct = sk.encrypt(&Plaintext::from_u64s(&context, &[5])?)?;
    /// let compact = EncodedPlaintext::public_for_multiplication(&b, ct.level())?;
    /// assert_eq!(compact.stride()?, n / 16);
    /// let whole = EncodedPlaintext::for_multiplication(&b, ct.level())?;
    /// assert_eq!(whole.stride()?, 1);
    ///
    /// let expected = Plaintext::from_u64s(&context, &{
    ///     let mut c = vec![0u64; n];
    ///     c[0] = 10;
    ///     c[n / 2] = 15;
    ///     c
    /// })?;
    /// assert_eq!(sk.decrypt(&(&ct * &compact)?)?, expected);
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    ///
    /// # Errors
    /// As for [`for_multiplication`](Self::for_multiplication).
    pub fn public_for_multiplication(plaintext: &Plaintext, level: usize) -> Result<Self> {
        Self::encode(plaintext, level, &BigUint::one(), false, Visibility::Public)
    }

    /// [`for_linear_transform`](Self::for_linear_transform) for a public
    /// plaintext, kept compact as
    /// [`public_for_multiplication`](Self::public_for_multiplication) keeps it.
    ///
    /// # Errors
    /// As for [`for_linear_transform`](Self::for_linear_transform).
    pub fn public_for_linear_transform(plaintext: &Plaintext, level: usize) -> Result<Self> {
        Self::encode(plaintext, level, &BigUint::one(), true, Visibility::Public)
    }

    /// Encodes `plaintext` at `level` with that level's canonical correction
    /// factor, for addition to ciphertexts brought there by modulus switching
    /// alone.
    ///
    /// # Errors
    /// [`Error::InvalidLevel`] when `level` is above the context's top level.
    pub fn for_addition(plaintext: &Plaintext, level: usize) -> Result<Self> {
        let context = plaintext.context();
        let factor = context
            .correction_factor(level)
            .ok_or(Error::InvalidLevel {
                level,
                max: context.max_level(),
            })?;
        Self::with_factor(plaintext, level, factor)
    }

    /// Encodes `plaintext` at `level` scaled by `factor` (taken mod t).
    ///
    /// # Errors
    /// [`Error::InvalidLevel`] when `level` is above the context's top level;
    /// [`Error::InvalidArgument`] when `factor` is 0 mod t or not invertible mod t.
    pub fn with_factor(plaintext: &Plaintext, level: usize, factor: &BigUint) -> Result<Self> {
        Self::encode(plaintext, level, factor, false, Visibility::MaySecret)
    }

    fn encode(
        plaintext: &Plaintext,
        level: usize,
        factor: &BigUint,
        extended: bool,
        visibility: Visibility,
    ) -> Result<Self> {
        Self::encode_limbs(
            plaintext.context(),
            plaintext.limbs(),
            level,
            factor,
            extended,
            visibility,
        )
    }

    /// Encodes the public polynomial whose N coefficients are `coeffs` (the
    /// context's plain limbs each, every one below t, as a [`Plaintext`]
    /// holds them), with factor 1, in the form `extended` picks, compact
    /// when it can be (as [`public_for_multiplication`](Self::public_for_multiplication));
    /// the engine checks the coefficients. It spares building a
    /// [`Plaintext`] for values that are encoded at once (a linear
    /// transform's diagonals).
    pub(crate) fn from_coefficient_limbs(
        context: &Context,
        coeffs: &[u64],
        level: usize,
        extended: bool,
    ) -> Result<Self> {
        if coeffs.len() != context.ring_degree() * context.plain_limbs() {
            return Err(Error::InvalidPlaintext(format!(
                "{} limbs were given for a polynomial of {} coefficients of {} limbs",
                coeffs.len(),
                context.ring_degree(),
                context.plain_limbs()
            )));
        }
        Self::encode_limbs(
            context,
            coeffs,
            level,
            &BigUint::one(),
            extended,
            Visibility::Public,
        )
    }

    fn encode_limbs(
        context: &Context,
        coeffs: &[u64],
        level: usize,
        factor: &BigUint,
        extended: bool,
        visibility: Visibility,
    ) -> Result<Self> {
        // The engine checks the level and that the factor is invertible mod t.
        let factor = factor % context.plaintext_modulus();
        let factor_limbs = context.reduced_limbs(&factor);
        // Factor 1 is passed as NULL, as the interface suggests.
        let (factor_ptr, factor_len) = if factor.is_one() {
            (std::ptr::null(), 0)
        } else {
            (factor_limbs.as_ptr(), factor_limbs.len())
        };
        let (n, width) = (context.ring_degree(), context.plain_limbs());
        let raw = Owned::create(|out| {
            // SAFETY: the context handle is live; `coeffs` holds N coefficients
            // of `plain_limbs` limbs each; the factor is null or a live slice of
            // `factor_len` limbs; `out` is a valid out-pointer.
            unsafe {
                let (ctx, coeffs) = (context.as_ptr(), coeffs.as_ptr());
                match (visibility, extended) {
                    (Visibility::Public, _) => sys::helib_encoded_plaintext_new_public(
                        ctx,
                        coeffs,
                        n,
                        width,
                        level,
                        factor_ptr,
                        factor_len,
                        i32::from(extended),
                        out,
                    ),
                    (Visibility::MaySecret, true) => sys::helib_encoded_plaintext_new_extended(
                        ctx, coeffs, n, width, level, factor_ptr, factor_len, out,
                    ),
                    (Visibility::MaySecret, false) => sys::helib_encoded_plaintext_new(
                        ctx, coeffs, n, width, level, factor_ptr, factor_len, out,
                    ),
                }
            }
        })?;
        Ok(Self {
            raw,
            context: context.clone(),
            level,
            correction_factor: factor,
            extended,
        })
    }
}
