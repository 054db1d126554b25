//! Tests of the key-switching part of the C ABI (`helib_c.h`, "key
//! switching"): NULL handling, Galois element validation, missing keys,
//! contexts without special primes, the aliasing rules of the hoisted call,
//! unchanged outputs on failure, key sizes, and results of ct × ct products,
//! relinearization and automorphisms against a plaintext model.

mod common;

use std::ptr::{null, null_mut};

use common::*;
use helib_sys::*;
use num_bigint::BigUint;
use num_traits::One;

const N: usize = 1024;
const TWO_N: u64 = 2 * N as u64;

fn t65537() -> BigUint {
    BigUint::from(65537u32)
}

/// N = 1024, t = 65537, three 50-bit chain primes and one 60-bit special
/// prime: each chain prime is a digit of its own (3 digits).
fn ks_ctx() -> Ctx {
    Ctx::new(N as u64, &t65537(), &[50, 50, 50], &[60])
}

/// The same chain without special primes: no key switching.
fn plain_ctx() -> Ctx {
    Ctx::new(N as u64, &t65537(), &[50, 50, 50], &[])
}

/// Case-insensitive "the message mentions this".
#[track_caller]
fn assert_mentions(msg: &str, word: &str) {
    assert!(
        msg.to_lowercase().contains(&word.to_lowercase()),
        "error message {msg:?} does not mention {word:?}"
    );
}

/// A context, a secret key, a random message and its encryption at the top.
struct Fixture {
    ctx: Ctx,
    sk: SecretKey,
    m: Vec<BigUint>,
    ct: Ct,
}

impl Fixture {
    fn new(seed: u64) -> Self {
        let ctx = ks_ctx();
        let sk = SecretKey::generate(&ctx);
        let m = rand_poly(&mut rng(seed), N, &ctx.t);
        let ct = encrypt_sk(&sk, &ctx, &m, ctx.max_level());
        Fixture { ctx, sk, m, ct }
    }

    /// A copy of `self.ct`, to be overwritten.
    fn dst(&self) -> Ct {
        self.ct.dup(&self.ctx)
    }

    /// Level, size, factor and plaintext of `ct`.
    fn state(&self, ct: &Ct) -> (usize, usize, BigUint, Vec<BigUint>) {
        (
            ct.level(),
            ct.size(),
            ct.factor(&self.ctx),
            decrypt_ok(&self.sk, &self.ctx, ct),
        )
    }
}

/// Makes a call and reads the message it left at once, before a later call
/// overwrites it.
macro_rules! outcome {
    ($call:expr) => {{
        let status = $call;
        (status, last_error())
    }};
}

/// Asserts that a call gave `want` with a non-empty message; returns the message.
#[track_caller]
fn expect_outcome((status, msg): (helib_status, String), want: helib_status, what: &str) -> String {
    assert_eq!(
        status,
        want,
        "{what}: expected {}, got {} (message: {msg:?})",
        status_name(want),
        status_name(status)
    );
    assert!(!msg.trim().is_empty(), "{what}: no message");
    msg
}

/// The estimate must never promise more than the exact budget (+1 bit of slack).
#[track_caller]
fn assert_estimate_conservative(sk: &SecretKey, ct: &Ct, what: &str) {
    let exact = noise_budget(sk, ct);
    let estimated = ct.estimated_budget();
    assert!(
        estimated <= exact + 1.0,
        "{what}: estimated budget {estimated} > exact {exact} + 1"
    );
    assert!(exact >= 1.0, "{what}: exact budget {exact}");
}

