//! Protocol messages: one party's share for one step of one run, with the
//! context fingerprint, session id, run number and party index that bind it,
//! and their wire format (checksummed).

use crate::checksum::{check_version, checked_split, checksum, Hasher, CHECKSUM_BYTES};
use crate::error::{Error, Result};
use crate::residues::{from_le_bytes, with_le_bytes};
use crate::session::Session;

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
    /// Encryption to additive shares of the relinearization of one size-3
    /// product, which every participant computes itself (the shares are
    /// bound to the product).
    EncryptionToSharesOfProduct,
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
            Step::EncryptionToSharesOfProduct => (9, 0),
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
            9 => Step::EncryptionToSharesOfProduct,
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

    /// Whether the step makes a collective key (its shares are bound to the
    /// top level, to no ciphertext and no active set).
    pub(crate) fn is_key_generation(self) -> bool {
        matches!(
            self,
            Step::PublicKey | Step::RelinRound1 | Step::RelinRound2 | Step::GaloisKey { .. }
        )
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
const WHAT: &str = "share message";
/// Version 3: the checksum is BLAKE3 (version 2 ended with SHA-256).
const VERSION: u8 = 3;
/// Header bytes: frame header, party, binding, polynomial count.
const HEADER: usize = FRAME_HEADER + 4 + BINDING_BYTES + 4;

impl ShareMessage {
    /// The wire encoding: a header (magic, version, fingerprint, session,
    /// party, run, step, level, subject, active set), the polynomials (count, then for
    /// each its length and residues, little-endian) and a checksum of all of
    /// it (BLAKE3).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.encoded_len());
        self.write_to(&mut out);
        out
    }

    /// The length of [`to_bytes`](Self::to_bytes)'s encoding.
    pub fn encoded_len(&self) -> usize {
        FRAME_HEADER + 4 + BINDING_BYTES + polynomials_len(&self.polynomials) + CHECKSUM_BYTES
    }

    /// Appends [`to_bytes`](Self::to_bytes)'s encoding to `out` (its checksum
    /// covers only what this call appends), for a message carried inside
    /// another one without a copy.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        let start = out.len();
        self.write_body(out);
        let digest = checksum(&out[start..]);
        out.extend_from_slice(&digest);
    }

    /// Appends the encoding with `checksum` as its trailer, which must be
    /// [`checksum`](Self::checksum) of this message (the caller computed it
    /// before, so the residues are not hashed again).
    pub(crate) fn write_with_checksum(&self, out: &mut Vec<u8>, checksum: &[u8; 32]) {
        self.write_body(out);
        out.extend_from_slice(checksum);
    }

    /// The encoding without its checksum trailer.
    fn write_body(&self, out: &mut Vec<u8>) {
        write_frame_header(out, MAGIC, VERSION, &self.fingerprint, &self.session);
        out.extend_from_slice(&self.party.to_le_bytes());
        write_binding(out, &self.binding);
        write_polynomials(out, &self.polynomials);
    }

    /// The checksum [`to_bytes`](Self::to_bytes) ends with, computed
    /// from the fields as they would be encoded, without the encoding: one
    /// pass over the residues.
    pub fn checksum(&self) -> [u8; 32] {
        let mut header = Vec::with_capacity(HEADER);
        write_frame_header(
            &mut header,
            MAGIC,
            VERSION,
            &self.fingerprint,
            &self.session,
        );
        header.extend_from_slice(&self.party.to_le_bytes());
        write_binding(&mut header, &self.binding);
        header.extend_from_slice(&(self.polynomials.len() as u32).to_le_bytes());
        let mut h = Hasher::new();
        h.update(&header);
        for p in &self.polynomials {
            h.update(&(p.len() as u64).to_le_bytes());
            with_le_bytes(p, |bytes| {
                h.update(bytes);
            });
        }
        h.finalize()
    }

    /// Reads a message written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    /// [`Error::MalformedMessage`] for truncated or trailing bytes, a wrong
    /// magic, version or checksum, an unknown step, or more than two polynomials.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Self::from_bytes_with_checksum(bytes).map(|(message, _)| message)
    }

    /// [`from_bytes`](Self::from_bytes), with the checksum it verified
    /// (computed here over the bytes).
    pub(crate) fn from_bytes_with_checksum(bytes: &[u8]) -> Result<(Self, [u8; 32])> {
        let bad = |what: &str| Error::MalformedMessage(format!("{WHAT}: {what}"));
        check_version(WHAT, bytes, MAGIC, VERSION)?;
        if bytes.len() < HEADER + CHECKSUM_BYTES {
            return Err(bad("shorter than a message header"));
        }
        let (body, checksum) = checked_split(WHAT, bytes)?;
        let mut r = Reader { bytes: &body[5..] };
        let fingerprint = r.array()?;
        let session = r.array()?;
        let party = r.u32()?;
        let binding = r.binding()?;
        let polynomials = r.polynomials(2)?;
        if !r.bytes.is_empty() {
            return Err(bad("trailing bytes"));
        }
        let message = Self {
            fingerprint,
            session,
            party,
            binding,
            polynomials,
        };
        Ok((message, checksum))
    }
}

/// Bytes of an encoded [`Binding`]: run, step (tag and argument), level,
/// subject and active set.
pub(crate) const BINDING_BYTES: usize = 8 + 9 + 4 + 32 + 32;

