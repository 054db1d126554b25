//! Ciphertexts and the key-free homomorphic operations on them.

use std::fmt;

use helib_sys as sys;
use num_bigint::BigUint;

use crate::context::Context;
use crate::encoded::EncodedPlaintext;
#[cfg(doc)]
use crate::error::Error;
use crate::error::Result;
use crate::ffi::{check, Owned};
use crate::limbs;
use crate::plaintext::Plaintext;

type RawCt = sys::helib_ciphertext;
type RawPt = sys::helib_encoded_plaintext;
/// An engine function `dst = f(a, b)` on two ciphertexts.
type CtCtFn = unsafe extern "C" fn(*const RawCt, *const RawCt, *mut RawCt) -> sys::helib_status;
/// An engine function `dst = f(a, p)` on a ciphertext and an encoded plaintext.
type CtPtFn = unsafe extern "C" fn(*const RawCt, *const RawPt, *mut RawCt) -> sys::helib_status;
/// An engine function `dst = f(a)` on one ciphertext.
type CtFn = unsafe extern "C" fn(*const RawCt, *mut RawCt) -> sys::helib_status;

/// A BGV ciphertext: an encryption of a [`Plaintext`](crate::Plaintext) at some level.
///
/// A ciphertext at level l lives modulo Q_l = q_0 ⋯ q_l and carries a
/// correction factor c (see [`EncodedPlaintext`]): it decrypts to c·m mod t,
/// and [`SecretKey::decrypt`](crate::SecretKey::decrypt) divides c out again.
///
/// Every operation returns a `Result`. The engine checks that the operands
/// share a context ([`Error::ContextMismatch`]), a level
/// ([`Error::LevelMismatch`]; an encoded plaintext may also be at a *higher*
/// level than the ciphertext, and only its residues for the ciphertext's
/// primes are used) and, for additions, a correction factor
/// ([`Error::CorrectionFactorMismatch`]), and reports each as typed detail.
/// Each operation `op` comes as `op(&self, …) -> Result<Ciphertext>` and
/// `op_assign(&mut self, …) -> Result<()>`, which writes into `self` without
/// allocating a new ciphertext. The arithmetic operators on references
/// (`&a + &b`, `&a - &b`, `-&a`, `&a * &p`, `&a + &p`, `&a - &p`) do the same
/// with `Output = Result<Ciphertext>`.
///
/// When an operation fails, nothing is written: the engine validates its
/// arguments (including the noise budget) before it writes, so a failed
/// `op_assign` leaves `self` as it was.
///
/// No operation produces a ciphertext that might not decrypt: each one
/// (additions, scalar and plaintext products, modulus switches, products,
/// relinearization, rotations, linear transforms) refuses with
/// [`Error::NoiseBudgetExhausted`] when the engine's key-free estimate says
/// the result would keep less than one bit of [budget](Self::estimated_budget_bits).
///
/// The level, size, correction factor and noise estimate are read from the
/// engine in one call after every operation, so their accessors are free.
pub struct Ciphertext {
    raw: Owned<RawCt>,
    context: Context,
    info: Info,
}

/// What the engine tracks about a ciphertext, read after each write.
#[derive(Clone, Debug, Default)]
struct Info {
    level: usize,
    size: usize,
    correction_factor: BigUint,
    noise_estimate_bits: f64,
    estimated_budget_bits: f64,
}

// SAFETY: a ciphertext handle is plain data owned by this value alone; the
// engine keeps no thread affinity for it. `&self` methods only call engine
// functions taking it as `const` (safe concurrently, per the header), and
// every write goes through `&mut self`, so Rust's borrow rules give the
// exclusive access the engine requires.
unsafe impl Send for Ciphertext {}
// SAFETY: see the `Send` impl above.
unsafe impl Sync for Ciphertext {}

impl Ciphertext {
    /// Makes a ciphertext by letting the engine write into a new handle.
    pub(crate) fn produce(
        context: &Context,
        write: impl FnOnce(*mut RawCt) -> sys::helib_status,
    ) -> Result<Self> {
        let ctx = context.as_ptr();
        // SAFETY: `ctx` is a live context handle and `out` a valid out-pointer.
        let raw = Owned::create(|out| unsafe { sys::helib_ciphertext_new(ctx, out) })?;
        let mut ct = Self {
            raw,
            context: context.clone(),
            info: Info::default(),
        };
        check(write(ct.raw.as_mut_ptr()))?;
        ct.info = read_info(ct.raw.as_ptr(), context.plain_limbs())?;
        Ok(ct)
    }

