//! Size arguments at the edges of `size_t`. Every product of a count and a
//! width that a caller passes (coefficients × limbs per coefficient, ring
//! degree × limbs per coefficient) is checked for overflow before memory is
//! touched, and integer arguments longer than the documented maximum are
//! refused before they are read: absurd sizes give status codes, never
//! out-of-bounds reads or writes. Below, every (pointer, count) pair of
//! helib_c.h (and of the test-only entry points), inputs and outputs, at
//! counts near 2^61, 2^63 and SIZE_MAX. (Run under the sanitizer, see the
//! crate's `sanitize` feature, a regression here shows up as a
//! heap-buffer-overflow.)

// The arrays handed to the engine are on the heap on purpose, where the
// sanitizer's redzones catch a read or write past their end (the Rust stack
// is not instrumented).
#![allow(clippy::useless_vec)]

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

// ------------------------------------------------ every array argument
//
// Each (pointer, count) pair of helib_c.h at counts no array can have: the
// header's "Sizes" rule makes every array at most PTRDIFF_MAX bytes, and a
// larger count (or one whose product with the entry size wraps) fails with
// HELIB_ERR_INVALID_ARGUMENT, or the status the function documents for a
// count it checks exactly, before the array is read or written. The arrays
// passed are short, so a call that read or wrote as far as the count says
// would leave them (a crash, or a heap-buffer-overflow under the sanitizer).

/// Row (0, 0) of a ciphertext's residues.
fn residue_row(ct: *mut helib_ciphertext, n: usize) -> Vec<u64> {
    let mut row = vec![0u64; n];
    // SAFETY: a live ciphertext handle; `row` holds N values.
    check(unsafe { helib_ciphertext_residues(ct, 0, 0, row.as_mut_ptr(), n) });
    row
}

/// Counts at the edges of size_t: around 2^61 (2^61 eight-byte entries are
/// 2^64 bytes, so an end pointer wraps back to the start), 2^62 + 1 (times
/// 4 or 8 bytes it wraps to 4 or 8), around 2^63 and SIZE_MAX.
const EDGE_COUNTS: [usize; 9] = [
    (1 << 61) - 1,
    1 << 61,
    (1 << 61) + 1,
    (1 << 62) + 1,
    (1 << 63) - 1,
    1 << 63,
    (1 << 63) + 1,
    usize::MAX - 1,
    usize::MAX,
];

/// Whether `count` entries of `entry` bytes are more than PTRDIFF_MAX bytes.
fn beyond_any_array(count: usize, entry: usize) -> bool {
    count > isize::MAX as usize / entry
}

/// One array argument of an entry point: the call with the array's count
/// replaced, and the status the header documents for that count.
struct Case<'a> {
    name: &'static str,
    want: fn(usize) -> helib_status,
    call: Box<dyn Fn(usize) -> helib_status + 'a>,
}

fn case<'a>(
    name: &'static str,
    want: fn(usize) -> helib_status,
    call: impl Fn(usize) -> helib_status + 'a,
) -> Case<'a> {
    Case {
        name,
        want,
        call: Box::new(call),
    }
}

fn invalid(_: usize) -> helib_status {
    HELIB_ERR_INVALID_ARGUMENT
}

