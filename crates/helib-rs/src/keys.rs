//! Secret and public keys, and encryption and decryption with them.

use std::fmt;

use helib_sys as sys;

use crate::ciphertext::Ciphertext;
use crate::context::Context;
use crate::error::Result;
use crate::ffi::{check, Owned};
use crate::plaintext::Plaintext;

/// An engine encryption function (public or secret key).
type EncryptFn<K> = unsafe extern "C" fn(
    *const K,
    *const u64,
    usize,
    usize,
    usize,
    *mut sys::helib_ciphertext,
) -> sys::helib_status;

/// A BGV secret key: a ternary polynomial s, sampled from the OS CSPRNG.
///
/// The key lives only in the engine's memory; no byte of it is copied into
/// Rust memory unless its owner exports it on purpose
/// ([`export_secret`](SecretKey::export_secret), which takes a consent token;
/// the key has no `to_bytes`, `CanonicalSerialize` or serde implementation),
/// and the engine wipes it when the key is dropped. For the same reason it is
/// neither `Clone` nor printable (its `Debug` is redacted).
///
/// ```
/// use helib_rs::{Context, Parameters, Plaintext, SecretKey};
///
/// let context = Context::new(&Parameters::for_tests())?;
/// let sk = SecretKey::generate(&context)?;
/// let pk = sk.public_key()?;
/// let message = Plaintext::from_i64s(&context, &[1, -2, 3])?;
/// let ct = pk.encrypt(&message)?;
/// assert_eq!(sk.decrypt(&ct)?, message);
/// assert!(sk.noise_budget(&ct)? > 0.0);
/// # Ok::<(), helib_rs::Error>(())
/// ```
pub struct SecretKey {
    raw: Owned<sys::helib_secret_key>,
    context: Context,
}

/// A BGV public key (b = −a·s + t·e, a) at the top level, derived from a [`SecretKey`].
pub struct PublicKey {
    raw: Owned<sys::helib_public_key>,
    context: Context,
}

// SAFETY: key handles are immutable after generation and owned by their Rust
// value alone; every engine function using them takes them as `const`, which
// the header declares safe to call concurrently, and they have no thread
// affinity. They are released only in `Drop`, which has exclusive access.
unsafe impl Send for SecretKey {}
// SAFETY: see the `Send` impl above.
unsafe impl Sync for SecretKey {}
// SAFETY: as for `SecretKey` above.
unsafe impl Send for PublicKey {}
// SAFETY: as for `SecretKey` above.
unsafe impl Sync for PublicKey {}

impl SecretKey {
    /// Samples a new secret key for `context`.
    ///
    /// # Errors
    /// [`Error::Randomness`](crate::Error::Randomness) when the OS random source fails.
    pub fn generate(context: &Context) -> Result<Self> {
        let _span = tracing::debug_span!("helib.secret_key_generate").entered();
        // SAFETY: the context handle is live and `out` is a valid out-pointer.
        let raw =
            Owned::create(|out| unsafe { sys::helib_secret_key_generate(context.as_ptr(), out) })?;
        Ok(Self {
            raw,
            context: context.clone(),
        })
    }

    /// Derives a public key.
    ///
    /// # Errors
    /// [`Error::Randomness`](crate::Error::Randomness) when the OS random source fails.
    pub fn public_key(&self) -> Result<PublicKey> {
        let _span = tracing::debug_span!("helib.public_key_generate").entered();
        // SAFETY: the key handle is live and `out` is a valid out-pointer.
        let raw =
            Owned::create(|out| unsafe { sys::helib_public_key_generate(self.raw.as_ptr(), out) })?;
        Ok(PublicKey {
            raw,
            context: self.context.clone(),
        })
    }

    /// The context this key belongs to.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// Wraps a key handle of `context` the engine just made (a loaded export,
    /// a sum of threshold shares).
    pub(crate) fn from_raw(raw: Owned<sys::helib_secret_key>, context: &Context) -> Self {
        Self {
            raw,
            context: context.clone(),
        }
    }

    /// The engine handle, for key generation in other modules.
    pub(crate) fn as_ptr(&self) -> *const sys::helib_secret_key {
        self.raw.as_ptr()
    }

