//! The immutable, shared engine context: ring, primes and precomputations.

use std::fmt;
use std::sync::Arc;

use helib_sys as sys;
use num_bigint::BigUint;

use crate::error::{Error, Result};
use crate::ffi::{check, query, read_list, Owned};
use crate::limbs;
use crate::params::Parameters;

/// The engine's precomputations for one parameter set: the ring
/// Z\[X\]/(X^N + 1), the chain primes q_0..q_L, the special primes and the
/// plaintext modulus t.
///
/// A context is immutable and cheap to clone (clones share one engine object).
/// Every key, plaintext and ciphertext remembers its context, and combining
/// objects of different contexts fails with [`Error::ContextMismatch`] — two
/// contexts are the same only if one is a clone of the other.
///
/// ```
/// use helib_rs::{Context, Parameters};
///
/// let context = Context::new(&Parameters::for_tests())?;
/// assert_eq!(context.ring_degree(), 4096);
/// assert_eq!(context.chain_primes().len(), context.max_level() + 1);
/// assert!(context.chain_primes().iter().all(|q| q % 8192 == 1));
/// # Ok::<(), helib_rs::Error>(())
/// ```
#[derive(Clone)]
pub struct Context {
    inner: Arc<ContextInner>,
}

/// What a context shares among its clones: the engine handle and facts read once.
struct ContextInner {
    raw: Owned<sys::helib_context>,
    params: Parameters,
    plain_limbs: usize,
    max_level: usize,
    chain_primes: Vec<u64>,
    special_primes: Vec<u64>,
    log2_moduli: Vec<f64>,
    log2_special_modulus: f64,
    correction_factors: Vec<BigUint>,
}

// SAFETY: the engine's context is immutable after construction; the only
// function changing it (`helib_context_set_threads`) is documented as
// thread-safe, and its worker pool synchronizes internally. The header states
// that a context may be shared freely, so the handle may move between threads
// and be used from several at once; everything else here is plain Rust data.
unsafe impl Send for ContextInner {}
// SAFETY: see the `Send` impl above.
unsafe impl Sync for ContextInner {}

impl Context {
    /// The most worker threads a context may have (the calling thread
    /// included); [`threads(0)`](crate::ParametersBuilder::threads), one per
    /// hardware thread, is capped at this too.
    pub const MAX_THREADS: u32 = sys::HELIB_MAX_THREADS;

    /// Builds the engine context for `params`, generating the primes
    /// (deterministically from their bit sizes).
    ///
    /// The engine enforces the 128-bit floor itself: it is told to accept
    /// parameters below it only when they were built with
    /// [`allow_insecure`](crate::ParametersBuilder::allow_insecure) (or loaded
    /// with [`Parameters::from_bytes_allow_insecure`]).
    ///
    /// # Errors
    /// [`Error::TooManyThreads`] when `params` asks for more than
    /// [`MAX_THREADS`](Self::MAX_THREADS) threads;
    /// [`Error::InvalidArgument`] when the engine refuses the parameters, e.g.
    /// when t is not coprime to a generated prime or not enough primes of a
    /// requested size exist; [`Error::OutOfMemory`] when the tables do not fit
    /// or the system cannot start the worker threads.
    pub fn new(params: &Parameters) -> Result<Self> {
        let _span =
            tracing::info_span!("helib.context_new", ring_degree = params.ring_degree()).entered();
        check_thread_count(params.threads())?;
        let t = limbs::from_biguint(params.plaintext_modulus());
        let ring_degree = params.ring_degree() as u64;
        let flags = if params.insecure_allowed() {
            sys::HELIB_CONTEXT_ALLOW_INSECURE
        } else {
            0
        };
        let raw = Owned::create(|out| {
            // SAFETY: every pointer/length pair describes a live slice, and
            // `out` is a valid place for the result.
            unsafe {
                sys::helib_context_new(
                    ring_degree,
                    t.as_ptr(),
                    t.len(),
                    params.chain_bits().as_ptr(),
                    params.chain_bits().len(),
                    params.special_bits().as_ptr(),
                    params.special_bits().len(),
                    params.threads(),
                    flags,
                    out,
                )
            }
        })?;
        let inner = ContextInner::read(raw, params.clone())?;
        Ok(Self {
            inner: Arc::new(inner),
        })
    }