/// Appends the encoding of `binding` (shared by share messages and
/// aggregates): run (`u64`), step (tag `u8`, argument `u64`), level (`u32`),
/// subject (32 bytes), active set (32 bytes), little-endian.
pub(crate) fn write_binding(out: &mut Vec<u8>, binding: &Binding) {
    out.extend_from_slice(&binding.run.to_le_bytes());
    out.extend_from_slice(&binding.step.id_bytes());
    out.extend_from_slice(&binding.level.to_le_bytes());
    out.extend_from_slice(&binding.subject);
    out.extend_from_slice(&binding.active);
}

/// Bytes [`write_polynomials`] appends for `polynomials`.
pub(crate) fn polynomials_len(polynomials: &[Vec<u64>]) -> usize {
    4 + polynomials.iter().map(|p| 8 + 8 * p.len()).sum::<usize>()
}

/// Appends the polynomial count (`u32`), then for each polynomial its
/// length (`u64`) and residues (`u64` each), little-endian.
pub(crate) fn write_polynomials(out: &mut Vec<u8>, polynomials: &[Vec<u64>]) {
    out.extend_from_slice(&(polynomials.len() as u32).to_le_bytes());
    for p in polynomials {
        out.extend_from_slice(&(p.len() as u64).to_le_bytes());
        with_le_bytes(p, |bytes| out.extend_from_slice(bytes));
    }
}

/// Opens the frame of a stored or broadcast object of `session`: `magic`
/// and `version` (checked first, so an older build's object is named as
/// such), at least `header` bytes before the checksum trailer, the
/// checksum, then the context fingerprint and session id it was written
/// for. Returns a reader positioned after the session id.
///
/// # Errors
/// [`Error::MalformedMessage`] naming `what` and the field for a short
/// input, a wrong magic, version or checksum; [`Error::ForeignSession`] for
/// another context fingerprint or session id.
pub(crate) fn open_frame<'a>(
    session: &Session,
    bytes: &'a [u8],
    what: &'static str,
    magic: &[u8; 4],
    version: u8,
    header: usize,
) -> Result<Reader<'a>> {
    check_version(what, bytes, magic, version)?;
    if bytes.len() < header + CHECKSUM_BYTES {
        return Err(Error::MalformedMessage(format!(
            "{what}: shorter than its header and checksum"
        )));
    }
    let (body, _) = checked_split(what, bytes)?;
    let mut r = Reader { bytes: &body[5..] };
    if &r.array()? != session.fingerprint() {
        return Err(Error::ForeignSession {
            what,
            field: "context fingerprint",
        });
    }
    if &r.array()? != session.id() {
        return Err(Error::ForeignSession {
            what,
            field: "session id",
        });
    }
    Ok(r)
}

/// Appends the frame header [`open_frame`] reads: magic, version, the
/// session's context fingerprint and id.
pub(crate) fn write_frame_header(
    out: &mut Vec<u8>,
    magic: &[u8; 4],
    version: u8,
    fingerprint: &[u8; 32],
    session: &[u8; 32],
) {
    out.extend_from_slice(magic);
    out.push(version);
    out.extend_from_slice(fingerprint);
    out.extend_from_slice(session);
}

/// Bytes of the frame header: magic, version, fingerprint, session id.
pub(crate) const FRAME_HEADER: usize = 4 + 1 + 32 + 32;

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

    /// Reads `count` little-endian `u64`s, allocating only once they are
    /// known to be in the input (never from the count alone).
    pub(crate) fn u64s(&mut self, count: u64) -> Result<Vec<u64>> {
        Ok(from_le_bytes(self.u64_bytes(count)?))
    }

    /// The bytes of `count` `u64`s, if the input holds them.
    fn u64_bytes(&mut self, count: u64) -> Result<&'a [u8]> {
        let bytes = usize::try_from(count)
            .ok()
            .and_then(|c| c.checked_mul(8))
            .filter(|&b| b <= self.bytes.len())
            .ok_or_else(|| Error::MalformedMessage("a length runs past the end".into()))?;
        self.take(bytes)
    }

    /// Reads a binding written by [`write_binding`].
    pub(crate) fn binding(&mut self) -> Result<Binding> {
        let run = self.u64()?;
        let tag = self.take(1)?[0];
        let arg = self.u64()?;
        let step = Step::from_tag(tag, arg)
            .ok_or_else(|| Error::MalformedMessage("unknown protocol step".into()))?;
        Ok(Binding {
            run,
            step,
            level: self.u32()?,
            subject: self.array()?,
            active: self.array()?,
        })
    }

    /// Reads polynomials written by [`write_polynomials`], at most `max` of
    /// them; memory grows only with the bytes actually present.
    pub(crate) fn polynomials(&mut self, max: usize) -> Result<Vec<Vec<u64>>> {
        let count = self.u32()? as usize;
        if count > max {
            return Err(Error::MalformedMessage(format!(
                "{count} polynomials, at most {max}"
            )));
        }
        let mut polynomials = Vec::with_capacity(count);
        for _ in 0..count {
            let len = self.u64()?;
            polynomials.push(self.u64s(len).map_err(|_| {
                Error::MalformedMessage("a polynomial is longer than the message".into())
            })?);
        }
        Ok(polynomials)
    }
}
