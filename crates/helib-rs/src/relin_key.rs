//! The relinearization key: key switching from s² back to s after a ct × ct product.

use std::fmt;

use helib_sys as sys;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::ffi::{query, Owned};
use crate::keys::SecretKey;

/// A relinearization key: encryptions of P·s² under s, one per key-switching
/// digit, modulo Q·P (P is the product of the special primes).
///
/// [`Ciphertext::multiply`](crate::Ciphertext::multiply) gives a size-3
/// ciphertext decrypting with (1, s, s²); [`Ciphertext::relinearize`](crate::Ciphertext::relinearize)
/// uses this key to bring it back to size 2. The key is public material (it
/// reveals nothing about s under the RLWE assumption) and is immutable.
///
/// ```
/// use helib_rs::{Context, ModSwitchPolicy, Parameters, Plaintext, RelinKey, SecretKey};
///
/// let context = Context::new(&Parameters::for_tests())?;
/// let sk = SecretKey::generate(&context)?;
/// let rk = RelinKey::generate(&sk)?;
/// assert!(rk.size_bytes() > 0);
///
/// let a = sk.encrypt(&Plaintext::from_i64s(&context, &[1, 2])?)?; // 1 + 2X
/// let b = sk.encrypt(&Plaintext::from_i64s(&context, &[3, -1])?)?; // 3 - X
/// let product = a.multiply_relin(&b, &rk, ModSwitchPolicy::Manual)?;
/// assert_eq!(product.size(), 2);
/// assert_eq!(sk.decrypt(&product)?, Plaintext::from_i64s(&context, &[3, 5, -2])?);
/// # Ok::<(), helib_rs::Error>(())
/// ```
pub struct RelinKey {
    raw: Owned<sys::helib_relin_key>,
    context: Context,
    size_bytes: usize,
}

// SAFETY: a relinearization key is immutable after generation and owned by
// this value alone; every engine function using it takes it as `const`,
// which the header declares safe to call concurrently, and it has no thread
// affinity. It is released only in `Drop`, which has exclusive access.
unsafe impl Send for RelinKey {}
// SAFETY: see the `Send` impl above.
unsafe impl Sync for RelinKey {}

impl RelinKey {
    /// Generates the relinearization key of `sk`.
    ///
    /// Its size is (digits) × 2 polynomials modulo Q·P; see
    /// [`size_bytes`](Self::size_bytes).
    ///
    /// # Errors
    /// [`Error::NoSpecialPrimes`] when the context has no special primes;
    /// [`Error::Randomness`] when the OS random source fails.
    pub fn generate(sk: &SecretKey) -> Result<Self> {
        let _span = tracing::info_span!("helib.relin_key_generate").entered();
        let context = sk.context();
        ensure_key_switching(context)?;
        let key = sk.as_ptr();
        // SAFETY: the secret key handle is live and `out` is a valid out-pointer.
        let raw = Owned::create(|out| unsafe { sys::helib_relin_key_generate(key, out) })?;
        let handle = raw.as_ptr();
        // SAFETY: the key handle is live and `out` is a valid out-pointer.
        let size_bytes = query(|out| unsafe { sys::helib_relin_key_size_bytes(handle, out) })?;
        Ok(Self {
            raw,
            context: context.clone(),
            size_bytes,
        })
    }

    /// Wraps a key handle of `context` made by the engine (e.g. by a decoder).
    pub(crate) fn from_raw(raw: Owned<sys::helib_relin_key>, context: &Context) -> Result<Self> {
        let handle = raw.as_ptr();
        // SAFETY: the key handle is live and `out` is a valid out-pointer.
        let size_bytes = query(|out| unsafe { sys::helib_relin_key_size_bytes(handle, out) })?;
        Ok(Self {
            raw,
            context: context.clone(),
            size_bytes,
        })
    }

    /// The context this key belongs to.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// The bytes the key occupies in the engine's memory.
    pub fn size_bytes(&self) -> usize {
        self.size_bytes
    }

    /// The engine handle.
    pub(crate) fn as_ptr(&self) -> *const sys::helib_relin_key {
        self.raw.as_ptr()
    }
}

/// `Ok` if `context` can switch keys (it has special primes), else
/// [`Error::NoSpecialPrimes`].
pub(crate) fn ensure_key_switching(context: &Context) -> Result<()> {
    if context.special_primes().is_empty() {
        Err(Error::NoSpecialPrimes)
    } else {
        Ok(())
    }
}

impl fmt::Debug for RelinKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RelinKey")
            .field("size_bytes", &self.size_bytes)
            .finish_non_exhaustive()
    }
}
