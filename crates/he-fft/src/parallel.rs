//! The Rust-side worker pool of plan building and multi-ciphertext execution.
//!
//! Plans compute and encode their diagonals in parallel (field arithmetic and
//! the transform from slots to coefficients on rayon workers, the lifting to
//! the engine's primes in the engine, whose own pool takes part whenever it
//! is free). The rayon pool has as many threads as the context's engine, so
//! a context made with `threads(1)` keeps the whole plan on one thread.

use crate::error::{Error, Result};
use helib_rs::Context;
use rayon::prelude::*;

/// Runs `work` on a rayon pool with the context's thread count.
///
/// # Errors
/// [`Error::He`] when the context cannot report its thread count;
/// [`Error::ThreadPool`] when the system cannot start the threads; and
/// whatever `work` returns.
pub(crate) fn in_pool<R: Send>(
    context: &Context,
    work: impl FnOnce() -> Result<R> + Send,
) -> Result<R> {
    let threads = context.threads()?.max(1) as usize;
    // Inside an `install`, rayon's parallel iterators use this pool rather
    // than the global one (which has a thread per core).
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("he-fft-{i}"))
        .build()
        .map_err(|e| Error::ThreadPool(e.to_string()))?
        .install(work)
}

/// `f` over `items`, results in order: on a rayon pool with the context's
/// thread count when there are several items, on the calling thread when
/// there is one (no pool to start for it).
///
/// # Errors
/// As for [`in_pool`], and the first error `f` returns.
pub(crate) fn map_in_pool<T: Sync, R: Send>(
    context: &Context,
    items: &[T],
    f: impl Fn(&T) -> Result<R> + Sync + Send,
) -> Result<Vec<R>> {
    if items.len() < 2 {
        return items.iter().map(f).collect();
    }
    in_pool(context, || items.par_iter().map(f).collect())
}
