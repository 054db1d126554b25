//! The engine's security floor and table: `helib_context_new` refuses
//! parameters below 128-bit security unless the caller passes
//! `HELIB_CONTEXT_ALLOW_INSECURE`, and the table queries report the current
//! bounds (ternary secret, classical attacks).

mod common;

use std::ptr::null_mut;

use common::*;
use helib_sys::*;

/// Ring degrees of the table, 2^10 ..= 2^17.
const DEGREES: [u64; 8] = [
    1 << 10,
    1 << 11,
    1 << 12,
    1 << 13,
    1 << 14,
    1 << 15,
    1 << 16,
    1 << 17,
];

fn max_log_qp(n: u64, bits: u32) -> Result<u32, helib_status> {
    let mut out = 0u32;
    // SAFETY: `out` is a valid place for the result.
    let s = unsafe { helib_security_max_log_qp(n, bits, &mut out) };
    if s == HELIB_OK {
        Ok(out)
    } else {
        Err(s)
    }
}

fn estimate(n: u64, log_qp: f64) -> u32 {
    let mut out = u32::MAX;
    // SAFETY: `out` is a valid place for the result.
    check(unsafe { helib_security_estimate(n, log_qp, &mut out) });
    out
}

#[test]
fn the_table_is_the_current_one() {
    let table: Vec<[u32; 3]> = DEGREES
        .iter()
        .map(|&n| [128, 192, 256].map(|bits| max_log_qp(n, bits).unwrap()))
        .collect();
    assert_eq!(
        table,
        [
            [26, 19, 14],
            [53, 37, 29],
            [106, 75, 58],
            [214, 152, 118],
            [430, 305, 237],
            [868, 611, 476],
            [1747, 1199, 929],
            [3523, 2411, 1866],
        ]
    );
}

#[test]
fn estimates_follow_the_table_with_inclusive_bounds() {
    for n in DEGREES {
        let [m128, m192, m256] = [128, 192, 256].map(|bits| max_log_qp(n, bits).unwrap());
        assert!(m256 < m192 && m192 < m128, "levels nest at N = {n}");
        assert_eq!(estimate(n, 0.0), 256);
        assert_eq!(estimate(n, f64::from(m256)), 256);
        assert_eq!(estimate(n, f64::from(m256) + 0.5), 192);
        assert_eq!(estimate(n, f64::from(m192)), 192);
        assert_eq!(estimate(n, f64::from(m192) + 0.5), 128);
        assert_eq!(estimate(n, f64::from(m128)), 128);
        assert_eq!(estimate(n, f64::from(m128) + 0.001), 0);
        assert_eq!(estimate(n, f64::INFINITY), 0);
        assert_eq!(estimate(n, f64::NAN), 0, "NaN is not secure");
    }
    // N = 2^16 with 1772 bits was 128-bit under the 2018 table; not any more.
    assert_eq!(estimate(1 << 16, 1772.0), 0);
    assert_eq!(estimate(1 << 16, 1228.0), 128);
    assert_eq!(estimate(1 << 15, 881.0), 0);
}

#[test]
fn degrees_and_levels_outside_the_table() {
    for n in [0u64, 1, 512, 1000, 3 << 12, 1 << 18, u64::MAX] {
        assert_eq!(estimate(n, 1.0), 0, "N = {n}");
        let s = max_log_qp(n, 128).unwrap_err();
        expect_status(
            s,
            HELIB_ERR_INVALID_ARGUMENT,
            "max_log_qp of an unknown degree",
        );
    }
    for bits in [0u32, 80, 127, 129, 512, u32::MAX] {
        let s = max_log_qp(1 << 14, bits).unwrap_err();
        expect_status(
            s,
            HELIB_ERR_INVALID_ARGUMENT,
            "max_log_qp of an unknown level",
        );
    }
    // SAFETY: a NULL out-pointer must be reported, not written.
    let s = unsafe { helib_security_max_log_qp(1 << 14, 128, null_mut()) };
    expect_status(s, HELIB_ERR_NULL_POINTER, "max_log_qp out NULL");
    // SAFETY: a NULL out-pointer must be reported, not written.
    let s = unsafe { helib_security_estimate(1 << 14, 10.0, null_mut()) };
    expect_status(s, HELIB_ERR_NULL_POINTER, "estimate out NULL");
}

/// `helib_context_new` with the given flags; frees a context it made.
fn context_status(n: u64, chain: &[u32], special: &[u32], flags: u32) -> helib_status {
    let sentinel = std::ptr::NonNull::<helib_context>::dangling().as_ptr();
    let t = [65537u64];
    let mut out = sentinel;
    // SAFETY: every pointer/length pair describes a live slice; `out` is a
    // valid place for the result.
    let s = unsafe {
        helib_context_new(
            n,
            t.as_ptr(),
            1,
            chain.as_ptr(),
            chain.len(),
            special.as_ptr(),
            special.len(),
            1,
            flags,
            &mut out,
        )
    };
    if s == HELIB_OK {
        assert!(!out.is_null() && out != sentinel);
        // SAFETY: a context the engine just made, freed once.
        unsafe { helib_context_free(out) };
    } else {
        assert_eq!(out, sentinel, "a failed helib_context_new wrote *out");
    }
    s
}

