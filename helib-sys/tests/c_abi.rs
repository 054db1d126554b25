//! Tests of the C ABI contract in `helib_c.h`: NULL handling, status codes
//! for every kind of invalid argument, the two-call size protocol, context /
//! level / correction-factor mismatches, handle lifetimes, the thread-local
//! error message, and the deterministic prime chain (checked with an
//! independent Miller–Rabin test).

mod common;

use std::ptr::{null, null_mut};

use common::*;
use helib_sys::test_api::*;
use helib_sys::*;
use num_bigint::BigUint;
use num_traits::{One, Zero};

const N: usize = 1024;

fn t65537() -> BigUint {
    BigUint::from(65537u32)
}

/// The small context most tests use: N = 1024, t = 65537, three 61-bit primes.
fn small_ctx() -> Ctx {
    Ctx::new(N as u64, &t65537(), &[61, 61, 61], &[])
}

/// Case-insensitive "the message mentions at least one of these words".
#[track_caller]
fn assert_mentions(msg: &str, words: &[&str]) {
    let lower = msg.to_lowercase();
    assert!(
        words.iter().any(|w| lower.contains(&w.to_lowercase())),
        "error message {msg:?} mentions none of {words:?}"
    );
}

// ------------------------------------------------------------ Miller–Rabin

/// Deterministic Miller–Rabin for n < 3.3 * 10^24 (the first 13 primes as
/// bases), written against num-bigint independently of the engine.
fn is_prime(n: u64) -> bool {
    if n < 2 {
        return false;
    }
    const BASES: [u64; 13] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41];
    for p in BASES {
        if n == p {
            return true;
        }
        if n.checked_rem(p) == Some(0) {
            return false;
        }
    }
    let nb = BigUint::from(n);
    let one = BigUint::one();
    let n_minus_1 = &nb - &one;
    let s = n_minus_1.trailing_zeros().expect("n - 1 > 0");
    let d = &n_minus_1 >> s;
    'bases: for a in BASES {
        let mut x = BigUint::from(a).modpow(&d, &nb);
        if x == one || x == n_minus_1 {
            continue;
        }
        for _ in 1..s {
            x = (&x * &x) % &nb;
            if x == n_minus_1 {
                continue 'bases;
            }
        }
        return false;
    }
    true
}

#[test]
fn miller_rabin_reference_is_sane() {
    let primes = [
        2u64,
        3,
        65537,
        998244353,
        2305843009213693951,
        18446744073709551557,
    ];
    for p in primes {
        assert!(is_prime(p), "{p} is prime");
    }
    // Carmichael numbers, strong pseudoprimes to small bases, squares.
    let composites = [
        1u64,
        4,
        561,
        1105,
        3215031751,
        2152302898747,
        3474749660383,
        341550071728321,
        3825123056546413051,
        65537 * 65537,
        4294967291 * 4294967279,
    ];
    for c in composites {
        assert!(!is_prime(c), "{c} is composite");
    }
}

// ------------------------------------------------------------------ NULLs

/// Runs one call that passes a NULL pointer and checks the status and the
/// message.
macro_rules! null_case {
    ([] $name:expr, $call:expr) => {{
        // SAFETY: the call passes exactly one NULL pointer, which the contract
        // reports as HELIB_ERR_NULL_POINTER instead of dereferencing it; every
        // other pointer is a live handle or a buffer of the documented size.
        let s = unsafe { $call };
        let msg = expect_status(s, HELIB_ERR_NULL_POINTER, $name);
        assert_mentions(&msg, &["null", "pointer"]);
    }};
}

/// `f(a, @b, c, @d)` runs `f` once for each argument marked `@`, with NULL
/// in its place and every other argument as written, as a `null_case!`.
macro_rules! null_each {
    ($($call:tt)*) => {
        for_each_marked!(null_case [] (NullPointer::null_pointer()) $($call)*)
    };
}

/// NULL of the pointer type of the parameter it is passed to.
trait NullPointer {
    fn null_pointer() -> Self;
}

impl<T> NullPointer for *const T {
    fn null_pointer() -> Self {
        null()
    }
}

impl<T> NullPointer for *mut T {
    fn null_pointer() -> Self {
        null_mut()
    }
}

#[test]
fn every_function_reports_null_pointers() {
    let ctx = small_ctx();
    let sk = SecretKey::generate(&ctx);
    let pk = PublicKey::generate(&sk);
    let m = vec![BigUint::from(7u32); 4];
    let ct = encrypt_sk(&sk, &ctx, &m, ctx.max_level());
    let ct1 = encrypt_sk(&sk, &ctx, &m, 1);
    let dst = Ct::empty(&ctx);
    let pt = encode(&ctx, &m, ctx.max_level(), None);
    let coeffs = [1u64, 2, 3, 4];
    let t = [65537u64];
    let chain = [61u32, 61];
    let special = [61u32];
    let ring_in = vec![1u64; N];
    let mut ring_out = vec![0u64; 3 * N];
    let mut dec = vec![0u64; N];
    let mut ctx_out: *mut helib_context = null_mut();
    let mut sk_out: *mut helib_secret_key = null_mut();
    let mut pk_out: *mut helib_public_key = null_mut();
    let mut pt_out: *mut helib_encoded_plaintext = null_mut();
    let mut ct_out: *mut helib_ciphertext = null_mut();
    let mut u64_out = 0u64;
    let mut usize_out = 0usize;
    let mut u32_out = 0u32;
    let mut f64_out = 0f64;
    let mut limb_out = [0u64; 2];

    // Each call below runs once for each argument marked `@`, with NULL in
    // its place (a NULL buffer under the two-call protocol and a NULL factor
    // are allowed, so they are not marked).

    // context
    null_each!(helib_context_new(
        1024,
        @t.as_ptr(),
        1,
        @chain.as_ptr(),
        2,
        @special.as_ptr(),
        1,
        1,
        HELIB_CONTEXT_ALLOW_INSECURE,
        @&mut ctx_out
    ));
    assert!(
        ctx_out.is_null(),
        "a failed context_new must not write *out"
    );
    null_each!(helib_context_ring_degree(@ctx.ptr, @&mut u64_out));
    null_each!(helib_context_max_level(@ctx.ptr, @&mut usize_out));
    null_each!(helib_context_plain_limbs(@ctx.ptr, @&mut usize_out));
    null_each!(helib_context_chain_primes(@ctx.ptr, null_mut(), @&mut usize_out));
    null_each!(helib_context_chain_primes(ctx.ptr, limb_out.as_mut_ptr(), @&mut usize_out));
    null_each!(helib_context_special_primes(@ctx.ptr, null_mut(), @&mut usize_out));
    null_each!(helib_context_log2_modulus(@ctx.ptr, 0, @&mut f64_out));
    null_each!(helib_context_log2_special_modulus(@ctx.ptr, @&mut f64_out));
    null_each!(helib_context_correction_factor(@ctx.ptr, 0, @limb_out.as_mut_ptr(), 2));
    null_each!(helib_context_threads(@ctx.ptr, @&mut u32_out));
    null_each!(helib_buffer_pool_limit(@&mut u64_out));
    null_each!(helib_context_set_threads(@ctx.ptr, 1));

    // keys
    null_each!(helib_secret_key_generate(@ctx.ptr, @&mut sk_out));
    null_each!(helib_public_key_generate(@sk.0, @&mut pk_out));

    // encoded plaintext
    null_each!(helib_encoded_plaintext_new(@ctx.ptr, @coeffs.as_ptr(), 4, 1, 0, null(), 0, @&mut pt_out));
    null_each!(helib_encoded_plaintext_new_public(
        @ctx.ptr, @coeffs.as_ptr(), 4, 1, 0, null(), 0, 0, @&mut pt_out
    ));
    null_each!(helib_encoded_plaintext_new_public(
        ctx.ptr, @coeffs.as_ptr(), 4, 1, 0, null(), 0, 1, &mut pt_out
    ));
    null_each!(helib_encoded_plaintext_level(@pt.0, @&mut usize_out));
    null_each!(helib_encoded_plaintext_stride(@pt.0, @&mut usize_out));

    // ciphertext
    null_each!(helib_ciphertext_new(@ctx.ptr, @&mut ct_out));
    null_each!(helib_ciphertext_copy(@ct.0, @dst.0));
    null_each!(helib_ciphertext_level(@ct.0, @&mut usize_out));
    null_each!(helib_ciphertext_size(@ct.0, @&mut usize_out));
    null_each!(helib_ciphertext_correction_factor(@ct.0, @limb_out.as_mut_ptr(), 2));
    null_each!(helib_ciphertext_noise_estimate(@ct.0, @&mut f64_out));
    null_each!(helib_ciphertext_estimated_budget(@ct.0, @&mut f64_out));
    null_each!(helib_encrypt_public(@pk.0, @coeffs.as_ptr(), 4, 1, 0, @dst.0));
    null_each!(helib_encrypt_secret(@sk.0, @coeffs.as_ptr(), 4, 1, 0, @dst.0));
    null_each!(helib_decrypt(@sk.0, @ct.0, @dec.as_mut_ptr(), dec.len(), 1));
    null_each!(helib_noise_budget(@sk.0, @ct.0, @&mut f64_out));

    // evaluator
    null_each!(helib_ciphertext_add(@ct.0, @ct.0, @dst.0));
    null_each!(helib_ciphertext_sub(@ct.0, @ct.0, @dst.0));
    null_each!(helib_ciphertext_negate(@ct.0, @dst.0));
    null_each!(helib_ciphertext_add_plain(@ct.0, @pt.0, @dst.0));
    null_each!(helib_ciphertext_sub_plain(@ct.0, @pt.0, @dst.0));
    null_each!(helib_ciphertext_mul_plain(@ct.0, @pt.0, @dst.0));
    null_each!(helib_ciphertext_mul_scalar(@ct.0, @coeffs.as_ptr(), 1, @dst.0));
    null_each!(helib_ciphertext_mod_switch(@ct.0, @dst.0));
    null_each!(helib_ciphertext_mod_switch_to(@ct1.0, 0, @dst.0));
    null_each!(helib_ciphertext_mod_switch_reduce_noise(@ct.0, @dst.0));

    // residue rows
    let mut row_out: *const u64 = null();
    let mut row_mut_out: *mut u64 = null_mut();
    null_each!(helib_ciphertext_residue_row(@ct.0, 0, 0, @&mut row_out));
    null_each!(helib_ciphertext_residue_row_mut(@ct.0, 0, 0, @&mut row_mut_out));
    let one = [1u64];
    null_each!(helib_ciphertext_zeros(@ctx.ptr, 0, 2, @one.as_ptr(), 1, 0.0, @dst.0));
    null_each!(helib_ciphertext_unwritten(@ctx.ptr, 0, 2, @one.as_ptr(), 1, 0.0, @dst.0));
    let row = [0u64; 8];
    let mut out_words = [0u64; 3 * 8];
    let rows = [row.as_ptr(); 2];
    let out_rows: Vec<*mut u64> = out_words.chunks_mut(8).map(<[u64]>::as_mut_ptr).collect();
    null_each!(helib_context_convolve_rows(
        @ctx.ptr, 0, 8, @rows.as_ptr(), 1, 2, @rows.as_ptr(), 1, 2, 0, 0, @out_rows.as_ptr(), 1
    ));
    for (name, a, out) in [
        (
            "a NULL operand row",
            [row.as_ptr(), null()],
            out_rows.clone(),
        ),
        (
            "a NULL output row",
            rows,
            vec![out_rows[0], null_mut(), out_rows[2]],
        ),
    ] {
        // SAFETY: every list holds the rows its counts name, each of 8
        // words or NULL; the call refuses a NULL row before reading any.
        let s = unsafe {
            helib_context_convolve_rows(
                ctx.ptr,
                0,
                8,
                a.as_ptr(),
                1,
                2,
                rows.as_ptr(),
                1,
                2,
                0,
                0,
                out.as_ptr(),
                1,
            )
        };
        let msg = expect_status(s, HELIB_ERR_NULL_POINTER, name);
        assert_mentions(&msg, &["null"]);
    }
    assert!(out_words.iter().all(|&w| w == 0), "nothing written");

    // ring
    null_each!(helib_ring_to_rns(@ctx.ptr, 0, @ring_in.as_ptr(), 1, @ring_out.as_mut_ptr(), N));
    null_each!(helib_ring_from_rns(@ctx.ptr, 0, @ring_in.as_ptr(), N, @ring_out.as_mut_ptr(), 1));
    null_each!(helib_ring_multiply_mod_prime(
        @ctx.ptr,
        0,
        @ring_in.as_ptr(),
        @ring_in.as_ptr(),
        @ring_out.as_mut_ptr()
    ));

    // Nothing was allocated by the failed constructors.
    assert!(ctx_out.is_null() && sk_out.is_null() && pk_out.is_null());
    assert!(pt_out.is_null() && ct_out.is_null());
    // The handles used above are still intact.
    assert_poly_eq(&decrypt_ok(&sk, &ctx, &ct)[..4], &m, "ct after NULL calls");
}

