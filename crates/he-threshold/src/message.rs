//! Protocol messages: one party's share for one step of one run, with the
//! context fingerprint, session id, run number and party index that bind it,
//! and their wire format (checksummed).

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// A protocol step: what a share is a share of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Step {
    /// The collective public key.
    PublicKey,
    /// Round 1 of the collective relinearization key.
    RelinRound1,
    /// Round 2 of the collective relinearization key.
    RelinRound2,
    /// The collective Galois key for one element.
    GaloisKey {
        /// The Galois element.
        element: u64,
    },
    /// Collective decryption of one ciphertext.
    Decrypt,
    /// Encryption to additive shares of one ciphertext.
    EncryptionToShares,
    /// Shares to encryption (a fresh ciphertext of the sum of the shares).
    SharesToEncryption,
    /// Collective key switching of one ciphertext to another public key.
    KeySwitch,
}

impl Step {
    fn tag(self) -> (u8, u64) {
        match self {
            Step::PublicKey => (1, 0),
            Step::RelinRound1 => (2, 0),
            Step::RelinRound2 => (3, 0),
            Step::GaloisKey { element } => (4, element),
            Step::Decrypt => (5, 0),
            Step::EncryptionToShares => (6, 0),
            Step::SharesToEncryption => (7, 0),
            Step::KeySwitch => (8, 0),
        }
    }

    fn from_tag(tag: u8, arg: u64) -> Option<Self> {
        let step = match tag {
            1 => Step::PublicKey,
            2 => Step::RelinRound1,
            3 => Step::RelinRound2,
            4 => Step::GaloisKey { element: arg },
            5 => Step::Decrypt,
            6 => Step::EncryptionToShares,
            7 => Step::SharesToEncryption,
            8 => Step::KeySwitch,
            _ => return None,
        };
        (step.tag().1 == arg).then_some(step)
    }

    /// Bytes identifying the step (for seeds and digests).
    pub(crate) fn id_bytes(self) -> [u8; 9] {
        let (tag, arg) = self.tag();
        let mut out = [0u8; 9];
        out[0] = tag;
        out[1..].copy_from_slice(&arg.to_le_bytes());
        out
    }

    /// How many polynomials a share of this step carries.
    pub(crate) fn polynomials(self) -> usize {
        match self {
            Step::RelinRound1 | Step::KeySwitch => 2,
            _ => 1,
        }
    }

    /// Whether the step's shares are key shares (all primes, per digit)
    /// rather than chain shares at a level.
    pub(crate) fn is_key_share(self) -> bool {
        matches!(
            self,
            Step::RelinRound1 | Step::RelinRound2 | Step::GaloisKey { .. }
        )
    }
}

/// What a share is bound to: the step, the run, the level of its polynomials,
/// (for steps on a ciphertext) the SHA-256 digest of that ciphertext and (for
/// t-out-of-N shares) the digest of the active set they were computed for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The caller-chosen run number (distinct for every run of a protocol in
    /// a session; it also selects the common reference polynomials).
    pub run: u64,
    /// The protocol step.
    pub step: Step,
    /// The level of chain shares (the top level for key shares).
    pub level: u32,
    /// The digest of the ciphertext the step works on (zero for key generation
    /// and shares to encryption).
    pub subject: [u8; 32],
    /// The digest of the active set of a t-out-of-N share
    /// ([`ActiveSet::digest`](crate::ActiveSet::digest)); zero for shares of
    /// all parties.
    pub active: [u8; 32],
}

impl std::fmt::Display for Binding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:?} of run {} at level {}",
            self.step, self.run, self.level
        )?;
        if self.subject != [0u8; 32] {
            write!(
                f,
                " on ciphertext {:02x}{:02x}{:02x}{:02x}…",
                self.subject[0], self.subject[1], self.subject[2], self.subject[3]
            )?;
        }
        if self.active != [0u8; 32] {
            write!(
                f,
                " for active set {:02x}{:02x}{:02x}{:02x}…",
                self.active[0], self.active[1], self.active[2], self.active[3]
            )?;
        }
        Ok(())
    }
}

/// One party's share for one step: what crosses the network.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShareMessage {
    /// The context fingerprint of the sender's parameters.
    pub fingerprint: [u8; 32],
    /// The session id.
    pub session: [u8; 32],
    /// The sender's index in `0..parties`.
    pub party: u32,
    /// What the share is for.
    pub binding: Binding,
    /// The share's polynomials (residues in NTT form, prime-major).
    pub polynomials: Vec<Vec<u64>>,
}