#[test]
fn every_key_switching_function_reports_null_pointers() {
    let f = Fixture::new(1);
    let rk = RelinKey::generate(&f.sk);
    let keys = GaloisKeys::with(&f.ctx, &f.sk, &[3]);
    let dst = f.dst();
    let (c, sk, k, r, a, d) = (f.ctx.ptr, f.sk.0, keys.0, rk.0, f.ct.0, dst.0);
    let mut size = 0usize;
    let mut flag = 0i32;
    let mut g = 0u64;
    let mut rk_out: *mut helib_relin_key = null_mut();
    let mut keys_out: *mut helib_galois_keys = null_mut();
    let elements = [3u64];
    let dsts = [d];
    let null_dsts = [null_mut::<helib_ciphertext>()];
    let zero_terms = [null::<helib_encoded_plaintext>()];
    let mut plain_out: *mut helib_encoded_plaintext = null_mut();
    let coeffs = [1u64];
    // SAFETY: (all the calls below) every non-NULL pointer is a live handle
    // or a valid out-pointer; the NULL ones must be refused before any use.
    let cases: Vec<(&str, (helib_status, String))> = unsafe {
        vec![
            (
                "digits ctx",
                outcome!(helib_context_key_switching_digits(null(), &mut size)),
            ),
            (
                "digits out",
                outcome!(helib_context_key_switching_digits(c, null_mut())),
            ),
            (
                "relin sk",
                outcome!(helib_relin_key_generate(null(), &mut rk_out)),
            ),
            (
                "relin out",
                outcome!(helib_relin_key_generate(sk, null_mut())),
            ),
            (
                "relin size rk",
                outcome!(helib_relin_key_size_bytes(null(), &mut size)),
            ),
            (
                "relin size out",
                outcome!(helib_relin_key_size_bytes(r, null_mut())),
            ),
            (
                "keys_new ctx",
                outcome!(helib_galois_keys_new(null(), &mut keys_out)),
            ),
            (
                "keys_new out",
                outcome!(helib_galois_keys_new(c, null_mut())),
            ),
            (
                "keys_add keys",
                outcome!(helib_galois_keys_add(null_mut(), sk, 5)),
            ),
            ("keys_add sk", outcome!(helib_galois_keys_add(k, null(), 5))),
            (
                "keys_add_many keys",
                outcome!(helib_galois_keys_add_many(
                    null_mut(),
                    sk,
                    elements.as_ptr(),
                    1
                )),
            ),
            (
                "keys_add_many sk",
                outcome!(helib_galois_keys_add_many(k, null(), elements.as_ptr(), 1)),
            ),
            (
                "keys_add_many gs",
                outcome!(helib_galois_keys_add_many(k, sk, null(), 1)),
            ),
            (
                "contains keys",
                outcome!(helib_galois_keys_contains(null(), 3, &mut flag)),
            ),
            (
                "contains out",
                outcome!(helib_galois_keys_contains(k, 3, null_mut())),
            ),
            (
                "elements keys",
                outcome!(helib_galois_keys_elements(null(), null_mut(), &mut size)),
            ),
            (
                "elements len",
                outcome!(helib_galois_keys_elements(k, null_mut(), null_mut())),
            ),
            (
                "keys size keys",
                outcome!(helib_galois_keys_size_bytes(null(), &mut size)),
            ),
            (
                "keys size out",
                outcome!(helib_galois_keys_size_bytes(k, null_mut())),
            ),
            (
                "step ctx",
                outcome!(helib_galois_element_for_step(null(), 1, &mut g)),
            ),
            (
                "step out",
                outcome!(helib_galois_element_for_step(c, 1, null_mut())),
            ),
            (
                "swap ctx",
                outcome!(helib_galois_element_row_swap(null(), &mut g)),
            ),
            (
                "swap out",
                outcome!(helib_galois_element_row_swap(c, null_mut())),
            ),
            (
                "multiply a",
                outcome!(helib_ciphertext_multiply(null(), a, d)),
            ),
            (
                "multiply b",
                outcome!(helib_ciphertext_multiply(a, null(), d)),
            ),
            (
                "multiply dst",
                outcome!(helib_ciphertext_multiply(a, a, null_mut())),
            ),
            (
                "relinearize rk",
                outcome!(helib_ciphertext_relinearize(null(), a, d)),
            ),
            (
                "relinearize a",
                outcome!(helib_ciphertext_relinearize(r, null(), d)),
            ),
            (
                "relinearize dst",
                outcome!(helib_ciphertext_relinearize(r, a, null_mut())),
            ),
            (
                "galois keys",
                outcome!(helib_ciphertext_apply_galois(null(), a, 3, d)),
            ),
            (
                "galois a",
                outcome!(helib_ciphertext_apply_galois(k, null(), 3, d)),
            ),
            (
                "galois dst",
                outcome!(helib_ciphertext_apply_galois(k, a, 3, null_mut())),
            ),
            (
                "rotate keys",
                outcome!(helib_ciphertext_rotate_rows(null(), a, 1, 0, d)),
            ),
            (
                "rotate a",
                outcome!(helib_ciphertext_rotate_rows(k, null(), 1, 0, d)),
            ),
            (
                "rotate dst",
                outcome!(helib_ciphertext_rotate_rows(k, a, 1, 0, null_mut())),
            ),
            (
                "hoisted keys",
                outcome!(helib_ciphertext_apply_galois_hoisted(
                    null(),
                    a,
                    elements.as_ptr(),
                    1,
                    dsts.as_ptr(),
                )),
            ),
            (
                "hoisted a",
                outcome!(helib_ciphertext_apply_galois_hoisted(
                    k,
                    null(),
                    elements.as_ptr(),
                    1,
                    dsts.as_ptr(),
                )),
            ),
            (
                "hoisted elements",
                outcome!(helib_ciphertext_apply_galois_hoisted(
                    k,
                    a,
                    null(),
                    1,
                    dsts.as_ptr()
                )),
            ),
            (
                "hoisted dsts",
                outcome!(helib_ciphertext_apply_galois_hoisted(
                    k,
                    a,
                    elements.as_ptr(),
                    1,
                    null()
                )),
            ),
            (
                "extended ctx",
                outcome!(helib_encoded_plaintext_new_extended(
                    null(),
                    coeffs.as_ptr(),
                    1,
                    1,
                    0,
                    null(),
                    0,
                    &mut plain_out
                )),
            ),
            (
                "extended out",
                outcome!(helib_encoded_plaintext_new_extended(
                    c,
                    coeffs.as_ptr(),
                    1,
                    1,
                    0,
                    null(),
                    0,
                    null_mut()
                )),
            ),
            (
                "transform keys",
                outcome!(helib_ciphertext_linear_transform(
                    null(),
                    a,
                    elements.as_ptr(),
                    1,
                    3,
                    zero_terms.as_ptr(),
                    1,
                    d
                )),
            ),
            (
                "transform a",
                outcome!(helib_ciphertext_linear_transform(
                    k,
                    null(),
                    elements.as_ptr(),
                    1,
                    3,
                    zero_terms.as_ptr(),
                    1,
                    d
                )),
            ),
            (
                "transform baby",
                outcome!(helib_ciphertext_linear_transform(
                    k,
                    a,
                    null(),
                    1,
                    3,
                    zero_terms.as_ptr(),
                    1,
                    d
                )),
            ),
            (
                "transform plains",
                outcome!(helib_ciphertext_linear_transform(
                    k,
                    a,
                    elements.as_ptr(),
                    1,
                    3,
                    null(),
                    1,
                    d
                )),
            ),
            (
                "transform dst",
                outcome!(helib_ciphertext_linear_transform(
                    k,
                    a,
                    elements.as_ptr(),
                    1,
                    3,
                    zero_terms.as_ptr(),
                    1,
                    null_mut()
                )),
            ),
            (
                "hoisted dsts[0]",
                outcome!(helib_ciphertext_apply_galois_hoisted(
                    k,
                    a,
                    elements.as_ptr(),
                    1,
                    null_dsts.as_ptr(),
                )),
            ),
        ]
    };
    for (what, outcome) in cases {
        expect_outcome(outcome, HELIB_ERR_NULL_POINTER, what);
    }
    assert!(
        rk_out.is_null() && keys_out.is_null() && plain_out.is_null(),
        "failed constructors wrote *out"
    );
    assert_eq!(f.state(&dst), f.state(&f.ct), "a failed call changed dst");
    // Freeing NULL is a no-op.
    // SAFETY: NULL is explicitly allowed.
    unsafe {
        helib_relin_key_free(null_mut());
        helib_galois_keys_free(null_mut());
    }
}

