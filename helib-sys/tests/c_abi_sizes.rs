//! Size arguments at the edges of `size_t`. Every product of a count and a
//! width that a caller passes (coefficients × limbs per coefficient, ring
//! degree × limbs per coefficient) is checked for overflow before memory is
//! touched, and integer arguments longer than the documented maximum are
//! refused before they are read: absurd sizes give status codes, never
//! out-of-bounds reads or writes. (Run under the sanitizer, see the crate's
//! `sanitize` feature, a regression here shows up as a heap-buffer-overflow.)

mod common;

use common::*;
use helib_sys::test_api::*;
use helib_sys::*;
use num_bigint::BigUint;

const N: usize = 1024;
const SENTINEL: u64 = 0x5a5a_5a5a_5a5a_5a5a;

fn small_ctx() -> Ctx {
    Ctx::new(N as u64, &BigUint::from(65537u32), &[61, 61, 61], &[])
}

/// Widths whose product with N = 2^10 wraps around 2^64: to 0, to N, to 4N,
/// to 0 again from 2^63, to -N, plus one whose product merely overflows.
fn wrapping_widths() -> Vec<usize> {
    vec![
        1 << 54,
        (1 << 54) + 1,
        (1 << 54) + 4,
        1 << 63,
        usize::MAX,
        (1 << 61) + 3,
    ]
}

/// A sentinel-filled buffer as long as the wrapped product claims (1 to 8N limbs).
fn buffer_for(width: usize) -> Vec<u64> {
    vec![SENTINEL; N.wrapping_mul(width).clamp(1, 8 * N)]
}

#[track_caller]
fn assert_untouched(buf: &[u64], what: &str) {
    assert!(
        buf.iter().all(|&x| x == SENTINEL),
        "{what}: a failed call wrote to the caller's buffer"
    );
}

#[test]
fn decrypt_refuses_widths_whose_product_with_n_wraps() {
    let ctx = small_ctx();
    let sk = SecretKey::generate(&ctx);
    let m = vec![BigUint::from(7u32); N];
    let ct = encrypt_sk(&sk, &ctx, &m, ctx.max_level());
    for width in wrapping_widths() {
        let mut out = buffer_for(width);
        // SAFETY: `out` holds out.len() limbs; the handles are live.
        let s = unsafe { helib_decrypt(sk.0, ct.0, out.as_mut_ptr(), out.len(), width) };
        let what = format!("decrypt with limbs_per_coeff = {width:#x}");
        expect_one_of(
            s,
            &[HELIB_ERR_INVALID_ARGUMENT, HELIB_ERR_BUFFER_TOO_SMALL],
            &what,
        );
        assert_untouched(&out, &what);
    }
    // The ordinary width still works on the same ciphertext.
    assert_poly_eq(&decrypt_ok(&sk, &ctx, &ct), &m, "decrypt afterwards");
}

#[test]
fn decrypt_reports_the_needed_size_for_a_short_buffer() {
    let ctx = small_ctx();
    let sk = SecretKey::generate(&ctx);
    let ct = encrypt_sk(&sk, &ctx, &[BigUint::from(1u32)], ctx.max_level());
    let mut out = vec![SENTINEL; 2 * N - 1];
    // SAFETY: `out` holds out.len() limbs; the handles are live.
    let s = unsafe { helib_decrypt(sk.0, ct.0, out.as_mut_ptr(), out.len(), 2) };
    let msg = expect_status(s, HELIB_ERR_BUFFER_TOO_SMALL, "decrypt into 2N - 1 limbs");
    assert!(msg.contains(&(2 * N).to_string()), "{msg:?}");
    assert_untouched(&out, "decrypt into 2N - 1 limbs");
}

#[test]
fn ring_from_rns_refuses_widths_whose_product_with_n_wraps() {
    let ctx = small_ctx();
    let residues = vec![1u64; N];
    for width in wrapping_widths() {
        let mut out = buffer_for(width);
        // SAFETY: `residues` holds N residues (level 0); the engine must
        // refuse the width before writing to `out`.
        let s = unsafe {
            helib_ring_from_rns(ctx.ptr, 0, residues.as_ptr(), N, out.as_mut_ptr(), width)
        };
        let what = format!("ring_from_rns with limbs_per_coeff = {width:#x}");
        expect_status(s, HELIB_ERR_INVALID_ARGUMENT, &what);
        assert_untouched(&out, &what);
    }
}

#[test]
fn ring_to_rns_refuses_widths_whose_product_with_n_wraps() {
    let ctx = small_ctx();
    let coeffs = buffer_for(1);
    for width in wrapping_widths() {
        let mut residues = vec![SENTINEL; N];
        // SAFETY: the engine must refuse the width before reading `coeffs`;
        // `residues` holds N entries (level 0).
        let s = unsafe {
            helib_ring_to_rns(ctx.ptr, 0, coeffs.as_ptr(), width, residues.as_mut_ptr(), N)
        };
        let what = format!("ring_to_rns with limbs_per_coeff = {width:#x}");
        expect_status(s, HELIB_ERR_INVALID_ARGUMENT, &what);
        assert_untouched(&residues, &what);
    }
}