#[test]
fn null_special_bits_with_zero_length_is_accepted() {
    let t = [65537u64];
    let chain = [61u32];
    let mut out: *mut helib_context = null_mut();
    // SAFETY: special_bits is NULL with special_len 0 ("may be 0 of them");
    // the other pointers are live.
    let s = unsafe {
        helib_context_new(
            1024,
            t.as_ptr(),
            1,
            chain.as_ptr(),
            1,
            null(),
            0,
            1,
            HELIB_CONTEXT_ALLOW_INSECURE,
            &mut out,
        )
    };
    check(s);
    assert!(!out.is_null());
    // SAFETY: `out` is a live context, freed once.
    unsafe { helib_context_free(out) };
}

#[test]
fn free_null_is_a_noop() {
    // SAFETY: the header says every *_free accepts NULL.
    unsafe {
        helib_context_free(null_mut());
        helib_secret_key_free(null_mut());
        helib_public_key_free(null_mut());
        helib_encoded_plaintext_free(null_mut());
        helib_ciphertext_free(null_mut());
    }
}

// ---------------------------------------------------------- error message

#[test]
fn error_message_is_thread_local_and_describes_the_failure() {
    // A brand-new thread has no failure yet: "".
    let fresh = std::thread::spawn(last_error).join().unwrap();
    assert_eq!(fresh, "", "a new thread must start with an empty message");

    let (s, _) = context_new_raw(1000, &[65537], &[61], &[], 1);
    let msg = expect_status(s, HELIB_ERR_INVALID_ARGUMENT, "ring degree 1000");
    assert_mentions(&msg, &["degree", "1000", "power"]);

    // A failure on another thread leaves this thread's message alone.
    let other = std::thread::spawn(|| {
        let (s, _) = context_new_raw(1024, &[65537], &[29], &[], 1);
        assert_eq!(s, HELIB_ERR_INVALID_ARGUMENT);
        last_error()
    })
    .join()
    .unwrap();
    assert!(!other.is_empty());
    assert_eq!(
        last_error(),
        msg,
        "message changed by another thread's failure"
    );
}

// ------------------------------------------------------- context arguments

#[test]
fn ring_degree_must_be_a_power_of_two_in_range() {
    for n in [
        0u64,
        1,
        512,
        1000,
        1023,
        1025,
        3072,
        6144,
        1 << 18,
        1 << 20,
        u64::MAX,
    ] {
        let (s, out) = context_new_raw(n, &[65537], &[61], &[], 1);
        let msg = expect_status(s, HELIB_ERR_INVALID_ARGUMENT, &format!("ring degree {n}"));
        assert_mentions(&msg, &["degree", "power", "ring", &n.to_string()]);
        assert!(out.is_null());
    }
    for n in [1u64 << 10, 1 << 11, 1 << 17] {
        let ctx = Ctx::new(n, &t65537(), &[40], &[]);
        let mut got = 0u64;
        // SAFETY: live context, valid out pointer.
        check(unsafe { helib_context_ring_degree(ctx.ptr, &mut got) });
        assert_eq!(got, n);
    }
}

#[test]
fn plaintext_modulus_zero_and_one_are_rejected() {
    for t in [vec![0u64], vec![1], vec![0, 0], vec![1, 0, 0], vec![]] {
        let (s, out) = context_new_raw(1024, &t, &[61], &[], 1);
        expect_status(s, HELIB_ERR_INVALID_ARGUMENT, &format!("t limbs {t:?}"));
        assert!(out.is_null());
    }
}

#[test]
fn even_and_composite_t_coprime_to_the_chain_are_valid() {
    // The chain primes are odd, so any even t is coprime to them.
    for t in [
        BigUint::from(2u32),
        BigUint::from(4u32),
        BigUint::from(256u32),
        BigUint::from(1u64 << 40),
        BigUint::from(3u32 * 5 * 7 * 11),
        BigUint::from(u64::MAX), // 3 * 5 * 17 * 257 * 641 * 65537 * 6700417
        (BigUint::one() << 200u32) + 2u32,
    ] {
        let ctx = Ctx::new(1024, &t, &[61; 8], &[]);
        assert_eq!(
            ctx.plain_limbs(),
            limbs_for_below(&t),
            "plain limbs for t = {t}"
        );
        for q in ctx.primes() {
            assert!(
                num_integer_gcd(&BigUint::from(q), &t).is_one(),
                "prime {q} shares a factor with t = {t}"
            );
        }
        // It really works: encrypt, add, multiply, switch, decrypt.
        let sk = SecretKey::generate(&ctx);
        let pk = PublicKey::generate(&sk);
        let mut r = rng(11);
        let m = rand_poly(&mut r, N, &t);
        let p = rand_poly(&mut r, N, &t);
        let what = format!("t = {t}");
        let ct = encrypt_pk(&pk, &ctx, &m, 7);
        let dst = Ct::empty(&ctx);
        // SAFETY: live handles; dst is a valid destination.
        check(unsafe { helib_ciphertext_add(ct.0, ct.0, dst.0) });
        let m2 = poly_add(&m, &m, &t);
        assert_poly_eq(&decrypt_ok(&sk, &ctx, &dst), &m2, &what);
        let pt = encode(&ctx, &p, 7, None);
        // SAFETY: live handles, aliased dst.
        check(unsafe { helib_ciphertext_mul_plain(dst.0, pt.0, dst.0) });
        let prod = poly_mul(&p, &m2, &t);
        assert_poly_eq(
            &decrypt_ok(&sk, &ctx, &dst),
            &prod,
            &format!("{what}: mul_plain"),
        );
        // SAFETY: live handles, aliased dst.
        check(unsafe { helib_ciphertext_mod_switch_to(dst.0, 5, dst.0) });
        assert_eq!(dst.factor(&ctx), ctx.model_factor(5), "{what}: factor");
        assert_poly_eq(
            &decrypt_ok(&sk, &ctx, &dst),
            &prod,
            &format!("{what}: switched"),
        );
    }
}

fn num_integer_gcd(a: &BigUint, b: &BigUint) -> BigUint {
    let (mut a, mut b) = (a.clone(), b.clone());
    while !b.is_zero() {
        let r = &a % &b;
        a = b;
        b = r;
    }
    a
}

#[test]
fn t_sharing_a_factor_with_a_chain_prime_is_rejected() {
    // Learn the primes the chain [40, 40] gets, then ask for a t that one of
    // them divides. Either the engine rejects it, or (since the primes may
    // depend on t) it picks primes coprime to t; it must never accept a t
    // that a chain prime divides.
    let probe = Ctx::new(1024, &t65537(), &[40, 40], &[50]);
    let primes = probe.primes();
    let special = probe.special_primes();
    for t in [
        BigUint::from(primes[0]),
        BigUint::from(primes[1]) * 2u32,
        BigUint::from(primes[0]) * BigUint::from(primes[1]),
        BigUint::from(special[0]) * 3u32,
    ] {
        match Ctx::try_new(1024, &t, &[40, 40], &[50]) {
            Err((s, msg)) => {
                assert_eq!(
                    s,
                    HELIB_ERR_INVALID_ARGUMENT,
                    "t = {t}: {} {msg:?}",
                    status_name(s)
                );
                assert!(!msg.is_empty());
            }
            Ok(ctx) => {
                for q in ctx.primes().into_iter().chain(ctx.special_primes()) {
                    assert!(
                        num_integer_gcd(&BigUint::from(q), &t).is_one(),
                        "context accepted t = {t} although prime {q} divides it"
                    );
                }
            }
        }
    }
}

