//! t-out-of-N: a party's Shamir dealing of its secret share, the re-shared
//! key it combines from the dealings it receives, and its activation.

use helib_sys as sys;

use super::secret::sealed::{RawSecret, Sealed};
use super::secret::PartySecret;
use super::shares::chain_share_len;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::ffi::{check, Owned};
use crate::keys::SecretKey;
use zeroize::Zeroizing;

/// A party's secret share as RNS residues (NTT form, modulo every chain
/// prime): its re-shared key `S_j` (the sum of the Shamir dealings it
/// received, [`shamir_combine`]) or, once activated for an active set `T`,
/// `λ_j(T)·S_j` ([`activate`](Self::activate)). Secret: the engine keeps the
/// residues in memory it wipes when the share is dropped.
pub struct ResidueShare {
    raw: Owned<sys::helib_secret_share>,
    context: Context,
}

// SAFETY: the handle is immutable after creation and owned by this value
// alone; the engine functions using it take it as `const` and may run
// concurrently; it is released only in `Drop`, which has exclusive access.
unsafe impl Send for ResidueShare {}
// SAFETY: see the `Send` impl above.
unsafe impl Sync for ResidueShare {}

impl std::fmt::Debug for ResidueShare {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ResidueShare(..)")
    }
}

/// What a [`ResidueShare`] is: its party, the threshold, the number of
/// parties and the size of its active set (0 before activation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResidueShareInfo {
    /// The party's evaluation point, in `1..=parties`.
    pub index: u32,
    /// The number of parties needed to use the shared secret.
    pub threshold: u32,
    /// The number of parties the secret is shared among.
    pub parties: u32,
    /// The size of the active set the share was activated for (0: not activated).
    pub active: usize,
}

impl ResidueShare {
    /// The context of the share.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// The share's party index, threshold, parties and active-set size.
    ///
    /// # Errors
    /// Not expected for a live share (the engine's error otherwise).
    pub fn info(&self) -> Result<ResidueShareInfo> {
        let (mut index, mut threshold, mut parties, mut active) = (0u32, 0u32, 0u32, 0usize);
        // SAFETY: the share handle is live and every out-pointer is valid.
        check(unsafe {
            sys::helib_shamir_share_info(
                self.raw.as_ptr(),
                &mut index,
                &mut threshold,
                &mut parties,
                &mut active,
            )
        })?;
        Ok(ResidueShareInfo {
            index,
            threshold,
            parties,
            active,
        })
    }

    /// `λ_j(T)·S_j` for the active set `active` (1-based party indices, any
    /// order): the party's additive share of the collective secret among the
    /// members of `T`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the share is already activated, an
    /// index is outside `1..=parties` or repeated, `T` has fewer than
    /// `threshold` members or does not contain this party.
    pub fn activate(&self, active: &[u32]) -> Result<ResidueShare> {
        let share = self.raw.as_ptr();
        // SAFETY: the share handle is live; `active` holds `active.len()` indices; `out` is a valid out-pointer.
        let raw = Owned::create(|out| unsafe {
            sys::helib_shamir_activate(share, active.as_ptr(), active.len(), out)
        })?;
        Ok(Self {
            raw,
            context: self.context.clone(),
        })
    }
}

impl Sealed for ResidueShare {
    fn raw_secret(&self) -> RawSecret {
        RawSecret::Residues(self.raw.as_ptr())
    }
}

impl PartySecret for ResidueShare {
    fn secret_context(&self) -> &Context {
        &self.context
    }
}