#[test]
fn contexts_without_special_primes_cannot_switch_keys() {
    let ctx = plain_ctx();
    assert_eq!(ctx.digits(), 0);
    let sk = SecretKey::generate(&ctx);
    // A sentinel that must survive the failed constructor (never dereferenced).
    let sentinel = std::ptr::NonNull::<helib_relin_key>::dangling().as_ptr();
    let mut out = sentinel;
    // SAFETY: live secret key, valid out-pointer.
    let status = unsafe { helib_relin_key_generate(sk.0, &mut out) };
    let msg = expect_status(status, HELIB_ERR_INVALID_ARGUMENT, "relin key without P");
    assert_mentions(&msg, "special");
    assert_eq!(out, sentinel, "a failed constructor wrote *out");

    // An empty key set is fine, but no key can be added to it.
    let keys = GaloisKeys::empty(&ctx);
    // SAFETY: live handles.
    let status = unsafe { helib_galois_keys_add(keys.0, sk.0, 3) };
    let msg = expect_status(status, HELIB_ERR_INVALID_ARGUMENT, "Galois key without P");
    assert_mentions(&msg, "special");
    assert!(keys.elements().is_empty());
    assert_eq!(keys.size_bytes(), 0);

    // Tensoring needs no key.
    let m = rand_poly(&mut rng(2), N, &ctx.t);
    let ct = encrypt_sk(&sk, &ctx, &m, ctx.max_level());
    let product = Ct::empty(&ctx);
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_multiply(ct.0, ct.0, product.0) });
    assert_eq!(product.size(), 3);
    assert_poly_eq(
        &decrypt_ok(&sk, &ctx, &product),
        &poly_mul(&m, &m, &ctx.t),
        "square without P",
    );
}

#[test]
fn digits_and_key_sizes() {
    // P = 60 bits: every 50-bit prime is a digit of its own.
    let ctx = ks_ctx();
    assert_eq!(ctx.digits(), 3);
    let sk = SecretKey::generate(&ctx);
    let key_bytes = 3 * 2 * (3 + 1) * N * 8;
    assert_eq!(RelinKey::generate(&sk).size_bytes(), key_bytes);
    let keys = GaloisKeys::empty(&ctx);
    for (count, g) in [3u64, 5, TWO_N - 1].into_iter().enumerate() {
        // SAFETY: live handles.
        check(unsafe { helib_galois_keys_add(keys.0, sk.0, g) });
        assert_eq!(keys.size_bytes(), (count + 1) * key_bytes);
    }
    // Replacing a key keeps the count and the size.
    // SAFETY: live handles.
    check(unsafe { helib_galois_keys_add(keys.0, sk.0, 5) });
    assert_eq!(keys.elements(), vec![3, 5, TWO_N - 1]);
    assert_eq!(keys.size_bytes(), 3 * key_bytes);

    // P = 2 x 61 bits: two 50-bit primes fit one digit.
    let wide = Ctx::new(N as u64, &t65537(), &[50, 50, 50], &[61, 61]);
    assert_eq!(wide.digits(), 2);
    let sk = SecretKey::generate(&wide);
    assert_eq!(
        RelinKey::generate(&sk).size_bytes(),
        2 * 2 * (3 + 2) * N * 8
    );
}