    /// Encrypts `plaintext` at the top level with the secret key (symmetric
    /// encryption: smaller noise than public-key encryption).
    ///
    /// # Errors
    /// [`Error::ContextMismatch`](crate::Error::ContextMismatch) when the
    /// plaintext belongs to another context;
    /// [`Error::Randomness`](crate::Error::Randomness) when the OS random source fails.
    pub fn encrypt(&self, plaintext: &Plaintext) -> Result<Ciphertext> {
        self.encrypt_at_level(plaintext, self.context.max_level())
    }

    /// Encrypts `plaintext` at `level` with the secret key. The ciphertext
    /// carries the level's canonical correction factor
    /// ([`Context::correction_factor`]), like one switched down from the top.
    ///
    /// # Errors
    /// As for [`encrypt`](Self::encrypt), plus
    /// [`Error::InvalidLevel`](crate::Error::InvalidLevel) above the top level.
    pub fn encrypt_at_level(&self, plaintext: &Plaintext, level: usize) -> Result<Ciphertext> {
        encrypt(
            self.raw.as_ptr(),
            &self.context,
            sys::helib_encrypt_secret,
            plaintext,
            level,
        )
    }

    /// Decrypts `ciphertext` (removing its correction factor).
    ///
    /// A decryption that returns `Ok` is right: the engine refuses unless the
    /// level's modulus Q_l is above the noise every ciphertext carries there,
    /// the key-free estimate ([`Ciphertext::estimated_budget_bits`]) leaves at
    /// least one bit, and the budget measured with the key does too. (The
    /// measurement alone is not enough: it sees the noise only modulo Q_l,
    /// where a structured wrap-around can look small.)
    ///
    /// # Errors
    /// [`Error::NoiseBudgetExhausted`](crate::Error::NoiseBudgetExhausted)
    /// when correctness is not guaranteed by those checks (instead of
    /// returning garbage);
    /// [`Error::ContextMismatch`](crate::Error::ContextMismatch) for a
    /// ciphertext of another context.
    pub fn decrypt(&self, ciphertext: &Ciphertext) -> Result<Plaintext> {
        self.context.ensure_same(ciphertext.context())?;
        let width = self.context.plain_limbs();
        let mut out = vec![0u64; self.context.ring_degree() * width];
        // SAFETY: both handles are live and `out` holds N · width limbs, as
        // `out_len` says.
        check(unsafe {
            sys::helib_decrypt(
                self.raw.as_ptr(),
                ciphertext.as_ptr(),
                out.as_mut_ptr(),
                out.len(),
                width,
            )
        })?;
        Ok(Plaintext::from_engine_limbs(&self.context, out))
    }

    /// The exact remaining noise budget of `ciphertext`, in bits (≥ 0),
    /// measured with the secret key; 0 whenever [`decrypt`](Self::decrypt)
    /// refuses without the key (the level cannot hold any ciphertext, or the
    /// estimate is exhausted), since the measurement cannot be trusted there.
    ///
    /// # Errors
    /// [`Error::ContextMismatch`](crate::Error::ContextMismatch) for a
    /// ciphertext of another context.
    pub fn noise_budget(&self, ciphertext: &Ciphertext) -> Result<f64> {
        self.context.ensure_same(ciphertext.context())?;
        let mut budget = 0f64;
        // SAFETY: both handles are live and `budget` is a valid out-pointer.
        check(unsafe {
            sys::helib_noise_budget(self.raw.as_ptr(), ciphertext.as_ptr(), &mut budget)
        })?;
        Ok(budget)
    }
}

impl PublicKey {
    /// Wraps a key handle of `context` made by the engine (e.g. by a decoder).
    pub(crate) fn from_raw(raw: Owned<sys::helib_public_key>, context: &Context) -> Self {
        Self {
            raw,
            context: context.clone(),
        }
    }

    /// The engine handle.
    pub(crate) fn as_ptr(&self) -> *const sys::helib_public_key {
        self.raw.as_ptr()
    }

