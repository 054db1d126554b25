//! Shared helpers for the `helib-sys` integration tests: RAII owners for the
//! opaque handles, status checking with the engine's error message, big
//! integer <-> limb conversion and a plaintext model of R_t = Z_t[X]/(X^N+1).
//!
//! Every test file includes this module with `mod common;` and uses only part
//! of it, hence the `dead_code` allowance.
#![allow(dead_code)]

pub mod kernel_paths;

use std::ffi::CStr;
use std::ptr;

use helib_sys::*;
use num_bigint::BigUint;
use num_traits::{One, Zero};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The BN254 scalar-field prime r (= 0x30644e72e131a029b85045b68181585d
/// 2833e84879b9709143e1f593f0000001, the `Fr` modulus of ark-bn254).
pub const BN254_R_DEC: &str =
    "21888242871839275222246405745257275088548364400416034343698204186575808495617";

/// A 254-bit composite that differs from r in its low digits (it is
/// divisible by 3 and 23); kept to test composite plaintext moduli.
pub const BN254_LOOKALIKE_DEC: &str =
    "21888242871839275222246405745257275088548364400416459031729624524916086534401";

/// BN254's r as a `BigUint`.
pub fn bn254_r() -> BigUint {
    let r = BigUint::parse_bytes(BN254_R_DEC.as_bytes(), 10).expect("valid decimal");
    debug_assert_eq!(
        r.to_u64_digits(),
        [
            0x43e1f593f0000001,
            0x2833e84879b97091,
            0xb85045b68181585d,
            0x30644e72e131a029
        ]
    );
    r
}

/// A seeded, reproducible RNG.
pub fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

// ------------------------------------------------------------------ status

/// Human-readable name of a status code, for assertion messages.
pub fn status_name(s: helib_status) -> &'static str {
    match s {
        HELIB_OK => "HELIB_OK",
        HELIB_ERR_NULL_POINTER => "HELIB_ERR_NULL_POINTER",
        HELIB_ERR_INVALID_ARGUMENT => "HELIB_ERR_INVALID_ARGUMENT",
        HELIB_ERR_INVALID_LEVEL => "HELIB_ERR_INVALID_LEVEL",
        HELIB_ERR_CONTEXT_MISMATCH => "HELIB_ERR_CONTEXT_MISMATCH",
        HELIB_ERR_LEVEL_MISMATCH => "HELIB_ERR_LEVEL_MISMATCH",
        HELIB_ERR_FACTOR_MISMATCH => "HELIB_ERR_FACTOR_MISMATCH",
        HELIB_ERR_NOISE_BUDGET_EXHAUSTED => "HELIB_ERR_NOISE_BUDGET_EXHAUSTED",
        HELIB_ERR_BUFFER_TOO_SMALL => "HELIB_ERR_BUFFER_TOO_SMALL",
        HELIB_ERR_RANDOMNESS => "HELIB_ERR_RANDOMNESS",
        HELIB_ERR_OUT_OF_MEMORY => "HELIB_ERR_OUT_OF_MEMORY",
        HELIB_ERR_INTERNAL => "HELIB_ERR_INTERNAL",
        HELIB_ERR_MISSING_KEY => "HELIB_ERR_MISSING_KEY",
        HELIB_ERR_MALFORMED_INPUT => "HELIB_ERR_MALFORMED_INPUT",
        HELIB_ERR_INSECURE_PARAMETERS => "HELIB_ERR_INSECURE_PARAMETERS",
        _ => "<unknown status>",
    }
}

