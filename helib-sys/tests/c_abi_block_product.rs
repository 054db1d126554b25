//! The C ABI of block products and monomial products: results against a
//! schoolbook model over u64, and bad arguments give status codes.

mod common;

use std::ptr;

use common::*;
use helib_sys::*;
use num_bigint::BigUint;

const N: usize = 1024;
const T: u64 = 65537;

fn setup() -> (Ctx, SecretKey, PublicKey) {
    let ctx = Ctx::new(N as u64, &BigUint::from(T), &[61, 61, 61], &[]);
    let sk = SecretKey::generate(&ctx);
    let pk = PublicKey::generate(&sk);
    (ctx, sk, pk)
}

fn blocks(pk: &PublicKey, ctx: &Ctx, values: &[Vec<BigUint>]) -> Vec<Ct> {
    values
        .iter()
        .map(|m| encrypt_pk(pk, ctx, m, ctx_top(ctx)))
        .collect()
}

fn ctx_top(ctx: &Ctx) -> usize {
    let mut level = 0;
    // SAFETY: live context, valid out pointer.
    check(unsafe { helib_context_max_level(ctx.ptr, &mut level) });
    level
}

#[test]
fn block_products_equal_the_schoolbook_convolution_of_blocks() {
    let (ctx, sk, pk) = setup();
    let t = BigUint::from(T);
    let mut rng = rng(1);
    // Blocks of degree < N/2 so no ring product wraps.
    let half = |rng: &mut _| pad(&rand_poly(rng, N / 2, &t), N);
    let a: Vec<Vec<BigUint>> = (0..3).map(|_| half(&mut rng)).collect();
    let b: Vec<Vec<BigUint>> = (0..2).map(|_| half(&mut rng)).collect();
    let (ca, cb) = (blocks(&pk, &ctx, &a), blocks(&pk, &ctx, &b));
    let outputs: Vec<Ct> = (0..4).map(|_| Ct::empty(&ctx)).collect();
    let a_raw: Vec<*const helib_ciphertext> = ca.iter().map(|c| c.0 as *const _).collect();
    let b_raw: Vec<*const helib_ciphertext> = cb.iter().map(|c| c.0 as *const _).collect();
    let out_raw: Vec<*mut helib_ciphertext> = outputs.iter().map(|c| c.0).collect();
    // SAFETY: live handles, counts match the arrays, outputs alias no input.
    check(unsafe {
        helib_ciphertext_multiply_blocks(
            a_raw.as_ptr(),
            3,
            b_raw.as_ptr(),
            2,
            0,
            out_raw.as_ptr(),
            4,
        )
    });
    for (k, out) in outputs.iter().enumerate() {
        let mut expected = vec![BigUint::from(0u32); N];
        for i in 0..3 {
            if k >= i && k - i < 2 {
                expected = poly_add(&expected, &poly_mul(&a[i], &b[k - i], &t), &t);
            }
        }
        assert_eq!(decrypt_ok(&sk, &ctx, out), expected, "block {k}");
    }
}

#[test]
fn block_product_arguments_are_checked() {
    let (ctx, _sk, pk) = setup();
    let one = blocks(&pk, &ctx, &[pad(&[BigUint::from(1u32)], N)]);
    let a_raw = [one[0].0 as *const helib_ciphertext];
    let out = Ct::empty(&ctx);
    let out_raw = [out.0];
    let empty = Ct::empty(&ctx);
    let empty_raw = [empty.0 as *const helib_ciphertext];
    let null_raw = [ptr::null::<helib_ciphertext>()];
    let call = |a: *const *const helib_ciphertext,
                ac: usize,
                first: usize,
                outs: *const *mut helib_ciphertext,
                oc: usize| {
        // SAFETY: every pointer is NULL or a live array of at least the count
        // the engine reads before it validates (it checks counts first).
        unsafe { helib_ciphertext_multiply_blocks(a, ac, a_raw.as_ptr(), 1, first, outs, oc) }
    };
    // (a, a_count, first, outputs, output count), the status, what it is.
    #[rustfmt::skip]
    let cases = [
        (ptr::null(), 1, 0, out_raw.as_ptr(), 1, HELIB_ERR_NULL_POINTER, "NULL a"),
        (null_raw.as_ptr(), 1, 0, out_raw.as_ptr(), 1, HELIB_ERR_NULL_POINTER, "NULL block"),
        (a_raw.as_ptr(), 1, 0, ptr::null(), 1, HELIB_ERR_NULL_POINTER, "NULL outputs"),
        (a_raw.as_ptr(), usize::MAX, 0, out_raw.as_ptr(), 1, HELIB_ERR_INVALID_ARGUMENT, "huge count"),
        (a_raw.as_ptr(), 0, 0, out_raw.as_ptr(), 1, HELIB_ERR_INVALID_ARGUMENT, "no blocks"),
        (a_raw.as_ptr(), 1, 1, out_raw.as_ptr(), 1, HELIB_ERR_INVALID_ARGUMENT, "first past the end"),
        (a_raw.as_ptr(), 1, 0, out_raw.as_ptr(), 0, HELIB_ERR_INVALID_ARGUMENT, "no outputs"),
        (empty_raw.as_ptr(), 1, 0, out_raw.as_ptr(), 1, HELIB_ERR_INVALID_ARGUMENT, "unwritten block"),
    ];
    for (a, a_count, first, outs, out_count, want, what) in cases {
        expect_status(call(a, a_count, first, outs, out_count), want, what);
    }
    // Monomials: the exponent must be below 2N.
    // SAFETY: live handles.
    let s = unsafe { helib_ciphertext_mul_monomial(one[0].0, 2 * N as u64, out.0) };
    expect_status(s, HELIB_ERR_INVALID_ARGUMENT, "exponent 2N");
    // SAFETY: NULL input.
    let s = unsafe { helib_ciphertext_mul_monomial(ptr::null(), 1, out.0) };
    expect_status(s, HELIB_ERR_NULL_POINTER, "NULL monomial input");
}