#[test]
fn galois_elements_for_steps_and_the_row_swap() {
    let ctx = ks_ctx();
    let half = (N / 2) as i64;
    let mut power = 1u64;
    for step in 0..half {
        assert_eq!(ctx.element_for_step(step), power, "step {step}");
        assert_eq!(
            ctx.element_for_step(step + half),
            power,
            "step {step} + N/2"
        );
        assert_eq!(
            ctx.element_for_step(step - 3 * half),
            power,
            "step {step} - 3N/2"
        );
        // A right rotation by `step` undoes the left one.
        assert_eq!(
            power * ctx.element_for_step(-step) % TWO_N,
            1,
            "step -{step}"
        );
        power = power * 3 % TWO_N;
    }
    assert_eq!(power, 1, "3 has order N/2 mod 2N");
    for step in [i64::MIN, i64::MIN + 1, i64::MAX] {
        let g = ctx.element_for_step(step);
        assert!(g % 2 == 1 && g < TWO_N, "step {step}: {g}");
    }
    let mut g = 0u64;
    // SAFETY: live context, valid out-pointer.
    check(unsafe { helib_galois_element_row_swap(ctx.ptr, &mut g) });
    assert_eq!(g, TWO_N - 1);
}

#[test]
fn bad_galois_elements_are_refused() {
    let f = Fixture::new(3);
    let keys = GaloisKeys::with(&f.ctx, &f.sk, &[3]);
    let dst = f.dst();
    for g in [0u64, 2, 4, TWO_N - 2, TWO_N, TWO_N + 1, TWO_N + 3, u64::MAX] {
        // SAFETY: live handles.
        let status = unsafe { helib_galois_keys_add(keys.0, f.sk.0, g) };
        expect_status(status, HELIB_ERR_INVALID_ARGUMENT, &format!("add {g}"));
        // SAFETY: live handles.
        let status = unsafe { helib_ciphertext_apply_galois(keys.0, f.ct.0, g, dst.0) };
        expect_status(status, HELIB_ERR_INVALID_ARGUMENT, &format!("apply {g}"));
        let elements = [3u64, g];
        let dsts = [dst.0, f.dst().0];
        // SAFETY: live handles; two elements and two distinct destinations.
        let status = unsafe {
            helib_ciphertext_apply_galois_hoisted(
                keys.0,
                f.ct.0,
                elements.as_ptr(),
                2,
                dsts.as_ptr(),
            )
        };
        expect_status(status, HELIB_ERR_INVALID_ARGUMENT, &format!("hoisted {g}"));
        // Every element is checked before any key is made: 5 is not added.
        let many = [5u64, g];
        // SAFETY: live handles; `many` holds two elements.
        let status = unsafe { helib_galois_keys_add_many(keys.0, f.sk.0, many.as_ptr(), 2) };
        expect_status(status, HELIB_ERR_INVALID_ARGUMENT, &format!("add_many {g}"));
    }
    // No elements: nothing to do, and `gs` may then be NULL.
    // SAFETY: live handles; zero elements are read.
    check(unsafe { helib_galois_keys_add_many(keys.0, f.sk.0, null(), 0) });
    assert_eq!(keys.elements(), vec![3]);
    assert_eq!(f.state(&dst), f.state(&f.ct), "a failed call changed dst");
}

#[test]
fn key_set_queries_and_the_two_call_protocol() {
    let ctx = ks_ctx();
    let sk = SecretKey::generate(&ctx);
    let keys = GaloisKeys::with(&ctx, &sk, &[TWO_N - 1, 9, 3]);
    assert_eq!(keys.elements(), vec![3, 9, TWO_N - 1], "ascending");
    assert!(keys.contains(9) && !keys.contains(27) && !keys.contains(4));
    let mut small = [7u64; 2];
    let mut len = small.len();
    // SAFETY: `small` has room for `len` elements.
    let status = unsafe { helib_galois_keys_elements(keys.0, small.as_mut_ptr(), &mut len) };
    expect_status(status, HELIB_ERR_BUFFER_TOO_SMALL, "elements into 2");
    assert_eq!(
        (len, small),
        (2, [7, 7]),
        "a failed call changed its outputs"
    );
    let mut big = [0u64; 5];
    let mut len = big.len();
    // SAFETY: `big` has room for `len` elements.
    check(unsafe { helib_galois_keys_elements(keys.0, big.as_mut_ptr(), &mut len) });
    assert_eq!((len, &big[..3]), (3, &[3, 9, TWO_N - 1][..]));
    let empty = GaloisKeys::empty(&ctx);
    assert!(empty.elements().is_empty() && !empty.contains(3));
}