/// The engine's thread-local message for the last failed call.
pub fn last_error() -> String {
    // SAFETY: the header guarantees a valid NUL-terminated string (possibly
    // empty) that stays valid until the next call on this thread; we copy it
    // out immediately.
    let p = unsafe { helib_last_error_message() };
    assert!(!p.is_null(), "helib_last_error_message returned NULL");
    // SAFETY: `p` is non-null and NUL-terminated per the contract above.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// Panics with the status name and the engine's message unless `s` is OK.
#[track_caller]
pub fn check(s: helib_status) {
    if s != HELIB_OK {
        panic!(
            "expected HELIB_OK, got {} ({s}): {:?}",
            status_name(s),
            last_error()
        );
    }
}

/// Asserts that `s` is exactly `want` and that a non-empty message was set;
/// returns the message.
#[track_caller]
pub fn expect_status(s: helib_status, want: helib_status, what: &str) -> String {
    let msg = last_error();
    assert_eq!(
        s,
        want,
        "{what}: expected {}, got {} (message: {msg:?})",
        status_name(want),
        status_name(s)
    );
    assert!(
        !msg.trim().is_empty(),
        "{what}: failed with {} but helib_last_error_message() is empty",
        status_name(s)
    );
    msg
}

/// Asserts that `s` is one of `wants` (for cases the contract leaves open)
/// and that a message was set.
#[track_caller]
pub fn expect_one_of(s: helib_status, wants: &[helib_status], what: &str) -> String {
    let msg = last_error();
    assert!(
        wants.contains(&s),
        "{what}: expected one of {:?}, got {} (message: {msg:?})",
        wants.iter().map(|&w| status_name(w)).collect::<Vec<_>>(),
        status_name(s)
    );
    assert!(
        !msg.trim().is_empty(),
        "{what}: failed with {} but helib_last_error_message() is empty",
        status_name(s)
    );
    msg
}

// ------------------------------------------------------------- big integers

/// Little-endian u64 limbs -> BigUint.
pub fn big_from_limbs(limbs: &[u64]) -> BigUint {
    limbs
        .iter()
        .rev()
        .fold(BigUint::zero(), |acc, &l| (acc << 64u32) + BigUint::from(l))
}

/// BigUint -> exactly `n` little-endian limbs (panics if it does not fit).
pub fn big_to_limbs(x: &BigUint, n: usize) -> Vec<u64> {
    let mut d = x.to_u64_digits();
    assert!(d.len() <= n, "{x} does not fit in {n} limbs");
    d.resize(n, 0);
    d
}

/// Number of 64-bit limbs needed to hold values below `bound` (at least 1).
pub fn limbs_for_below(bound: &BigUint) -> usize {
    let max = bound - 1u32;
    (max.bits() as usize).div_ceil(64).max(1)
}

/// Coefficient-major limb encoding of a polynomial.
pub fn poly_to_limbs(p: &[BigUint], limbs_per_coeff: usize) -> Vec<u64> {
    p.iter()
        .flat_map(|c| big_to_limbs(c, limbs_per_coeff))
        .collect()
}

/// Inverse of [`poly_to_limbs`].
pub fn poly_from_limbs(l: &[u64], limbs_per_coeff: usize) -> Vec<BigUint> {
    l.chunks(limbs_per_coeff).map(big_from_limbs).collect()
}

/// A uniform-ish random value in [0, bound) (reduction of 128 extra bits).
pub fn rand_below(rng: &mut StdRng, bound: &BigUint) -> BigUint {
    let nbytes = (bound.bits() as usize).div_ceil(8) + 16;
    let mut bytes = vec![0u8; nbytes];
    rng.fill(&mut bytes[..]);
    BigUint::from_bytes_le(&bytes) % bound
}

/// A random polynomial with `n` coefficients in [0, t).
pub fn rand_poly(rng: &mut StdRng, n: usize, t: &BigUint) -> Vec<BigUint> {
    (0..n).map(|_| rand_below(rng, t)).collect()
}

// ------------------------------------------------------ plaintext model mod t

pub fn poly_add(a: &[BigUint], b: &[BigUint], t: &BigUint) -> Vec<BigUint> {
    a.iter().zip(b).map(|(x, y)| (x + y) % t).collect()
}

pub fn poly_sub(a: &[BigUint], b: &[BigUint], t: &BigUint) -> Vec<BigUint> {
    a.iter().zip(b).map(|(x, y)| (x + t - y) % t).collect()
}

pub fn poly_neg(a: &[BigUint], t: &BigUint) -> Vec<BigUint> {
    a.iter().map(|x| (t - x) % t).collect()
}

pub fn poly_scalar(a: &[BigUint], k: &BigUint, t: &BigUint) -> Vec<BigUint> {
    let k = k % t;
    a.iter().map(|x| (x * &k) % t).collect()
}

/// Schoolbook negacyclic product in Z_t[X]/(X^N+1). Zero coefficients of `a`
/// are skipped, so a sparse `a` is cheap; a t below 2^64 uses u128
/// arithmetic.
pub fn poly_mul(a: &[BigUint], b: &[BigUint], t: &BigUint) -> Vec<BigUint> {
    let n = a.len();
    assert_eq!(n, b.len());
    if t.bits() <= 64 {
        let t64 = big_to_limbs(t, 1)[0];
        let a: Vec<u64> = a.iter().map(|x| big_to_limbs(x, 1)[0]).collect();
        let b: Vec<u64> = b.iter().map(|x| big_to_limbs(x, 1)[0]).collect();
        return poly_mul_u64(&a, &b, t64)
            .into_iter()
            .map(BigUint::from)
            .collect();
    }
    let mut pos = vec![BigUint::zero(); n];
    let mut neg = vec![BigUint::zero(); n];
    for (i, ai) in a.iter().enumerate() {
        if ai.is_zero() {
            continue;
        }
        for (j, bj) in b.iter().enumerate() {
            if bj.is_zero() {
                continue;
            }
            let prod = ai * bj;
            let k = i + j;
            if k < n {
                pos[k] += prod;
            } else {
                neg[k - n] += prod;
            }
        }
    }
    pos.into_iter()
        .zip(neg)
        .map(|(p, q)| ((p % t) + t - (q % t)) % t)
        .collect()
}

/// Schoolbook negacyclic product modulo a t < 2^64 in u128 arithmetic.
pub fn poly_mul_u64(a: &[u64], b: &[u64], t: u64) -> Vec<u64> {
    let n = a.len();
    let t128 = u128::from(t);
    let mut pos = vec![0u128; n];
    let mut neg = vec![0u128; n];
    for (i, &ai) in a.iter().enumerate() {
        if ai == 0 {
            continue;
        }
        for (j, &bj) in b.iter().enumerate() {
            let prod = (u128::from(ai) * u128::from(bj)) % t128;
            if i + j < n {
                pos[i + j] += prod;
            } else {
                neg[i + j - n] += prod;
            }
        }
    }
    pos.iter()
        .zip(&neg)
        .map(|(&p, &m)| ((p % t128 + t128 - m % t128) % t128) as u64)
        .collect()
}

/// Pads `p` with zeros to `n` coefficients.
pub fn pad(p: &[BigUint], n: usize) -> Vec<BigUint> {
    let mut v = p.to_vec();
    v.resize(n, BigUint::zero());
    v
}

// ------------------------------------------------------- marked arguments

/// `for_each_marked!(then [extra] with f(a, @b, c, @name = d))`: for each
/// argument of the call marked `@` (or `@name =`, to name it in messages),
/// invokes `then!([extra] label, call)` with `call` the call with that
/// argument replaced by the tokens `with` and every other argument as
/// written (marks dropped), and `label` a `&'static str` naming the function
/// and the argument. The tests use it to run one check per pointer (NULL in
/// its place) or per count (an edge count in its place) of an entry point
/// written once.
#[allow(unused_macros)]
macro_rules! for_each_marked {
    ($then:ident $extra:tt $with:tt $f:ident($($args:tt)*)) => {
        for_each_marked!(@split $then $extra $with $f [] [] $($args)*)
    };
    // The arguments, split at their top-level commas into groups `{...}`.
    (@split $then:ident $extra:tt $with:tt $f:ident [$($done:tt)*] [$($arg:tt)*] , $($rest:tt)*) => {
        for_each_marked!(@split $then $extra $with $f [$($done)* {$($arg)*}] [] $($rest)*)
    };
    (@split $then:ident $extra:tt $with:tt $f:ident [$($done:tt)*] [$($arg:tt)*] $next:tt $($rest:tt)*) => {
        for_each_marked!(@split $then $extra $with $f [$($done)*] [$($arg)* $next] $($rest)*)
    };
    (@split $then:ident $extra:tt $with:tt $f:ident [$($done:tt)*] []) => {
        for_each_marked!(@each $then $extra $with $f [] [$($done)*])
    };
    (@split $then:ident $extra:tt $with:tt $f:ident [$($done:tt)*] [$($arg:tt)*]) => {
        for_each_marked!(@each $then $extra $with $f [] [$($done)* {$($arg)*}])
    };
    // One invocation of `then` for each marked group, `with` in its place.
    (@each $then:ident $extra:tt $with:tt $f:ident [$($before:tt)*]
        [{@ $name:ident = $($value:tt)*} $($after:tt)*]) => {
        for_each_marked!(@call $then $extra $with $f [$($before)*] [$($after)*] $name);
        for_each_marked!(@each $then $extra $with $f [$($before)* {$($value)*}] [$($after)*]);
    };
    (@each $then:ident $extra:tt $with:tt $f:ident [$($before:tt)*] [{@ $($value:tt)*} $($after:tt)*]) => {
        for_each_marked!(@call $then $extra $with $f [$($before)*] [$($after)*] $($value)*);
        for_each_marked!(@each $then $extra $with $f [$($before)* {$($value)*}] [$($after)*]);
    };
    (@each $then:ident $extra:tt $with:tt $f:ident [$($before:tt)*] [$group:tt $($after:tt)*]) => {
        for_each_marked!(@each $then $extra $with $f [$($before)* $group] [$($after)*])
    };
    (@each $then:ident $extra:tt $with:tt $f:ident [$($before:tt)*] []) => {};
    (@call $then:ident $extra:tt $with:tt $f:ident [$($before:tt)*] [$($after:tt)*] $($label:tt)*) => {
        $then!(
            $extra concat!(stringify!($f), " ", stringify!($($label)*)),
            $f($(for_each_marked!(@as_written $before),)* $with $(, for_each_marked!(@as_written $after))*)
        )
    };
    (@as_written {@ $name:ident = $($value:tt)*}) => { $($value)* };
    (@as_written {@ $($value:tt)*}) => { $($value)* };
    (@as_written {$($arg:tt)*}) => { $($arg)* };
}
#[allow(unused_imports)]
pub(crate) use for_each_marked;

// ------------------------------------------------------------------ handles

/// Declares the owner of a handle type: a tuple struct around the raw
/// pointer whose drop frees it (the free functions accept NULL).
macro_rules! owner {
    ($(#[$doc:meta])* $name:ident($handle:ty) = $free:ident) => {
        $(#[$doc])*
        pub struct $name(pub *mut $handle);

        impl Drop for $name {
            fn drop(&mut self) {
                // SAFETY: the handle came from its constructor (or is NULL)
                // and is freed exactly once, here.
                unsafe { $free(self.0) }
            }
        }
    };
}

/// Runs a constructor on an out pointer, checks its status, and returns the
/// handle it made, which must not be NULL.
#[track_caller]
pub fn made<T>(construct: impl FnOnce(&mut *mut T) -> helib_status) -> *mut T {
    let mut out = ptr::null_mut();
    check(construct(&mut out));
    assert!(
        !out.is_null(),
        "a constructor returned HELIB_OK but no handle"
    );
    out
}

/// Runs a query on an out pointer holding `initial`, checks its status, and
/// returns what it wrote.
#[track_caller]
pub fn queried<T>(initial: T, query: impl FnOnce(&mut T) -> helib_status) -> T {
    let mut value = initial;
    check(query(&mut value));
    value
}

/// An array read with the two-call protocol: the count first (NULL buffer),
/// then the array, whose count must not change.
#[track_caller]
pub fn two_call<T: Clone + Default>(
    mut call: impl FnMut(*mut T, &mut usize) -> helib_status,
) -> Vec<T> {
    let mut len = 0usize;
    check(call(ptr::null_mut(), &mut len));
    let mut buf = vec![T::default(); len];
    check(call(buf.as_mut_ptr(), &mut len));
    assert_eq!(len, buf.len(), "the count changed between the two calls");
    buf
}

/// Owner of a `helib_context`.
pub struct Ctx {
    pub ptr: *mut helib_context,
    pub n: usize,
    pub t: BigUint,
}

impl Drop for Ctx {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from helib_context_new (or is NULL) and is freed
        // exactly once here.
        unsafe { helib_context_free(self.ptr) }
    }
}

/// Raw `helib_context_new` with slices and the given flags; returns the
/// status and the handle (NULL unless OK).
pub fn context_new_flags(
    n: u64,
    t_limbs: &[u64],
    chain: &[u32],
    special: &[u32],
    threads: u32,
    flags: u32,
) -> (helib_status, *mut helib_context) {
    let mut out: *mut helib_context = ptr::null_mut();
    // SAFETY: every pointer comes from a live slice with the matching length
    // (empty slices give a dangling, never dereferenced, non-null pointer);
    // `out` is a valid place for the result.
    let s = unsafe {
        helib_context_new(
            n,
            t_limbs.as_ptr(),
            t_limbs.len(),
            chain.as_ptr(),
            chain.len(),
            special.as_ptr(),
            special.len(),
            threads,
            flags,
            &mut out,
        )
    };
    (s, out)
}

/// Raw `helib_context_new` with slices, allowing parameters below 128-bit
/// security (the tests use small rings); returns the status and the handle
/// (NULL unless OK).
pub fn context_new_raw(
    n: u64,
    t_limbs: &[u64],
    chain: &[u32],
    special: &[u32],
    threads: u32,
) -> (helib_status, *mut helib_context) {
    context_new_flags(
        n,
        t_limbs,
        chain,
        special,
        threads,
        HELIB_CONTEXT_ALLOW_INSECURE,
    )
}

impl Ctx {
    /// Builds a context or returns the failing status and message.
    pub fn try_new(
        n: u64,
        t: &BigUint,
        chain: &[u32],
        special: &[u32],
    ) -> Result<Ctx, (helib_status, String)> {
        let limbs = t.to_u64_digits();
        let (s, out) = context_new_raw(n, &limbs, chain, special, 1);
        if s == HELIB_OK {
            assert!(!out.is_null(), "helib_context_new returned OK but NULL");
            Ok(Ctx {
                ptr: out,
                n: n as usize,
                t: t.clone(),
            })
        } else {
            Err((s, last_error()))
        }
    }

    /// Builds a context, panicking on failure.
    #[track_caller]
    pub fn new(n: u64, t: &BigUint, chain: &[u32], special: &[u32]) -> Ctx {
        match Ctx::try_new(n, t, chain, special) {
            Ok(c) => c,
            Err((s, m)) => panic!(
                "helib_context_new(N={n}, t={t}, chain={chain:?}, special={special:?}) \
                 failed: {} {m:?}",
                status_name(s)
            ),
        }
    }

    pub fn max_level(&self) -> usize {
        // SAFETY: live context, valid out pointer.
        queried(usize::MAX, |l| unsafe {
            helib_context_max_level(self.ptr, l)
        })
    }

    pub fn plain_limbs(&self) -> usize {
        // SAFETY: live context, valid out pointer.
        queried(0, |l| unsafe { helib_context_plain_limbs(self.ptr, l) })
    }

    /// The chain primes via the two-call protocol.
    pub fn primes(&self) -> Vec<u64> {
        // SAFETY: live context; the buffer is NULL (count only) or has room
        // for `len` primes.
        two_call(|buf, len| unsafe { helib_context_chain_primes(self.ptr, buf, len) })
    }

    /// The special primes via the two-call protocol.
    pub fn special_primes(&self) -> Vec<u64> {
        // SAFETY: as for `primes`.
        two_call(|buf, len| unsafe { helib_context_special_primes(self.ptr, buf, len) })
    }

    /// `helib_context_correction_factor` as a BigUint.
    pub fn correction_factor(&self, level: usize) -> BigUint {
        let pl = self.plain_limbs();
        let mut out = vec![0u64; pl];
        // SAFETY: live context; `out` has `pl` limbs, as the header requires.
        check(unsafe { helib_context_correction_factor(self.ptr, level, out.as_mut_ptr(), pl) });
        big_from_limbs(&out)
    }

    /// Independent computation of the canonical factor: product of q_j^-1
    /// mod t over the chain primes j > level.
    pub fn model_factor(&self, level: usize) -> BigUint {
        let primes = self.primes();
        let mut f = BigUint::one() % &self.t;
        for &q in &primes[level + 1..] {
            let inv = BigUint::from(q)
                .modinv(&self.t)
                .expect("chain prime invertible mod t");
            f = (f * inv) % &self.t;
        }
        f
    }
}

owner!(
    /// Owner of a `helib_secret_key`.
    SecretKey(helib_secret_key) = helib_secret_key_free
);

impl SecretKey {
    #[track_caller]
    pub fn generate(ctx: &Ctx) -> SecretKey {
        // SAFETY: live context, valid out pointer.
        SecretKey(made(|out| unsafe {
            helib_secret_key_generate(ctx.ptr, out)
        }))
    }
}

owner!(
    /// Owner of a `helib_public_key`.
    PublicKey(helib_public_key) = helib_public_key_free
);

impl PublicKey {
    #[track_caller]
    pub fn generate(sk: &SecretKey) -> PublicKey {
        // SAFETY: live secret key, valid out pointer.
        PublicKey(made(|out| unsafe { helib_public_key_generate(sk.0, out) }))
    }
}

owner!(
    /// Owner of a `helib_encoded_plaintext`.
    Pt(helib_encoded_plaintext) = helib_encoded_plaintext_free
);

/// Raw `helib_encoded_plaintext_new`; returns status and handle owner.
pub fn encode_raw(
    ctx: &Ctx,
    p: &[BigUint],
    lpc: usize,
    level: usize,
    factor: Option<&BigUint>,
) -> (helib_status, Pt) {
    let limbs = poly_to_limbs(p, lpc);
    let f = factor.map(|f| f.to_u64_digits());
    let (fp, fl) = match &f {
        Some(v) => (v.as_ptr(), v.len()),
        None => (ptr::null(), 0),
    };
    let mut out = ptr::null_mut();
    // SAFETY: `limbs` holds p.len() * lpc limbs; the factor pointer is NULL or
    // points at `fl` limbs; `out` is a valid place.
    let s = unsafe {
        helib_encoded_plaintext_new(
            ctx.ptr,
            limbs.as_ptr(),
            p.len(),
            lpc,
            level,
            fp,
            fl,
            &mut out,
        )
    };
    (s, Pt(out))
}

/// Encodes `p` at `level` with an optional correction factor, panicking on
/// failure.
#[track_caller]
pub fn encode(ctx: &Ctx, p: &[BigUint], level: usize, factor: Option<&BigUint>) -> Pt {
    let (s, pt) = encode_raw(ctx, p, ctx.plain_limbs(), level, factor);
    check(s);
    assert!(!pt.0.is_null());
    pt
}

owner!(
    /// Owner of a `helib_ciphertext`.
    Ct(helib_ciphertext) = helib_ciphertext_free
);

impl Ct {
    /// An empty ciphertext of `ctx`.
    #[track_caller]
    pub fn empty(ctx: &Ctx) -> Ct {
        // SAFETY: live context, valid out pointer.
        Ct(made(|out| unsafe { helib_ciphertext_new(ctx.ptr, out) }))
    }

    pub fn level(&self) -> usize {
        // SAFETY: live ciphertext, valid out pointer.
        queried(usize::MAX, |l| unsafe { helib_ciphertext_level(self.0, l) })
    }

    pub fn size(&self) -> usize {
        // SAFETY: live ciphertext, valid out pointer.
        queried(0, |l| unsafe { helib_ciphertext_size(self.0, l) })
    }

    /// The tracked correction factor, read with `plain_limbs` limbs.
    pub fn factor(&self, ctx: &Ctx) -> BigUint {
        let pl = ctx.plain_limbs();
        let mut out = vec![0u64; pl];
        // SAFETY: live ciphertext; `out` has `pl` limbs.
        check(unsafe { helib_ciphertext_correction_factor(self.0, out.as_mut_ptr(), pl) });
        big_from_limbs(&out)
    }

    pub fn estimated_budget(&self) -> f64 {
        // SAFETY: live ciphertext, valid out pointer.
        queried(f64::NAN, |b| unsafe {
            helib_ciphertext_estimated_budget(self.0, b)
        })
    }

    pub fn noise_estimate(&self) -> f64 {
        // SAFETY: live ciphertext, valid out pointer.
        queried(f64::NAN, |b| unsafe {
            helib_ciphertext_noise_estimate(self.0, b)
        })
    }

    /// A fresh copy (through `helib_ciphertext_copy`).
    #[track_caller]
    pub fn dup(&self, ctx: &Ctx) -> Ct {
        let d = Ct::empty(ctx);
        // SAFETY: both handles are live.
        check(unsafe { helib_ciphertext_copy(self.0, d.0) });
        d
    }
}

/// Public-key encryption of `m` at `level` (status returned).
pub fn encrypt_pk_raw(
    pk: &PublicKey,
    ctx: &Ctx,
    m: &[BigUint],
    level: usize,
) -> (helib_status, Ct) {
    let lpc = ctx.plain_limbs();
    let limbs = poly_to_limbs(m, lpc);
    let ct = Ct::empty(ctx);
    // SAFETY: `limbs` holds m.len() * lpc limbs; handles are live.
    let s = unsafe { helib_encrypt_public(pk.0, limbs.as_ptr(), m.len(), lpc, level, ct.0) };
    (s, ct)
}

/// Secret-key encryption of `m` at `level` (status returned).
pub fn encrypt_sk_raw(
    sk: &SecretKey,
    ctx: &Ctx,
    m: &[BigUint],
    level: usize,
) -> (helib_status, Ct) {
    let lpc = ctx.plain_limbs();
    let limbs = poly_to_limbs(m, lpc);
    let ct = Ct::empty(ctx);
    // SAFETY: `limbs` holds m.len() * lpc limbs; handles are live.
    let s = unsafe { helib_encrypt_secret(sk.0, limbs.as_ptr(), m.len(), lpc, level, ct.0) };
    (s, ct)
}

#[track_caller]
pub fn encrypt_pk(pk: &PublicKey, ctx: &Ctx, m: &[BigUint], level: usize) -> Ct {
    let (s, ct) = encrypt_pk_raw(pk, ctx, m, level);
    check(s);
    ct
}

#[track_caller]
pub fn encrypt_sk(sk: &SecretKey, ctx: &Ctx, m: &[BigUint], level: usize) -> Ct {
    let (s, ct) = encrypt_sk_raw(sk, ctx, m, level);
    check(s);
    ct
}

/// Decrypts to N coefficients, using `lpc` limbs per coefficient.
pub fn decrypt_lpc(
    sk: &SecretKey,
    ctx: &Ctx,
    ct: &Ct,
    lpc: usize,
) -> Result<Vec<BigUint>, helib_status> {
    let mut out = vec![0u64; ctx.n * lpc];
    // SAFETY: `out` has exactly N * lpc limbs; handles are live.
    let s = unsafe { helib_decrypt(sk.0, ct.0, out.as_mut_ptr(), out.len(), lpc) };
    if s == HELIB_OK {
        Ok(poly_from_limbs(&out, lpc))
    } else {
        Err(s)
    }
}

/// Decrypts with the context's plain limbs.
pub fn decrypt(sk: &SecretKey, ctx: &Ctx, ct: &Ct) -> Result<Vec<BigUint>, helib_status> {
    decrypt_lpc(sk, ctx, ct, ctx.plain_limbs())
}

/// Decrypts, panicking on failure.
#[track_caller]
pub fn decrypt_ok(sk: &SecretKey, ctx: &Ctx, ct: &Ct) -> Vec<BigUint> {
    match decrypt(sk, ctx, ct) {
        Ok(v) => v,
        Err(s) => panic!("decrypt failed: {} {:?}", status_name(s), last_error()),
    }
}

/// Exact noise budget with the secret key.
#[track_caller]
pub fn noise_budget(sk: &SecretKey, ct: &Ct) -> f64 {
    // SAFETY: live handles, valid out pointer.
    queried(f64::NAN, |b| unsafe { helib_noise_budget(sk.0, ct.0, b) })
}

/// Index of the first differing coefficient, for readable failures.
#[track_caller]
pub fn assert_poly_eq(got: &[BigUint], want: &[BigUint], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        let wrong = (0..got.len()).filter(|&i| got[i] != want[i]).count();
        panic!(
            "{what}: {wrong} of {} coefficients differ; first at {i}: got {}, want {}",
            got.len(),
            got[i],
            want[i]
        );
    }
}

// ----------------------------------------------------------- key switching

owner!(
    /// Owner of a `helib_relin_key`.
    RelinKey(helib_relin_key) = helib_relin_key_free
);

impl RelinKey {
    #[track_caller]
    pub fn generate(sk: &SecretKey) -> RelinKey {
        // SAFETY: live secret key, valid out pointer.
        RelinKey(made(|out| unsafe { helib_relin_key_generate(sk.0, out) }))
    }

    pub fn size_bytes(&self) -> usize {
        // SAFETY: live key, valid out pointer.
        queried(0, |size| unsafe {
            helib_relin_key_size_bytes(self.0, size)
        })
    }
}

owner!(
    /// Owner of a `helib_galois_keys`.
    GaloisKeys(helib_galois_keys) = helib_galois_keys_free
);

impl GaloisKeys {
    /// An empty key set of `ctx`.
    #[track_caller]
    pub fn empty(ctx: &Ctx) -> GaloisKeys {
        // SAFETY: live context, valid out pointer.
        GaloisKeys(made(|out| unsafe { helib_galois_keys_new(ctx.ptr, out) }))
    }

    /// A key set holding the keys for `elements`.
    #[track_caller]
    pub fn with(ctx: &Ctx, sk: &SecretKey, elements: &[u64]) -> GaloisKeys {
        let keys = GaloisKeys::empty(ctx);
        for &g in elements {
            // SAFETY: live handles.
            check(unsafe { helib_galois_keys_add(keys.0, sk.0, g) });
        }
        keys
    }

    pub fn contains(&self, g: u64) -> bool {
        // SAFETY: live key set, valid out pointer.
        let out = queried(-1, |out| unsafe {
            helib_galois_keys_contains(self.0, g, out)
        });
        assert!(out == 0 || out == 1, "contains wrote {out}");
        out == 1
    }

    /// The elements via the two-call protocol.
    pub fn elements(&self) -> Vec<u64> {
        // SAFETY: live key set; the buffer is NULL (count only) or has room
        // for `len` elements.
        two_call(|buf, len| unsafe { helib_galois_keys_elements(self.0, buf, len) })
    }

    pub fn size_bytes(&self) -> usize {
        // SAFETY: live key set, valid out pointer.
        queried(0, |size| unsafe {
            helib_galois_keys_size_bytes(self.0, size)
        })
    }
}

impl Ctx {
    /// The number of key-switching digits.
    pub fn digits(&self) -> usize {
        // SAFETY: live context, valid out pointer.
        queried(usize::MAX, |d| unsafe {
            helib_context_key_switching_digits(self.ptr, d)
        })
    }

    /// The Galois element rotating the rows by `step`.
    pub fn element_for_step(&self, step: i64) -> u64 {
        // SAFETY: live context, valid out pointer.
        queried(0, |g| unsafe {
            helib_galois_element_for_step(self.ptr, step, g)
        })
    }
}

/// m(X) -> m(X^g) in Z_t[X]/(X^N+1) for odd g (X^N = -1).
pub fn poly_automorphism(m: &[BigUint], g: u64, t: &BigUint) -> Vec<BigUint> {
    let n = m.len() as u64;
    let mut out = vec![BigUint::zero(); m.len()];
    for (i, c) in m.iter().enumerate() {
        let e = (i as u64 * g) % (2 * n);
        if e < n {
            out[e as usize] = c.clone();
        } else {
            out[(e - n) as usize] = (t - c) % t;
        }
    }
    out
}
