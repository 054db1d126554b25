//! A Shamir dealing: what one party sends another over a private channel,
//! and its wire encoding.

use helib_rs::zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use crate::checksum::{append_checksum, check_version, checked_split, CHECKSUM_BYTES};
use crate::error::{Error, Result};
use crate::message::Reader;
use crate::residues::{from_le_bytes, with_le_bytes};

/// One Shamir dealing: party `from`'s secret share `s_from` evaluated, per
/// chain prime and NTT coefficient, at party `to`'s point `to + 1` by a random
/// polynomial of degree `threshold − 1` with constant term `s_from`.
///
/// **Secret.** Fewer than `threshold` dealings from a party reveal nothing
/// about its share, but `threshold` of them reveal it: a dealing must travel
/// over a private (encrypted and authenticated) channel to its recipient
/// only. Its residues are overwritten with zeros when it is dropped, and its
/// wire encoding ([`to_bytes`](Self::to_bytes)) is wiped likewise.
#[derive(Clone, PartialEq, Eq, Zeroize, ZeroizeOnDrop)]
pub struct DealingMessage {
    /// The context fingerprint of the dealer's parameters.
    pub fingerprint: [u8; 32],
    /// The session id.
    pub session: [u8; 32],
    /// The number of parties needed to use the re-shared secret.
    pub threshold: u32,
    /// The dealer's index in `0..parties`.
    pub from: u32,
    /// The recipient's index in `0..parties`.
    pub to: u32,
    /// The run of the re-sharing (every party uses the same).
    pub run: u64,
    /// The evaluation: a chain share at the top level (NTT form, standard
    /// residues, prime-major).
    pub residues: Vec<u64>,
}

impl std::fmt::Debug for DealingMessage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DealingMessage")
            .field("threshold", &self.threshold)
            .field("from", &self.from)
            .field("to", &self.to)
            .field("run", &self.run)
            .finish_non_exhaustive()
    }
}

const DEALING_MAGIC: &[u8; 4] = b"HETD";
/// Version 2: the checksum is BLAKE3 (version 1 ended with SHA-256).
const DEALING_VERSION: u8 = 2;
const DEALING_WHAT: &str = "Shamir dealing";
const DEALING_HEADER: usize = 4 + 1 + 32 + 32 + 4 + 4 + 4 + 8 + 8;

impl DealingMessage {
    /// The wire encoding: magic, version, fingerprint, session, threshold,
    /// from, to, run, the residue count and the residues (little-endian),
    /// then a checksum of all of it (BLAKE3). Secret, like the dealing.
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut out = Zeroizing::new(Vec::with_capacity(
            DEALING_HEADER + 8 * self.residues.len() + CHECKSUM_BYTES,
        ));
        out.extend_from_slice(DEALING_MAGIC);
        out.push(DEALING_VERSION);
        out.extend_from_slice(&self.fingerprint);
        out.extend_from_slice(&self.session);
        out.extend_from_slice(&self.threshold.to_le_bytes());
        out.extend_from_slice(&self.from.to_le_bytes());
        out.extend_from_slice(&self.to.to_le_bytes());
        out.extend_from_slice(&self.run.to_le_bytes());
        out.extend_from_slice(&(self.residues.len() as u64).to_le_bytes());
        with_le_bytes(&self.residues, |bytes| out.extend_from_slice(bytes));
        append_checksum(&mut out);
        out
    }

    /// Reads a dealing written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    /// [`Error::MalformedMessage`] for truncated or trailing bytes, a wrong
    /// magic, version or checksum.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let bad = |what: &str| Error::MalformedMessage(format!("{DEALING_WHAT}: {what}"));
        check_version(DEALING_WHAT, bytes, DEALING_MAGIC, DEALING_VERSION)?;
        if bytes.len() < DEALING_HEADER + CHECKSUM_BYTES {
            return Err(bad("shorter than a dealing header"));
        }
        let (body, _) = checked_split(DEALING_WHAT, bytes)?;
        let mut r = Reader { bytes: &body[5..] };
        let fingerprint = r.array()?;
        let session = r.array()?;
        let threshold = r.u32()?;
        let from = r.u32()?;
        let to = r.u32()?;
        let run = r.u64()?;
        let len = r.u64()?;
        if usize::try_from(len).ok().and_then(|l| l.checked_mul(8)) != Some(r.bytes.len()) {
            return Err(bad("the residue count does not match the message length"));
        }
        let residues = from_le_bytes(r.bytes);
        Ok(Self {
            fingerprint,
            session,
            threshold,
            from,
            to,
            run,
            residues,
        })
    }
}