#[test]
fn products_and_relinearization_match_the_model() {
    let f = Fixture::new(4);
    let t = &f.ctx.t;
    let rk = RelinKey::generate(&f.sk);
    let m2 = rand_poly(&mut rng(5), N, t);
    let ct2 = encrypt_sk(&f.sk, &f.ctx, &m2, f.ctx.max_level());
    let want = poly_mul(&f.m, &m2, t);

    let product = Ct::empty(&f.ctx);
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_multiply(f.ct.0, ct2.0, product.0) });
    assert_eq!((product.size(), product.level()), (3, f.ctx.max_level()));
    assert_poly_eq(
        &decrypt_ok(&f.sk, &f.ctx, &product),
        &want,
        "tensor product",
    );
    assert_estimate_conservative(&f.sk, &product, "tensor product");

    let relin = Ct::empty(&f.ctx);
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_relinearize(rk.0, product.0, relin.0) });
    assert_eq!(relin.size(), 2);
    assert_poly_eq(&decrypt_ok(&f.sk, &f.ctx, &relin), &want, "relinearized");
    assert_estimate_conservative(&f.sk, &relin, "relinearized");

    // In place: dst aliases the input.
    let inplace = f.dst();
    // SAFETY: live handles; dst may alias an input.
    check(unsafe { helib_ciphertext_multiply(inplace.0, ct2.0, inplace.0) });
    // SAFETY: as above.
    check(unsafe { helib_ciphertext_relinearize(rk.0, inplace.0, inplace.0) });
    assert_eq!(inplace.size(), 2);
    assert_poly_eq(&decrypt_ok(&f.sk, &f.ctx, &inplace), &want, "in place");

    // A size-2 input is copied by relinearize.
    let copy = Ct::empty(&f.ctx);
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_relinearize(rk.0, f.ct.0, copy.0) });
    assert_eq!(f.state(&copy), f.state(&f.ct));

    // Lower levels, and factors multiply: (switched a) x (switched b).
    let low_a = f.dst();
    let low_b = ct2.dup(&f.ctx);
    // SAFETY: live handles; dst aliases the input.
    unsafe {
        check(helib_ciphertext_mod_switch_to(low_a.0, 1, low_a.0));
        check(helib_ciphertext_mod_switch_to(low_b.0, 1, low_b.0));
        check(helib_ciphertext_multiply(low_a.0, low_b.0, product.0));
        check(helib_ciphertext_relinearize(rk.0, product.0, product.0));
    }
    let factor = f.ctx.correction_factor(1);
    assert_eq!(product.factor(&f.ctx), &factor * &factor % t);
    assert_eq!(product.level(), 1);
    assert_poly_eq(&decrypt_ok(&f.sk, &f.ctx, &product), &want, "level 1");
    assert_estimate_conservative(&f.sk, &product, "level 1");
}

#[test]
fn products_refuse_bad_operands_and_leave_dst_unchanged() {
    let f = Fixture::new(6);
    let rk = RelinKey::generate(&f.sk);
    let dst = f.dst();
    let low = f.dst();
    let size3 = Ct::empty(&f.ctx);
    let empty = Ct::empty(&f.ctx);
    // SAFETY: live handles; dst aliases the input.
    unsafe {
        check(helib_ciphertext_mod_switch(low.0, low.0));
        check(helib_ciphertext_multiply(f.ct.0, f.ct.0, size3.0));
    }
    let other = ks_ctx();
    let other_sk = SecretKey::generate(&other);
    let other_ct = encrypt_sk(&other_sk, &other, &[BigUint::one()], other.max_level());
    let other_rk = RelinKey::generate(&other_sk);
    let (a, d) = (f.ct.0, dst.0);
    // SAFETY: (all the calls below) live handles of the right types.
    let cases = unsafe {
        [
            (
                "levels",
                outcome!(helib_ciphertext_multiply(a, low.0, d)),
                HELIB_ERR_LEVEL_MISMATCH,
            ),
            (
                "size 3 left",
                outcome!(helib_ciphertext_multiply(size3.0, a, d)),
                HELIB_ERR_INVALID_ARGUMENT,
            ),
            (
                "size 3 right",
                outcome!(helib_ciphertext_multiply(a, size3.0, d)),
                HELIB_ERR_INVALID_ARGUMENT,
            ),
            (
                "contexts",
                outcome!(helib_ciphertext_multiply(a, other_ct.0, d)),
                HELIB_ERR_CONTEXT_MISMATCH,
            ),
            (
                "relin key context",
                outcome!(helib_ciphertext_relinearize(other_rk.0, size3.0, d)),
                HELIB_ERR_CONTEXT_MISMATCH,
            ),
        ]
    };
    for (what, outcome, want) in cases {
        expect_outcome(outcome, want, what);
    }
    // SAFETY: live handles; `empty` was never written and is no input.
    let refused = unsafe {
        [
            helib_ciphertext_multiply(empty.0, a, d),
            helib_ciphertext_multiply(a, empty.0, d),
            helib_ciphertext_relinearize(rk.0, empty.0, d),
        ]
    };
    for status in refused {
        assert!(
            status != HELIB_OK && status != HELIB_ERR_INTERNAL,
            "{}",
            status_name(status)
        );
    }
    assert_eq!(f.state(&dst), f.state(&f.ct), "a failed call changed dst");

    // One 40-bit prime has no room for a product: refused, not garbage.
    let tiny = Ctx::new(N as u64, &t65537(), &[40], &[60]);
    let sk = SecretKey::generate(&tiny);
    let ct = encrypt_sk(&sk, &tiny, &[BigUint::from(2u32)], 0);
    let out = ct.dup(&tiny);
    // SAFETY: live handles.
    let status = unsafe { helib_ciphertext_multiply(ct.0, ct.0, out.0) };
    expect_status(status, HELIB_ERR_NOISE_BUDGET_EXHAUSTED, "no room");
    assert_eq!(out.size(), 2, "a refused product changed dst");
}