#[test]
fn chain_and_special_bit_sizes_are_checked() {
    for bits in [0u32, 1, 29, 62, 63, 64, 100] {
        let (s, out) = context_new_raw(1024, &[65537], &[61, bits], &[], 1);
        let msg = expect_status(s, HELIB_ERR_INVALID_ARGUMENT, &format!("chain bit {bits}"));
        assert_mentions(&msg, &["bit", &bits.to_string()]);
        assert!(out.is_null());
        let (s, out) = context_new_raw(1024, &[65537], &[61], &[bits], 1);
        expect_status(
            s,
            HELIB_ERR_INVALID_ARGUMENT,
            &format!("special bit {bits}"),
        );
        assert!(out.is_null());
    }
    // Empty chain.
    let (s, out) = context_new_raw(1024, &[65537], &[], &[], 1);
    expect_status(s, HELIB_ERR_INVALID_ARGUMENT, "empty chain");
    assert!(out.is_null());
    // The boundaries themselves are valid.
    let ctx = Ctx::new(1024, &t65537(), &[30, 61], &[30, 61]);
    assert_eq!(ctx.max_level(), 1);
}

// ------------------------------------------------------------------ levels

#[test]
fn levels_above_the_top_are_rejected() {
    let ctx = small_ctx();
    let top = ctx.max_level();
    assert_eq!(top, 2);
    let sk = SecretKey::generate(&ctx);
    let pk = PublicKey::generate(&sk);
    let m = vec![BigUint::from(5u32); 3];
    let mut f = 0f64;
    let mut fac = [0u64; 1];
    let buf_in = vec![0u64; N * 16];
    let mut buf_out = vec![0u64; N * 16];
    for level in [top + 1, top + 7, usize::MAX] {
        let what = |op: &str| format!("{op} at level {level}");
        let (s, _) = encrypt_pk_raw(&pk, &ctx, &m, level);
        let msg = expect_status(s, HELIB_ERR_INVALID_LEVEL, &what("encrypt_public"));
        assert_mentions(&msg, &["level"]);
        let (s, _) = encrypt_sk_raw(&sk, &ctx, &m, level);
        expect_status(s, HELIB_ERR_INVALID_LEVEL, &what("encrypt_secret"));
        let (s, _) = encode_raw(&ctx, &m, 1, level, None);
        expect_status(s, HELIB_ERR_INVALID_LEVEL, &what("encoded_plaintext_new"));
        // SAFETY: live context, valid out pointer.
        let s = unsafe { helib_context_log2_modulus(ctx.ptr, level, &mut f) };
        expect_status(s, HELIB_ERR_INVALID_LEVEL, &what("log2_modulus"));
        // SAFETY: live context, `fac` has one limb (= plain limbs).
        let s = unsafe { helib_context_correction_factor(ctx.ptr, level, fac.as_mut_ptr(), 1) };
        expect_status(
            s,
            HELIB_ERR_INVALID_LEVEL,
            &what("context_correction_factor"),
        );
        // SAFETY: the buffers are N * 16 limbs, more than levels <= 9 need;
        // the residue length passed is the real buffer length.
        let s = unsafe {
            helib_ring_to_rns(
                ctx.ptr,
                level,
                buf_in.as_ptr(),
                1,
                buf_out.as_mut_ptr(),
                buf_out.len(),
            )
        };
        expect_status(s, HELIB_ERR_INVALID_LEVEL, &what("ring_to_rns"));
        // SAFETY: as above; the output has room for N coefficients of 8 limbs.
        let s = unsafe {
            helib_ring_from_rns(
                ctx.ptr,
                level,
                buf_in.as_ptr(),
                buf_in.len(),
                buf_out.as_mut_ptr(),
                8,
            )
        };
        expect_status(s, HELIB_ERR_INVALID_LEVEL, &what("ring_from_rns"));
        // SAFETY: N-limb inputs and output.
        let s = unsafe {
            helib_ring_multiply_mod_prime(
                ctx.ptr,
                level,
                buf_in.as_ptr(),
                buf_in.as_ptr(),
                buf_out.as_mut_ptr(),
            )
        };
        expect_one_of(
            s,
            &[HELIB_ERR_INVALID_ARGUMENT, HELIB_ERR_INVALID_LEVEL],
            &what("ring_multiply_mod_prime (prime index)"),
        );
    }

    // mod_switch_to a level above the ciphertext's own.
    let ct = encrypt_sk(&sk, &ctx, &m, 1);
    let dst = Ct::empty(&ctx);
    for level in [2usize, 3, usize::MAX] {
        // SAFETY: live handles.
        let s = unsafe { helib_ciphertext_mod_switch_to(ct.0, level, dst.0) };
        expect_status(
            s,
            HELIB_ERR_INVALID_LEVEL,
            &format!("mod_switch_to {level} from 1"),
        );
    }
    // mod_switch_to its own level is a copy.
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_mod_switch_to(ct.0, 1, dst.0) });
    assert_eq!(dst.level(), 1);
    assert_poly_eq(
        &decrypt_ok(&sk, &ctx, &dst)[..3],
        &m,
        "mod_switch_to same level",
    );
}

#[test]
fn mod_switch_at_level_zero_is_rejected() {
    let ctx = small_ctx();
    let sk = SecretKey::generate(&ctx);
    let m = vec![BigUint::from(9u32)];
    let ct = encrypt_sk(&sk, &ctx, &m, 0);
    let dst = Ct::empty(&ctx);
    // SAFETY: live handles.
    let s = unsafe { helib_ciphertext_mod_switch(ct.0, dst.0) };
    let msg = expect_status(s, HELIB_ERR_INVALID_LEVEL, "mod_switch at level 0");
    assert_mentions(&msg, &["level"]);
    // In place, too; the ciphertext must survive the refusal.
    let ct2 = ct.dup(&ctx);
    // SAFETY: live handle used as input and destination (aliasing is allowed).
    let s = unsafe { helib_ciphertext_mod_switch(ct2.0, ct2.0) };
    expect_status(s, HELIB_ERR_INVALID_LEVEL, "in-place mod_switch at level 0");
    assert_eq!(ct2.level(), 0);
    assert_eq!(decrypt_ok(&sk, &ctx, &ct2)[0], m[0]);
    // The noise-reducing switch never goes below 0: it succeeds and stays.
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_mod_switch_reduce_noise(ct.0, dst.0) });
    assert_eq!(dst.level(), 0);
    assert_eq!(decrypt_ok(&sk, &ctx, &dst)[0], m[0]);
}

// ----------------------------------------------------- plaintext arguments

#[test]
fn coefficients_must_be_below_t_and_fit_the_ring() {
    let ctx = small_ctx();
    let sk = SecretKey::generate(&ctx);
    let pk = PublicKey::generate(&sk);
    let t = t65537();
    let bad_sets: Vec<(String, Vec<BigUint>)> = vec![
        ("first = t".into(), vec![t.clone(), BigUint::zero()]),
        ("last = t".into(), {
            let mut v = vec![BigUint::one(); N];
            v[N - 1] = t.clone();
            v
        }),
        ("coefficient 2^64 - 1".into(), vec![BigUint::from(u64::MAX)]),
    ];
    for (name, m) in &bad_sets {
        let (s, _) = encrypt_pk_raw(&pk, &ctx, m, 0);
        expect_status(
            s,
            HELIB_ERR_INVALID_ARGUMENT,
            &format!("encrypt_public {name}"),
        );
        let (s, _) = encrypt_sk_raw(&sk, &ctx, m, 0);
        expect_status(
            s,
            HELIB_ERR_INVALID_ARGUMENT,
            &format!("encrypt_secret {name}"),
        );
        let (s, _) = encode_raw(&ctx, m, 1, 0, None);
        expect_status(s, HELIB_ERR_INVALID_ARGUMENT, &format!("encode {name}"));
    }
    // A high limb that is nonzero makes the coefficient >= 2^64 > t.
    let two_limbs = [1u64, 1];
    let dst = Ct::empty(&ctx);
    // SAFETY: one coefficient of two limbs; live handles.
    let s = unsafe { helib_encrypt_secret(sk.0, two_limbs.as_ptr(), 1, 2, 0, dst.0) };
    expect_status(
        s,
        HELIB_ERR_INVALID_ARGUMENT,
        "coefficient 2^64 + 1 (two limbs)",
    );

    // n_coeffs > N.
    let too_many = vec![BigUint::one(); N + 1];
    let (s, _) = encrypt_pk_raw(&pk, &ctx, &too_many, 0);
    expect_status(
        s,
        HELIB_ERR_INVALID_ARGUMENT,
        "encrypt_public N + 1 coefficients",
    );
    let (s, _) = encrypt_sk_raw(&sk, &ctx, &too_many, 0);
    expect_status(
        s,
        HELIB_ERR_INVALID_ARGUMENT,
        "encrypt_secret N + 1 coefficients",
    );
    let (s, _) = encode_raw(&ctx, &too_many, 1, 0, None);
    expect_status(s, HELIB_ERR_INVALID_ARGUMENT, "encode N + 1 coefficients");

    // limbs_per_coeff = 0.
    let limbs = [1u64; 4];
    // SAFETY: the buffer is large enough for any interpretation; live handles.
    let s = unsafe { helib_encrypt_secret(sk.0, limbs.as_ptr(), 4, 0, 0, dst.0) };
    expect_status(
        s,
        HELIB_ERR_INVALID_ARGUMENT,
        "encrypt_secret limbs_per_coeff 0",
    );
    let (s, _) = encode_raw(&ctx, &[], 0, 0, None);
    expect_one_of(
        s,
        &[HELIB_ERR_INVALID_ARGUMENT, HELIB_ERR_NULL_POINTER],
        "encode limbs_per_coeff 0",
    );

    // Exactly N coefficients, t - 1 everywhere, and extra zero limbs are fine.
    let full = vec![&t - 1u32; N];
    let (s, ct) = encrypt_sk_raw(&sk, &ctx, &full, 0);
    check(s);
    assert_poly_eq(&decrypt_ok(&sk, &ctx, &ct), &full, "N coefficients t - 1");
    let wide = poly_to_limbs(&full, 3);
    // SAFETY: N coefficients of 3 limbs; live handles.
    check(unsafe { helib_encrypt_public(pk.0, wide.as_ptr(), N, 3, 1, dst.0) });
    assert_poly_eq(
        &decrypt_ok(&sk, &ctx, &dst),
        &full,
        "3 limbs per coefficient",
    );
}

