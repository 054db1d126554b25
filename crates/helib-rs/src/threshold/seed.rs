//! Common reference seeds: the public randomness the parties agree on.

use helib_sys as sys;

/// Bytes of a common reference seed.
pub const SEED_BYTES: usize = sys::HELIB_THRESHOLD_SEED_BYTES as usize;

/// A common reference seed the parties agree on (public).
pub type Seed = [u8; SEED_BYTES];