    /// Makes `count` ciphertexts by letting the engine write into `count` new
    /// handles in one call (the handles are distinct and new, so none aliases
    /// an input).
    pub(crate) fn produce_many(
        context: &Context,
        count: usize,
        write: impl FnOnce(&[*mut RawCt]) -> sys::helib_status,
    ) -> Result<Vec<Self>> {
        let ctx = context.as_ptr();
        let mut raws = (0..count)
            // SAFETY: `ctx` is a live context handle and `out` a valid out-pointer.
            .map(|_| Owned::create(|out| unsafe { sys::helib_ciphertext_new(ctx, out) }))
            .collect::<Result<Vec<_>>>()?;
        let handles: Vec<*mut RawCt> = raws.iter_mut().map(Owned::as_mut_ptr).collect();
        check(write(&handles))?;
        raws.into_iter()
            .map(|raw| {
                let info = read_info(raw.as_ptr(), context.plain_limbs())?;
                Ok(Self {
                    raw,
                    context: context.clone(),
                    info,
                })
            })
            .collect()
    }

    /// The engine handle.
    pub(crate) fn as_ptr(&self) -> *const RawCt {
        self.raw.as_ptr()
    }

    /// The engine handle, for a write that keeps the level, size, factor and
    /// noise estimate (so the cached information stays true).
    pub(crate) fn as_mut_ptr(&mut self) -> *mut RawCt {
        self.raw.as_mut_ptr()
    }

    /// `dst = op(self, dst)` into a new ciphertext.
    pub(crate) fn compute(
        &self,
        op: impl FnOnce(*const RawCt, *mut RawCt) -> sys::helib_status,
    ) -> Result<Self> {
        let src = self.as_ptr();
        Self::produce(&self.context, |dst| op(src, dst))
    }

    /// `self = op(self)` in place (the engine allows `dst` to alias an input).
    ///
    /// On error the cached information is re-read if the engine still can,
    /// so the accessors stay truthful.
    pub(crate) fn compute_assign(
        &mut self,
        op: impl FnOnce(*const RawCt, *mut RawCt) -> sys::helib_status,
    ) -> Result<()> {
        let dst = self.raw.as_mut_ptr();
        let outcome = check(op(dst, dst));
        if let Ok(info) = read_info(self.as_ptr(), self.context.plain_limbs()) {
            self.info = info;
        }
        outcome
    }

    fn binary(&self, other: &Ciphertext, f: CtCtFn) -> Result<Self> {
        let b = other.as_ptr();
        // SAFETY: all three handles are live; `f` takes them as documented.
        self.compute(|a, dst| unsafe { f(a, b, dst) })
    }

    fn binary_assign(&mut self, other: &Ciphertext, f: CtCtFn) -> Result<()> {
        let b = other.as_ptr();
        // SAFETY: both handles are live; `dst` may alias `a` per the header.
        self.compute_assign(|a, dst| unsafe { f(a, b, dst) })
    }

    fn with_plain(&self, plain: &EncodedPlaintext, f: CtPtFn) -> Result<Self> {
        let p = plain.as_ptr();
        // SAFETY: all three handles are live; `f` takes them as documented.
        self.compute(|a, dst| unsafe { f(a, p, dst) })
    }

    fn with_plain_assign(&mut self, plain: &EncodedPlaintext, f: CtPtFn) -> Result<()> {
        let p = plain.as_ptr();
        // SAFETY: both handles are live; `dst` may alias `a` per the header.
        self.compute_assign(|a, dst| unsafe { f(a, p, dst) })
    }

    fn unary(&self, f: CtFn) -> Result<Self> {
        // SAFETY: both handles are live; `f` takes them as documented.
        self.compute(|a, dst| unsafe { f(a, dst) })
    }

    fn unary_assign(&mut self, f: CtFn) -> Result<()> {
        // SAFETY: the handle is live; `dst` may alias `a` per the header.
        self.compute_assign(|a, dst| unsafe { f(a, dst) })
    }

    /// Like [`Clone::clone`] but reporting a failure instead of panicking.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] if the engine cannot allocate the copy.
    pub fn try_clone(&self) -> Result<Self> {
        // SAFETY: both handles are live; `src` is only read.
        self.compute(|src, dst| unsafe { sys::helib_ciphertext_copy(src, dst) })
    }

    /// The context this ciphertext belongs to.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// The level l: the ciphertext lives modulo q_0 ⋯ q_l.
    pub fn level(&self) -> usize {
        self.info.level
    }

