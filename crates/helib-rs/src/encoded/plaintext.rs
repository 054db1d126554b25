//! The encoded plaintext: its handle, level, form and correction factor,
//! and its compact form (stride).

use std::fmt;

use helib_sys as sys;
use num_bigint::BigUint;

use crate::context::Context;
use crate::error::Result;
use crate::ffi::{check, Owned};

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
    pub(super) raw: Owned<sys::helib_encoded_plaintext>,
    pub(super) context: Context,
    pub(super) level: usize,
    pub(super) correction_factor: BigUint,
    pub(super) extended: bool,
}

// SAFETY: an encoded plaintext is immutable after construction and owned by
// this value alone; the engine only reads it (through `const` pointers, safe
// concurrently per the header) and it has no thread affinity.
unsafe impl Send for EncodedPlaintext {}
// SAFETY: see the `Send` impl above.
unsafe impl Sync for EncodedPlaintext {}

impl EncodedPlaintext {
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
