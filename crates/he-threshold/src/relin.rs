//! Round 1 of the collective relinearization key as commit-then-open.
//!
//! A party's round-2 share is `s_i·h0 + (u_i − s_i)·h1 + t·e` for the round-1
//! sums `(h0, h1)`. If one party could choose its round-1 share after seeing
//! everyone else's, it could make the sums `h0 = 1, h1 = 0` and every honest
//! round-2 share would be `s_i + t·e`: that party's secret share in the clear.
//! So round 1 runs in two steps:
//!
//! 1. every party computes its round-1 share and sends only a
//!    [`Commitment`]: SHA-256 of the session, its index, the run, 32 fresh
//!    random bytes and the share message's own checksum (the BLAKE3 of its
//!    whole encoding, every residue included), so the party hashes its
//!    share once;
//! 2. once all N commitments are collected ([`CommitmentCollector`] →
//!    [`Commitments`]), every party checks that the set is complete and holds
//!    its own commitment unchanged, and only then sends its [`Opening`]: the
//!    share as committed, the random bytes and, in the opening's header, the
//!    digest of the set;
//! 3. the aggregator ([`Session::relin_round1_aggregator`](crate::Session::relin_round1_aggregator))
//!    checks each opening's set digest and the opening against its
//!    commitment before adding it (the share's checksum it recomputed from
//!    the residues when it read the opening, so it hashes each opening
//!    once), and a party releases its round-2 share only for an aggregate of
//!    openings under the set it saw.
//!
//! A party that sends last can no longer steer the sums: its share was fixed
//! (the commitment is binding: changing any residue changes the share's
//! checksum, unless BLAKE3 collides) before it saw any other. The engine
//! also refuses round-1 sums that no honest run produces (a digit of `h0` or
//! `h1` with half its coefficients near zero), a second line behind this one.

use rand::RngCore;
use sha2::{Digest, Sha256};

use crate::checksum::{append_checksum, check_version, checked_split, Hasher, CHECKSUM_BYTES};
use crate::error::{Error, Result};
use crate::message::{open_frame, write_frame_header, Reader, ShareMessage, FRAME_HEADER};
use crate::session::Session;

/// One party's commitment to its round-1 share (what it sends first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Commitment {
    /// The context fingerprint of the sender's parameters.
    pub fingerprint: [u8; 32],
    /// The session id.
    pub session: [u8; 32],
    /// The sender's index.
    pub party: u32,
    /// The run of the relinearization-key protocol.
    pub run: u64,
    /// SHA-256 of the session, the sender, the run, the opening's random
    /// bytes and the share message's checksum ([`ShareMessage::checksum`]).
    pub digest: [u8; 32],
}

const COMMITMENT_MAGIC: &[u8; 4] = b"HETC";
const OPENING_MAGIC: &[u8; 4] = b"HETO";
/// The version of commitments and openings. Version 3: their checksums,
/// and the share message checksum a commitment covers, are BLAKE3. Since
/// version 2 a commitment covers the share message's checksum rather than
/// its residues, and the opening carries the commitment set's digest in its
/// header (with a checksum of the header and the share's checksum) instead
/// of in the share's binding. Earlier versions are refused by name.
const VERSION: u8 = 3;
const COMMITMENT_LEN: usize = 4 + 1 + 32 + 32 + 4 + 8 + 32 + 32;
/// Bytes of an opening before its share message: magic, version, random
/// bytes, commitment-set digest.
const OPENING_HEADER: usize = 4 + 1 + 32 + 32;
const SET_MAGIC: &[u8; 4] = b"HETL";
/// Version 2: the checksum is BLAKE3 (version 1 ended with SHA-256).
const SET_VERSION: u8 = 2;
/// Fixed bytes of a commitment set before its digests: frame header, run, count.
const SET_HEADER: usize = FRAME_HEADER + 8 + 4;
const SET_WHAT: &str = "commitment set";