    /// The number of polynomials (2 for a fresh ciphertext).
    pub fn size(&self) -> usize {
        self.info.size
    }

    /// The correction factor c, in [1, t): the ciphertext decrypts to c·m mod t.
    pub fn correction_factor(&self) -> &BigUint {
        &self.info.correction_factor
    }

    /// The engine's conservative estimate of log2 of the noise's infinity
    /// norm, tracked without the secret key.
    pub fn noise_estimate_bits(&self) -> f64 {
        self.info.noise_estimate_bits
    }

    /// The estimated remaining noise budget, in bits: log2(Q_l / 2) minus the
    /// noise estimate. [`SecretKey::noise_budget`](crate::SecretKey::noise_budget)
    /// measures the exact one.
    pub fn estimated_budget_bits(&self) -> f64 {
        self.info.estimated_budget_bits
    }

    /// `self + other`. The noise estimate grows by at most one bit.
    ///
    /// # Errors
    /// [`Error::ContextMismatch`], [`Error::LevelMismatch`] or
    /// [`Error::CorrectionFactorMismatch`] when the operands differ in those;
    /// [`Error::NoiseBudgetExhausted`] when the estimate says the sum would not
    /// decrypt (as after many doublings).
    pub fn add(&self, other: &Ciphertext) -> Result<Self> {
        self.binary(other, sys::helib_ciphertext_add)
    }

    /// `self += other`; see [`add`](Self::add).
    ///
    /// # Errors
    /// As for [`add`](Self::add).
    pub fn add_assign(&mut self, other: &Ciphertext) -> Result<()> {
        self.binary_assign(other, sys::helib_ciphertext_add)
    }

    /// `self - other`.
    ///
    /// # Errors
    /// As for [`add`](Self::add).
    pub fn sub(&self, other: &Ciphertext) -> Result<Self> {
        self.binary(other, sys::helib_ciphertext_sub)
    }

    /// `self -= other`; see [`sub`](Self::sub).
    ///
    /// # Errors
    /// As for [`add`](Self::add).
    pub fn sub_assign(&mut self, other: &Ciphertext) -> Result<()> {
        self.binary_assign(other, sys::helib_ciphertext_sub)
    }

    /// `-self`.
    ///
    /// # Errors
    /// Only on engine failures such as [`Error::OutOfMemory`].
    pub fn negate(&self) -> Result<Self> {
        self.unary(sys::helib_ciphertext_negate)
    }

    /// `self = -self`.
    ///
    /// # Errors
    /// Only on engine failures such as [`Error::OutOfMemory`].
    pub fn negate_assign(&mut self) -> Result<()> {
        self.unary_assign(sys::helib_ciphertext_negate)
    }

    /// `self + plain`. The plaintext must be encoded at this ciphertext's level
    /// or above, with its correction factor, e.g. by
    /// [`EncodedPlaintext::for_addition_to`].
    ///
    /// # Errors
    /// [`Error::ContextMismatch`]; [`Error::LevelMismatch`] when the plaintext
    /// is encoded below the ciphertext's level; [`Error::CorrectionFactorMismatch`];
    /// [`Error::NoiseBudgetExhausted`] when the estimate says the result would
    /// not decrypt.
    pub fn add_plain(&self, plain: &EncodedPlaintext) -> Result<Self> {
        self.with_plain(plain, sys::helib_ciphertext_add_plain)
    }

    /// `self += plain`; see [`add_plain`](Self::add_plain).
    ///
    /// # Errors
    /// As for [`add_plain`](Self::add_plain).
    pub fn add_plain_assign(&mut self, plain: &EncodedPlaintext) -> Result<()> {
        self.with_plain_assign(plain, sys::helib_ciphertext_add_plain)
    }

    /// `self - plain`; see [`add_plain`](Self::add_plain).
    ///
    /// # Errors
    /// As for [`add_plain`](Self::add_plain).
    pub fn sub_plain(&self, plain: &EncodedPlaintext) -> Result<Self> {
        self.with_plain(plain, sys::helib_ciphertext_sub_plain)
    }

    /// `self -= plain`; see [`add_plain`](Self::add_plain).
    ///
    /// # Errors
    /// As for [`add_plain`](Self::add_plain).
    pub fn sub_plain_assign(&mut self, plain: &EncodedPlaintext) -> Result<()> {
        self.with_plain_assign(plain, sys::helib_ciphertext_sub_plain)
    }