#[test]
fn plaintext_inputs_refuse_widths_whose_product_with_the_count_wraps() {
    let ctx = small_ctx();
    let sk = SecretKey::generate(&ctx);
    let pk = PublicKey::generate(&sk);
    let coeffs = buffer_for(1);
    let level = ctx.max_level();
    for width in wrapping_widths() {
        let ct = Ct::empty(&ctx);
        let mut pt: *mut helib_encoded_plaintext = std::ptr::null_mut();
        let mut len = 0usize;
        // SAFETY: every handle is live and every out-pointer valid; the
        // engine must refuse N coefficients of `width` limbs before reading
        // `coeffs`.
        let statuses = unsafe {
            [
                (
                    "encrypt_public",
                    helib_encrypt_public(pk.0, coeffs.as_ptr(), N, width, level, ct.0),
                ),
                (
                    "encrypt_secret",
                    helib_encrypt_secret(sk.0, coeffs.as_ptr(), N, width, level, ct.0),
                ),
                (
                    "encoded_plaintext_new",
                    helib_encoded_plaintext_new(
                        ctx.ptr,
                        coeffs.as_ptr(),
                        N,
                        width,
                        level,
                        std::ptr::null(),
                        0,
                        &mut pt,
                    ),
                ),
                (
                    "encoded_plaintext_new_extended",
                    helib_encoded_plaintext_new_extended(
                        ctx.ptr,
                        coeffs.as_ptr(),
                        N,
                        width,
                        level,
                        std::ptr::null(),
                        0,
                        &mut pt,
                    ),
                ),
                (
                    "plaintext_serialize",
                    helib_plaintext_serialize(
                        ctx.ptr,
                        coeffs.as_ptr(),
                        N,
                        width,
                        std::ptr::null_mut(),
                        &mut len,
                    ),
                ),
            ]
        };
        for (name, s) in statuses {
            expect_status(
                s,
                HELIB_ERR_INVALID_ARGUMENT,
                &format!("{name} with limbs_per_coeff = {width:#x}"),
            );
        }
        assert!(pt.is_null(), "a failed encode wrote *out");
        assert_eq!(len, 0, "a failed serializer wrote *len");
        assert_eq!(ct.size_or_empty(), None, "a failed encryption wrote dst");
    }
}

#[test]
fn plaintext_deserialize_refuses_wide_layouts() {
    let ctx = small_ctx();
    let limbs = poly_to_limbs(&[BigUint::from(3u32)], 1);
    let mut len = 0usize;
    // SAFETY: `limbs` holds one coefficient of one limb; two-call protocol.
    check(unsafe {
        helib_plaintext_serialize(
            ctx.ptr,
            limbs.as_ptr(),
            1,
            1,
            std::ptr::null_mut(),
            &mut len,
        )
    });
    let mut bytes = vec![0u8; len];
    // SAFETY: `bytes` holds `len` bytes.
    check(unsafe {
        helib_plaintext_serialize(ctx.ptr, limbs.as_ptr(), 1, 1, bytes.as_mut_ptr(), &mut len)
    });
    for width in wrapping_widths() {
        let mut out = buffer_for(width);
        // SAFETY: `bytes` and `out` are live buffers of the lengths passed.
        let s = unsafe {
            helib_plaintext_deserialize(
                ctx.ptr,
                bytes.as_ptr(),
                bytes.len(),
                out.as_mut_ptr(),
                out.len(),
                width,
            )
        };
        let what = format!("plaintext_deserialize with limbs_per_coeff = {width:#x}");
        expect_one_of(
            s,
            &[HELIB_ERR_INVALID_ARGUMENT, HELIB_ERR_BUFFER_TOO_SMALL],
            &what,
        );
        assert_untouched(&out, &what);
    }
}

/// Limb counts far beyond any integer the engine accepts; the buffers passed
/// with them are short, so reading them at all would be out of bounds.
const HUGE_COUNTS: [usize; 4] = [usize::MAX, 1 << 62, 1 << 40, (1 << 31) + 1];