impl Commitment {
    /// The wire encoding: magic `HETC`, version 3, fingerprint, session,
    /// party, run, digest and a checksum of all of it (BLAKE3).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(COMMITMENT_LEN);
        out.extend_from_slice(COMMITMENT_MAGIC);
        out.push(VERSION);
        out.extend_from_slice(&self.fingerprint);
        out.extend_from_slice(&self.session);
        out.extend_from_slice(&self.party.to_le_bytes());
        out.extend_from_slice(&self.run.to_le_bytes());
        out.extend_from_slice(&self.digest);
        append_checksum(&mut out);
        out
    }

    /// Reads a commitment written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    /// [`Error::MalformedMessage`] for a wrong length, magic or checksum, or
    /// another version than 3 (earlier ones are named as no longer read).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        check_version("commitment", bytes, COMMITMENT_MAGIC, VERSION)?;
        if bytes.len() != COMMITMENT_LEN {
            return Err(Error::MalformedMessage("commitment: wrong length".into()));
        }
        let (body, _) = checked_split("commitment", bytes)?;
        let mut r = Reader { bytes: &body[5..] };
        Ok(Self {
            fingerprint: r.array()?,
            session: r.array()?,
            party: r.u32()?,
            run: r.u64()?,
            digest: r.array()?,
        })
    }
}

/// The commitment digest of a round-1 share, from the share message's
/// checksum (which covers its whole encoding) and the random bytes.
pub(crate) fn commitment_digest(
    share: &ShareMessage,
    checksum: &[u8; 32],
    nonce: &[u8; 32],
) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"he-threshold relinearization commitment v2");
    h.update(share.fingerprint);
    h.update(share.session);
    h.update(share.party.to_le_bytes());
    h.update(share.binding.run.to_le_bytes());
    h.update(nonce);
    h.update(checksum);
    h.finalize().into()
}

/// Fresh random bytes for an opening (operating system randomness).
pub(crate) fn fresh_nonce() -> Result<[u8; 32]> {
    let mut nonce = [0u8; 32];
    rand::rngs::OsRng
        .try_fill_bytes(&mut nonce)
        .map_err(|e| Error::InvalidArgument(format!("the OS random source failed: {e}")))?;
    Ok(nonce)
}

/// A party's opening of its commitment: its round-1 share as committed, the
/// random bytes, and the digest of the complete commitment set it opens
/// under. It keeps the share message's checksum, computed from the share
/// when the opening is made or read, never taken from elsewhere: the fields
/// are read-only, so the checksum always belongs to the share.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    nonce: [u8; 32],
    commitments: [u8; 32],
    share: ShareMessage,
    checksum: [u8; 32],
}

impl Opening {
    /// The opening of `share` with the random bytes `nonce` under the
    /// commitment set of digest `commitments` ([`Commitments::digest`]). A
    /// party's own opening comes from
    /// [`Party::relin_key_open`](crate::Party::relin_key_open); this
    /// constructor hashes the share once, as reading one does.
    pub fn new(nonce: [u8; 32], commitments: [u8; 32], share: ShareMessage) -> Self {
        let checksum = share.checksum();
        Self::with_checksum(nonce, commitments, share, checksum)
    }

    /// An opening from a checksum the caller computed from `share` itself.
    pub(crate) fn with_checksum(
        nonce: [u8; 32],
        commitments: [u8; 32],
        share: ShareMessage,
        checksum: [u8; 32],
    ) -> Self {
        Self {
            nonce,
            commitments,
            share,
            checksum,
        }
    }

    /// The random bytes of the commitment.
    pub fn nonce(&self) -> &[u8; 32] {
        &self.nonce
    }

    /// The digest of the commitment set the opening was made under.
    pub fn commitments(&self) -> &[u8; 32] {
        &self.commitments
    }

    /// The round-1 share (its binding's subject is zero: the commitment set
    /// is named by [`commitments`](Self::commitments)).
    pub fn share(&self) -> &ShareMessage {
        &self.share
    }

    /// The share message's checksum ([`ShareMessage::checksum`]), which the
    /// commitment covers.
    pub fn share_checksum(&self) -> &[u8; 32] {
        &self.checksum
    }

    /// The commitment digest this opening matches.
    pub(crate) fn commitment_digest(&self) -> [u8; 32] {
        commitment_digest(&self.share, &self.checksum, &self.nonce)
    }

