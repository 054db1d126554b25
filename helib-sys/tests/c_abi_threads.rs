//! Tests of the C ABI's worker pool size (`helib_context_new`'s `threads`,
//! `helib_context_set_threads`): counts above HELIB_MAX_THREADS are invalid
//! arguments, refused before any thread is started, and leave the pool as it
//! was; counts up to the maximum work.

mod common;

use common::*;
use helib_sys::*;
use num_bigint::BigUint;

fn threads(ctx: &Ctx) -> u32 {
    let mut out = 0u32;
    // SAFETY: live context, valid out pointer.
    check(unsafe { helib_context_threads(ctx.ptr, &mut out) });
    out
}

#[test]
fn thread_counts_above_the_maximum_are_invalid_arguments() {
    for count in [HELIB_MAX_THREADS + 1, 1000, u32::MAX] {
        let (s, out) = context_new_raw(1024, &[65537], &[40, 40], &[], count);
        let message = expect_status(s, HELIB_ERR_INVALID_ARGUMENT, "helib_context_new");
        assert!(out.is_null(), "no context on failure");
        assert!(
            message.contains(&HELIB_MAX_THREADS.to_string()),
            "the message names the limit: {message}"
        );
    }

    let ctx = Ctx::new(1024, &BigUint::from(65537u32), &[40, 40], &[]);
    // SAFETY: live context.
    check(unsafe { helib_context_set_threads(ctx.ptr, 2) });
    for count in [HELIB_MAX_THREADS + 1, 1000, u32::MAX] {
        // SAFETY: live context.
        let s = unsafe { helib_context_set_threads(ctx.ptr, count) };
        expect_status(s, HELIB_ERR_INVALID_ARGUMENT, "helib_context_set_threads");
        assert_eq!(threads(&ctx), 2, "a refused resize changes nothing");
    }
    // SAFETY: live context.
    check(unsafe { helib_context_set_threads(ctx.ptr, HELIB_MAX_THREADS) });
    assert_eq!(threads(&ctx), HELIB_MAX_THREADS);
    // SAFETY: live context.
    check(unsafe { helib_context_set_threads(ctx.ptr, 0) });
    assert!((1..=HELIB_MAX_THREADS).contains(&threads(&ctx)));
    // SAFETY: live context.
    check(unsafe { helib_context_set_threads(ctx.ptr, 1) });
    assert_eq!(threads(&ctx), 1);
}