#[test]
fn automorphisms_match_the_model() {
    let f = Fixture::new(7);
    let t = &f.ctx.t;
    let elements = [3u64, 5, 7, 9, 1023, 1025, TWO_N - 3, TWO_N - 1];
    let keys = GaloisKeys::with(&f.ctx, &f.sk, &elements);
    for g in elements {
        let out = Ct::empty(&f.ctx);
        // SAFETY: live handles.
        check(unsafe { helib_ciphertext_apply_galois(keys.0, f.ct.0, g, out.0) });
        let want = poly_automorphism(&f.m, g, t);
        assert_poly_eq(&decrypt_ok(&f.sk, &f.ctx, &out), &want, &format!("g = {g}"));
        assert_estimate_conservative(&f.sk, &out, &format!("g = {g}"));
        assert_eq!((out.level(), out.size()), (f.ctx.max_level(), 2));
    }
    // In place, at level 0, with a non-trivial correction factor.
    let low = f.dst();
    // SAFETY: live handles; dst aliases the input.
    unsafe {
        check(helib_ciphertext_mod_switch_to(low.0, 0, low.0));
        check(helib_ciphertext_apply_galois(keys.0, low.0, 5, low.0));
    }
    assert_eq!(low.factor(&f.ctx), f.ctx.correction_factor(0));
    assert_poly_eq(
        &decrypt_ok(&f.sk, &f.ctx, &low),
        &poly_automorphism(&f.m, 5, t),
        "level 0",
    );
    // Rotations are the automorphisms 3^k.
    let rotated = Ct::empty(&f.ctx);
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_rotate_rows(keys.0, f.ct.0, 2, 0, rotated.0) });
    assert_poly_eq(
        &decrypt_ok(&f.sk, &f.ctx, &rotated),
        &poly_automorphism(&f.m, 9, t),
        "rotate by 2",
    );
}

#[test]
fn missing_keys_are_named_and_change_nothing() {
    let f = Fixture::new(8);
    // Keys for 1 and 2 only: 3 = 4 - 1 cannot be composed (the engine names
    // the first missing term, -1).
    let keys = GaloisKeys::with(&f.ctx, &f.sk, &[3, 9]);
    let dst = f.dst();
    let (k, a, d) = (keys.0, f.ct.0, dst.0);
    let g27 = f.ctx.element_for_step(3);
    let g_right = f.ctx.element_for_step(-1);
    // SAFETY: live handles.
    let msg = expect_status(
        unsafe { helib_ciphertext_apply_galois(k, a, 5, d) },
        HELIB_ERR_MISSING_KEY,
        "apply 5",
    );
    assert_mentions(&msg, "element 5");
    // SAFETY: live handles.
    let msg = expect_status(
        unsafe { helib_ciphertext_rotate_rows(k, a, 3, 0, d) },
        HELIB_ERR_MISSING_KEY,
        "rotate 3 exact",
    );
    assert_mentions(&msg, &format!("element {g27}"));
    // SAFETY: live handles.
    let msg = expect_status(
        unsafe { helib_ciphertext_rotate_rows(k, a, 3, 1, d) },
        HELIB_ERR_MISSING_KEY,
        "rotate 3 composed",
    );
    assert_mentions(&msg, &format!("element {g_right}"));
    let elements = [3u64, 5];
    let second = f.dst();
    let dsts = [d, second.0];
    // SAFETY: live handles, two elements, two distinct destinations.
    let status =
        unsafe { helib_ciphertext_apply_galois_hoisted(k, a, elements.as_ptr(), 2, dsts.as_ptr()) };
    expect_status(status, HELIB_ERR_MISSING_KEY, "hoisted with 5 missing");
    assert_eq!(f.state(&dst), f.state(&f.ct), "a failed call changed dst");
    assert_eq!(
        f.state(&second),
        f.state(&f.ct),
        "a failed call changed dsts[1]"
    );
    // Rotations by 1 and 2 work, exact or composed; a right rotation by 1
    // (= a left one by N/2 - 1) needs 3^-1, which is missing.
    // SAFETY: (all three calls) live handles.
    unsafe {
        check(helib_ciphertext_rotate_rows(k, a, 1, 0, d));
        check(helib_ciphertext_rotate_rows(k, a, 2, 1, d));
        let status = helib_ciphertext_rotate_rows(k, a, N as i64 / 2 - 1, 0, d);
        expect_status(status, HELIB_ERR_MISSING_KEY, "rotate right by 1");
    }
}

