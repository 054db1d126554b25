//! Tags on plan files: the MAC fed with the bytes as they stream through,
//! and what a keyed load reports about how it checked the plan.

use super::gmac::Gmac;
use std::cell::RefCell;
use std::io::{Read, Write};

/// How a loaded plan was checked against the spec of the builder that
/// loaded it. Either way the file's header was compared with the spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum PlanCheck {
    /// The file carries the tag of the loader's [`PlanKey`](crate::PlanKey)
    /// over all its bytes: it is a file that key's owner saved, unchanged,
    /// so its levels were not recomputed.
    Authenticated,
    /// The levels were verified against the spec by recomputation (sound
    /// without trusting the file), for the reason given.
    Recomputed(Unauthenticated),
}

/// Why a loaded plan was not accepted on its tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Unauthenticated {
    /// The loader gave no key ([`FftPlanBuilder::load_from`](crate::FftPlanBuilder::load_from)).
    NoKey,
    /// The file carries no tag (saved with [`FftPlan::write_to`](crate::FftPlan::write_to)).
    Untagged,
    /// The file was tagged with another key (another user's or machine's).
    OtherKey,
    /// The file names the loader's key but its tag does not verify: it was
    /// changed after it was saved.
    TagMismatch,
    /// The file is of an older format version (6), whose tags
    /// (HMAC-SHA256) are not checked: such files load by verification
    /// alone. Save the plan again to tag it in the current format.
    OlderVersion,
}

impl PlanCheck {
    /// `"authenticated"` or `"recomputed"`, for reports.
    pub fn as_str(&self) -> &'static str {
        match self {
            PlanCheck::Authenticated => "authenticated",
            PlanCheck::Recomputed(_) => "recomputed",
        }
    }
}

impl std::fmt::Display for PlanCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlanCheck::Authenticated => f.write_str("authenticated by its tag"),
            PlanCheck::Recomputed(why) => {
                let why = match why {
                    Unauthenticated::NoKey => "no key given",
                    Unauthenticated::Untagged => "the file has no tag",
                    Unauthenticated::OtherKey => "the file was tagged with another key",
                    Unauthenticated::TagMismatch => {
                        "the file's tag does not verify: it was changed after it was saved"
                    }
                    Unauthenticated::OlderVersion => {
                        "the file is of an older format version, whose tags are not checked"
                    }
                };
                write!(f, "verified by recomputation ({why})")
            }
        }
    }
}

/// A MAC being fed, or none (no key, or a file tagged under another key).
pub(super) type Running = RefCell<Option<Gmac>>;

/// A reader feeding every byte it reads to a [`Running`] MAC, so the tag is
/// computed as the file streams into the plan's buffers (no second pass).
pub(super) struct MacReader<'a, R> {
    pub(super) inner: &'a mut R,
    pub(super) mac: &'a Running,
}

impl<R: Read> Read for MacReader<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(mac) = self.mac.borrow_mut().as_mut() {
            mac.update(&buf[..n]);
        }
        Ok(n)
    }
}

/// A writer feeding every byte it writes to a [`Running`] MAC.
pub(super) struct MacWriter<'a, W> {
    pub(super) inner: &'a mut W,
    pub(super) mac: &'a Running,
}

impl<W: Write> Write for MacWriter<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        if let Some(mac) = self.mac.borrow_mut().as_mut() {
            mac.update(&buf[..n]);
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}