#[test]
fn plaintext_factor_must_be_nonzero_mod_t() {
    let ctx = small_ctx();
    let p = vec![BigUint::one()];
    for f in [BigUint::zero(), t65537(), t65537() * 5u32] {
        let (s, pt) = encode_raw(&ctx, &p, 1, 0, Some(&f));
        // A zero factor (as limbs it may be empty, i.e. factor_nlimbs = 0).
        expect_one_of(
            s,
            &[HELIB_ERR_INVALID_ARGUMENT, HELIB_ERR_NULL_POINTER],
            &format!("factor {f}"),
        );
        assert!(pt.0.is_null());
    }
    let zero_limb = [0u64];
    let mut out = null_mut();
    let one = [1u64];
    // SAFETY: one coefficient of one limb, factor of one limb (zero).
    let s = unsafe {
        helib_encoded_plaintext_new(
            ctx.ptr,
            one.as_ptr(),
            1,
            1,
            0,
            zero_limb.as_ptr(),
            1,
            &mut out,
        )
    };
    expect_status(s, HELIB_ERR_INVALID_ARGUMENT, "explicit zero factor limb");
    assert!(out.is_null());
}

// -------------------------------------------------------- buffer sizes

#[test]
fn two_call_protocol_and_small_buffers() {
    let ctx = Ctx::new(1024, &bn254_r(), &[61, 61, 61, 61, 50], &[61, 55]);
    let mut len = 0usize;
    // SAFETY: NULL buffer asks for the count.
    check(unsafe { helib_context_chain_primes(ctx.ptr, null_mut(), &mut len) });
    assert_eq!(len, 5);
    let mut buf = vec![0xdeadu64; 7];
    let mut small = 4usize;
    // SAFETY: `buf` has at least `small` entries.
    let s = unsafe { helib_context_chain_primes(ctx.ptr, buf.as_mut_ptr(), &mut small) };
    let msg = expect_status(s, HELIB_ERR_BUFFER_TOO_SMALL, "chain_primes, room for 4");
    // The needed size is reported in the message; a failed call leaves its
    // arguments (here *len, the capacity going in, and buf) unchanged.
    assert_eq!(small, 4, "*len changed by a failed call");
    assert!(
        buf.iter().all(|&x| x == 0xdead),
        "buf written by a failed call"
    );
    assert_mentions(&msg, &["5"]);
    let mut exact = 5usize;
    // SAFETY: `buf` has 7 >= 5 entries.
    check(unsafe { helib_context_chain_primes(ctx.ptr, buf.as_mut_ptr(), &mut exact) });
    assert_eq!(exact, 5);
    let primes = buf[..5].to_vec();
    assert_eq!(primes, ctx.primes());
    let mut big = 7usize;
    buf.iter_mut().for_each(|x| *x = 0xdead);
    // SAFETY: `buf` has 7 entries.
    check(unsafe { helib_context_chain_primes(ctx.ptr, buf.as_mut_ptr(), &mut big) });
    assert_eq!(&buf[..5], &primes[..]);
    assert_eq!(big, 5, "*len must be set to the number of primes written");
    assert_eq!(&buf[5..], &[0xdead, 0xdead], "wrote past the primes");

    let mut slen = 0usize;
    // SAFETY: NULL buffer asks for the count.
    check(unsafe { helib_context_special_primes(ctx.ptr, null_mut(), &mut slen) });
    assert_eq!(slen, 2);
    let mut one = 1usize;
    // SAFETY: `buf` has room for one entry.
    let s = unsafe { helib_context_special_primes(ctx.ptr, buf.as_mut_ptr(), &mut one) };
    expect_status(
        s,
        HELIB_ERR_BUFFER_TOO_SMALL,
        "special_primes with room for 1",
    );
    assert_eq!(one, 1, "*len changed by a failed call");
    let mut zero = 0usize;
    // SAFETY: a zero-length buffer; nothing may be written.
    let s = unsafe { helib_context_special_primes(ctx.ptr, buf.as_mut_ptr(), &mut zero) };
    expect_status(
        s,
        HELIB_ERR_BUFFER_TOO_SMALL,
        "special_primes with room for 0",
    );
    assert_eq!(zero, 0, "*len changed by a failed call");

    // No special primes: count 0, and any buffer is big enough.
    let ctx0 = small_ctx();
    let mut n0 = 9usize;
    // SAFETY: NULL buffer asks for the count.
    check(unsafe { helib_context_special_primes(ctx0.ptr, null_mut(), &mut n0) });
    assert_eq!(n0, 0);
    assert!(ctx0.special_primes().is_empty());
    let mut l2 = f64::NAN;
    // SAFETY: live context, valid out pointer.
    check(unsafe { helib_context_log2_special_modulus(ctx0.ptr, &mut l2) });
    assert_eq!(l2, 0.0);

    // Correction factors need plain_limbs limbs (4 for BN254).
    assert_eq!(ctx.plain_limbs(), 4);
    let mut fac = [u64::MAX; 6];
    // SAFETY: `fac` has 6 entries, we claim 3.
    let s = unsafe { helib_context_correction_factor(ctx.ptr, 0, fac.as_mut_ptr(), 3) };
    expect_status(
        s,
        HELIB_ERR_BUFFER_TOO_SMALL,
        "context_correction_factor 3 limbs",
    );
    // SAFETY: `fac` has 6 entries.
    check(unsafe { helib_context_correction_factor(ctx.ptr, 0, fac.as_mut_ptr(), 6) });
    assert_eq!(
        big_from_limbs(&fac),
        ctx.model_factor(0),
        "factor in a 6-limb buffer"
    );

    let sk = SecretKey::generate(&ctx);
    let m = vec![BigUint::from(3u32)];
    let ct = encrypt_sk(&sk, &ctx, &m, 4);
    // SAFETY: `fac` has 6 entries, we claim 3.
    let s = unsafe { helib_ciphertext_correction_factor(ct.0, fac.as_mut_ptr(), 3) };
    expect_status(
        s,
        HELIB_ERR_BUFFER_TOO_SMALL,
        "ciphertext_correction_factor 3 limbs",
    );

    // Decryption output: N * limbs_per_coeff limbs.
    let mut out = vec![0u64; N * 5];
    // SAFETY: `out` is larger than the length we claim.
    let s = unsafe { helib_decrypt(sk.0, ct.0, out.as_mut_ptr(), N * 4 - 1, 4) };
    let msg = expect_status(s, HELIB_ERR_BUFFER_TOO_SMALL, "decrypt into N*4-1 limbs");
    assert_mentions(
        &msg,
        &["buffer", "small", "size", "need", &(N * 4).to_string()],
    );
    // SAFETY: `out` has N * 5 limbs; limbs_per_coeff 3 is below plain limbs.
    let s = unsafe { helib_decrypt(sk.0, ct.0, out.as_mut_ptr(), N * 3, 3) };
    expect_one_of(
        s,
        &[HELIB_ERR_INVALID_ARGUMENT, HELIB_ERR_BUFFER_TOO_SMALL],
        "decrypt with 3 limbs per BN254 coefficient",
    );
    // SAFETY: `out` has N * 5 limbs.
    let s = unsafe { helib_decrypt(sk.0, ct.0, out.as_mut_ptr(), N * 5, 0) };
    expect_one_of(
        s,
        &[HELIB_ERR_INVALID_ARGUMENT, HELIB_ERR_BUFFER_TOO_SMALL],
        "decrypt with 0 limbs per coefficient",
    );
    // SAFETY: `out` has exactly N * 5 limbs.
    check(unsafe { helib_decrypt(sk.0, ct.0, out.as_mut_ptr(), N * 5, 5) });
    assert_eq!(big_from_limbs(&out[..5]), m[0]);
    assert!(out[5..].iter().all(|&x| x == 0));

    // Ring conversions: (level + 1) * N residues.
    let level = 2usize;
    let coeffs = vec![1u64; N];
    let mut res = vec![0u64; 3 * N];
    // SAFETY: `res` has 3N entries, we claim one fewer.
    let s = unsafe {
        helib_ring_to_rns(
            ctx.ptr,
            level,
            coeffs.as_ptr(),
            1,
            res.as_mut_ptr(),
            3 * N - 1,
        )
    };
    expect_status(s, HELIB_ERR_BUFFER_TOO_SMALL, "ring_to_rns residues 3N-1");
    // SAFETY: `res` has 3N entries.
    check(unsafe {
        helib_ring_to_rns(ctx.ptr, level, coeffs.as_ptr(), 1, res.as_mut_ptr(), 3 * N)
    });
    let mut back = vec![0u64; N * 4];
    // SAFETY: `res` has 3N entries, we claim one fewer; `back` has N*4 limbs.
    let s = unsafe {
        helib_ring_from_rns(
            ctx.ptr,
            level,
            res.as_ptr(),
            3 * N - 1,
            back.as_mut_ptr(),
            4,
        )
    };
    expect_one_of(
        s,
        &[HELIB_ERR_BUFFER_TOO_SMALL, HELIB_ERR_INVALID_ARGUMENT],
        "ring_from_rns residues 3N-1",
    );
    // Q_2 has 183 bits: two limbs per coefficient are not enough.
    // SAFETY: `back` has N*4 limbs, more than N*2.
    let s =
        unsafe { helib_ring_from_rns(ctx.ptr, level, res.as_ptr(), 3 * N, back.as_mut_ptr(), 2) };
    expect_one_of(
        s,
        &[HELIB_ERR_BUFFER_TOO_SMALL, HELIB_ERR_INVALID_ARGUMENT],
        "ring_from_rns with 2 limbs for a 183-bit Q",
    );
    // SAFETY: `back` has N*4 limbs, N*3 are used.
    check(unsafe {
        helib_ring_from_rns(ctx.ptr, level, res.as_ptr(), 3 * N, back.as_mut_ptr(), 3)
    });
    assert!(back[..3 * N].chunks(3).all(|c| c == [1, 0, 0]));
}

// ------------------------------------------------------------ mismatches