/// Runs every case at every edge count.
fn run_cases(cases: &[Case<'_>]) {
    for case in cases {
        for count in EDGE_COUNTS {
            let what = format!("{} = {count:#x}", case.name);
            let want = (case.want)(count);
            let s = (case.call)(count);
            if want == HELIB_OK {
                assert_eq!(s, HELIB_OK, "{what}: {:?}", last_error());
            } else {
                expect_status(s, want, &what);
            }
        }
    }
}

/// `count_cases!(cases, want, f(a, @name = value, b, ...))` pushes to
/// `cases` one case for each argument marked `@name =`, named after the
/// function and `name`, that calls `f` with the count in that argument's
/// place and every other argument as written (a marked one as its `value`),
/// and expects `want`.
/// `[f, g](...)` does so for each of several entry points with the same
/// arguments.
macro_rules! count_cases {
    // Entry points taking the same arguments: the cases of each.
    ($cases:ident, $want:expr, [$($f:ident),+] $args:tt) => {
        $(count_cases!($cases, $want, $f $args);)+
    };
    ($cases:ident, $want:expr, $($call:tt)*) => {
        for_each_marked!(count_case [$cases, $want, count] count $($call)*)
    };
}

/// One case of `count_cases!`.
macro_rules! count_case {
    ([$cases:ident, $want:expr, $count:ident] $name:expr, $call:expr) => {
        $cases.push(case(
            $name,
            $want,
            // SAFETY: every other argument is a live handle, a valid
            // out-pointer or an array of at least the length it is passed
            // with, and the engine must refuse the count before reading or
            // writing past it.
            |$count| unsafe { $call },
        ))
    };
}

fn keyswitch_ctx() -> Ctx {
    Ctx::new(N as u64, &BigUint::from(65537u32), &[61, 61, 61], &[61])
}

/// The bytes a serializer writes (two-call protocol).
fn serialized(write: impl Fn(*mut u8, *mut usize) -> helib_status) -> Vec<u8> {
    two_call(|buf, len| write(buf, len))
}

#[test]
fn galois_keys_add_many_refuses_counts_beyond_any_array() {
    let ctx = keyswitch_ctx();
    let sk = SecretKey::generate(&ctx);
    let keys = GaloisKeys::empty(&ctx);
    let g = ctx.element_for_step(1);
    let gs = vec![g];
    for count in EDGE_COUNTS {
        // SAFETY: live handles; `gs` holds one element, and the engine must
        // refuse `count` before reading past it.
        let s = unsafe { helib_galois_keys_add_many(keys.0, sk.0, gs.as_ptr(), count) };
        let what = format!("galois_keys_add_many count = {count:#x}");
        let msg = expect_status(s, HELIB_ERR_INVALID_ARGUMENT, &what);
        assert!(msg.contains("count"), "{what}: {msg}");
        assert!(keys.elements().is_empty(), "{what}: a key was added");
    }
    // SAFETY: as above, with the count of `gs`.
    check(unsafe { helib_galois_keys_add_many(keys.0, sk.0, gs.as_ptr(), gs.len()) });
    assert_eq!(keys.elements(), [g]);
}

/// Counts of arrays the engine reads (inputs).
#[test]
fn input_arrays_refuse_edge_counts() {
    use std::ptr::{null, null_mut};
    let ctx = keyswitch_ctx();
    let sk = SecretKey::generate(&ctx);
    let pk = PublicKey::generate(&sk);
    let level = ctx.max_level();
    let g = ctx.element_for_step(1);
    let keys = GaloisKeys::with(&ctx, &sk, &[g]);
    let ct = encrypt_sk(&sk, &ctx, &[BigUint::from(4u32)], level);
    let pt = encode(&ctx, &[BigUint::from(1u32)], level, None);
    let mut pt_ext = null_mut();
    let one = vec![1u64; 4];
    let chain = vec![61u32; 4];
    // SAFETY: `one` holds one coefficient; `pt_ext` is a valid place.
    check(unsafe {
        helib_encoded_plaintext_new_extended(
            ctx.ptr,
            one.as_ptr(),
            1,
            1,
            level,
            null(),
            0,
            &mut pt_ext,
        )
    });
    let pt_ext = Pt(pt_ext);
    let (mut import, mut words, mut words_len) = (null_mut(), null_mut(), 0usize);
    // SAFETY: live context, valid out-pointers.
    check(unsafe {
        helib_residue_import_begin(
            ctx.ptr,
            level,
            0,
            1,
            &mut import,
            &mut words,
            &mut words_len,
        )
    });
    let dst = Ct::empty(&ctx);
    let cts = vec![ct.0 as *const helib_ciphertext];
    let pts = vec![pt.0 as *const helib_encoded_plaintext];
    let plains = vec![pt_ext.0 as *const helib_encoded_plaintext];
    let dsts = vec![dst.0];
    let elements = vec![g];
    // SAFETY (every case below): live handles and valid out-pointers; each
    // array holds at least one entry (four for limbs and bit sizes), and the
    // engine must refuse the count before reading past them.
    let mut cases = vec![
        // SAFETY: see the comment above the table.
        case("context_new t_nlimbs", invalid, |count| unsafe {
            let mut out = null_mut();
            let s = helib_context_new(
                N as u64,
                one.as_ptr(),
                count,
                chain.as_ptr(),
                3,
                null(),
                0,
                1,
                HELIB_CONTEXT_ALLOW_INSECURE,
                &mut out,
            );
            assert!(out.is_null());
            s
        }),
        // SAFETY: see the comment above the table.
        case("context_new chain_len", invalid, |count| unsafe {
            let mut out = null_mut();
            helib_context_new(
                N as u64,
                one.as_ptr(),
                1,
                chain.as_ptr(),
                count,
                null(),
                0,
                1,
                HELIB_CONTEXT_ALLOW_INSECURE,
                &mut out,
            )
        }),
        // SAFETY: see the comment above the table.
        case("context_new special_len", invalid, |count| unsafe {
            let mut out = null_mut();
            helib_context_new(
                N as u64,
                one.as_ptr(),
                1,
                chain.as_ptr(),
                3,
                chain.as_ptr(),
                count,
                1,
                HELIB_CONTEXT_ALLOW_INSECURE,
                &mut out,
            )
        }),
        // The header: residues_len must be the word count the level, form
        // and stride imply, HELIB_ERR_MALFORMED_INPUT otherwise.
        case(
            "encoded_plaintext_import_residues residues_len",
            |_| HELIB_ERR_MALFORMED_INPUT,
            // SAFETY: see the comment above the table.
            |count| unsafe {
                let mut out = null_mut();
                helib_encoded_plaintext_import_residues(
                    ctx.ptr,
                    level,
                    0,
                    1,
                    null(),
                    0,
                    one.as_ptr(),
                    count,
                    -1e300,
                    -1e300,
                    &mut out,
                )
            },
        ),
        // Integers of more than 2^20 limbs: HELIB_ERR_INVALID_ARGUMENT ("Sizes").
        case(
            "encoded_plaintext_import_residues factor_nlimbs",
            invalid,
            // SAFETY: see the comment above the table.
            |count| unsafe {
                let mut out = null_mut();
                helib_encoded_plaintext_import_residues(
                    ctx.ptr,
                    level,
                    0,
                    1,
                    one.as_ptr(),
                    count,
                    one.as_ptr(),
                    1,
                    -1e300,
                    -1e300,
                    &mut out,
                )
            },
        ),
        case(
            "residue_import_finish factor_nlimbs",
            invalid,
            // SAFETY: see the comment above the table.
            |count| unsafe {
                let mut out = null_mut();
                helib_residue_import_finish(import, one.as_ptr(), count, -1e300, -1e300, &mut out)
            },
        ),
        // SAFETY: see the comment above the table.
        case("ciphertext_zeros factor_nlimbs", invalid, |count| unsafe {
            helib_ciphertext_zeros(ctx.ptr, level, 2, one.as_ptr(), count, 0.0, dst.0)
        }),
        case(
            "ciphertext_unwritten factor_nlimbs",
            invalid,
            // SAFETY: see the comment above the table.
            |count| unsafe {
                helib_ciphertext_unwritten(ctx.ptr, level, 2, one.as_ptr(), count, 0.0, dst.0)
            },
        ),
        case(
            "ciphertext_write_residue_columns count",
            invalid,
            // SAFETY: see the comment above the table.
            |count| unsafe {
                let before = residue_row(ct.0, ctx.n);
                let s = helib_ciphertext_write_residue_columns(ct.0, 0, 0, 0, one.as_ptr(), count);
                assert_eq!(
                    residue_row(ct.0, ctx.n),
                    before,
                    "a refused write changed the row"
                );
                s
            },
        ),
        // SAFETY: see the comment above the table.
        case("encrypt_public n_coeffs", invalid, |count| unsafe {
            helib_encrypt_public(pk.0, one.as_ptr(), count, 1, level, dst.0)
        }),
        // SAFETY: see the comment above the table.
        case("encrypt_secret n_coeffs", invalid, |count| unsafe {
            helib_encrypt_secret(sk.0, one.as_ptr(), count, 1, level, dst.0)
        }),
        // SAFETY: see the comment above the table.
        case("ciphertext_add_scalar k_nlimbs", invalid, |count| unsafe {
            helib_ciphertext_add_scalar(ct.0, one.as_ptr(), count, dst.0)
        }),
        // SAFETY: see the comment above the table.
        case("ciphertext_mul_scalar k_nlimbs", invalid, |count| unsafe {
            helib_ciphertext_mul_scalar(ct.0, one.as_ptr(), count, dst.0)
        }),
        // SAFETY: see the comment above the table.
        case("galois_keys_add_many count", invalid, |count| unsafe {
            helib_galois_keys_add_many(keys.0, sk.0, elements.as_ptr(), count)
        }),
        case(
            "ciphertext_apply_galois_hoisted count",
            invalid,
            // SAFETY: see the comment above the table.
            |count| unsafe {
                helib_ciphertext_apply_galois_hoisted(
                    keys.0,
                    ct.0,
                    elements.as_ptr(),
                    count,
                    dsts.as_ptr(),
                )
            },
        ),
        // SAFETY: see the comment above the table.
        case("plaintext_serialize n_coeffs", invalid, |count| unsafe {
            let mut len = 0usize;
            helib_plaintext_serialize(ctx.ptr, one.as_ptr(), count, 1, null_mut(), &mut len)
        }),
    ];
    // Functions with several counts: one case a count (see `count_cases!`).
    count_cases!(
        cases,
        invalid,
        helib_parameters_serialize(
            N as u64,
            one.as_ptr(),
            @t_nlimbs = 1,
            chain.as_ptr(),
            @chain_len = 3,
            chain.as_ptr(),
            @special_len = 0,
            0,
            null_mut(),
            &mut 0usize
        )
    );
    count_cases!(
        cases,
        invalid,
        [helib_encoded_plaintext_new, helib_encoded_plaintext_new_extended](
            ctx.ptr,
            one.as_ptr(),
            @n_coeffs = 1,
            1,
            level,
            one.as_ptr(),
            @factor_nlimbs = 1,
            &mut null_mut()
        )
    );
    count_cases!(
        cases,
        invalid,
        helib_encoded_plaintext_new_public(
            ctx.ptr,
            one.as_ptr(),
            @n_coeffs = 1,
            1,
            level,
            one.as_ptr(),
            @factor_nlimbs = 1,
            1,
            &mut null_mut()
        )
    );
    count_cases!(
        cases,
        invalid,
        helib_ciphertext_multiply_blocks(
            cts.as_ptr(),
            @a_count = 1,
            cts.as_ptr(),
            @b_count = 1,
            0,
            dsts.as_ptr(),
            @dst_count = 1
        )
    );
    count_cases!(
        cases,
        invalid,
        helib_ciphertext_multiply_plain_blocks(
            cts.as_ptr(),
            @a_count = 1,
            pts.as_ptr(),
            @b_count = 1,
            0,
            dsts.as_ptr(),
            @dst_count = 1
        )
    );
    count_cases!(
        cases,
        invalid,
        helib_ciphertext_linear_transform(
            keys.0,
            ct.0,
            elements.as_ptr(),
            @baby_count = 1,
            g,
            plains.as_ptr(),
            @plain_count = 1,
            dst.0
        )
    );
    run_cases(&cases);
    drop(cases);
    assert_eq!(dst.size_or_empty(), None, "a failed call wrote dst");
    assert!(
        keys.elements() == [g],
        "a failed call changed the Galois keys"
    );
    // The import is not spent by the failed finishes.
    let mut out = null_mut();
    // SAFETY: live import, valid out-pointer; then freed once.
    unsafe {
        check(helib_residue_import_finish(
            import,
            null(),
            0,
            -1e300,
            -1e300,
            &mut out,
        ));
        helib_encoded_plaintext_free(out);
        helib_residue_import_free(import);
    }
}

/// Capacities of arrays the engine writes (outputs). Those it fills up to
/// the capacity (limb outputs, zero-padded) and those with a two-call
/// protocol alike: a capacity of more than PTRDIFF_MAX bytes is refused; a
/// smaller one of bytes or 4-byte entries is a capacity an array can have,
/// and the engine writes only what it needs.
#[test]
fn output_arrays_refuse_capacities_beyond_any_array() {
    use std::ptr::null_mut;
    let ctx = keyswitch_ctx();
    let sk = SecretKey::generate(&ctx);
    let pk = PublicKey::generate(&sk);
    let level = ctx.max_level();
    let keys = GaloisKeys::with(&ctx, &sk, &[ctx.element_for_step(1)]);
    let rk = RelinKey::generate(&sk);
    let ct = encrypt_sk(&sk, &ctx, &[BigUint::from(4u32)], level);
    let pt = encode(&ctx, &[BigUint::from(1u32)], level, None);
    let plain = vec![3u64];
    // SAFETY (every closure below): live handles and valid out-pointers.
    // SAFETY: see the comment above the table.
    let parameters = serialized(|buf, len| unsafe {
        let chain = [61u32; 3];
        helib_parameters_serialize(
            N as u64,
            [65537u64].as_ptr(),
            1,
            chain.as_ptr(),
            3,
            [61u32].as_ptr(),
            1,
            0,
            buf,
            len,
        )
    });
    type Write<'a> = Box<dyn Fn(*mut u8, *mut usize) -> helib_status + 'a>;
    let serializers: Vec<(&str, Write<'_>)> = vec![
        (
            "public_key_serialize",
            // SAFETY: see the comment above the table.
            Box::new(|buf, len| unsafe { helib_public_key_serialize(pk.0, buf, len) }),
        ),
        (
            "relin_key_serialize",
            // SAFETY: see the comment above the table.
            Box::new(|buf, len| unsafe { helib_relin_key_serialize(rk.0, buf, len) }),
        ),
        (
            "galois_keys_serialize",
            // SAFETY: see the comment above the table.
            Box::new(|buf, len| unsafe { helib_galois_keys_serialize(keys.0, buf, len) }),
        ),
        (
            "ciphertext_serialize",
            // SAFETY: see the comment above the table.
            Box::new(|buf, len| unsafe { helib_ciphertext_serialize(ct.0, buf, len) }),
        ),
        (
            "plaintext_serialize",
            // SAFETY: see the comment above the table.
            Box::new(|buf, len| unsafe {
                helib_plaintext_serialize(ctx.ptr, plain.as_ptr(), 1, 1, buf, len)
            }),
        ),
        (
            "secret_key_export",
            // SAFETY: see the comment above the table.
            Box::new(|buf, len| unsafe { helib_secret_key_export(sk.0, buf, len) }),
        ),
        (
            "parameters_serialize",
            // SAFETY: see the comment above the table.
            Box::new(|buf, len| unsafe {
                let chain = [61u32; 3];
                helib_parameters_serialize(
                    N as u64,
                    [65537u64].as_ptr(),
                    1,
                    chain.as_ptr(),
                    3,
                    [61u32].as_ptr(),
                    1,
                    0,
                    buf,
                    len,
                )
            }),
        ),
    ];
    let bytes_capacity = |count| {
        if beyond_any_array(count, 1) {
            HELIB_ERR_INVALID_ARGUMENT
        } else {
            HELIB_OK
        }
    };
    let u32_capacity = |count| {
        if beyond_any_array(count, 4) {
            HELIB_ERR_INVALID_ARGUMENT
        } else {
            HELIB_OK
        }
    };
    let plaintext = serialized(|buf, len| unsafe {
        // SAFETY: as above.
        helib_plaintext_serialize(ctx.ptr, plain.as_ptr(), 1, 1, buf, len)
    });
    // helib_parameters_deserialize: each output array's capacity.
    let read_parameters = |t_cap: usize, chain_cap: usize, special_cap: usize| {
        let (mut degree, mut flags) = (0u64, 0u32);
        let mut t = [0u64; 64];
        let mut chain = [0u32; 64];
        let mut special = [0u32; 64];
        let (mut t_len, mut chain_len, mut special_len) = (t_cap, chain_cap, special_cap);
        // SAFETY: `parameters` is a valid encoding; each array holds 64
        // entries, which the header says always suffice.
        let s = unsafe {
            helib_parameters_deserialize(
                parameters.as_ptr(),
                parameters.len(),
                &mut degree,
                t.as_mut_ptr(),
                &mut t_len,
                chain.as_mut_ptr(),
                &mut chain_len,
                special.as_mut_ptr(),
                &mut special_len,
                &mut flags,
            )
        };
        if s == HELIB_OK {
            assert_eq!((degree, t_len, chain_len, special_len), (N as u64, 1, 3, 1));
        }
        s
    };
    let mut cases = Vec::new();
    for (name, write) in &serializers {
        let size = serialized(write).len();
        cases.push(case(name, bytes_capacity, move |count| {
            let mut buf = vec![0u8; size];
            let mut len = count;
            let s = write(buf.as_mut_ptr(), &mut len);
            if s == HELIB_OK {
                assert_eq!(len, size, "{name}: the size written");
            } else {
                assert_eq!(len, count, "{name}: a failed call wrote *len");
            }
            s
        }));
    }
    // SAFETY (every case below): live handles and valid pointers; each
    // output array holds what the engine needs (N limbs at most, or the
    // serialized size), and the engine must refuse a larger capacity than
    // any array can have before writing.
    cases.extend([
        // SAFETY: see the comment above the table.
        case("context_chain_primes *len", invalid, |count| unsafe {
            let mut buf = vec![0u64; 3];
            let mut len = count;
            helib_context_chain_primes(ctx.ptr, buf.as_mut_ptr(), &mut len)
        }),
        // SAFETY: see the comment above the table.
        case("context_special_primes *len", invalid, |count| unsafe {
            let mut buf = vec![0u64; 1];
            let mut len = count;
            helib_context_special_primes(ctx.ptr, buf.as_mut_ptr(), &mut len)
        }),
        case(
            "context_correction_factor out_len",
            invalid,
            // SAFETY: see the comment above the table.
            |count| unsafe {
                let mut out = vec![SENTINEL; 2];
                let s = helib_context_correction_factor(ctx.ptr, 0, out.as_mut_ptr(), count);
                assert_eq!(out, [SENTINEL; 2]);
                s
            },
        ),
        case(
            "ciphertext_correction_factor out_len",
            invalid,
            // SAFETY: see the comment above the table.
            |count| unsafe {
                let mut out = vec![SENTINEL; 2];
                let s = helib_ciphertext_correction_factor(ct.0, out.as_mut_ptr(), count);
                assert_eq!(out, [SENTINEL; 2]);
                s
            },
        ),
        // SAFETY: see the comment above the table.
        case("ciphertext_get_info factor_len", invalid, |count| unsafe {
            let mut info = helib_ciphertext_info {
                level: usize::MAX,
                size: 0,
                noise_estimate_bits: 0.0,
                estimated_budget_bits: 0.0,
            };
            let mut out = vec![SENTINEL; 2];
            let s = helib_ciphertext_get_info(ct.0, &mut info, out.as_mut_ptr(), count);
            assert_eq!((out, info.level), (vec![SENTINEL; 2], usize::MAX));
            s
        }),
        // SAFETY: see the comment above the table.
        case("rotation_terms *len", invalid, |count| unsafe {
            let mut buf = vec![0i64; 16];
            let mut len = count;
            helib_rotation_terms(ctx.ptr, 7, buf.as_mut_ptr(), &mut len)
        }),
        // SAFETY: see the comment above the table.
        case("ciphertext_residues out_len", invalid, |count| unsafe {
            let mut out = vec![SENTINEL; N];
            let s = helib_ciphertext_residues(ct.0, 0, 0, out.as_mut_ptr(), count);
            assert_untouched(&out, "ciphertext_residues");
            s
        }),
        case(
            "ciphertext_residue_columns count",
            invalid,
            // SAFETY: see the comment above the table.
            |count| unsafe {
                let mut out = vec![SENTINEL; N];
                let s = helib_ciphertext_residue_columns(ct.0, 0, 0, 0, out.as_mut_ptr(), count);
                assert_untouched(&out, "ciphertext_residue_columns");
                s
            },
        ),
        // SAFETY: see the comment above the table.
        case("decrypt out_len", invalid, |count| unsafe {
            let mut out = vec![SENTINEL; N];
            let s = helib_decrypt(sk.0, ct.0, out.as_mut_ptr(), count, 1);
            assert_untouched(&out, "decrypt");
            s
        }),
        // SAFETY: see the comment above the table.
        case("galois_keys_elements *len", invalid, |count| unsafe {
            let mut buf = vec![0u64; 4];
            let mut len = count;
            helib_galois_keys_elements(keys.0, buf.as_mut_ptr(), &mut len)
        }),
        case(
            "encoded_plaintext_export_residues residues_len",
            invalid,
            // SAFETY: see the comment above the table.
            |count| unsafe {
                let mut out = vec![SENTINEL; (level + 1) * N];
                let s = helib_encoded_plaintext_export_residues(
                    pt.0,
                    out.as_mut_ptr(),
                    count,
                    null_mut(),
                    null_mut(),
                );
                assert_untouched(&out, "export_residues");
                s
            },
        ),
        case(
            "context_fingerprint out_len",
            bytes_capacity,
            // SAFETY: see the comment above the table.
            |count| unsafe {
                let mut out = vec![0u8; 32];
                helib_context_fingerprint(ctx.ptr, out.as_mut_ptr(), count)
            },
        ),
    ]);
    cases.push(case(
        "plaintext_deserialize coeffs_len",
        invalid,
        |count| unsafe {
            // SAFETY: as above; `plaintext` is a valid encoding.
            let mut out = vec![SENTINEL; N];
            let s = helib_plaintext_deserialize(
                ctx.ptr,
                plaintext.as_ptr(),
                plaintext.len(),
                out.as_mut_ptr(),
                count,
                1,
            );
            assert_untouched(&out, "plaintext_deserialize");
            s
        },
    ));
    cases.push(case("parameters_deserialize *t_nlimbs", invalid, |count| {
        read_parameters(count, 64, 64)
    }));
    cases.push(case(
        "parameters_deserialize *chain_len",
        u32_capacity,
        |count| read_parameters(64, count, 64),
    ));
    cases.push(case(
        "parameters_deserialize *special_len",
        u32_capacity,
        |count| read_parameters(64, 64, count),
    ));
    run_cases(&cases);
}

/// Deserializers read exactly `len` bytes: a length beyond any array is
/// refused as such, and any other length that is not the one the frame's
/// header gives is malformed input, found before the bytes past the frame
/// are read (here they do not exist).
#[test]
fn deserializers_refuse_lengths_their_bytes_do_not_have() {
    use std::ptr::null_mut;
    let ctx = keyswitch_ctx();
    let sk = SecretKey::generate(&ctx);
    let pk = PublicKey::generate(&sk);
    let keys = GaloisKeys::with(&ctx, &sk, &[ctx.element_for_step(1)]);
    let rk = RelinKey::generate(&sk);
    let m = [BigUint::from(6u32)];
    let ct = encrypt_sk(&sk, &ctx, &m, ctx.max_level());
    let plain = vec![3u64];
    // SAFETY (every closure below): live handles, valid pointers; the
    // buffers are the encodings just written, of the lengths passed to the
    // engine except for the edited length.
    let bytes = |write: &dyn Fn(*mut u8, *mut usize) -> helib_status| serialized(write);
    // SAFETY: see the comment above the table.
    let pk_bytes = bytes(&|buf, len| unsafe { helib_public_key_serialize(pk.0, buf, len) });
    // SAFETY: see the comment above the table.
    let rk_bytes = bytes(&|buf, len| unsafe { helib_relin_key_serialize(rk.0, buf, len) });
    // SAFETY: see the comment above the table.
    let gk_bytes = bytes(&|buf, len| unsafe { helib_galois_keys_serialize(keys.0, buf, len) });
    // SAFETY: see the comment above the table.
    let ct_bytes = bytes(&|buf, len| unsafe { helib_ciphertext_serialize(ct.0, buf, len) });
    // SAFETY: see the comment above the table.
    let pt_bytes = bytes(&|buf, len| unsafe {
        helib_plaintext_serialize(ctx.ptr, plain.as_ptr(), 1, 1, buf, len)
    });
    // SAFETY: see the comment above the table.
    let sk_bytes = bytes(&|buf, len| unsafe { helib_secret_key_export(sk.0, buf, len) });
    // SAFETY: see the comment above the table.
    let params = bytes(&|buf, len| unsafe {
        let chain = [61u32; 3];
        helib_parameters_serialize(
            N as u64,
            [65537u64].as_ptr(),
            1,
            chain.as_ptr(),
            3,
            [61u32].as_ptr(),
            1,
            0,
            buf,
            len,
        )
    });
    let dst = encrypt_sk(&sk, &ctx, &m, 0);
    let malformed = |count| {
        if beyond_any_array(count, 1) {
            HELIB_ERR_INVALID_ARGUMENT
        } else {
            HELIB_ERR_MALFORMED_INPUT
        }
    };
    let cases = vec![
        // SAFETY: see the comment above the table.
        case("public_key_deserialize len", malformed, |count| unsafe {
            let mut out = null_mut();
            let s = helib_public_key_deserialize(ctx.ptr, pk_bytes.as_ptr(), count, &mut out);
            assert!(out.is_null());
            s
        }),
        // SAFETY: see the comment above the table.
        case("relin_key_deserialize len", malformed, |count| unsafe {
            let mut out = null_mut();
            helib_relin_key_deserialize(ctx.ptr, rk_bytes.as_ptr(), count, &mut out)
        }),
        // SAFETY: see the comment above the table.
        case("galois_keys_deserialize len", malformed, |count| unsafe {
            let mut out = null_mut();
            helib_galois_keys_deserialize(ctx.ptr, gk_bytes.as_ptr(), count, &mut out)
        }),
        // SAFETY: see the comment above the table.
        case("ciphertext_deserialize len", malformed, |count| unsafe {
            helib_ciphertext_deserialize(ctx.ptr, ct_bytes.as_ptr(), count, dst.0)
        }),
        // SAFETY: see the comment above the table.
        case("plaintext_deserialize len", malformed, |count| unsafe {
            let mut out = vec![SENTINEL; N];
            let s = helib_plaintext_deserialize(
                ctx.ptr,
                pt_bytes.as_ptr(),
                count,
                out.as_mut_ptr(),
                N,
                1,
            );
            assert_untouched(&out, "plaintext_deserialize");
            s
        }),
        // SAFETY: see the comment above the table.
        case("secret_key_import len", malformed, |count| unsafe {
            let mut out = null_mut();
            helib_secret_key_import(ctx.ptr, sk_bytes.as_ptr(), count, &mut out)
        }),
        // SAFETY: see the comment above the table.
        case("parameters_deserialize len", malformed, |count| unsafe {
            let (mut degree, mut flags) = (0u64, 0u32);
            let (mut t, mut chain, mut special) = ([0u64; 64], [0u32; 64], [0u32; 64]);
            let (mut t_len, mut chain_len, mut special_len) = (64, 64, 64);
            helib_parameters_deserialize(
                params.as_ptr(),
                count,
                &mut degree,
                t.as_mut_ptr(),
                &mut t_len,
                chain.as_mut_ptr(),
                &mut chain_len,
                special.as_mut_ptr(),
                &mut special_len,
                &mut flags,
            )
        }),
    ];
    run_cases(&cases);
    drop(cases);
    // dst is as it was.
    assert_eq!(dst.level(), 0);
    assert_poly_eq(
        &decrypt_ok(&sk, &ctx, &dst),
        &pad(&m, N),
        "dst after refused loads",
    );
}

/// The field NTT transforms len / (4 n) vectors in place: a length beyond
/// any array is refused, even when it is a multiple of 4 n.
#[test]
fn field_ntt_refuses_lengths_beyond_any_array() {
    // F_17, n = 2, psi = 4 (4^2 = -1 mod 17).
    let t = [17u64, 0, 0, 0];
    let psi = [4u64, 0, 0, 0];
    let mut table = std::ptr::null_mut();
    // SAFETY: four limbs each; `table` is a valid place.
    check(unsafe { helib_field_ntt_new(t.as_ptr(), 2, psi.as_ptr(), &mut table) });
    let original = [1u64, 0, 0, 0, 2, 0, 0, 0];
    // On the heap, where the sanitizer sees a read past the end.
    let mut values = original.to_vec();
    let values_ptr = values.as_mut_ptr();
    let cases = vec![
        // SAFETY: live table; `values` holds one vector (8 words), and the
        // engine must refuse the count before touching more.
        case("field_ntt_forward len", invalid, |count| unsafe {
            helib_field_ntt_forward(table, values_ptr, count, HELIB_FIELD_NTT_SCALAR)
        }),
        // SAFETY: as above.
        case("field_ntt_inverse len", invalid, |count| unsafe {
            helib_field_ntt_inverse(table, values_ptr, count, HELIB_FIELD_NTT_AUTO)
        }),
    ];
    run_cases(&cases);
    drop(cases);
    assert_eq!(values, original, "a refused transform changed the values");
    // SAFETY: live table; `values` holds exactly 8 words; freed once.
    unsafe {
        check(helib_field_ntt_forward(
            table,
            values.as_mut_ptr(),
            values.len(),
            HELIB_FIELD_NTT_SCALAR,
        ));
        check(helib_field_ntt_inverse(
            table,
            values.as_mut_ptr(),
            values.len(),
            HELIB_FIELD_NTT_SCALAR,
        ));
        helib_field_ntt_free(table);
    }
    assert_eq!(values, original, "inverse after forward");
}

/// The threshold entry points: every share and sum length is checked
/// exactly, the rest against a maximum (parties, coefficients).
#[test]
fn threshold_arrays_refuse_edge_counts() {
    use std::ptr::null_mut;
    let ctx = keyswitch_ctx();
    let sk = SecretKey::generate(&ctx);
    let ephemeral = SecretKey::generate(&ctx);
    let keys = GaloisKeys::empty(&ctx);
    let g = ctx.element_for_step(1);
    let level = ctx.max_level();
    let ct = encrypt_sk(&sk, &ctx, &[BigUint::from(4u32)], level);
    let dst = Ct::empty(&ctx);
    // A size-3 product, for the shares that relinearize it first.
    let rk = RelinKey::generate(&sk);
    let product = Ct::empty(&ctx);
    // SAFETY: live handles.
    unsafe { check(helib_ciphertext_multiply(ct.0, ct.0, product.0)) };
    let seed = [7u8; 32];
    let small = vec![0u64; N];
    let mut out = vec![SENTINEL; N];
    let out_ptr = out.as_mut_ptr();
    // One party's dealing and re-shared key, to activate.
    let mut dealing = vec![0u64; (level + 1) * N];
    let mut share = null_mut();
    // SAFETY: live handles; `dealing` holds one chain share at the top
    // level; `share` is a valid place.
    unsafe {
        check(helib_shamir_deal(
            sk.0,
            1,
            1,
            [dealing.as_mut_ptr()].as_ptr(),
            dealing.len(),
        ));
        check(helib_shamir_combine(
            ctx.ptr,
            1,
            1,
            1,
            dealing.as_ptr(),
            dealing.len(),
            &mut share,
        ));
    }
    let shares = vec![sk.0 as *const helib_secret_key];
    let active = vec![1u32];
    let pk = PublicKey::generate(&sk);
    let mut activated = null_mut();
    let mut spec = helib_smudging {
        parties: 0,
        security_bits: 0,
        level: 0,
        noise_bits: 0.0,
    };
    // SAFETY: live handles, valid out-pointers; `active` holds one index.
    unsafe {
        check(helib_shamir_activate(
            share,
            active.as_ptr(),
            1,
            &mut activated,
        ));
        check(helib_threshold_smudging_for_level(
            ctx.ptr, 1, 40, level, &mut spec,
        ));
    }
    let activated = activated.cast_const();
    let spec = &spec as *const helib_smudging;
    // SAFETY (every case below): live handles, valid out-pointers; every
    // array holds N entries at least (one entry for the pointer and index
    // arrays), and the engine must refuse the count before going past it.
    let mut cases = vec![
        case(
            "threshold_ciphertext_digest out_len",
            invalid,
            // SAFETY: see the comment above the table.
            |count| unsafe { helib_threshold_ciphertext_digest(ct.0, out_ptr.cast(), count) },
        ),
        case(
            "threshold_public_key_share out_len",
            invalid,
            // SAFETY: see the comment above the table.
            |count| unsafe {
                helib_threshold_public_key_share(sk.0, seed.as_ptr(), out_ptr, count)
            },
        ),
        case(
            "threshold_public_key_assemble len",
            invalid,
            // SAFETY: see the comment above the table.
            |count| unsafe {
                let mut pk = null_mut();
                helib_threshold_public_key_assemble(
                    ctx.ptr,
                    seed.as_ptr(),
                    small.as_ptr(),
                    count,
                    &mut pk,
                )
            },
        ),
        case(
            "threshold_galois_key_share out_len",
            invalid,
            // SAFETY: see the comment above the table.
            |count| unsafe {
                helib_threshold_galois_key_share(sk.0, g, seed.as_ptr(), out_ptr, count)
            },
        ),
        case(
            "threshold_galois_keys_insert len",
            invalid,
            // SAFETY: see the comment above the table.
            |count| unsafe {
                helib_threshold_galois_keys_insert(
                    keys.0,
                    g,
                    seed.as_ptr(),
                    1,
                    small.as_ptr(),
                    count,
                )
            },
        ),
        // SAFETY: see the comment above the table.
        case("threshold_relin_key_round1 len", invalid, |count| unsafe {
            helib_threshold_relin_key_round1(
                sk.0,
                ephemeral.0,
                seed.as_ptr(),
                out_ptr,
                out_ptr,
                count,
            )
        }),
        // SAFETY: see the comment above the table.
        case("threshold_relin_key_round2 len", invalid, |count| unsafe {
            helib_threshold_relin_key_round2(
                sk.0,
                ephemeral.0,
                small.as_ptr(),
                small.as_ptr(),
                count,
                out_ptr,
                count,
            )
        }),
        case(
            "threshold_relin_key_assemble len",
            invalid,
            // SAFETY: see the comment above the table.
            |count| unsafe {
                let mut rk = null_mut();
                helib_threshold_relin_key_assemble(
                    ctx.ptr,
                    1,
                    small.as_ptr(),
                    small.as_ptr(),
                    count,
                    &mut rk,
                )
            },
        ),
        // SAFETY: see the comment above the table.
        case("threshold_secret_key_sum count", invalid, |count| unsafe {
            let mut sum = null_mut();
            helib_threshold_secret_key_sum(shares.as_ptr(), count, &mut sum)
        }),
        // SAFETY: see the comment above the table.
        case("threshold_s2e_assemble len", invalid, |count| unsafe {
            helib_threshold_s2e_assemble(ctx.ptr, seed.as_ptr(), 0, 1, small.as_ptr(), count, dst.0)
        }),
        // SAFETY: see the comment above the table.
        case("shamir_deal each_len", invalid, |count| unsafe {
            helib_shamir_deal(sk.0, 1, 1, [out_ptr].as_ptr(), count)
        }),
        // SAFETY: see the comment above the table.
        case("shamir_combine len", invalid, |count| unsafe {
            let mut combined = null_mut();
            helib_shamir_combine(ctx.ptr, 1, 1, 1, small.as_ptr(), count, &mut combined)
        }),
        // SAFETY: see the comment above the table.
        case("shamir_share_from_residues len", invalid, |count| unsafe {
            let mut imported = null_mut();
            helib_shamir_share_from_residues(ctx.ptr, 1, 1, 1, small.as_ptr(), count, &mut imported)
        }),
        // SAFETY: see the comment above the table.
        case("shamir_activate count", invalid, |count| unsafe {
            let mut activated = null_mut();
            helib_shamir_activate(share, active.as_ptr(), count, &mut activated)
        }),
    ];
    // The steps on a ciphertext, after its checks against the smudging
    // spec (which `ct` passes): their lengths.
    // SAFETY: as above.
    cases.extend([
        case("threshold_decrypt_share out_len", invalid, |count| unsafe {
            helib_threshold_decrypt_share(sk.0, ct.0, spec, out_ptr, count)
        }),
        case(
            "threshold_decrypt_share_residues out_len",
            invalid,
            |count| unsafe {
                helib_threshold_decrypt_share_residues(activated, ct.0, spec, out_ptr, count)
            },
        ),
        case("threshold_key_switch_share len", invalid, |count| unsafe {
            helib_threshold_key_switch_share(sk.0, ct.0, pk.0, spec, out_ptr, out_ptr, count)
        }),
        case(
            "threshold_key_switch_share_residues len",
            invalid,
            |count| unsafe {
                helib_threshold_key_switch_share_residues(
                    activated, ct.0, pk.0, spec, out_ptr, out_ptr, count,
                )
            },
        ),
        case(
            "threshold_key_switch_assemble len",
            invalid,
            |count| unsafe {
                helib_threshold_key_switch_assemble(
                    ct.0,
                    spec,
                    small.as_ptr(),
                    small.as_ptr(),
                    count,
                    dst.0,
                )
            },
        ),
    ]);
    count_cases!(
        cases,
        invalid,
        helib_threshold_s2e_share(
            sk.0,
            seed.as_ptr(),
            level,
            small.as_ptr(),
            @n_coeffs = N,
            @limbs_per_coeff = 1,
            out_ptr,
            @out_len = (level + 1) * N
        )
    );
    count_cases!(
        cases,
        invalid,
        helib_threshold_e2s_share(sk.0, ct.0, spec, out_ptr, @mask_len = N, out_ptr, @out_len = (level + 1) * N)
    );
    count_cases!(
        cases,
        invalid,
        helib_threshold_e2s_share_residues(
            activated,
            ct.0,
            spec,
            out_ptr,
            @mask_len = N,
            out_ptr,
            @out_len = (level + 1) * N
        )
    );
    count_cases!(
        cases,
        invalid,
        helib_threshold_s2e_share_residues(
            activated,
            seed.as_ptr(),
            level,
            small.as_ptr(),
            @n_coeffs = N,
            @limbs_per_coeff = 1,
            out_ptr,
            @out_len = (level + 1) * N
        )
    );
    count_cases!(
        cases,
        invalid,
        helib_threshold_decrypt_combine(
            ct.0,
            spec,
            small.as_ptr(),
            @len = (level + 1) * N,
            out_ptr,
            @out_len = N
        )
    );
    count_cases!(
        cases,
        invalid,
        helib_threshold_e2s_share_product(
            sk.0,
            product.0,
            rk.0,
            spec,
            1,
            out_ptr,
            @mask_len = N,
            out_ptr,
            @out_len = (level + 1) * N
        )
    );
    count_cases!(
        cases,
        invalid,
        helib_threshold_e2s_share_product_residues(
            activated,
            product.0,
            rk.0,
            spec,
            1,
            out_ptr,
            @mask_len = N,
            out_ptr,
            @out_len = (level + 1) * N
        )
    );
    count_cases!(
        cases,
        invalid,
        helib_threshold_decrypt_combine_product(
            product.0,
            rk.0,
            spec,
            small.as_ptr(),
            @len = (level + 1) * N,
            out_ptr,
            @out_len = N
        )
    );
    run_cases(&cases);
    drop(cases);
    assert_untouched(&out, "threshold outputs");
    assert_eq!(dst.size_or_empty(), None, "a failed call wrote dst");
    assert!(keys.elements().is_empty(), "a failed insert added a key");
    // The ciphertext and spec pass the checks before the lengths: with its
    // length, a share is made.
    let mut full = vec![0u64; (level + 1) * N];
    // SAFETY: live handles; `full` holds the chain share at ct's level.
    check(unsafe {
        helib_threshold_decrypt_share(sk.0, ct.0, spec, full.as_mut_ptr(), full.len())
    });
    // SAFETY: the shares came from helib_shamir_combine and
    // helib_shamir_activate, and each is freed once.
    unsafe {
        helib_secret_share_free(activated.cast_mut());
        helib_secret_share_free(share);
    }
}

/// The test-only entry points (c_api_test_api.h) follow the same rule.
#[test]
fn test_api_arrays_refuse_counts_beyond_any_array() {
    let ctx = small_ctx();
    let key = [1u8; 32];
    let coeffs = vec![1u64; N];
    let mut residues = vec![SENTINEL; N];
    let residues_ptr = residues.as_mut_ptr();
    let mut bytes = vec![0x5au8; 64];
    let mut samples = vec![0x5a5a_5a5ai32; 16];
    let bytes_ptr = bytes.as_mut_ptr();
    let samples_ptr = samples.as_mut_ptr();
    // SAFETY (every case below): live context; each array holds N entries
    // (64 bytes, 16 samples), and the engine must refuse a count beyond
    // any array before going past them.
    let cases = vec![
        // SAFETY: see the comment above the table.
        case("ring_to_rns residues_len", invalid, |count| unsafe {
            helib_ring_to_rns(ctx.ptr, 0, coeffs.as_ptr(), 1, residues_ptr, count)
        }),
        // SAFETY: see the comment above the table.
        case("ring_from_rns residues_len", invalid, |count| unsafe {
            helib_ring_from_rns(ctx.ptr, 0, coeffs.as_ptr(), count, residues_ptr, 1)
        }),
    ];
    run_cases(&cases);
    // Counts the engine writes in full: only those beyond any array are
    // refused (a count an array can have is taken at its word).
    for count in EDGE_COUNTS {
        if beyond_any_array(count, 1) {
            // SAFETY: as above.
            let s = unsafe {
                helib_chacha20_keystream(HELIB_CPU_SCALAR, key.as_ptr(), 0, 0, bytes_ptr, count)
            };
            expect_status(
                s,
                HELIB_ERR_INVALID_ARGUMENT,
                &format!("chacha20_keystream len = {count:#x}"),
            );
        }
        if beyond_any_array(count, 4) {
            // SAFETY: as above.
            let s = unsafe {
                helib_gaussian_samples(HELIB_CPU_SCALAR, key.as_ptr(), 0, samples_ptr, count)
            };
            expect_status(
                s,
                HELIB_ERR_INVALID_ARGUMENT,
                &format!("gaussian_samples n = {count:#x}"),
            );
        }
    }
    assert_untouched(&residues, "ring_to_rns");
    assert!(bytes.iter().all(|&b| b == 0x5a) && samples.iter().all(|&x| x == 0x5a5a_5a5a));
}