#[test]
fn composed_rotations_equal_direct_ones() {
    let f = Fixture::new(9);
    let t = &f.ctx.t;
    let half = (N / 2) as i64;
    let mut powers = Vec::new();
    let mut p = 1i64;
    while p <= half / 2 {
        powers.extend([p, -p]);
        p *= 2;
    }
    let elements: Vec<u64> = powers.iter().map(|&s| f.ctx.element_for_step(s)).collect();
    let keys = GaloisKeys::with(&f.ctx, &f.sk, &elements);
    let mut direct_steps = Vec::new();
    let mut r = rng(10);
    for _ in 0..6 {
        direct_steps.push(rand::Rng::gen_range(&mut r, 1..half));
    }
    direct_steps.extend([3, half - 1, half / 2 + 1, -5]);
    for step in direct_steps {
        let composed = Ct::empty(&f.ctx);
        // SAFETY: live handles.
        check(unsafe { helib_ciphertext_rotate_rows(keys.0, f.ct.0, step, 1, composed.0) });
        let g = f.ctx.element_for_step(step);
        let direct_keys = GaloisKeys::with(&f.ctx, &f.sk, &[g]);
        let direct = Ct::empty(&f.ctx);
        // SAFETY: live handles.
        check(unsafe { helib_ciphertext_rotate_rows(direct_keys.0, f.ct.0, step, 0, direct.0) });
        let want = poly_automorphism(&f.m, g, t);
        assert_poly_eq(
            &decrypt_ok(&f.sk, &f.ctx, &composed),
            &want,
            &format!("composed {step}"),
        );
        assert_poly_eq(
            &decrypt_ok(&f.sk, &f.ctx, &direct),
            &want,
            &format!("direct {step}"),
        );
        assert_estimate_conservative(&f.sk, &composed, &format!("composed {step}"));
    }
}

/// Header: "Rotates both slot rows left by `step`"; a step that is a multiple
/// of N/2 is the identity and should need no key — the engine's rotate_rows
/// even special-cases k == 0, but then asks the key set for element 1.
#[test]
fn identity_rotations_need_no_key() {
    let f = Fixture::new(11);
    let keys = GaloisKeys::with(&f.ctx, &f.sk, &[3]);
    let dst = Ct::empty(&f.ctx);
    for step in [0, N as i64 / 2, -(N as i64)] {
        // SAFETY: live handles.
        check(unsafe { helib_ciphertext_rotate_rows(keys.0, f.ct.0, step, 0, dst.0) });
        assert_eq!(f.state(&dst), f.state(&f.ct), "rotation by {step}");
    }
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_apply_galois(keys.0, f.ct.0, 1, dst.0) });
    assert_eq!(f.state(&dst), f.state(&f.ct), "g = 1");
}