#[test]
fn contexts_below_128_bits_need_the_callers_flag() {
    // The example: N = 1024 with 64 primes of 61 bits.
    let chain = [61u32; 64];
    let s = context_status(1024, &chain, &[], 0);
    let msg = expect_status(s, HELIB_ERR_INSECURE_PARAMETERS, "N = 1024, 64 x 61 bits");
    for word in ["128-bit", "3904", "26", "HELIB_CONTEXT_ALLOW_INSECURE"] {
        assert!(msg.contains(word), "message {msg:?} lacks {word:?}");
    }
    check(context_status(
        1024,
        &chain,
        &[],
        HELIB_CONTEXT_ALLOW_INSECURE,
    ));

    // The special primes count: the chain alone fits N = 2^12, with P it does not.
    assert_eq!(context_status(1 << 12, &[53, 53], &[], 0), HELIB_OK);
    expect_status(
        context_status(1 << 12, &[53, 53], &[30], 0),
        HELIB_ERR_INSECURE_PARAMETERS,
        "chain + special primes above 106 bits at N = 2^12",
    );

    // The bound is inclusive and uses the current table: 868 bits at N = 2^15
    // pass, 869 (and the old 881) do not.
    let at_868 = [58u32; 14].iter().chain(&[56]).copied().collect::<Vec<_>>();
    assert_eq!(at_868.iter().sum::<u32>(), 868);
    assert_eq!(context_status(1 << 15, &at_868, &[], 0), HELIB_OK);
    expect_status(
        context_status(1 << 15, &at_868, &[30], 0),
        HELIB_ERR_INSECURE_PARAMETERS,
        "898 bits at N = 2^15",
    );
    let at_869 = [58u32; 14].iter().chain(&[57]).copied().collect::<Vec<_>>();
    expect_status(
        context_status(1 << 15, &at_869, &[], 0),
        HELIB_ERR_INSECURE_PARAMETERS,
        "869 bits at N = 2^15",
    );
}

#[test]
fn unknown_context_flags_are_refused() {
    for flags in [2u32, 4, 0x8000_0000, u32::MAX] {
        expect_status(
            context_status(1 << 12, &[53, 53], &[], flags),
            HELIB_ERR_INVALID_ARGUMENT,
            &format!("context flags {flags:#x}"),
        );
    }
}

#[test]
fn shape_errors_come_before_the_floor() {
    // A bad ring degree or prime size is reported as such, flag or not.
    for flags in [0, HELIB_CONTEXT_ALLOW_INSECURE] {
        expect_status(
            context_status(1000, &[61; 10], &[], flags),
            HELIB_ERR_INVALID_ARGUMENT,
            "N = 1000",
        );
        expect_status(
            context_status(1 << 12, &[62], &[], flags),
            HELIB_ERR_INVALID_ARGUMENT,
            "a 62-bit prime",
        );
    }
}

#[test]
fn serialized_flags_are_a_record_not_consent() {
    // Parameters serialized with the insecure flag load with the flag set, but
    // a context built from them without the caller's own flag is refused.
    let t = [65537u64];
    let chain = [61u32, 61];
    // SAFETY: live slices; the buffer is NULL (size only) or holds `len` bytes.
    let bytes = two_call(|buf, len| unsafe {
        helib_parameters_serialize(
            1024,
            t.as_ptr(),
            1,
            chain.as_ptr(),
            2,
            std::ptr::null(),
            0,
            HELIB_PARAMETERS_INSECURE,
            buf,
            len,
        )
    });
    let (mut n, mut flags) = (0u64, 0u32);
    let mut t_out = [0u64; 64];
    let mut chain_out = [0u32; 64];
    let mut special_out = [0u32; 64];
    let (mut t_len, mut chain_len, mut special_len) = (64usize, 64usize, 64usize);
    // SAFETY: every output array holds the capacity passed with it.
    check(unsafe {
        helib_parameters_deserialize(
            bytes.as_ptr(),
            bytes.len(),
            &mut n,
            t_out.as_mut_ptr(),
            &mut t_len,
            chain_out.as_mut_ptr(),
            &mut chain_len,
            special_out.as_mut_ptr(),
            &mut special_len,
            &mut flags,
        )
    });
    assert_eq!(flags, HELIB_PARAMETERS_INSECURE);
    let chain_read = &chain_out[..chain_len];
    expect_status(
        context_status(n, chain_read, &special_out[..special_len], 0),
        HELIB_ERR_INSECURE_PARAMETERS,
        "context from loaded insecure parameters without the caller's flag",
    );
    check(context_status(
        n,
        chain_read,
        &special_out[..special_len],
        HELIB_CONTEXT_ALLOW_INSECURE,
    ));
}