#[test]
fn objects_from_different_contexts_are_not_combined() {
    let a = small_ctx();
    let b = small_ctx(); // same arguments, still a different context
    let c = Ctx::new(1024, &BigUint::from(257u32), &[61, 61, 61], &[]);
    let ska = SecretKey::generate(&a);
    let m = vec![BigUint::from(2u32)];
    let cta = encrypt_sk(&ska, &a, &m, 2);
    let dst = Ct::empty(&a);
    for (name, other) in [("same arguments", &b), ("other t", &c)] {
        let skb = SecretKey::generate(other);
        let ctb = encrypt_sk(&skb, other, &m, 2);
        let ptb = encode(other, &m, 2, None);
        let what = |op: &str| format!("{op} across contexts ({name})");
        // SAFETY: all handles are live; only their contexts differ.
        let s = unsafe { helib_ciphertext_add(cta.0, ctb.0, dst.0) };
        let msg = expect_status(s, HELIB_ERR_CONTEXT_MISMATCH, &what("add"));
        assert_mentions(&msg, &["context"]);
        // SAFETY: as above.
        let s = unsafe { helib_ciphertext_sub(ctb.0, cta.0, dst.0) };
        expect_status(s, HELIB_ERR_CONTEXT_MISMATCH, &what("sub"));
        // SAFETY: as above.
        let s = unsafe { helib_ciphertext_add_plain(cta.0, ptb.0, dst.0) };
        expect_status(s, HELIB_ERR_CONTEXT_MISMATCH, &what("add_plain"));
        // SAFETY: as above.
        let s = unsafe { helib_ciphertext_sub_plain(cta.0, ptb.0, dst.0) };
        expect_status(s, HELIB_ERR_CONTEXT_MISMATCH, &what("sub_plain"));
        // SAFETY: as above.
        let s = unsafe { helib_ciphertext_mul_plain(cta.0, ptb.0, dst.0) };
        expect_status(s, HELIB_ERR_CONTEXT_MISMATCH, &what("mul_plain"));
        let mut out = vec![0u64; N];
        // SAFETY: `out` has N limbs; handles live.
        let s = unsafe { helib_decrypt(skb.0, cta.0, out.as_mut_ptr(), N, 1) };
        expect_status(s, HELIB_ERR_CONTEXT_MISMATCH, &what("decrypt"));
        let mut f = 0f64;
        // SAFETY: handles live, valid out pointer.
        let s = unsafe { helib_noise_budget(skb.0, cta.0, &mut f) };
        expect_status(s, HELIB_ERR_CONTEXT_MISMATCH, &what("noise_budget"));
    }
}

#[test]
fn operands_at_different_levels_are_not_combined() {
    let ctx = small_ctx();
    let sk = SecretKey::generate(&ctx);
    let m1 = vec![BigUint::from(10u32)];
    let m2 = vec![BigUint::from(20u32)];
    // ct2 at level 1 carries the canonical factor c1; give ct1 at level 2 the
    // same factor through a plaintext factor so that only the levels differ.
    let c1 = ctx.model_factor(1);
    let ct2 = encrypt_sk(&sk, &ctx, &m2, 1);
    assert_eq!(ct2.factor(&ctx), c1);
    let ct1 = encrypt_sk(&sk, &ctx, &m1, 2);
    let one_c1 = encode(&ctx, &[BigUint::one()], 2, Some(&c1));
    let dst = Ct::empty(&ctx);
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_mul_plain(ct1.0, one_c1.0, ct1.0) });
    assert_eq!(ct1.factor(&ctx), c1);
    assert_eq!(decrypt_ok(&sk, &ctx, &ct1)[0], m1[0]);
    // SAFETY: live handles.
    let s = unsafe { helib_ciphertext_add(ct1.0, ct2.0, dst.0) };
    let msg = expect_status(s, HELIB_ERR_LEVEL_MISMATCH, "add level 2 + level 1");
    assert_mentions(&msg, &["level"]);
    // SAFETY: live handles.
    let s = unsafe { helib_ciphertext_sub(ct2.0, ct1.0, dst.0) };
    expect_status(s, HELIB_ERR_LEVEL_MISMATCH, "sub level 1 - level 2");

    // Plaintext at another level than the ciphertext.
    let fresh = encrypt_sk(&sk, &ctx, &m1, 2);
    let pt1 = encode(&ctx, &m2, 1, None);
    // SAFETY: live handles.
    let s = unsafe { helib_ciphertext_mul_plain(fresh.0, pt1.0, dst.0) };
    expect_status(
        s,
        HELIB_ERR_LEVEL_MISMATCH,
        "mul_plain ct level 2, pt level 1",
    );
    // SAFETY: live handles.
    let s = unsafe { helib_ciphertext_add_plain(fresh.0, pt1.0, dst.0) };
    expect_status(
        s,
        HELIB_ERR_LEVEL_MISMATCH,
        "add_plain ct level 2, pt level 1",
    );
    let pt2 = encode(&ctx, &m2, 2, Some(&c1));
    // SAFETY: live handles.
    let s = unsafe { helib_ciphertext_add_plain(ct2.0, pt2.0, dst.0) };
    // A plaintext encoded *above* the ciphertext's level is documented as
    // usable (its residues for the ciphertext's primes are used).
    check(s);
    assert_eq!(dst.level(), 1);
    let got = decrypt_ok(&sk, &ctx, &dst);
    assert_eq!(
        got[0],
        &m2[0] + &m2[0],
        "add_plain with a higher-level plaintext"
    );
    let pt_top = encode(&ctx, &m1, 2, None);
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_mul_plain(ct2.0, pt_top.0, dst.0) });
    assert_eq!(dst.level(), 1);
    let got = decrypt_ok(&sk, &ctx, &dst);
    assert_eq!(
        got[0],
        (&m1[0] * &m2[0]) % t65537(),
        "mul_plain, higher-level plaintext"
    );

    // After switching ct1 down, the sum works.
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_mod_switch(ct1.0, ct1.0) });
    assert_eq!(ct1.level(), 1);
    assert_eq!(ct1.factor(&ctx), (&c1 * &c1) % t65537());
}

#[test]
fn canonical_factors_match_and_plaintext_factors_do_not() {
    let ctx = small_ctx();
    let t = t65537();
    let sk = SecretKey::generate(&ctx);
    let pk = PublicKey::generate(&sk);
    let mut r = rng(5);
    let m1 = rand_poly(&mut r, N, &t);
    let m2 = rand_poly(&mut r, N, &t);
    let p = rand_poly(&mut r, N, &t);
    let c1 = ctx.model_factor(1);
    assert_ne!(c1, BigUint::one(), "test needs q_2 != 1 mod t");
    assert_eq!(ctx.correction_factor(1), c1);
    assert_eq!(ctx.correction_factor(2), BigUint::one());

    // One switched down from level 2, one encrypted directly at level 1.
    let a = encrypt_pk(&pk, &ctx, &m1, 2);
    let switched = Ct::empty(&ctx);
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_mod_switch(a.0, switched.0) });
    let direct = encrypt_pk(&pk, &ctx, &m2, 1);
    assert_eq!(switched.factor(&ctx), c1);
    assert_eq!(direct.factor(&ctx), c1);
    let sum = Ct::empty(&ctx);
    // SAFETY: live handles, same context, level and canonical factor.
    check(unsafe { helib_ciphertext_add(switched.0, direct.0, sum.0) });
    assert_poly_eq(
        &decrypt_ok(&sk, &ctx, &sum),
        &poly_add(&m1, &m2, &t),
        "switched + direct",
    );
    // SAFETY: as above.
    check(unsafe { helib_ciphertext_sub(direct.0, switched.0, sum.0) });
    assert_poly_eq(
        &decrypt_ok(&sk, &ctx, &sum),
        &poly_sub(&m2, &m1, &t),
        "direct - switched",
    );

    // Multiplying by a plaintext with factor 2 changes the factor to 2 * c1.
    let two = BigUint::from(2u32);
    let pt = encode(&ctx, &p, 1, Some(&two));
    let scaled = Ct::empty(&ctx);
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_mul_plain(direct.0, pt.0, scaled.0) });
    assert_eq!(scaled.factor(&ctx), (&c1 * &two) % &t);
    assert_poly_eq(
        &decrypt_ok(&sk, &ctx, &scaled),
        &poly_mul(&m2, &p, &t),
        "mul_plain with factor 2 decrypts to m * p",
    );
    // SAFETY: live handles.
    let s = unsafe { helib_ciphertext_add(switched.0, scaled.0, sum.0) };
    let msg = expect_status(s, HELIB_ERR_FACTOR_MISMATCH, "add with factors c1 and 2*c1");
    assert_mentions(&msg, &["factor"]);
    // SAFETY: live handles.
    let s = unsafe { helib_ciphertext_sub(scaled.0, switched.0, sum.0) };
    expect_status(s, HELIB_ERR_FACTOR_MISMATCH, "sub with factors 2*c1 and c1");

    // add_plain needs the plaintext's factor to equal the ciphertext's.
    let plain_one = encode(&ctx, &p, 1, None);
    // SAFETY: live handles.
    let s = unsafe { helib_ciphertext_add_plain(direct.0, plain_one.0, sum.0) };
    expect_status(
        s,
        HELIB_ERR_FACTOR_MISMATCH,
        "add_plain factor 1 to factor c1",
    );
    // SAFETY: live handles.
    let s = unsafe { helib_ciphertext_sub_plain(direct.0, plain_one.0, sum.0) };
    expect_status(
        s,
        HELIB_ERR_FACTOR_MISMATCH,
        "sub_plain factor 1 to factor c1",
    );
    let plain_c1 = encode(&ctx, &p, 1, Some(&c1));
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_add_plain(direct.0, plain_c1.0, sum.0) });
    assert_poly_eq(
        &decrypt_ok(&sk, &ctx, &sum),
        &poly_add(&m2, &p, &t),
        "add_plain factor c1",
    );
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_sub_plain(switched.0, plain_c1.0, sum.0) });
    assert_poly_eq(
        &decrypt_ok(&sk, &ctx, &sum),
        &poly_sub(&m1, &p, &t),
        "sub_plain factor c1",
    );
    // At the top level the canonical factor is 1 and a NULL factor matches.
    let top = encode(&ctx, &p, 2, None);
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_add_plain(a.0, top.0, sum.0) });
    assert_poly_eq(
        &decrypt_ok(&sk, &ctx, &sum),
        &poly_add(&m1, &p, &t),
        "add_plain at top",
    );
}

// -------------------------------------------------------- empty ciphertext