#[test]
fn hoisted_automorphisms_equal_single_ones_and_follow_the_aliasing_rules() {
    let f = Fixture::new(12);
    let elements: Vec<u64> = [1i64, 2, 5, -1, 100]
        .iter()
        .map(|&s| f.ctx.element_for_step(s))
        .chain([TWO_N - 1])
        .collect();
    let keys = GaloisKeys::with(&f.ctx, &f.sk, &elements);
    let outs: Vec<Ct> = elements.iter().map(|_| Ct::empty(&f.ctx)).collect();
    let dsts: Vec<*mut helib_ciphertext> = outs.iter().map(|c| c.0).collect();
    // SAFETY: live handles; `elements` and `dsts` have the same length and
    // the destinations are distinct and do not alias the input.
    check(unsafe {
        helib_ciphertext_apply_galois_hoisted(
            keys.0,
            f.ct.0,
            elements.as_ptr(),
            elements.len(),
            dsts.as_ptr(),
        )
    });
    for (&g, out) in elements.iter().zip(&outs) {
        let single = Ct::empty(&f.ctx);
        // SAFETY: live handles.
        check(unsafe { helib_ciphertext_apply_galois(keys.0, f.ct.0, g, single.0) });
        assert_eq!(f.state(out), f.state(&single), "g = {g}");
        assert_poly_eq(
            &decrypt_ok(&f.sk, &f.ctx, out),
            &poly_automorphism(&f.m, g, &f.ctx.t),
            &format!("hoisted g = {g}"),
        );
        assert_estimate_conservative(&f.sk, out, &format!("hoisted g = {g}"));
    }
    // The same element twice, into distinct destinations, is fine.
    let twice = [3u64, 3];
    let (x, y) = (Ct::empty(&f.ctx), Ct::empty(&f.ctx));
    // SAFETY: as above.
    check(unsafe {
        helib_ciphertext_apply_galois_hoisted(
            keys.0,
            f.ct.0,
            twice.as_ptr(),
            2,
            [x.0, y.0].as_ptr(),
        )
    });
    assert_eq!(f.state(&x), f.state(&y));

    // Aliasing: a destination equal to the input, or two equal destinations.
    let before = f.state(&f.ct);
    let d = f.dst();
    let pair = [3u64, 9];
    let cases = [
        ("dst aliases a", [d.0, f.ct.0]),
        ("same dst twice", [d.0, d.0]),
    ];
    for (what, dsts) in cases {
        // SAFETY: live handles; the aliasing must be refused before any write.
        let status = unsafe {
            helib_ciphertext_apply_galois_hoisted(keys.0, f.ct.0, pair.as_ptr(), 2, dsts.as_ptr())
        };
        expect_status(status, HELIB_ERR_INVALID_ARGUMENT, what);
    }
    assert_eq!(f.state(&f.ct), before, "the input changed");
    assert_eq!(f.state(&d), before, "a failed call changed dst");

    // count = 0 needs no arrays.
    // SAFETY: count 0: the NULL arrays are never read.
    check(unsafe { helib_ciphertext_apply_galois_hoisted(keys.0, f.ct.0, null(), 0, null()) });
}

#[test]
fn automorphisms_refuse_size_three_other_contexts_and_empty_inputs() {
    let f = Fixture::new(13);
    let keys = GaloisKeys::with(&f.ctx, &f.sk, &[3]);
    let size3 = Ct::empty(&f.ctx);
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_multiply(f.ct.0, f.ct.0, size3.0) });
    let other = ks_ctx();
    let other_sk = SecretKey::generate(&other);
    let other_keys = GaloisKeys::with(&other, &other_sk, &[3]);
    let empty = Ct::empty(&f.ctx);
    let dst = f.dst();
    let d = dst.0;
    let one = [3u64];
    // SAFETY: (all the calls below) live handles of the right types.
    let cases = unsafe {
        [
            (
                "apply size 3",
                outcome!(helib_ciphertext_apply_galois(keys.0, size3.0, 3, d)),
                HELIB_ERR_INVALID_ARGUMENT,
            ),
            (
                "rotate size 3",
                outcome!(helib_ciphertext_rotate_rows(keys.0, size3.0, 1, 1, d)),
                HELIB_ERR_INVALID_ARGUMENT,
            ),
            (
                "hoisted size 3",
                outcome!(helib_ciphertext_apply_galois_hoisted(
                    keys.0,
                    size3.0,
                    one.as_ptr(),
                    1,
                    [d].as_ptr(),
                )),
                HELIB_ERR_INVALID_ARGUMENT,
            ),
            (
                "apply other keys",
                outcome!(helib_ciphertext_apply_galois(other_keys.0, f.ct.0, 3, d)),
                HELIB_ERR_CONTEXT_MISMATCH,
            ),
            (
                "rotate other keys",
                outcome!(helib_ciphertext_rotate_rows(other_keys.0, f.ct.0, 1, 0, d)),
                HELIB_ERR_CONTEXT_MISMATCH,
            ),
            (
                "hoisted other keys",
                outcome!(helib_ciphertext_apply_galois_hoisted(
                    other_keys.0,
                    f.ct.0,
                    one.as_ptr(),
                    1,
                    [d].as_ptr(),
                )),
                HELIB_ERR_CONTEXT_MISMATCH,
            ),
            (
                "add with other secret key",
                outcome!(helib_galois_keys_add(keys.0, other_sk.0, 5)),
                HELIB_ERR_CONTEXT_MISMATCH,
            ),
        ]
    };
    for (what, outcome, want) in cases {
        let msg = expect_outcome(outcome, want, what);
        if want == HELIB_ERR_INVALID_ARGUMENT {
            assert_mentions(&msg, "relinearize");
        }
    }
    // SAFETY: live handles; `empty` was never written and is no input.
    let refused = unsafe {
        [
            helib_ciphertext_apply_galois(keys.0, empty.0, 3, d),
            helib_ciphertext_rotate_rows(keys.0, empty.0, 1, 1, d),
            helib_ciphertext_apply_galois_hoisted(keys.0, empty.0, one.as_ptr(), 1, [d].as_ptr()),
        ]
    };
    for status in refused {
        assert!(
            status != HELIB_OK && status != HELIB_ERR_INTERNAL,
            "{}",
            status_name(status)
        );
    }
    assert_eq!(keys.elements(), vec![3]);
    assert_eq!(f.state(&dst), f.state(&f.ct), "a failed call changed dst");
}