    /// The parameters this context was built from.
    pub fn parameters(&self) -> &Parameters {
        &self.inner.params
    }

    /// The ring degree N.
    pub fn ring_degree(&self) -> usize {
        self.inner.params.ring_degree()
    }

    /// The plaintext modulus t.
    pub fn plaintext_modulus(&self) -> &BigUint {
        self.inner.params.plaintext_modulus()
    }

    /// The top level L: fresh ciphertexts live modulo q_0 ⋯ q_L.
    pub fn max_level(&self) -> usize {
        self.inner.max_level
    }

    /// The chain primes q_0, …, q_L.
    pub fn chain_primes(&self) -> &[u64] {
        &self.inner.chain_primes
    }

    /// The special primes used for key switching.
    pub fn special_primes(&self) -> &[u64] {
        &self.inner.special_primes
    }

    /// log2 of Q_level = q_0 ⋯ q_level, or `None` above the top level.
    pub fn log2_modulus(&self, level: usize) -> Option<f64> {
        self.inner.log2_moduli.get(level).copied()
    }

    /// log2 of the product of the special primes (0 if there are none).
    pub fn log2_special_modulus(&self) -> f64 {
        self.inner.log2_special_modulus
    }

    /// The canonical correction factor at `level` — the product of q_j^-1 mod t
    /// over the dropped primes j > level — or `None` above the top level.
    ///
    /// See [`EncodedPlaintext`](crate::EncodedPlaintext) for what it means.
    pub fn correction_factor(&self, level: usize) -> Option<&BigUint> {
        self.inner.correction_factors.get(level)
    }

    /// The number of worker threads the engine uses.
    ///
    /// # Errors
    /// Only if the engine fails internally ([`Error::Engine`]).
    pub fn threads(&self) -> Result<u32> {
        let mut threads = 0u32;
        // SAFETY: the context handle is live and `threads` is a valid out-pointer.
        check(unsafe { sys::helib_context_threads(self.as_ptr(), &mut threads) })?;
        Ok(threads)
    }

    /// The number of key-switching digits: a Galois or relinearization key
    /// holds two polynomials modulo Q·P per digit (0 without special primes).
    ///
    /// ```
    /// use helib_rs::{Context, Parameters, RelinKey, SecretKey};
    ///
    /// let context = Context::new(&Parameters::for_tests())?;
    /// let digits = context.key_switching_digits()?;
    /// let primes = context.chain_primes().len() + context.special_primes().len();
    /// let rk = RelinKey::generate(&SecretKey::generate(&context)?)?;
    /// assert_eq!(rk.size_bytes(), digits * 2 * context.ring_degree() * primes * 8);
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    ///
    /// # Errors
    /// Only if the engine fails internally ([`Error::Engine`]).
    pub fn key_switching_digits(&self) -> Result<usize> {
        // SAFETY: the context handle is live and `out` is a valid out-pointer.
        query(|out| unsafe { sys::helib_context_key_switching_digits(self.as_ptr(), out) })
    }

    /// Resizes the engine's worker pool (0 = one per hardware thread). Safe to
    /// call while other threads use the context; it waits for a running
    /// operation to finish.
    ///
    /// # Errors
    /// [`Error::TooManyThreads`] above [`MAX_THREADS`](Self::MAX_THREADS);
    /// [`Error::OutOfMemory`] when the system cannot start the threads, in
    /// which case the context keeps the threads it had.
    pub fn set_threads(&self, threads: u32) -> Result<()> {
        check_thread_count(threads)?;
        // SAFETY: the context handle is live; the function is thread-safe.
        check(unsafe { sys::helib_context_set_threads(self.as_ptr(), threads) })
    }

    /// Limbs of one coefficient mod t in the engine's representation.
    pub(crate) fn plain_limbs(&self) -> usize {
        self.inner.plain_limbs
    }

    /// The engine handle.
    pub(crate) fn as_ptr(&self) -> *const sys::helib_context {
        self.inner.raw.as_ptr()
    }