    /// The header checksum: BLAKE3 of the header (magic, version, random
    /// bytes, set digest) and the share message's checksum.
    fn header_checksum(&self) -> [u8; 32] {
        let mut h = Hasher::new();
        h.update(OPENING_MAGIC);
        h.update(&[VERSION]);
        h.update(&self.nonce);
        h.update(&self.commitments);
        h.update(&self.checksum);
        h.finalize()
    }

    /// The wire encoding: magic `HETO`, version 3, the random bytes, the
    /// commitment set's digest, the share message (its own encoding, ending
    /// with its checksum), and a checksum of the header and the share
    /// message's checksum. Every byte is covered (the share's residues
    /// through its checksum), and no residue is hashed again: the share's
    /// checksum was computed when the share was committed to.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out =
            Vec::with_capacity(OPENING_HEADER + self.share.encoded_len() + CHECKSUM_BYTES);
        out.extend_from_slice(OPENING_MAGIC);
        out.push(VERSION);
        out.extend_from_slice(&self.nonce);
        out.extend_from_slice(&self.commitments);
        self.share.write_with_checksum(&mut out, &self.checksum);
        out.extend_from_slice(&self.header_checksum());
        out
    }

    /// Reads an opening written by [`to_bytes`](Self::to_bytes): the share
    /// message's checksum is recomputed from its bytes (the one pass over
    /// the residues), then the header's checksum.
    ///
    /// # Errors
    /// [`Error::MalformedMessage`] for a wrong magic, another version than 3
    /// (earlier ones are named as no longer read), a wrong checksum or a
    /// malformed share message.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let bad = |what: &str| Error::MalformedMessage(format!("opening: {what}"));
        check_version("opening", bytes, OPENING_MAGIC, VERSION)?;
        if bytes.len() < OPENING_HEADER + CHECKSUM_BYTES {
            return Err(bad("shorter than its header and checksum"));
        }
        let mut r = Reader { bytes: &bytes[5..] };
        let nonce = r.array()?;
        let commitments = r.array()?;
        let (message, trailer) = r.bytes.split_at(r.bytes.len() - CHECKSUM_BYTES);
        let (share, checksum) = ShareMessage::from_bytes_with_checksum(message)?;
        let opening = Self::with_checksum(nonce, commitments, share, checksum);
        if opening.header_checksum().as_slice() != trailer {
            return Err(bad("header checksum mismatch (corrupted in transit)"));
        }
        Ok(opening)
    }
}

/// Collects one commitment from every party of a session for one run.
#[derive(Debug)]
pub struct CommitmentCollector {
    fingerprint: [u8; 32],
    session: [u8; 32],
    run: u64,
    digests: Vec<Option<[u8; 32]>>,
}

impl CommitmentCollector {
    pub(crate) fn new(session: &Session, run: u64) -> Self {
        Self {
            fingerprint: *session.fingerprint(),
            session: *session.id(),
            run,
            digests: vec![None; session.parties() as usize],
        }
    }

    /// Checks a commitment (context, session, run, sender, duplicates) and keeps it.
    ///
    /// # Errors
    /// [`Error::ContextMismatch`], [`Error::SessionMismatch`],
    /// [`Error::RoundMismatch`], [`Error::UnknownParty`] or
    /// [`Error::DuplicateShare`], naming the sender.
    pub fn add(&mut self, commitment: &Commitment) -> Result<()> {
        let party = commitment.party;
        if commitment.fingerprint != self.fingerprint {
            return Err(Error::ContextMismatch { party });
        }
        if commitment.session != self.session {
            return Err(Error::SessionMismatch { party });
        }
        if commitment.run != self.run {
            return Err(Error::RoundMismatch {
                party,
                expected: format!("a commitment of run {}", self.run),
                got: format!("a commitment of run {}", commitment.run),
            });
        }
        let parties = self.digests.len() as u32;
        let slot = self
            .digests
            .get_mut(party as usize)
            .ok_or(Error::UnknownParty { party, parties })?;
        if slot.is_some() {
            return Err(Error::DuplicateShare { party });
        }
        *slot = Some(commitment.digest);
        Ok(())
    }

