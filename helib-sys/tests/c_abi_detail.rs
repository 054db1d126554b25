//! Tests of the structured results of the C ABI: `helib_ciphertext_get_info`
//! (everything tracked about a ciphertext in one call),
//! `helib_last_error_detail` (missing keys and levels as typed data, never
//! to be parsed from the message) and `helib_rotation_terms`.

mod common;

use std::ptr::null_mut;

use common::*;
use helib_sys::*;
use num_bigint::BigUint;

const N: usize = 1024;

/// N = 1024, t = 65537, three 50-bit chain primes and one special prime.
fn ctx() -> Ctx {
    Ctx::new(N as u64, &BigUint::from(65537u32), &[50, 50, 50], &[60])
}

fn no_detail() -> helib_error_detail {
    helib_error_detail {
        status: HELIB_OK,
        kind: HELIB_DETAIL_NONE,
        element: 0,
        step: 0,
        has_step: 0,
        left: 0,
        right: 0,
    }
}

fn last_detail() -> helib_error_detail {
    let mut detail = no_detail();
    // SAFETY: valid out pointer.
    check(unsafe { helib_last_error_detail(&mut detail) });
    detail
}

fn info(ct: &Ct, limbs: usize) -> (helib_ciphertext_info, Vec<u64>) {
    let mut info = helib_ciphertext_info {
        level: usize::MAX,
        size: 0,
        noise_estimate_bits: f64::NAN,
        estimated_budget_bits: f64::NAN,
    };
    let mut factor = vec![u64::MAX; limbs];
    // SAFETY: live handle, valid out pointers, `factor` holds `limbs` limbs.
    check(unsafe { helib_ciphertext_get_info(ct.0, &mut info, factor.as_mut_ptr(), limbs) });
    (info, factor)
}

#[test]
fn one_info_call_matches_the_getters() {
    let ctx = ctx();
    let sk = SecretKey::generate(&ctx);
    let fresh = encrypt_sk(&sk, &ctx, &[BigUint::from(7u32)], 2);
    let dst = Ct::empty(&ctx);
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_mod_switch(fresh.0, dst.0) });
    for ct in [&fresh, &dst] {
        // Two spare limbs: zero-padded.
        let (got, factor) = info(ct, ctx.plain_limbs() + 2);
        assert_eq!(got.level, ct.level());
        assert_eq!(got.size, ct.size());
        assert_eq!(got.noise_estimate_bits, ct.noise_estimate());
        assert_eq!(got.estimated_budget_bits, ct.estimated_budget());
        assert_eq!(big_from_limbs(&factor), ct.factor(&ctx));
        assert_eq!(factor[ctx.plain_limbs()..], [0, 0]);
    }
    assert_eq!(dst.factor(&ctx), ctx.model_factor(1));

    // Bad arguments: NULL out pointers, a short factor buffer, an unwritten ciphertext.
    let mut raw = info(&fresh, ctx.plain_limbs()).0;
    let mut factor = vec![0u64; ctx.plain_limbs()];
    // SAFETY: NULL out pointers are refused before anything is written.
    let s = unsafe {
        helib_ciphertext_get_info(fresh.0, null_mut(), factor.as_mut_ptr(), factor.len())
    };
    expect_status(s, HELIB_ERR_NULL_POINTER, "get_info, out NULL");
    // SAFETY: as above.
    let s = unsafe { helib_ciphertext_get_info(fresh.0, &mut raw, null_mut(), 1) };
    expect_status(s, HELIB_ERR_NULL_POINTER, "get_info, factor NULL");
    // SAFETY: the buffer holds 0 limbs, which the engine must not write past.
    let s = unsafe { helib_ciphertext_get_info(fresh.0, &mut raw, factor.as_mut_ptr(), 0) };
    expect_status(s, HELIB_ERR_BUFFER_TOO_SMALL, "get_info, no limbs");
    let empty = Ct::empty(&ctx);
    // SAFETY: live handles; the empty ciphertext is refused.
    let s =
        unsafe { helib_ciphertext_get_info(empty.0, &mut raw, factor.as_mut_ptr(), factor.len()) };
    expect_status(
        s,
        HELIB_ERR_INVALID_ARGUMENT,
        "get_info, unwritten ciphertext",
    );
}