#[test]
fn empty_ciphertext_is_not_an_input() {
    let ctx = small_ctx();
    let sk = SecretKey::generate(&ctx);
    let good = encrypt_sk(&sk, &ctx, &[BigUint::from(4u32)], 2);
    let empty = Ct::empty(&ctx);
    let dst = Ct::empty(&ctx);
    let pt = encode(&ctx, &[BigUint::one()], 2, None);
    let k = [3u64];
    let mut out = vec![0u64; N];
    let mut f = 0f64;
    let e = empty.0;
    let g = good.0;
    let d = dst.0;
    // SAFETY: (all the calls below) live handles; `empty` was made by
    // helib_ciphertext_new and never written, which the contract says is a
    // valid dst but not an input; the engine must refuse with an error.
    let cases: Vec<(&str, helib_status)> = unsafe {
        vec![
            ("copy", helib_ciphertext_copy(e, d)),
            ("add empty + good", helib_ciphertext_add(e, g, d)),
            ("add good + empty", helib_ciphertext_add(g, e, d)),
            ("sub", helib_ciphertext_sub(g, e, d)),
            ("negate", helib_ciphertext_negate(e, d)),
            ("add_plain", helib_ciphertext_add_plain(e, pt.0, d)),
            ("sub_plain", helib_ciphertext_sub_plain(e, pt.0, d)),
            ("mul_plain", helib_ciphertext_mul_plain(e, pt.0, d)),
            (
                "mul_scalar",
                helib_ciphertext_mul_scalar(e, k.as_ptr(), 1, d),
            ),
            ("mod_switch", helib_ciphertext_mod_switch(e, d)),
            ("mod_switch_to", helib_ciphertext_mod_switch_to(e, 0, d)),
            (
                "mod_switch_reduce_noise",
                helib_ciphertext_mod_switch_reduce_noise(e, d),
            ),
            ("decrypt", helib_decrypt(sk.0, e, out.as_mut_ptr(), N, 1)),
            ("noise_budget", helib_noise_budget(sk.0, e, &mut f)),
        ]
    };
    let accepted: Vec<String> = cases
        .iter()
        .filter(|(_, s)| *s == HELIB_OK || *s == HELIB_ERR_INTERNAL)
        .map(|(name, s)| format!("{name}: {}", status_name(*s)))
        .collect();
    assert!(
        accepted.is_empty(),
        "an empty input ciphertext must be refused with a clear error: {accepted:?}"
    );
    // Per-call message check.
    // SAFETY: as above.
    let s = unsafe { helib_ciphertext_add(g, e, d) };
    assert_ne!(s, HELIB_OK);
    assert!(!last_error().is_empty(), "no message for an empty input");
    // Queries on an empty ciphertext must not crash (their status is open).
    let mut lvl = 0usize;
    let mut fac = [0u64; 1];
    // SAFETY: live handle and valid out pointers.
    unsafe {
        helib_ciphertext_level(e, &mut lvl);
        helib_ciphertext_size(e, &mut lvl);
        helib_ciphertext_correction_factor(e, fac.as_mut_ptr(), 1);
        helib_ciphertext_noise_estimate(e, &mut f);
        helib_ciphertext_estimated_budget(e, &mut f);
    }
    // The good ciphertext is untouched and an empty dst can be written.
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_copy(g, e) });
    assert_eq!(decrypt_ok(&sk, &ctx, &empty)[0], BigUint::from(4u32));
}

// --------------------------------------------------------------- lifetimes

#[test]
fn freeing_the_context_first_is_safe() {
    let ctx = small_ctx();
    let sk = SecretKey::generate(&ctx);
    let pk = PublicKey::generate(&sk);
    let m = vec![BigUint::from(123u32), BigUint::from(456u32)];
    let ct = encrypt_pk(&pk, &ctx, &m, 2);
    let pt = encode(&ctx, &[BigUint::from(2u32)], 2, None);
    let spare = Ct::empty(&ctx);
    let spare2 = Ct::empty(&ctx);
    drop(ctx); // helib_context_free while everything else is alive

    let limbs = [7u64, 8];
    // SAFETY: all handles are live (they keep their context alive); the
    // buffers have the documented sizes.
    unsafe {
        check(helib_encrypt_public(pk.0, limbs.as_ptr(), 2, 1, 1, spare.0));
        check(helib_ciphertext_mul_plain(ct.0, pt.0, spare2.0));
        check(helib_ciphertext_mod_switch(spare2.0, spare2.0));
        let mut out = vec![0u64; N];
        check(helib_decrypt(sk.0, spare.0, out.as_mut_ptr(), N, 1));
        assert_eq!(&out[..3], &[7, 8, 0]);
        check(helib_decrypt(sk.0, spare2.0, out.as_mut_ptr(), N, 1));
        assert_eq!(&out[..3], &[246, 912, 0]);
    }
    // Free the secret key before the public key and ciphertexts made from it.
    drop(sk);
    drop(pt);
    // SAFETY: pk and spare are live handles; the buffer has two coefficients.
    check(unsafe { helib_encrypt_public(pk.0, limbs.as_ptr(), 2, 1, 0, spare.0) });
    drop(pk);
    drop(ct);
    drop(spare2);
    assert_eq!(spare.level(), 0);
}

// ------------------------------------------------------- context queries

#[test]
fn context_queries_report_the_parameters() {
    let t = bn254_r();
    let chain = [61u32, 55, 50, 45, 40, 35, 30];
    let special = [61u32, 60];
    let ctx = Ctx::new(2048, &t, &chain, &special);
    let mut n = 0u64;
    // SAFETY: live context, valid out pointer.
    check(unsafe { helib_context_ring_degree(ctx.ptr, &mut n) });
    assert_eq!(n, 2048);
    assert_eq!(ctx.max_level(), chain.len() - 1);
    assert_eq!(ctx.plain_limbs(), 4);
    let primes = ctx.primes();
    let sp = ctx.special_primes();
    assert_eq!(primes.len(), chain.len());
    assert_eq!(sp.len(), special.len());
    let mut acc = 0f64;
    for (level, &q) in primes.iter().enumerate() {
        acc += (q as f64).log2();
        let mut got = f64::NAN;
        // SAFETY: live context, valid out pointer.
        check(unsafe { helib_context_log2_modulus(ctx.ptr, level, &mut got) });
        assert!(
            (got - acc).abs() < 1e-6,
            "log2 Q_{level}: got {got}, want {acc}"
        );
        assert_eq!(
            ctx.correction_factor(level),
            ctx.model_factor(level),
            "factor at {level}"
        );
    }
    assert_eq!(ctx.correction_factor(chain.len() - 1), BigUint::one());
    let want_sp: f64 = sp.iter().map(|&q| (q as f64).log2()).sum();
    let mut got = f64::NAN;
    // SAFETY: live context, valid out pointer.
    check(unsafe { helib_context_log2_special_modulus(ctx.ptr, &mut got) });
    assert!(
        (got - want_sp).abs() < 1e-6,
        "log2 P: got {got}, want {want_sp}"
    );

    // Plain limbs for other moduli; high zero limbs of t are ignored.
    for (limbs, want) in [
        (vec![65537u64, 0, 0], 1usize),
        (vec![2], 1),
        (vec![u64::MAX], 1),
        (vec![13, 1], 2),
        (vec![1, 0, 1], 3),
    ] {
        let (s, p) = context_new_raw(1024, &limbs, &[61; 4], &[], 1);
        check(s);
        let mut pl = 0usize;
        // SAFETY: live context, valid out pointer.
        check(unsafe { helib_context_plain_limbs(p, &mut pl) });
        // SAFETY: `p` is live, freed once.
        unsafe { helib_context_free(p) };
        assert_eq!(pl, want, "plain limbs for t limbs {limbs:?}");
    }
}

#[test]
fn thread_pool_size_is_reported_and_adjustable() {
    let (s, p) = context_new_raw(1024, &[65537], &[61, 61], &[], 2);
    check(s);
    let mut th = 0u32;
    // SAFETY: live context and valid out pointer in every call; freed once.
    unsafe {
        check(helib_context_threads(p, &mut th));
        assert_eq!(th, 2);
        check(helib_context_set_threads(p, 3));
        check(helib_context_threads(p, &mut th));
        assert_eq!(th, 3);
        check(helib_context_set_threads(p, 0));
        check(helib_context_threads(p, &mut th));
        assert!(th >= 1, "0 means one per hardware thread, got {th}");
        helib_context_free(p);
    }
    let (s, p) = context_new_raw(1024, &[65537], &[61, 61], &[], 0);
    check(s);
    // SAFETY: live context, valid out pointer; freed once.
    unsafe {
        check(helib_context_threads(p, &mut th));
        helib_context_free(p);
    }
    assert!(th >= 1);
}

// ------------------------------------------------------------ the primes

fn check_primes(n: u64, t: &BigUint, chain: &[u32], special: &[u32]) {
    let a = Ctx::new(n, t, chain, special);
    let b = Ctx::new(n, t, chain, special);
    let (pa, sa) = (a.primes(), a.special_primes());
    assert_eq!(pa, b.primes(), "chain primes are not deterministic");
    assert_eq!(
        sa,
        b.special_primes(),
        "special primes are not deterministic"
    );
    let what = format!("N={n} chain={chain:?} special={special:?}");
    let all: Vec<(u64, u32)> = pa
        .iter()
        .copied()
        .zip(chain.iter().copied())
        .chain(sa.iter().copied().zip(special.iter().copied()))
        .collect();
    assert_eq!(all.len(), chain.len() + special.len());
    for (i, &(q, bits)) in all.iter().enumerate() {
        assert_eq!(q % (2 * n), 1, "{what}: prime {q} is not 1 mod 2N");
        assert_eq!(
            64 - q.leading_zeros(),
            bits,
            "{what}: {q} should have {bits} bits"
        );
        assert!(is_prime(q), "{what}: {q} is not prime");
        assert!(
            num_integer_gcd(&BigUint::from(q), t).is_one(),
            "{what}: {q} divides t"
        );
        for &(other, _) in &all[..i] {
            assert_ne!(q, other, "{what}: prime {q} repeated");
        }
    }
}

#[test]
fn primes_are_deterministic_ntt_friendly_and_sized() {
    check_primes(
        1024,
        &BigUint::from(65537u32),
        &[61, 61, 61, 40, 30],
        &[60, 61],
    );
    check_primes(1024, &bn254_r(), &[61; 8], &[61; 2]);
    check_primes(4096, &bn254_r(), &[30, 45, 61, 61, 30, 45], &[61, 30]);
    check_primes(1 << 15, &BigUint::from(2u32), &[61, 50, 36], &[]);
    check_primes(1 << 17, &BigUint::from(65537u32), &[61, 30, 30], &[40]);
}