const MAGIC: &[u8; 4] = b"HETS";
const VERSION: u8 = 2;
const HEADER: usize = 4 + 1 + 32 + 32 + 4 + 8 + 1 + 8 + 4 + 32 + 32 + 4;

impl ShareMessage {
    /// The wire encoding: a header (magic, version, fingerprint, session,
    /// party, run, step, level, subject, active set), the polynomials (count, then for
    /// each its length and residues, little-endian) and a SHA-256 checksum of
    /// all of it.
    pub fn to_bytes(&self) -> Vec<u8> {
        let values: usize = self.polynomials.iter().map(Vec::len).sum();
        let mut out = Vec::with_capacity(HEADER + 8 * (values + self.polynomials.len()) + 32);
        out.extend_from_slice(MAGIC);
        out.push(VERSION);
        out.extend_from_slice(&self.fingerprint);
        out.extend_from_slice(&self.session);
        out.extend_from_slice(&self.party.to_le_bytes());
        out.extend_from_slice(&self.binding.run.to_le_bytes());
        out.extend_from_slice(&self.binding.step.id_bytes());
        out.extend_from_slice(&self.binding.level.to_le_bytes());
        out.extend_from_slice(&self.binding.subject);
        out.extend_from_slice(&self.binding.active);
        out.extend_from_slice(&(self.polynomials.len() as u32).to_le_bytes());
        for p in &self.polynomials {
            out.extend_from_slice(&(p.len() as u64).to_le_bytes());
            for v in p {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        let digest = Sha256::digest(&out);
        out.extend_from_slice(&digest);
        out
    }

    /// Reads a message written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    /// [`Error::MalformedMessage`] for truncated or trailing bytes, a wrong
    /// magic, version or checksum, an unknown step, or more than two polynomials.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let bad = |what: &str| Error::MalformedMessage(what.to_owned());
        if bytes.len() < HEADER + 32 {
            return Err(bad("shorter than a message header"));
        }
        let (body, checksum) = bytes.split_at(bytes.len() - 32);
        if Sha256::digest(body).as_slice() != checksum {
            return Err(bad("checksum mismatch (corrupted in transit)"));
        }
        let mut r = Reader { bytes: body };
        if r.take(4)? != MAGIC {
            return Err(bad("not a threshold share message"));
        }
        if r.take(1)?[0] != VERSION {
            return Err(bad("unsupported message version"));
        }
        let fingerprint = r.array()?;
        let session = r.array()?;
        let party = r.u32()?;
        let run = r.u64()?;
        let tag = r.take(1)?[0];
        let arg = r.u64()?;
        let step = Step::from_tag(tag, arg).ok_or_else(|| bad("unknown protocol step"))?;
        let level = r.u32()?;
        let subject = r.array()?;
        let active = r.array()?;
        let count = r.u32()? as usize;
        if count > 2 {
            return Err(bad("more than two polynomials"));
        }
        let mut polynomials = Vec::with_capacity(count);
        for _ in 0..count {
            let len = r.u64()?;
            let bytes_needed = usize::try_from(len)
                .ok()
                .and_then(|l| l.checked_mul(8))
                .filter(|&b| b <= r.bytes.len())
                .ok_or_else(|| bad("a polynomial is longer than the message"))?;
            let raw = r.take(bytes_needed)?;
            polynomials.push(
                raw.chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().expect("8-byte chunks")))
                    .collect(),
            );
        }
        if !r.bytes.is_empty() {
            return Err(bad("trailing bytes"));
        }
        Ok(Self {
            fingerprint,
            session,
            party,
            binding: Binding {
                run,
                step,
                level,
                subject,
                active,
            },
            polynomials,
        })
    }
}

pub(crate) struct Reader<'a> {
    pub(crate) bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.bytes.len() < n {
            return Err(Error::MalformedMessage("truncated".into()));
        }
        let (head, tail) = self.bytes.split_at(n);
        self.bytes = tail;
        Ok(head)
    }
    pub(crate) fn array(&mut self) -> Result<[u8; 32]> {
        Ok(self.take(32)?.try_into().expect("32 bytes"))
    }
    pub(crate) fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }
    pub(crate) fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }
}