#[test]
fn integer_arguments_longer_than_the_maximum_are_refused_unread() {
    let ctx = small_ctx();
    let sk = SecretKey::generate(&ctx);
    let ct = encrypt_sk(&sk, &ctx, &[BigUint::from(5u32)], ctx.max_level());
    let one = [1u64; 4];
    for count in HUGE_COUNTS {
        let dst = Ct::empty(&ctx);
        let mut pt: *mut helib_encoded_plaintext = std::ptr::null_mut();
        let coeff = [2u64];
        // SAFETY: live handles and valid out-pointers; the engine must refuse
        // `count` before reading past the four limbs of `one`.
        let statuses = unsafe {
            [
                (
                    "mul_scalar",
                    helib_ciphertext_mul_scalar(ct.0, one.as_ptr(), count, dst.0),
                ),
                (
                    "add_scalar",
                    helib_ciphertext_add_scalar(ct.0, one.as_ptr(), count, dst.0),
                ),
                (
                    "encoded_plaintext_new factor",
                    helib_encoded_plaintext_new(
                        ctx.ptr,
                        coeff.as_ptr(),
                        1,
                        1,
                        0,
                        one.as_ptr(),
                        count,
                        &mut pt,
                    ),
                ),
            ]
        };
        for (name, s) in statuses {
            expect_status(
                s,
                HELIB_ERR_INVALID_ARGUMENT,
                &format!("{name} with {count:#x} limbs"),
            );
        }
        assert!(pt.is_null());
        assert_eq!(dst.size_or_empty(), None);
    }
    // Long but sensible integers still work: k = 2^(64*99) + 3 reduced mod t.
    let mut k = vec![0u64; 100];
    k[0] = 3;
    k[99] = 1;
    let dst = Ct::empty(&ctx);
    // SAFETY: `k` holds k.len() limbs; live handles.
    check(unsafe { helib_ciphertext_mul_scalar(ct.0, k.as_ptr(), k.len(), dst.0) });
    let t = BigUint::from(65537u32);
    let k_mod_t = big_from_limbs(&k) % &t;
    let want = poly_scalar(&pad(&[BigUint::from(5u32)], N), &k_mod_t, &t);
    assert_poly_eq(
        &decrypt_ok(&sk, &ctx, &dst),
        &want,
        "mul by a 100-limb scalar",
    );
}

impl Ct {
    /// The size of a written ciphertext, `None` for an empty one.
    fn size_or_empty(&self) -> Option<usize> {
        let mut size = 0usize;
        // SAFETY: live ciphertext, valid out-pointer.
        let s = unsafe { helib_ciphertext_size(self.0, &mut size) };
        (s == HELIB_OK).then_some(size)
    }
}

/// Counts of caller arrays beyond any array that can exist: refused before
/// the arrays are read (elements + count would wrap).
#[test]
fn array_counts_beyond_any_array_are_refused() {
    let ctx = Ctx::new(N as u64, &BigUint::from(65537u32), &[61, 61, 61], &[61]);
    let sk = SecretKey::generate(&ctx);
    let g = ctx.element_for_step(1);
    let keys = GaloisKeys::with(&ctx, &sk, &[g]);
    let ct = encrypt_sk(&sk, &ctx, &[BigUint::from(9u32)], ctx.max_level());
    let mut pt_ext: *mut helib_encoded_plaintext = std::ptr::null_mut();
    let one = [1u64];
    // SAFETY: `one` holds one coefficient; `pt_ext` is a valid place.
    check(unsafe {
        helib_encoded_plaintext_new_extended(
            ctx.ptr,
            one.as_ptr(),
            1,
            1,
            ctx.max_level(),
            std::ptr::null(),
            0,
            &mut pt_ext,
        )
    });
    let pt_ext = Pt(pt_ext);
    for count in [usize::MAX, 1 << 62, (1 << 60) + 1] {
        let dst = Ct::empty(&ctx);
        let elements = [g];
        let dsts = [dst.0];
        let baby = [1u64];
        let plains = [pt_ext.0 as *const helib_encoded_plaintext];
        // SAFETY: live handles; each array holds one entry, and the engine
        // must refuse `count` before reading past it.
        let statuses = unsafe {
            [
                (
                    "apply_galois_hoisted count",
                    helib_ciphertext_apply_galois_hoisted(
                        keys.0,
                        ct.0,
                        elements.as_ptr(),
                        count,
                        dsts.as_ptr(),
                    ),
                ),
                (
                    "linear_transform baby_count",
                    helib_ciphertext_linear_transform(
                        keys.0,
                        ct.0,
                        baby.as_ptr(),
                        count,
                        g,
                        plains.as_ptr(),
                        1,
                        dst.0,
                    ),
                ),
                (
                    "linear_transform plain_count",
                    helib_ciphertext_linear_transform(
                        keys.0,
                        ct.0,
                        baby.as_ptr(),
                        1,
                        g,
                        plains.as_ptr(),
                        count,
                        dst.0,
                    ),
                ),
            ]
        };
        for (name, s) in statuses {
            expect_status(
                s,
                HELIB_ERR_INVALID_ARGUMENT,
                &format!("{name} = {count:#x}"),
            );
        }
        assert_eq!(dst.size_or_empty(), None, "a failed call wrote dst");
    }
}
