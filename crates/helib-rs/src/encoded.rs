//! Plaintexts encoded for the evaluator: RNS + NTT form at a level, with a correction factor.

use std::fmt;

use helib_sys as sys;
use num_bigint::BigUint;
use num_traits::{One, Zero};

use crate::context::Context;
use crate::error::{Error, Result};
use crate::ffi::{check, Owned};
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

/// A plaintext prepared for [`Ciphertext::mul_plain`](crate::Ciphertext::mul_plain) or
/// [`Ciphertext::add_plain`](crate::Ciphertext::add_plain): its polynomial in RNS and NTT form modulo
/// Q_level, scaled by a correction factor. It can be used with ciphertexts at
/// its level or below.
///
/// # Correction factors
///
/// In BGV, switching a ciphertext from modulus Q_l to Q_{l−1} divides it by
/// q_l and rounds in a way that keeps it congruent mod t — which multiplies
/// the plaintext by q_l^-1 mod t. With a big t (such as the 254-bit BN254
/// field) this cannot be avoided by choosing q_l ≡ 1 mod t, so the engine
/// tracks the factor exactly: every ciphertext carries a *correction factor*
/// c and decrypts to c·m, and decryption multiplies by c^-1.
///
/// * Ciphertexts at the same level reached through the same chain share the
///   **canonical** factor of that level, the product of q_j^-1 mod t over the
///   dropped primes ([`Context::correction_factor`]); a fresh ciphertext at
///   the top level has 1, and one encrypted at a lower level gets that
///   level's canonical factor.
/// * A ciphertext × plaintext product has factor `ct.factor · pt.factor`, so
///   multiply by plaintexts encoded with factor 1
///   ([`for_multiplication`](Self::for_multiplication)).
/// * Addition needs equal factors on both sides; a plaintext to add is
///   encoded with the ciphertext's factor
///   ([`for_addition_to`](Self::for_addition_to), or
///   [`for_addition`](Self::for_addition) for the canonical factor of a level).
///
/// ```
/// use helib_rs::{Context, EncodedPlaintext, Parameters, Plaintext, SecretKey};
///
/// let context = Context::new(&Parameters::for_tests())?;
/// let sk = SecretKey::generate(&context)?;
/// let ct = sk.encrypt(&Plaintext::from_u64s(&context, &[1, 2])?)?.mod_switch()?;
///
/// let three = Plaintext::from_u64s(&context, &[3])?;
/// let scale = EncodedPlaintext::for_multiplication(&three, ct.level())?;
/// let shift = EncodedPlaintext::for_addition_to(&three, &ct)?;
/// assert_eq!(shift.correction_factor(), ct.correction_factor());
///
/// let result = (&(&ct * &scale)? + &shift)?; // 3·(1 + 2X) + 3 = 6 + 6X
/// let expected = Plaintext::from_u64s(&context, &[6, 6])?;
/// assert_eq!(sk.decrypt(&result)?, expected);
/// # Ok::<(), helib_rs::Error>(())
/// ```
pub struct EncodedPlaintext {
    raw: Owned<sys::helib_encoded_plaintext>,
    context: Context,
    level: usize,
    correction_factor: BigUint,
    extended: bool,
}