/// The Shamir dealing of `sk` to `parties` parties with `threshold`: per
/// chain prime and coefficient (NTT form), a random polynomial of degree
/// `threshold − 1` with constant term `s_i`, evaluated at `1..=parties`.
/// The result holds `parties` chain shares at the top level, the one for
/// party `j` at index `j − 1` ([`chain_share_len`] residues each), each
/// written by the engine where it stays. Secret: each must reach its
/// recipient over a private channel; each is wiped when dropped.
///
/// # Errors
/// [`Error::InvalidArgument`] unless `1 ≤ threshold ≤ parties ≤ 4096`;
/// [`Error::Randomness`] when the OS random source fails.
pub fn shamir_deal(
    sk: &SecretKey,
    threshold: u32,
    parties: u32,
) -> Result<Vec<Zeroizing<Vec<u64>>>> {
    // Bounds the buffers made below; the engine checks the sizes in full.
    if !(1..=sys::HELIB_MAX_PARTIES).contains(&parties) {
        return Err(Error::InvalidArgument(format!(
            "the number of parties of a Shamir re-sharing must be in [1, {}], not {parties}",
            sys::HELIB_MAX_PARTIES
        )));
    }
    let context = sk.context();
    let each = chain_share_len(context, context.max_level());
    let mut outs: Vec<Zeroizing<Vec<u64>>> = (0..parties)
        .map(|_| Zeroizing::new(vec![0u64; each]))
        .collect();
    let pointers: Vec<*mut u64> = outs.iter_mut().map(|out| out.as_mut_ptr()).collect();
    // SAFETY: the key handle is live; `pointers` holds `parties` pointers to
    // distinct live buffers of `each` values, which outlive the call.
    check(unsafe {
        sys::helib_shamir_deal(sk.as_ptr(), threshold, parties, pointers.as_ptr(), each)
    })?;
    Ok(outs)
}

/// Party `index`'s (1-based) re-shared key from its residues `S_j` (a chain
/// share at the top level, standard residues): the share
/// [`shamir_combine`] returns for dealings that sum to `S_j`, for a caller
/// that summed them itself or kept `S_j` (a restored export).
///
/// # Errors
/// [`Error::InvalidArgument`] for sizes out of range, an index outside
/// `1..=parties`, a wrong length or an unreduced residue.
pub fn shamir_share_from_residues(
    context: &Context,
    index: u32,
    threshold: u32,
    parties: u32,
    residues: &[u64],
) -> Result<ResidueShare> {
    residue_share(
        sys::helib_shamir_share_from_residues,
        context,
        [index, threshold, parties],
        residues,
    )
}

/// An engine entry point that makes a residue share from residues:
/// context, index, threshold, parties, residues and their count, result.
type ResidueShareEntry = unsafe extern "C" fn(
    *const sys::helib_context,
    u32,
    u32,
    u32,
    *const u64,
    usize,
    *mut *mut sys::helib_secret_share,
) -> sys::helib_status;

/// The residue share `entry` makes of `residues` for
/// `[index, threshold, parties]`.
fn residue_share(
    entry: ResidueShareEntry,
    context: &Context,
    [index, threshold, parties]: [u32; 3],
    residues: &[u64],
) -> Result<ResidueShare> {
    let ctx = context.as_ptr();
    // SAFETY: the context handle is live; `residues` holds `residues.len()`
    // values; `out` is a valid out-pointer.
    let raw = Owned::create(|out| unsafe {
        entry(
            ctx,
            index,
            threshold,
            parties,
            residues.as_ptr(),
            residues.len(),
            out,
        )
    })?;
    Ok(ResidueShare {
        raw,
        context: context.clone(),
    })
}

/// Party `index`'s (1-based) re-shared key `S_j` from the dealings it
/// received: `parties` chain shares at the top level, dealer 1 first.
///
/// # Errors
/// [`Error::InvalidArgument`] for sizes out of range, an index outside
/// `1..=parties`, a wrong length or an unreduced residue.
pub fn shamir_combine(
    context: &Context,
    index: u32,
    threshold: u32,
    parties: u32,
    dealings: &[u64],
) -> Result<ResidueShare> {
    residue_share(
        sys::helib_shamir_combine,
        context,
        [index, threshold, parties],
        dealings,
    )
}
