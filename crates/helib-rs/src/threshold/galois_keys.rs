//! Collective Galois keys: each party's share of the key for an element,
//! and the insertion of their sum.

use helib_sys as sys;

use super::seed::Seed;
use super::shares::key_share_len;
use crate::error::Result;
use crate::ffi::check;
use crate::galois_keys::GaloisKeys;
use crate::keys::SecretKey;

#[cfg(doc)]
use crate::error::Error;

/// A party's share of the Galois key for `element`.
///
/// # Errors
/// [`Error::InvalidArgument`] for an invalid element; [`Error::InvalidParameters`]
/// without special primes.
pub fn galois_key_share(sk: &SecretKey, element: u64, seed: &Seed) -> Result<Vec<u64>> {
    let mut out = vec![0u64; key_share_len(sk.context())?];
    // SAFETY: the key handle is live, the seed holds SEED_BYTES bytes and `out` holds `out.len()` values.
    check(unsafe {
        sys::helib_threshold_galois_key_share(
            sk.as_ptr(),
            element,
            seed.as_ptr(),
            out.as_mut_ptr(),
            out.len(),
        )
    })?;
    Ok(out)
}

/// Inserts the collective Galois key for `element` (sum of the shares of
/// `parties` parties) into `keys`. The key's noise estimate accounts for the
/// parties' summed errors, and it serializes like any Galois key.
///
/// # Errors
/// [`Error::InvalidArgument`] for a wrong length, unreduced residues, an
/// invalid element or `parties` outside `[1, 4096]`.
pub fn galois_keys_insert(
    keys: &mut GaloisKeys,
    element: u64,
    seed: &Seed,
    parties: u32,
    sum: &[u64],
) -> Result<()> {
    keys.insert_with(element, |raw| {
        // SAFETY: `raw` is the live, exclusively borrowed key set; `sum` holds `sum.len()` values.
        unsafe {
            sys::helib_threshold_galois_keys_insert(
                raw,
                element,
                seed.as_ptr(),
                parties,
                sum.as_ptr(),
                sum.len(),
            )
        }
    })
}