// SAFETY: an encoded plaintext is immutable after construction and owned by
// this value alone; the engine only reads it (through `const` pointers, safe
// concurrently per the header) and it has no thread affinity.
unsafe impl Send for EncodedPlaintext {}
// SAFETY: see the `Send` impl above.
unsafe impl Sync for EncodedPlaintext {}

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

    /// The level this plaintext is encoded at.
    pub fn level(&self) -> usize {
        self.level
    }

    /// Whether it is also encoded modulo the special primes
    /// ([`for_linear_transform`](Self::for_linear_transform)).
    pub fn is_extended(&self) -> bool {
        self.extended
    }

    /// The correction factor it is scaled by, in [1, t).
    pub fn correction_factor(&self) -> &BigUint {
        &self.correction_factor
    }

    /// The context it belongs to.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// Its stride s: 1 for a full encoding, or the power of two s > 1 such
    /// that the plaintext is a polynomial in X^s, which the engine detects
    /// when it encodes a public plaintext
    /// ([`public_for_multiplication`](Self::public_for_multiplication), the
    /// [`BatchEncoder`](crate::BatchEncoder)'s `encode_for_*` but addition)
    /// and then keeps compact, N / s words a prime (s is at most N / 16). A slot vector repeating with period P along each row
    /// (as [`BatchEncoder`](crate::BatchEncoder) lays slots out) is such a
    /// polynomial with s = N / (2P): most diagonals of an FFT's levels are,
    /// and their encodings are s times smaller and cheaper to make.
    ///
    /// ```
    /// use ark_bn254::Fr;
    /// use helib_rs::{BatchEncoder, Context, Parameters};
    ///
    /// let context = Context::new(&Parameters::for_tests())?;
    /// let encoder = BatchEncoder::<Fr>::new(&context)?;
    /// let n = encoder.slot_count();
    /// // Period 8 along each row: a polynomial in X^(N / 16).
    /// let periodic: Vec<Fr> = (0..n as u64).map(|i| Fr::from(i % 8)).collect();
    /// let encoded = encoder.encode_for_multiplication(&periodic, 0)?;
    /// assert_eq!(encoded.stride()?, n / 16);
    /// assert_eq!(encoded.residue_words()?, 16);
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    ///
    /// # Errors
    /// Only if the engine fails internally.
    pub fn stride(&self) -> Result<usize> {
        let mut stride = 0usize;
        // SAFETY: the handle is live and `stride` is a valid place.
        check(unsafe { sys::helib_encoded_plaintext_stride(self.as_ptr(), &mut stride) })?;
        Ok(stride)
    }

    /// The words a prime (N / [`stride`](Self::stride)) of the encoding of a
    /// slot vector in a ring of degree `ring_degree` whose rows repeat with
    /// period `period` (a power of two; N/2 or more for rows that do not
    /// repeat): 2·`period` words, at least the engine's smallest compact
    /// length (16), when the rows repeat; N otherwise. An encoding is never
    /// larger, and smaller only when its slots have a shorter period than
    /// the one given. Memory estimates size encodings with it.
    ///
    /// ```
    /// use helib_rs::EncodedPlaintext;
    ///
    /// assert_eq!(EncodedPlaintext::words_per_prime(1 << 16, 1024), 2048);
    /// assert_eq!(EncodedPlaintext::words_per_prime(1 << 16, 2), 16);
    /// assert_eq!(EncodedPlaintext::words_per_prime(1 << 16, 1 << 15), 1 << 16);
    /// ```
    pub fn words_per_prime(ring_degree: usize, period: usize) -> usize {
        if period.saturating_mul(2) >= ring_degree {
            ring_degree
        } else {
            (2 * period).max(sys::HELIB_MIN_COMPACT_LENGTH as usize)
        }
    }

    /// Words [`export_residues`](Self::export_residues) writes: N /
    /// [`stride`](Self::stride) per prime the plaintext is encoded for.
    ///
    /// # Errors
    /// Only if the engine fails internally.
    pub fn residue_words(&self) -> Result<usize> {
        let mut words = 0usize;
        // SAFETY: the handle is live and `words` is a valid place.
        check(unsafe { sys::helib_encoded_plaintext_word_count(self.as_ptr(), &mut words) })?;
        Ok(words)
    }

    /// Copies the residues into `out` exactly as the engine holds them (NTT
    /// and Montgomery form; the chain primes 0..=level, then the special
    /// primes when [extended](Self::is_extended); N / [`stride`](Self::stride)
    /// words each) and returns
    /// the log2 sup and l1 norms of the plaintext, which its noise estimates
    /// use. With [`from_residues`](Self::from_residues), a cache of
    /// encodings: the layout is the engine's internal one, so a cache must
    /// record its format version.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] unless `out` holds exactly
    /// [`residue_words`](Self::residue_words) words.
    pub fn export_residues(&self, out: &mut [u64]) -> Result<(f64, f64)> {
        let (mut linf, mut l1) = (0f64, 0f64);
        // SAFETY: the handle is live, `out` is a live slice of the length
        // passed, and the norms are valid places.
        check(unsafe {
            sys::helib_encoded_plaintext_export_residues(
                self.as_ptr(),
                out.as_mut_ptr(),
                out.len(),
                &mut linf,
                &mut l1,
            )
        })?;
        Ok((linf, l1))
    }

    /// An encoding of `context` from what [`export_residues`](Self::export_residues)
    /// gave (and the [`stride`](Self::stride) the encoding had), checked
    /// before it is kept: the level at most the top, the extended form only
    /// with special primes, the stride a power of two from 1 to N / 16, the
    /// word count the level, form and stride imply, every residue below its
    /// prime, the norms in range and the
    /// factor invertible mod t. The checks cannot tell a valid encoding of
    /// one plaintext from that of another: integrity against corruption
    /// belongs to the cache that stores it.
    ///
    /// # Errors
    /// [`Error::Malformed`] for residues, norms or a factor that fail the
    /// checks; [`Error::InvalidLevel`] for a level above the top.
    pub fn from_residues(
        context: &Context,
        level: usize,
        extended: bool,
        stride: usize,
        factor: &BigUint,
        residues: &[u64],
        norms: (f64, f64),
    ) -> Result<Self> {
        if level > context.max_level() {
            return Err(Error::InvalidLevel {
                level,
                max: context.max_level(),
            });
        }
        if factor.is_zero() || factor >= context.plaintext_modulus() {
            return Err(Error::Malformed(
                "the correction factor of an encoding is not in [1, t)".into(),
            ));
        }
        let factor_limbs = context.reduced_limbs(factor);
        let raw = Owned::create(|out| {
            // SAFETY: the context handle is live; the factor and the residues
            // are live slices of the lengths passed; `out` is a valid out-pointer.
            unsafe {
                sys::helib_encoded_plaintext_import_residues(
                    context.as_ptr(),
                    level,
                    i32::from(extended),
                    stride,
                    factor_limbs.as_ptr(),
                    factor_limbs.len(),
                    residues.as_ptr(),
                    residues.len(),
                    norms.0,
                    norms.1,
                    out,
                )
            }
        })?;
        Ok(Self {
            raw,
            context: context.clone(),
            level,
            correction_factor: factor.clone(),
            extended,
        })
    }

    /// The residues in place, laid out as
    /// [`export_residues`](Self::export_residues) copies them (no copy is
    /// made), and the log2 sup and l1 norms it returns.
    ///
    /// # Errors
    /// Only if the engine fails internally.
    pub fn residues(&self) -> Result<(&[u64], (f64, f64))> {
        let mut ptr: *const u64 = std::ptr::null();
        let (mut len, mut linf, mut l1) = (0usize, 0f64, 0f64);
        // SAFETY: the handle is live and every out-pointer is a valid place.
        check(unsafe {
            sys::helib_encoded_plaintext_residues(
                self.as_ptr(),
                &mut ptr,
                &mut len,
                &mut linf,
                &mut l1,
            )
        })?;
        if len == 0 || ptr.is_null() {
            return Ok((&[], (linf, l1)));
        }
        // SAFETY: the engine's buffer holds `len` words, stays alive and
        // unchanged while the handle does (the handle is never written to
        // after it is made), and the slice borrows `self`.
        Ok((unsafe { std::slice::from_raw_parts(ptr, len) }, (linf, l1)))
    }

    /// The engine handle.
    pub(crate) fn as_ptr(&self) -> *const sys::helib_encoded_plaintext {
        self.raw.as_ptr()
    }
}