#[test]
fn factor_not_invertible_mod_a_composite_t_never_gives_silent_garbage() {
    // A composite t coprime to the chain is valid, but then a nonzero
    // factor may share a factor with t: the result of multiplying by such a
    // plaintext cannot be decrypted (the correction factor has no inverse
    // mod t). The engine must refuse somewhere, never return wrong values.
    let lookalike = BigUint::parse_bytes(BN254_LOOKALIKE_DEC.as_bytes(), 10).unwrap();
    assert!((&lookalike % 3u32).is_zero());
    for (t, chain) in [
        (BigUint::from(3u32 * 65537), vec![61u32; 3]),
        (lookalike, vec![61u32; 10]),
    ] {
        let ctx = Ctx::new(1024, &t, &chain, &[]);
        let top = ctx.max_level();
        let sk = SecretKey::generate(&ctx);
        let mut r = rng(90);
        let m = rand_poly(&mut r, N, &t);
        let p = vec![BigUint::from(5u32)];
        let ct = encrypt_sk(&sk, &ctx, &m, top);
        let what = format!("t = {t}, factor 3");
        let (s, pt) = encode_raw(&ctx, &p, ctx.plain_limbs(), top, Some(&BigUint::from(3u32)));
        if s != HELIB_OK {
            expect_status(s, HELIB_ERR_INVALID_ARGUMENT, &what);
            continue;
        }
        let dst = Ct::empty(&ctx);
        // SAFETY: live handles.
        let s = unsafe { helib_ciphertext_mul_plain(ct.0, pt.0, dst.0) };
        if s != HELIB_OK {
            expect_status(s, HELIB_ERR_INVALID_ARGUMENT, &what);
            continue;
        }
        let want = poly_scalar(&m, &BigUint::from(5u32), &t);
        match decrypt(&sk, &ctx, &dst) {
            Ok(got) => assert_poly_eq(&got, &want, &format!("{what}: decrypt returned OK")),
            Err(e) => assert_ne!(e, HELIB_ERR_INTERNAL, "{what}"),
        }
    }
}

#[test]
fn failed_calls_leave_their_arguments_unchanged() {
    let ctx = small_ctx();
    let t = t65537();
    let sk = SecretKey::generate(&ctx);
    let pk = PublicKey::generate(&sk);
    let mut r = rng(95);
    let m0 = rand_poly(&mut r, N, &t);

    // A destination holding a ciphertext keeps it when the call fails.
    let dst = encrypt_sk(&sk, &ctx, &m0, 2);
    let unchanged = |what: &str| {
        assert_eq!(dst.level(), 2, "{what}: dst level changed");
        assert_eq!(
            dst.factor(&ctx),
            BigUint::one(),
            "{what}: dst factor changed"
        );
        assert_poly_eq(
            &decrypt_ok(&sk, &ctx, &dst),
            &m0,
            &format!("{what}: dst changed"),
        );
    };
    let a2 = encrypt_sk(&sk, &ctx, &rand_poly(&mut r, N, &t), 2);
    let a1 = encrypt_sk(&sk, &ctx, &rand_poly(&mut r, N, &t), 1);
    let a0 = encrypt_sk(&sk, &ctx, &rand_poly(&mut r, N, &t), 0);
    // SAFETY: live handles; the call fails (levels 2 and 1).
    let s = unsafe { helib_ciphertext_add(a2.0, a1.0, dst.0) };
    expect_status(s, HELIB_ERR_LEVEL_MISMATCH, "add, level mismatch");
    unchanged("add, level mismatch");
    // SAFETY: live handles; the call fails (level 0).
    let s = unsafe { helib_ciphertext_mod_switch(a0.0, dst.0) };
    expect_status(s, HELIB_ERR_INVALID_LEVEL, "mod_switch at 0");
    unchanged("mod_switch at 0");
    let limbs = [65537u64, 1];
    // SAFETY: two coefficients of one limb; the first is t (invalid).
    let s = unsafe { helib_encrypt_public(pk.0, limbs.as_ptr(), 2, 1, 2, dst.0) };
    expect_status(
        s,
        HELIB_ERR_INVALID_ARGUMENT,
        "encrypt_public, coefficient t",
    );
    unchanged("encrypt_public, coefficient t");
    // SAFETY: one valid coefficient; the level is invalid.
    let s = unsafe { helib_encrypt_secret(sk.0, limbs[1..].as_ptr(), 1, 1, 9, dst.0) };
    expect_status(s, HELIB_ERR_INVALID_LEVEL, "encrypt_secret, level 9");
    unchanged("encrypt_secret, level 9");
    let p_low = encode(&ctx, &[BigUint::one()], 1, None);
    // SAFETY: live handles; the plaintext is below the ciphertext's level.
    let s = unsafe { helib_ciphertext_mul_plain(a2.0, p_low.0, dst.0) };
    expect_status(s, HELIB_ERR_LEVEL_MISMATCH, "mul_plain, plaintext below");
    unchanged("mul_plain, plaintext below");
    let p_one = encode(&ctx, &[BigUint::one()], 1, None);
    // SAFETY: live handles; a1 carries the factor c1 != 1.
    let s = unsafe { helib_ciphertext_add_plain(a1.0, p_one.0, dst.0) };
    expect_status(s, HELIB_ERR_FACTOR_MISMATCH, "add_plain, factor mismatch");
    unchanged("add_plain, factor mismatch");

    // A refused in-place product leaves the ciphertext as it was.
    let big = Ctx::new(1024, &bn254_r(), &[61; 6], &[]);
    let bsk = SecretKey::generate(&big);
    let bm = rand_poly(&mut r, N, &big.t);
    let bct = encrypt_sk(&bsk, &big, &bm, 5);
    let dense = encode(&big, &rand_poly(&mut r, N, &big.t), 5, None);
    // SAFETY: live handles, aliased dst; the estimate refuses this product.
    let s = unsafe { helib_ciphertext_mul_plain(bct.0, dense.0, bct.0) };
    expect_status(
        s,
        HELIB_ERR_NOISE_BUDGET_EXHAUSTED,
        "dense BN254 product, 6 primes",
    );
    assert_eq!(bct.factor(&big), BigUint::one());
    assert_poly_eq(
        &decrypt_ok(&bsk, &big, &bct),
        &bm,
        "refused in-place mul_plain",
    );
    let k = (&big.t >> 1u32).to_u64_digits();
    // SAFETY: live handles, aliased dst; `k` holds k.len() limbs.
    let s = unsafe { helib_ciphertext_mul_scalar(bct.0, k.as_ptr(), k.len(), bct.0) };
    expect_status(
        s,
        HELIB_ERR_NOISE_BUDGET_EXHAUSTED,
        "scalar ~ r/2, 6 primes",
    );
    assert_poly_eq(
        &decrypt_ok(&bsk, &big, &bct),
        &bm,
        "refused in-place mul_scalar",
    );

    // A refused decryption does not write the output buffer.
    let other = SecretKey::generate(&ctx);
    let mut buf = vec![0x5a5au64; N];
    // SAFETY: `buf` holds N limbs; live handles.
    let s = unsafe { helib_decrypt(other.0, dst.0, buf.as_mut_ptr(), N, 1) };
    expect_status(
        s,
        HELIB_ERR_NOISE_BUDGET_EXHAUSTED,
        "decrypt with another key",
    );
    assert!(
        buf.iter().all(|&x| x == 0x5a5a),
        "a refused decrypt wrote its output"
    );
    // Nor does a too-small factor buffer get written.
    let pl_ctx = Ctx::new(1024, &bn254_r(), &[61; 5], &[]);
    let mut fac = [0x77u64; 4];
    // SAFETY: `fac` has 4 entries; we claim 3.
    let s = unsafe { helib_context_correction_factor(pl_ctx.ptr, 0, fac.as_mut_ptr(), 3) };
    expect_status(s, HELIB_ERR_BUFFER_TOO_SMALL, "correction factor, 3 limbs");
    assert_eq!(fac, [0x77; 4], "a failed call wrote its output");
}

#[test]
fn failed_constructors_leave_out_unchanged() {
    // The header: "A call that fails leaves dst (and every other argument)
    // unchanged", which includes *out of the constructors.
    let ctx = small_ctx();
    // Constructors that fail do not touch *out.
    let sentinel = std::ptr::NonNull::<helib_context>::dangling().as_ptr();
    let mut out = sentinel;
    let t_limbs = [65537u64];
    let chain = [61u32];
    // SAFETY: valid arguments except the ring degree; `out` is a valid place.
    let s = unsafe {
        helib_context_new(
            1000,
            t_limbs.as_ptr(),
            1,
            chain.as_ptr(),
            1,
            null(),
            0,
            1,
            HELIB_CONTEXT_ALLOW_INSECURE,
            &mut out,
        )
    };
    expect_status(s, HELIB_ERR_INVALID_ARGUMENT, "context_new, bad degree");
    assert_eq!(out, sentinel, "failed helib_context_new wrote *out");
    let pt_sentinel = std::ptr::NonNull::<helib_encoded_plaintext>::dangling().as_ptr();
    let mut pt_out = pt_sentinel;
    let bad = [65537u64];
    // SAFETY: one coefficient (= t, invalid); `pt_out` is a valid place.
    let s = unsafe {
        helib_encoded_plaintext_new(ctx.ptr, bad.as_ptr(), 1, 1, 0, null(), 0, &mut pt_out)
    };
    expect_status(s, HELIB_ERR_INVALID_ARGUMENT, "encode coefficient t");
    assert_eq!(
        pt_out, pt_sentinel,
        "failed helib_encoded_plaintext_new wrote *out"
    );
}

// --------------------------------------------------------- residue import