    /// `self · plain` (negacyclic polynomial product). The plaintext must be
    /// encoded at this ciphertext's level or above (so one encoding at the top
    /// level serves every level). The result's correction factor is the
    /// product of both factors; encode with
    /// [`EncodedPlaintext::for_multiplication`] (factor 1) to keep it.
    ///
    /// # Errors
    /// [`Error::ContextMismatch`]; [`Error::LevelMismatch`] when the plaintext
    /// is encoded below the ciphertext's level;
    /// [`Error::NoiseBudgetExhausted`] when the engine's estimate says the
    /// product would no longer decrypt (mod-switch first, or use bigger parameters).
    pub fn mul_plain(&self, plain: &EncodedPlaintext) -> Result<Self> {
        self.with_plain(plain, sys::helib_ciphertext_mul_plain)
    }

    /// `self *= plain`; see [`mul_plain`](Self::mul_plain).
    ///
    /// # Errors
    /// As for [`mul_plain`](Self::mul_plain).
    pub fn mul_plain_assign(&mut self, plain: &EncodedPlaintext) -> Result<()> {
        self.with_plain_assign(plain, sys::helib_ciphertext_mul_plain)
    }

    /// `k · self` for an integer k (taken mod t).
    ///
    /// # Errors
    /// [`Error::NoiseBudgetExhausted`] when the estimate says the product would
    /// not decrypt; engine failures such as [`Error::OutOfMemory`].
    pub fn mul_scalar(&self, k: &BigUint) -> Result<Self> {
        let k = self.context.reduced_limbs(k);
        // SAFETY: both handles are live and `k` is a live slice of `k.len()` limbs.
        self.compute(|a, dst| unsafe {
            sys::helib_ciphertext_mul_scalar(a, k.as_ptr(), k.len(), dst)
        })
    }

    /// `self *= k`; see [`mul_scalar`](Self::mul_scalar).
    ///
    /// # Errors
    /// As for [`mul_scalar`](Self::mul_scalar).
    pub fn mul_scalar_assign(&mut self, k: &BigUint) -> Result<()> {
        let k = self.context.reduced_limbs(k);
        // SAFETY: the handle is live, `dst` may alias `a`, and `k` is a live slice.
        self.compute_assign(|a, dst| unsafe {
            sys::helib_ciphertext_mul_scalar(a, k.as_ptr(), k.len(), dst)
        })
    }

    /// Adds the constant k (reduced mod t) to the plaintext: the result
    /// decrypts to m + k (as a polynomial, k is added to the constant
    /// coefficient). One pass over one polynomial, no encoding; the noise grows
    /// by at most t/2.
    ///
    /// # Errors
    /// [`Error::NoiseBudgetExhausted`] when the estimate says the result would
    /// not decrypt; engine failures.
    pub fn add_scalar(&self, k: &BigUint) -> Result<Self> {
        let k = self.context.reduced_limbs(k);
        // SAFETY: both handles are live and `k` is a live slice of `k.len()` limbs.
        self.compute(|a, dst| unsafe {
            sys::helib_ciphertext_add_scalar(a, k.as_ptr(), k.len(), dst)
        })
    }

    /// In-place [`add_scalar`](Self::add_scalar).
    ///
    /// # Errors
    /// As for [`add_scalar`](Self::add_scalar).
    pub fn add_scalar_assign(&mut self, k: &BigUint) -> Result<()> {
        let k = self.context.reduced_limbs(k);
        // SAFETY: the handle is live, `dst` may alias `a`, and `k` is a live slice.
        self.compute_assign(|a, dst| unsafe {
            sys::helib_ciphertext_add_scalar(a, k.as_ptr(), k.len(), dst)
        })
    }

    /// Drops the last prime: level l becomes l − 1, the noise shrinks by about
    /// log2 q_l bits (down to a floor of about the fresh noise), and the
    /// correction factor is multiplied by q_l^-1 mod t.
    ///
    /// # Errors
    /// [`Error::ModulusChainExhausted`] at level 0;
    /// [`Error::NoiseBudgetExhausted`] when level l − 1 cannot hold the
    /// switched noise (its modulus is too small, e.g. below t).
    pub fn mod_switch(&self) -> Result<Self> {
        self.unary(sys::helib_ciphertext_mod_switch)
    }

    /// In-place [`mod_switch`](Self::mod_switch).
    ///
    /// # Errors
    /// As for [`mod_switch`](Self::mod_switch).
    pub fn mod_switch_assign(&mut self) -> Result<()> {
        self.unary_assign(sys::helib_ciphertext_mod_switch)
    }