impl fmt::Debug for EncodedPlaintext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EncodedPlaintext")
            .field("level", &self.level)
            .field("correction_factor", &self.correction_factor)
            .field("extended", &self.extended)
            .finish_non_exhaustive()
    }
}

/// An encoding being filled from raw residues straight into the engine's
/// buffer ([`EncodedPlaintext::from_residues`] without its copy): the words
/// are written through [`buffer`](Self::buffer), checked range by range with
/// [`check`](Self::check) while they are in cache, and
/// [`finish`](Self::finish) checks the rest and the metadata. No residue
/// reaches an [`EncodedPlaintext`] unchecked.
pub struct ResidueImport {
    raw: Owned<sys::helib_residue_import>,
    words: *mut u64,
    len: usize,
    context: Context,
    level: usize,
    extended: bool,
}

// SAFETY: the import and its buffer are owned solely by this value (no other
// handle refers to them), and the engine keeps no thread-local state for
// them, so they may move to another thread.
unsafe impl Send for ResidueImport {}

impl ResidueImport {
    /// A fresh import for an encoding at `level` (extended with the special
    /// primes when `extended`) of stride `stride`
    /// ([`EncodedPlaintext::stride`]); its words hold unspecified values
    /// until written.
    ///
    /// # Errors
    /// [`Error::InvalidLevel`] for a level above the top;
    /// [`Error::Malformed`] for the extended form without special primes or
    /// a stride that is not a power of two from 1 to N / 16.
    pub(crate) fn begin(
        context: &Context,
        level: usize,
        extended: bool,
        stride: usize,
    ) -> Result<Self> {
        let mut words: *mut u64 = std::ptr::null_mut();
        let mut len = 0usize;
        let raw = Owned::create(|out| {
            // SAFETY: the context handle is live and every out-pointer is a
            // valid place.
            unsafe {
                sys::helib_residue_import_begin(
                    context.as_ptr(),
                    level,
                    i32::from(extended),
                    stride,
                    out,
                    &mut words,
                    &mut len,
                )
            }
        })?;
        if len == 0 || words.is_null() {
            // A zero-sized buffer: nothing will be written.
            words = std::ptr::NonNull::dangling().as_ptr();
        }
        Ok(Self {
            raw,
            words,
            len,
            context: context.clone(),
            level,
            extended,
        })
    }