/// An import filled with an encoding's residues in place gives the same
/// residues and norms back; a residue at its prime is refused by check and
/// by finish, wherever it is; a spent import refuses a second finish; the
/// extended form needs special primes.
#[test]
fn residue_import_checks_every_residue_before_it_makes_a_plaintext() {
    let ctx = small_ctx();
    let level = ctx.max_level();
    let m: Vec<BigUint> = (1..=8u32).map(BigUint::from).collect();
    let pt = encode(&ctx, &m, level, None);
    let (mut src, mut src_len, mut linf, mut l1) = (null(), 0usize, 0f64, 0f64);
    // SAFETY: live handle, valid out-pointers.
    check(unsafe {
        helib_encoded_plaintext_residues(pt.0, &mut src, &mut src_len, &mut linf, &mut l1)
    });
    assert_eq!(src_len, (level + 1) * N);
    // SAFETY: the engine's buffer holds src_len words while `pt` lives.
    let residues = unsafe { std::slice::from_raw_parts(src, src_len) }.to_vec();
    let mut primes = vec![0u64; level + 1];
    let mut count = primes.len();
    // SAFETY: `primes` holds `count` words.
    check(unsafe { helib_context_chain_primes(ctx.ptr, primes.as_mut_ptr(), &mut count) });

    let begin = || {
        let (mut import, mut buf, mut len) = (null_mut(), null_mut(), 0usize);
        // SAFETY: live context, valid out-pointers.
        check(unsafe {
            helib_residue_import_begin(ctx.ptr, level, 0, 1, &mut import, &mut buf, &mut len)
        });
        assert_eq!(len, residues.len());
        // SAFETY: the import's buffer holds `len` words until it is freed.
        (import, unsafe { std::slice::from_raw_parts_mut(buf, len) })
    };
    // The round trip.
    let (import, buf) = begin();
    buf.copy_from_slice(&residues);
    let mut out = null_mut();
    // SAFETY: live import; `out` is a valid out-pointer.
    unsafe {
        check(helib_residue_import_check(import, N / 2));
        check(helib_residue_import_finish(
            import,
            null(),
            0,
            linf,
            l1,
            &mut out,
        ));
        let again = Pt(out);
        let s = helib_residue_import_finish(import, null(), 0, linf, l1, &mut out);
        expect_status(s, HELIB_ERR_INVALID_ARGUMENT, "a second finish");
        expect_status(
            helib_residue_import_check(import, 1),
            HELIB_ERR_INVALID_ARGUMENT,
            "check after finish",
        );
        helib_residue_import_free(import);
        let (mut back, mut back_len, mut linf2, mut l12) = (null(), 0usize, 0f64, 0f64);
        check(helib_encoded_plaintext_residues(
            again.0,
            &mut back,
            &mut back_len,
            &mut linf2,
            &mut l12,
        ));
        assert_eq!(std::slice::from_raw_parts(back, back_len), &residues[..]);
        assert_eq!((linf2, l12), (linf, l1));
    }
    // A residue at its prime, at the first and last word of every prime:
    // found by check when it covers the word, else by finish.
    for (r, &q) in primes.iter().enumerate() {
        for at in [r * N, r * N + N - 1] {
            for checked in [0, at, at + 1] {
                let (import, buf) = begin();
                buf.copy_from_slice(&residues);
                buf[at] = q;
                // SAFETY: live import; `out` is a valid out-pointer.
                unsafe {
                    check(helib_residue_import_check(import, checked.min(at)));
                    let s = if checked > at {
                        helib_residue_import_check(import, checked)
                    } else {
                        helib_residue_import_finish(import, null(), 0, linf, l1, &mut out)
                    };
                    let msg = expect_status(s, HELIB_ERR_MALFORMED_INPUT, "a residue at its prime");
                    assert_mentions(&msg, &["prime"]);
                    helib_residue_import_free(import);
                }
            }
        }
    }
    // Past the end, and the extended form without special primes.
    let (import, _) = begin();
    let (mut none, mut buf, mut len) = (null_mut(), null_mut(), 0usize);
    // SAFETY: live handles, valid out-pointers.
    unsafe {
        let s = helib_residue_import_check(import, residues.len() + 1);
        expect_status(s, HELIB_ERR_MALFORMED_INPUT, "a check past the end");
        helib_residue_import_free(import);
        let s = helib_residue_import_begin(ctx.ptr, level, 1, 1, &mut none, &mut buf, &mut len);
        expect_status(
            s,
            HELIB_ERR_MALFORMED_INPUT,
            "extended without special primes",
        );
        let s = helib_residue_import_begin(ctx.ptr, level + 1, 0, 1, &mut none, &mut buf, &mut len);
        expect_status(s, HELIB_ERR_INVALID_LEVEL, "a level above the top");
        // Strides: powers of two from 1 to N / HELIB_MIN_COMPACT_LENGTH.
        let widest = N / HELIB_MIN_COMPACT_LENGTH as usize;
        for bad in [0, 3, 2 * widest, N, usize::MAX] {
            let s =
                helib_residue_import_begin(ctx.ptr, level, 0, bad, &mut none, &mut buf, &mut len);
            let msg = expect_status(s, HELIB_ERR_MALFORMED_INPUT, "a bad stride");
            assert_mentions(&msg, &["stride"]);
        }
        let mut compact = null_mut();
        check(helib_residue_import_begin(
            ctx.ptr,
            level,
            0,
            widest,
            &mut compact,
            &mut buf,
            &mut len,
        ));
        assert_eq!(len, (level + 1) * HELIB_MIN_COMPACT_LENGTH as usize);
        helib_residue_import_free(compact);
        helib_residue_import_free(null_mut());
    }
}

/// A public encoding of a polynomial in X^s keeps N/s words a prime (s at
/// most N / HELIB_MIN_COMPACT_LENGTH); the ordinary one, which may hold a
/// secret, stays whole; `extended` must be 0 or 1.
#[test]
fn public_encodings_are_compact_and_others_whole() {
    let ctx = small_ctx();
    let level = ctx.max_level();
    // 1 + 3·X^8 + 2·X^(N/2): a polynomial in X^8.
    let mut coeffs = vec![0u64; N];
    coeffs[0] = 1;
    coeffs[8] = 3;
    coeffs[N / 2] = 2;
    let stride_and_words = |pt: &Pt| {
        let (mut stride, mut words) = (0usize, 0usize);
        // SAFETY: live handle, valid out-pointers.
        unsafe {
            check(helib_encoded_plaintext_stride(pt.0, &mut stride));
            check(helib_encoded_plaintext_word_count(pt.0, &mut words));
        }
        (stride, words)
    };
    // The first `count` coefficients, encoded as public.
    let new_public = |count: usize, extended: i32| {
        let mut out = null_mut();
        // SAFETY: live context, `coeffs` holds at least `count` one-limb
        // coefficients, valid out-pointer.
        let s = unsafe {
            helib_encoded_plaintext_new_public(
                ctx.ptr,
                coeffs.as_ptr(),
                count,
                1,
                level,
                null(),
                0,
                extended,
                &mut out,
            )
        };
        (s, out)
    };
    let (s, out) = new_public(N, 0);
    check(s);
    let public = Pt(out);
    assert_eq!(stride_and_words(&public), (8, (level + 1) * N / 8));
    let mut out = null_mut();
    // SAFETY: as above.
    check(unsafe {
        helib_encoded_plaintext_new(ctx.ptr, coeffs.as_ptr(), N, 1, level, null(), 0, &mut out)
    });
    let whole = Pt(out);
    assert_eq!(stride_and_words(&whole), (1, (level + 1) * N));
    // A constant is as compact as an encoding gets.
    let (s, out) = new_public(1, 0);
    check(s);
    let constant = Pt(out);
    let widest = N / HELIB_MIN_COMPACT_LENGTH as usize;
    assert_eq!(stride_and_words(&constant).0, widest);
    for extended in [2, -1] {
        let (s, _) = new_public(N, extended);
        expect_status(s, HELIB_ERR_INVALID_ARGUMENT, "extended out of 0..=1");
    }
}

/// The header: the raw-form imports validate `extended` (0 or 1) with the
/// rest of the raw form, and bad input gives HELIB_ERR_MALFORMED_INPUT;
/// only the level has its own status (HELIB_ERR_INVALID_LEVEL).
#[test]
fn residue_imports_refuse_a_bad_extended_flag_as_malformed_input() {
    let ctx = small_ctx();
    let level = ctx.max_level();
    let pt = encode(&ctx, &[BigUint::from(3u32)], level, None);
    let (mut src, mut src_len, mut linf, mut l1) = (null(), 0usize, 0f64, 0f64);
    // SAFETY: live handle, valid out-pointers.
    check(unsafe {
        helib_encoded_plaintext_residues(pt.0, &mut src, &mut src_len, &mut linf, &mut l1)
    });
    for extended in [2, -1, i32::MIN, i32::MAX] {
        let what = format!("extended = {extended}");
        let mut out = null_mut();
        // SAFETY: `src` holds `src_len` words while `pt` lives; valid out-pointers.
        let s = unsafe {
            helib_encoded_plaintext_import_residues(
                ctx.ptr,
                level,
                extended,
                1,
                null(),
                0,
                src,
                src_len,
                linf,
                l1,
                &mut out,
            )
        };
        let msg = expect_status(
            s,
            HELIB_ERR_MALFORMED_INPUT,
            &format!("import_residues, {what}"),
        );
        assert_mentions(&msg, &["extended"]);
        assert!(out.is_null(), "a refused import wrote *out");
        let (mut import, mut buf, mut len) = (null_mut(), null_mut(), 0usize);
        // SAFETY: live context, valid out-pointers.
        let s = unsafe {
            helib_residue_import_begin(ctx.ptr, level, extended, 1, &mut import, &mut buf, &mut len)
        };
        expect_status(
            s,
            HELIB_ERR_MALFORMED_INPUT,
            &format!("residue_import_begin, {what}"),
        );
        assert!(
            import.is_null() && buf.is_null() && len == 0,
            "a refused begin wrote its outputs"
        );
    }
    // The level keeps its own status, whatever the flag.
    let mut out = null_mut();
    // SAFETY: as above.
    let s = unsafe {
        helib_encoded_plaintext_import_residues(
            ctx.ptr,
            level + 1,
            0,
            1,
            null(),
            0,
            src,
            src_len,
            linf,
            l1,
            &mut out,
        )
    };
    expect_status(
        s,
        HELIB_ERR_INVALID_LEVEL,
        "import_residues above the top level",
    );
    // Both flags the header allows still import (1 needs special primes).
    for extended in [0, 1] {
        let mut out = null_mut();
        // SAFETY: as above.
        let s = unsafe {
            helib_encoded_plaintext_import_residues(
                ctx.ptr,
                level,
                extended,
                1,
                null(),
                0,
                src,
                src_len,
                linf,
                l1,
                &mut out,
            )
        };
        if extended == 0 {
            check(s);
            drop(Pt(out));
        } else {
            expect_status(
                s,
                HELIB_ERR_MALFORMED_INPUT,
                "extended without special primes",
            );
        }
    }
}