    /// The parties whose commitments have not arrived.
    pub fn missing(&self) -> Vec<u32> {
        (0..self.digests.len() as u32)
            .filter(|&p| self.digests[p as usize].is_none())
            .collect()
    }

    /// The complete set.
    ///
    /// # Errors
    /// [`Error::MissingShares`] unless every party's commitment arrived.
    pub fn finish(self) -> Result<Commitments> {
        let missing = self.missing();
        if !missing.is_empty() {
            return Err(Error::MissingShares { missing });
        }
        Ok(Commitments {
            fingerprint: self.fingerprint,
            session: self.session,
            run: self.run,
            digests: self.digests.into_iter().flatten().collect(),
        })
    }
}

/// Every party's commitment of one run (public; what the aggregator
/// broadcasts before anyone opens).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Commitments {
    fingerprint: [u8; 32],
    session: [u8; 32],
    run: u64,
    digests: Vec<[u8; 32]>,
}

impl Commitments {
    /// The run.
    pub fn run(&self) -> u64 {
        self.run
    }

    /// Party `party`'s commitment digest.
    pub fn of(&self, party: u32) -> Option<&[u8; 32]> {
        self.digests.get(party as usize)
    }

    /// The digest of the whole set, to which the openings and the round-1
    /// aggregate are bound.
    pub fn digest(&self) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(b"he-threshold relinearization commitment set");
        h.update(self.fingerprint);
        h.update(self.session);
        h.update(self.run.to_le_bytes());
        for d in &self.digests {
            h.update(d);
        }
        h.finalize().into()
    }

    /// The wire encoding (public, what the server broadcasts before anyone
    /// opens): magic `HETL`, version 2, context fingerprint, session id, run
    /// (`u64`), count (`u32`, the number of parties), one 32-byte digest per
    /// party in index order and a checksum of all of it (BLAKE3); integers
    /// little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(SET_HEADER + 32 * self.digests.len() + CHECKSUM_BYTES);
        write_frame_header(
            &mut out,
            SET_MAGIC,
            SET_VERSION,
            &self.fingerprint,
            &self.session,
        );
        out.extend_from_slice(&self.run.to_le_bytes());
        out.extend_from_slice(&(self.digests.len() as u32).to_le_bytes());
        for d in &self.digests {
            out.extend_from_slice(d);
        }
        append_checksum(&mut out);
        out
    }

    /// Reads a commitment set written by [`to_bytes`](Self::to_bytes) for
    /// `session`: its context, session and number of parties must be the
    /// session's (any run; a party then opens only a set holding its own
    /// commitment, [`Party::relin_key_open`](crate::Party::relin_key_open)).
    ///
    /// # Errors
    /// [`Error::MalformedMessage`] naming the field for a truncated or
    /// corrupted input, a wrong magic or version, or a count that does not
    /// match the length; [`Error::ForeignSession`] for a set of another
    /// context, session or number of parties.
    pub fn from_bytes(session: &Session, bytes: &[u8]) -> Result<Commitments> {
        let mut r = open_frame(session, bytes, SET_WHAT, SET_MAGIC, SET_VERSION, SET_HEADER)?;
        let run = r.u64()?;
        let count = r.u32()?;
        if count != session.parties() {
            return Err(Error::ForeignSession {
                what: SET_WHAT,
                field: "number of parties",
            });
        }
        if r.bytes.len() != 32 * count as usize {
            return Err(Error::MalformedMessage(format!(
                "{SET_WHAT}: {} bytes of digests for a count of {count}",
                r.bytes.len()
            )));
        }
        let digests = r
            .bytes
            .chunks_exact(32)
            .map(|d| d.try_into().expect("32-byte chunks"))
            .collect();
        Ok(Commitments {
            fingerprint: *session.fingerprint(),
            session: *session.id(),
            run,
            digests,
        })
    }

    /// Whether the set belongs to `session` (context, id and number of parties).
    pub(crate) fn belongs_to(&self, session: &Session) -> bool {
        self.fingerprint == *session.fingerprint()
            && self.session == *session.id()
            && self.digests.len() == session.parties() as usize
    }
}