    /// Drops primes until the ciphertext is at `level` (a no-op at its own level).
    ///
    /// # Errors
    /// [`Error::InvalidLevel`] when `level` is above the ciphertext's level;
    /// [`Error::NoiseBudgetExhausted`] when `level` cannot hold the switched
    /// noise: a modulus switch leaves noise of about t·√N, so a level whose
    /// modulus Q_level is not well above that (e.g. below t) is refused.
    pub fn mod_switch_to(&self, level: usize) -> Result<Self> {
        // SAFETY: both handles are live; `f` takes them as documented.
        self.compute(|a, dst| unsafe { sys::helib_ciphertext_mod_switch_to(a, level, dst) })
    }

    /// In-place [`mod_switch_to`](Self::mod_switch_to).
    ///
    /// # Errors
    /// As for [`mod_switch_to`](Self::mod_switch_to).
    pub fn mod_switch_to_assign(&mut self, level: usize) -> Result<()> {
        // SAFETY: the handle is live and `dst` may alias `a` per the header.
        self.compute_assign(|a, dst| unsafe { sys::helib_ciphertext_mod_switch_to(a, level, dst) })
    }

    /// Drops primes as long as each switch costs (almost) no noise budget, i.e.
    /// while the estimated noise stays well above the modulus-switching floor:
    /// the budget is kept while the ciphertext shrinks and later operations get
    /// cheaper. Never goes below level 0; may drop none.
    ///
    /// # Errors
    /// [`Error::NoiseBudgetExhausted`] when the estimate of the switched
    /// ciphertext is exhausted (only if `self`'s already is); engine failures
    /// such as [`Error::OutOfMemory`].
    pub fn mod_switch_reduce_noise(&self) -> Result<Self> {
        self.unary(sys::helib_ciphertext_mod_switch_reduce_noise)
    }

    /// In-place [`mod_switch_reduce_noise`](Self::mod_switch_reduce_noise).
    ///
    /// # Errors
    /// As for [`mod_switch_reduce_noise`](Self::mod_switch_reduce_noise).
    pub fn mod_switch_reduce_noise_assign(&mut self) -> Result<()> {
        self.unary_assign(sys::helib_ciphertext_mod_switch_reduce_noise)
    }
}

impl EncodedPlaintext {
    /// Encodes `plaintext` at the level and with the correction factor of
    /// `ciphertext`, for addition to it.
    ///
    /// # Errors
    /// [`Error::ContextMismatch`] when the two belong to different contexts.
    pub fn for_addition_to(plaintext: &Plaintext, ciphertext: &Ciphertext) -> Result<Self> {
        plaintext.context().ensure_same(ciphertext.context())?;
        Self::with_factor(
            plaintext,
            ciphertext.level(),
            ciphertext.correction_factor(),
        )
    }
}

/// Reads the tracked information of a written ciphertext, in one engine call.
fn read_info(ct: *const RawCt, plain_limbs: usize) -> Result<Info> {
    let mut raw = sys::helib_ciphertext_info {
        level: 0,
        size: 0,
        noise_estimate_bits: 0.0,
        estimated_budget_bits: 0.0,
    };
    let mut factor = vec![0u64; plain_limbs];
    // SAFETY: `ct` is a live, written ciphertext handle; `raw` is a valid
    // out-pointer and `factor` holds `plain_limbs` limbs, as the engine needs.
    check(unsafe {
        sys::helib_ciphertext_get_info(ct, &mut raw, factor.as_mut_ptr(), factor.len())
    })?;
    Ok(Info {
        level: raw.level,
        size: raw.size,
        correction_factor: limbs::to_biguint(&factor),
        noise_estimate_bits: raw.noise_estimate_bits,
        estimated_budget_bits: raw.estimated_budget_bits,
    })
}

impl Clone for Ciphertext {
    /// Copies the ciphertext.
    ///
    /// # Panics
    /// Only if the engine cannot allocate the copy (like any allocation in
    /// Rust); use [`Ciphertext::try_clone`] to get an error instead.
    fn clone(&self) -> Self {
        match self.try_clone() {
            Ok(copy) => copy,
            Err(error) => panic!("copying a ciphertext failed: {error}"),
        }
    }
}

impl fmt::Debug for Ciphertext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ciphertext")
            .field("level", &self.info.level)
            .field("size", &self.info.size)
            .field("correction_factor", &self.info.correction_factor)
            .field("noise_estimate_bits", &self.info.noise_estimate_bits)
            .finish_non_exhaustive()
    }
}