    /// The buffer to fill.
    pub(crate) fn buffer(&mut self) -> &mut [u64] {
        // SAFETY: the engine's buffer holds `len` words (or `words` is
        // dangling and `len` 0), is owned by the import, which outlives the
        // borrow, and nothing else reads or writes it meanwhile. The engine
        // hands out initialized words (of unspecified values), and every bit
        // pattern is a valid u64.
        unsafe { std::slice::from_raw_parts_mut(self.words, self.len) }
    }

    /// Checks words `[0, upto)` not checked yet against their primes.
    ///
    /// # Errors
    /// [`Error::Malformed`] for a residue at or above its prime.
    pub(crate) fn check(&mut self, upto: usize) -> Result<()> {
        // SAFETY: the import handle is live.
        check(unsafe { sys::helib_residue_import_check(self.raw.as_mut_ptr(), upto) })
    }

    /// The encoding, once the remaining residues, the factor and the norms
    /// pass the checks of [`EncodedPlaintext::from_residues`].
    ///
    /// # Errors
    /// [`Error::Malformed`] for residues, norms or a factor that fail them.
    pub(crate) fn finish(
        mut self,
        factor: &BigUint,
        norms: (f64, f64),
    ) -> Result<EncodedPlaintext> {
        if factor.is_zero() || factor >= self.context.plaintext_modulus() {
            return Err(Error::Malformed(
                "the correction factor of an encoding is not in [1, t)".into(),
            ));
        }
        let factor_limbs = self.context.reduced_limbs(factor);
        let import = self.raw.as_mut_ptr();
        let raw = Owned::create(|out| {
            // SAFETY: the import handle is live; the factor is a live slice of
            // the length passed; `out` is a valid out-pointer.
            unsafe {
                sys::helib_residue_import_finish(
                    import,
                    factor_limbs.as_ptr(),
                    factor_limbs.len(),
                    norms.0,
                    norms.1,
                    out,
                )
            }
        })?;
        Ok(EncodedPlaintext {
            raw,
            context: self.context.clone(),
            level: self.level,
            correction_factor: factor.clone(),
            extended: self.extended,
        })
    }
}