    /// The context this key belongs to.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// Encrypts `plaintext` at the top level.
    ///
    /// # Errors
    /// [`Error::ContextMismatch`](crate::Error::ContextMismatch) when the
    /// plaintext belongs to another context;
    /// [`Error::Randomness`](crate::Error::Randomness) when the OS random source fails.
    pub fn encrypt(&self, plaintext: &Plaintext) -> Result<Ciphertext> {
        self.encrypt_at_level(plaintext, self.context.max_level())
    }

    /// Encrypts `plaintext` at `level`. The ciphertext carries the level's
    /// canonical correction factor ([`Context::correction_factor`]), like one
    /// switched down from the top.
    ///
    /// # Errors
    /// As for [`encrypt`](Self::encrypt), plus
    /// [`Error::InvalidLevel`](crate::Error::InvalidLevel) above the top level.
    pub fn encrypt_at_level(&self, plaintext: &Plaintext, level: usize) -> Result<Ciphertext> {
        encrypt(
            self.raw.as_ptr(),
            &self.context,
            sys::helib_encrypt_public,
            plaintext,
            level,
        )
    }
}

impl PublicKey {
    /// Adds Smuche's public-key mask to `ciphertext`, in place:
    /// `ct += (b·ξ, a·ξ)` for this key (b, a) and a fresh ternary ξ drawn from
    /// the OS CSPRNG. The plaintext, level and correction factor are unchanged;
    /// the noise grows by t·e·ξ (e is the key's own error), which the noise
    /// estimate accounts for.
    ///
    /// This is the "constant-time randomization" of the Smuche caching scheme
    /// (Zhao, arXiv:2312.16352, eq. 7), exposed so that scheme can be
    /// implemented faithfully and compared (see the `he-cache` crate).
    ///
    /// # Security
    /// **This is not a re-randomization and must not be used as one.** The
    /// mask adds no fresh error terms, so it lies exactly in the R_q-span of
    /// the public key: for every masked ciphertext (c0, c1) the polynomial
    /// `c0·a − c1·b` is the same as before masking. Anyone holding the public
    /// key can therefore strip the "randomness" from the relation, and Smuche
    /// ciphertexts built from one cached ciphertext reveal the ratios of their
    /// plaintexts (the `he-cache` crate's security analysis demonstrates it).
    /// To re-randomize securely, add a fresh encryption of zero
    /// ([`encrypt`](Self::encrypt) of the zero plaintext) instead.
    ///
    /// # Errors
    /// [`Error::ContextMismatch`](crate::Error::ContextMismatch) when the
    /// ciphertext belongs to another context;
    /// [`Error::NoiseBudgetExhausted`](crate::Error::NoiseBudgetExhausted)
    /// when the estimate says the masked ciphertext would not decrypt;
    /// [`Error::Randomness`](crate::Error::Randomness) when the OS random
    /// source fails. On error the ciphertext is left as it was.
    pub fn add_mask_insecure(&self, ciphertext: &mut Ciphertext) -> Result<()> {
        self.context.ensure_same(ciphertext.context())?;
        let key = self.raw.as_ptr();
        // SAFETY: the key handle is live for this call; `dst` is the live
        // ciphertext handle, which the header allows to alias the input `a`.
        ciphertext.compute_assign(|a, dst| unsafe {
            sys::helib_ciphertext_add_public_key_mask(key, a, dst)
        })
    }
}

/// Encryption shared by both key kinds: the checks, then the engine call.
fn encrypt<K>(
    key: *const K,
    context: &Context,
    f: EncryptFn<K>,
    plaintext: &Plaintext,
    level: usize,
) -> Result<Ciphertext> {
    context.ensure_same(plaintext.context())?;
    // The engine checks the level.
    let coeffs = plaintext.limbs();
    let (n, width) = (context.ring_degree(), context.plain_limbs());
    // SAFETY: `key` is a live key handle of `context` (its owner borrows it
    // for this call), `coeffs` holds n · width limbs, and `dst` is a new
    // ciphertext handle.
    Ciphertext::produce(context, |dst| unsafe {
        f(key, coeffs.as_ptr(), n, width, level, dst)
    })
}

impl fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SecretKey(<redacted>)")
    }
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PublicKey")
            .field("context", &self.context)
            .finish()
    }
}