#[test]
fn level_failures_carry_their_levels() {
    let ctx = ctx();
    let sk = SecretKey::generate(&ctx);
    let m = [BigUint::from(3u32)];
    let (top, low) = (encrypt_sk(&sk, &ctx, &m, 2), encrypt_sk(&sk, &ctx, &m, 1));
    let dst = Ct::empty(&ctx);

    // SAFETY: live handles.
    let s = unsafe { helib_ciphertext_add(low.0, top.0, dst.0) };
    expect_status(s, HELIB_ERR_LEVEL_MISMATCH, "add level 1 + level 2");
    let d = last_detail();
    assert_eq!(
        (d.status, d.kind),
        (HELIB_ERR_LEVEL_MISMATCH, HELIB_DETAIL_LEVEL_MISMATCH)
    );
    assert_eq!((d.left, d.right), (1, 2));

    let pt = encode(&ctx, &m, 1, None);
    // SAFETY: live handles.
    let s = unsafe { helib_ciphertext_mul_plain(top.0, pt.0, dst.0) };
    expect_status(
        s,
        HELIB_ERR_LEVEL_MISMATCH,
        "mul_plain ct level 2, pt level 1",
    );
    let d = last_detail();
    assert_eq!(d.kind, HELIB_DETAIL_LEVEL_MISMATCH);
    assert_eq!((d.left, d.right), (2, 1));

    // SAFETY: live handles.
    let s = unsafe { helib_ciphertext_mod_switch_to(low.0, 2, dst.0) };
    expect_status(s, HELIB_ERR_INVALID_LEVEL, "mod_switch_to above the level");
    let d = last_detail();
    assert_eq!(d.kind, HELIB_DETAIL_LEVEL_OUT_OF_RANGE);
    assert_eq!((d.left, d.right), (2, 1));

    let bottom = Ct::empty(&ctx);
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_mod_switch_to(top.0, 0, bottom.0) });
    // SAFETY: live handles.
    let s = unsafe { helib_ciphertext_mod_switch(bottom.0, dst.0) };
    expect_status(s, HELIB_ERR_INVALID_LEVEL, "mod_switch at level 0");
    assert_eq!(last_detail().kind, HELIB_DETAIL_CHAIN_EXHAUSTED);

    let mut level_log = 0.0;
    // SAFETY: live context, valid out pointer.
    let s = unsafe { helib_context_log2_modulus(ctx.ptr, 9, &mut level_log) };
    expect_status(
        s,
        HELIB_ERR_INVALID_LEVEL,
        "log2_modulus above the top level",
    );
    let d = last_detail();
    assert_eq!(d.kind, HELIB_DETAIL_LEVEL_OUT_OF_RANGE);
    assert_eq!((d.left, d.right), (9, 2));

    // A failure without detail replaces the last one.
    // SAFETY: a NULL destination is refused.
    let s = unsafe { helib_ciphertext_copy(top.0, null_mut()) };
    expect_status(s, HELIB_ERR_NULL_POINTER, "copy to NULL");
    let d = last_detail();
    assert_eq!(
        (d.status, d.kind),
        (HELIB_ERR_NULL_POINTER, HELIB_DETAIL_NONE)
    );
    // SAFETY: NULL is refused without touching the recorded detail.
    let s = unsafe { helib_last_error_detail(null_mut()) };
    assert_eq!(s, HELIB_ERR_NULL_POINTER);
}

#[test]
fn missing_galois_keys_carry_the_element_and_step() {
    let ctx = ctx();
    let sk = SecretKey::generate(&ctx);
    let ct = encrypt_sk(&sk, &ctx, &[BigUint::from(5u32)], 2);
    let dst = Ct::empty(&ctx);
    let element = |step: i64| {
        let mut g = 0;
        // SAFETY: live context, valid out pointer.
        check(unsafe { helib_galois_element_for_step(ctx.ptr, step, &mut g) });
        g
    };
    let keys = GaloisKeys::with(&ctx, &sk, &[element(-1)]);

    // SAFETY: live handles.
    let s = unsafe { helib_ciphertext_apply_galois(keys.0, ct.0, 5, dst.0) };
    expect_status(s, HELIB_ERR_MISSING_KEY, "apply_galois without the key");
    let d = last_detail();
    assert_eq!(
        (d.kind, d.element, d.has_step),
        (HELIB_DETAIL_MISSING_GALOIS_KEY, 5, 0)
    );

    // SAFETY: live handles.
    let s = unsafe { helib_ciphertext_rotate_rows(keys.0, ct.0, 7, 0, dst.0) };
    expect_status(s, HELIB_ERR_MISSING_KEY, "exact rotation by 7");
    let d = last_detail();
    assert_eq!((d.element, d.has_step, d.step), (element(7), 1, 7));

    // 7 = 8 - 1: the key for -1 is there, the one for 8 is not.
    // SAFETY: live handles.
    let s = unsafe { helib_ciphertext_rotate_rows(keys.0, ct.0, 7, 1, dst.0) };
    expect_status(s, HELIB_ERR_MISSING_KEY, "composed rotation by 7");
    let d = last_detail();
    assert_eq!((d.element, d.has_step, d.step), (element(8), 1, 8));
}

#[test]
fn rotation_terms_follow_the_two_call_protocol() {
    let ctx = ctx();
    let half = (N / 2) as i64;
    let terms = |step: i64| {
        let mut len = 0usize;
        // SAFETY: live context; NULL buffer asks for the count.
        check(unsafe { helib_rotation_terms(ctx.ptr, step, std::ptr::null_mut(), &mut len) });
        let mut buf = vec![0i64; len];
        // SAFETY: `buf` holds `len` entries.
        check(unsafe { helib_rotation_terms(ctx.ptr, step, buf.as_mut_ptr(), &mut len) });
        buf.truncate(len);
        buf
    };
    assert_eq!(terms(7), [-1, 8]);
    assert_eq!(terms(half - 1), [-1]);
    assert!(terms(0).is_empty() && terms(half).is_empty());
    for step in -700..700i64 {
        let got = terms(step);
        let sum: i64 = got.iter().sum();
        assert_eq!(sum.rem_euclid(half), step.rem_euclid(half), "step {step}");
        assert!(got
            .windows(2)
            .all(|w| w[0].unsigned_abs() * 2 < w[1].unsigned_abs()));
    }
    let mut len = 1usize;
    let mut one = [0i64; 1];
    // SAFETY: `one` holds one entry; three are needed.
    let s = unsafe { helib_rotation_terms(ctx.ptr, 11, one.as_mut_ptr(), &mut len) };
    expect_status(
        s,
        HELIB_ERR_BUFFER_TOO_SMALL,
        "rotation_terms, short buffer",
    );
    // SAFETY: NULL length pointer and NULL context are refused.
    let s = unsafe { helib_rotation_terms(ctx.ptr, 11, one.as_mut_ptr(), null_mut()) };
    expect_status(s, HELIB_ERR_NULL_POINTER, "rotation_terms, len NULL");
    // SAFETY: as above.
    let s = unsafe { helib_rotation_terms(std::ptr::null(), 11, one.as_mut_ptr(), &mut len) };
    expect_status(s, HELIB_ERR_NULL_POINTER, "rotation_terms, ctx NULL");
}