    /// Whether `self` and `other` are the same context (one cloned from the other).
    pub fn same_as(&self, other: &Context) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// `Ok` if `other` is the same context, else [`Error::ContextMismatch`].
    pub(crate) fn ensure_same(&self, other: &Context) -> Result<()> {
        if self.same_as(other) {
            Ok(())
        } else {
            Err(Error::ContextMismatch)
        }
    }

    /// Reduces `value` mod t and writes it as the engine's plain limbs.
    pub(crate) fn reduced_limbs(&self, value: &BigUint) -> Vec<u64> {
        let mut out = vec![0u64; self.plain_limbs()];
        // A value reduced mod t always fits in the plain limbs.
        let _fits = limbs::write_biguint(&(value % self.plaintext_modulus()), &mut out);
        out
    }
}

/// The most bytes of freed polynomial buffers the engine keeps for reuse
/// (one pool for the whole process): memory a computation may hold beyond
/// its live ciphertexts, keys and plaintexts, which estimates of a peak
/// should count.
///
/// ```
/// assert!(helib_rs::buffer_pool_limit_bytes()? >= 1 << 20);
/// # Ok::<(), helib_rs::Error>(())
/// ```
///
/// # Errors
/// Only the engine's own error for an internal failure (it has none to
/// report for this query).
pub fn buffer_pool_limit_bytes() -> Result<usize> {
    // SAFETY: the function takes no input and writes the limit through
    // `out`, a valid place.
    let limit = query(|out| unsafe { sys::helib_buffer_pool_limit(out) })?;
    Ok(usize::try_from(limit).unwrap_or(usize::MAX))
}

/// `Ok` unless `threads` exceeds [`Context::MAX_THREADS`].
fn check_thread_count(threads: u32) -> Result<()> {
    if threads > Context::MAX_THREADS {
        return Err(Error::TooManyThreads {
            requested: threads,
            max: Context::MAX_THREADS,
        });
    }
    Ok(())
}

impl ContextInner {
    /// Reads everything immutable about a freshly built context once.
    fn read(raw: Owned<sys::helib_context>, params: Parameters) -> Result<Self> {
        let ctx = raw.as_ptr();
        // SAFETY: `ctx` is a live context handle and every out-pointer or buffer
        // is valid for the length passed with it; the same holds below.
        let plain_limbs = query(|out| unsafe { sys::helib_context_plain_limbs(ctx, out) })?;
        // SAFETY: as above.
        let max_level = query(|out| unsafe { sys::helib_context_max_level(ctx, out) })?;
        // SAFETY: as above.
        let log2_p = |out| unsafe { sys::helib_context_log2_special_modulus(ctx, out) };
        let log2_special_modulus = query(log2_p)?;
        // SAFETY: as above.
        let chain = |buf, len| unsafe { sys::helib_context_chain_primes(ctx, buf, len) };
        let chain_primes = read_list(chain)?;
        // SAFETY: as above.
        let special = |buf, len| unsafe { sys::helib_context_special_primes(ctx, buf, len) };
        let special_primes = read_list(special)?;
        let mut log2_moduli = Vec::with_capacity(max_level + 1);
        let mut correction_factors = Vec::with_capacity(max_level + 1);
        let mut factor = vec![0u64; plain_limbs];
        for level in 0..=max_level {
            // SAFETY: as above.
            let log2 = |out| unsafe { sys::helib_context_log2_modulus(ctx, level, out) };
            log2_moduli.push(query(log2)?);
            // SAFETY: as above; `factor` holds the plain limbs the engine needs.
            check(unsafe {
                sys::helib_context_correction_factor(ctx, level, factor.as_mut_ptr(), factor.len())
            })?;
            correction_factors.push(limbs::to_biguint(&factor));
        }
        Ok(Self {
            raw,
            params,
            plain_limbs,
            max_level,
            chain_primes,
            special_primes,
            log2_moduli,
            log2_special_modulus,
            correction_factors,
        })
    }
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("ring_degree", &self.ring_degree())
            .field("plaintext_modulus", self.plaintext_modulus())
            .field("chain_primes", &self.chain_primes())
            .field("special_primes", &self.special_primes())
            .finish()
    }
}
