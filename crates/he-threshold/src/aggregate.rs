//! The aggregation of one step's shares: the [`Aggregator`] that checks each
//! share before adding it, the public [`Aggregate`] it yields, and the
//! aggregate's wire format (what a server broadcasts).

use std::collections::BTreeSet;

use crate::checksum::{append_checksum, CHECKSUM_BYTES};
use crate::error::{Error, Result};
use crate::message::{
    open_frame, polynomials_len, write_binding, write_frame_header, write_polynomials, Binding,
    ShareMessage, Step, BINDING_BYTES, FRAME_HEADER,
};
use crate::relin::{Commitments, Opening};
use crate::session::Session;

/// The moduli of the residue blocks of one polynomial of a share (and of the
/// sum) for `binding` in `session`, one per block of `ring_degree` residues:
/// for key shares every prime (chain, then special) per key-switching digit,
/// for chain shares `q_0..q_level`. The one place this layout is decided:
/// aggregators allocate by it and [`Aggregate::from_bytes`] checks by it.
///
/// # Errors
/// [`Error::InvalidArgument`] for a key-generation binding below the top
/// level or a chain binding above it; the engine's error for key shares
/// without special primes.
fn moduli(session: &Session, binding: &Binding) -> Result<Vec<u64>> {
    let context = session.context();
    let top = context.max_level();
    let level = binding.level as usize;
    if binding.step.is_key_generation() && level != top {
        return Err(Error::InvalidArgument(format!(
            "{:?} is bound to the top level {top}, not {level}",
            binding.step
        )));
    }
    let mut moduli = Vec::new();
    if binding.step.is_key_share() {
        for _ in 0..context.key_switching_digits()? {
            moduli.extend_from_slice(context.chain_primes());
            moduli.extend_from_slice(context.special_primes());
        }
    } else {
        let chain = context.chain_primes().get(..=level).ok_or_else(|| {
            Error::InvalidArgument(format!("level {level} is above the top level {top}"))
        })?;
        moduli.extend_from_slice(chain);
    }
    Ok(moduli)
}

/// Collects the shares of one step from all parties (or, for t-out-of-N, from
/// every member of an active set), checking each one before it is added:
/// context fingerprint, session, party index, binding (step, run, level,
/// ciphertext, active set), membership, duplicates, number and length of the
/// polynomials and the range of every residue.
pub struct Aggregator {
    session: [u8; 32],
    fingerprint: [u8; 32],
    parties: u32,
    pub(crate) binding: Binding,
    moduli: Vec<u64>,
    ring_degree: usize,
    seen: BTreeSet<u32>,
    /// The parties whose shares are expected: all when `None`.
    pub(crate) members: Option<BTreeSet<u32>>,
    /// For round 1 of the relinearization key: the commitments the openings
    /// must match.
    pub(crate) commitments: Option<Commitments>,
    sums: Vec<Vec<u64>>,
}

impl Aggregator {
    pub(crate) fn new(session: &Session, binding: Binding) -> Result<Self> {
        let moduli = moduli(session, &binding)?;
        let ring_degree = session.context().ring_degree();
        let len = moduli.len() * ring_degree;
        Ok(Self {
            session: *session.id(),
            fingerprint: *session.fingerprint(),
            parties: session.parties(),
            binding,
            moduli,
            ring_degree,
            seen: BTreeSet::new(),
            members: None,
            commitments: None,
            sums: vec![vec![0u64; len]; binding.step.polynomials()],
        })
    }

    /// The binding of the shares this aggregator collects.
    pub fn binding(&self) -> &Binding {
        &self.binding
    }

    /// Checks a share and adds it. A share that fails a check changes nothing.
    ///
    /// # Errors
    /// [`Error::ContextMismatch`], [`Error::SessionMismatch`],
    /// [`Error::UnknownParty`], [`Error::ActiveSetMismatch`],
    /// [`Error::RoundMismatch`], [`Error::InactiveParty`],
    /// [`Error::DuplicateShare`] or [`Error::MalformedShare`], each naming the sender.
    pub fn add(&mut self, share: &ShareMessage) -> Result<()> {
        if self.commitments.is_some() {
            return Err(Error::InvalidArgument(
                "round-1 relinearization shares arrive as openings: use add_opening".into(),
            ));
        }
        let binding = self.binding;
        self.add_checked(share, &binding)
    }

    /// Checks a round-1 opening against the commitment set and its sender's
    /// commitment, then adds its share as [`add`](Self::add) does. The
    /// commitment check takes the share's checksum the opening carries,
    /// which it computed from the residues itself (when it was read or
    /// made), so the residues are not hashed again.
    ///
    /// # Errors
    /// [`Error::CommitmentSetMismatch`] for an opening made under another
    /// commitment set; [`Error::CommitmentMismatch`] when the share or random
    /// bytes do not match the commitment; [`Error::InvalidArgument`] for an
    /// aggregator that is not of round-1 openings; as [`add`](Self::add).
    pub fn add_opening(&mut self, opening: &Opening) -> Result<()> {
        let share = opening.share();
        let party = share.party;
        let Some(commitments) = &self.commitments else {
            return Err(Error::InvalidArgument(
                "this aggregator does not collect round-1 openings".into(),
            ));
        };
        let expected = commitments.of(party).ok_or(Error::UnknownParty {
            party,
            parties: self.parties,
        })?;
        if *opening.commitments() != self.binding.subject {
            return Err(Error::CommitmentSetMismatch { party });
        }
        if opening.commitment_digest() != *expected {
            return Err(Error::CommitmentMismatch { party });
        }
        // A round-1 share names no subject: the set is in the opening's header.
        let binding = Binding {
            subject: [0u8; 32],
            ..self.binding
        };
        self.add_checked(share, &binding)
    }

    /// Checks `share` against the aggregator and the binding `expected` of
    /// its shares, then adds it.
    fn add_checked(&mut self, share: &ShareMessage, expected: &Binding) -> Result<()> {
        let party = share.party;
        if share.fingerprint != self.fingerprint {
            return Err(Error::ContextMismatch { party });
        }
        if share.session != self.session {
            return Err(Error::SessionMismatch { party });
        }
        if party >= self.parties {
            return Err(Error::UnknownParty {
                party,
                parties: self.parties,
            });
        }
        if share.binding.active != expected.active {
            return Err(Error::ActiveSetMismatch { party });
        }
        if share.binding != *expected {
            return Err(Error::RoundMismatch {
                party,
                expected: expected.to_string(),
                got: share.binding.to_string(),
            });
        }
        if self.members.as_ref().is_some_and(|m| !m.contains(&party)) {
            return Err(Error::InactiveParty { party });
        }
        if self.seen.contains(&party) {
            return Err(Error::DuplicateShare { party });
        }
        if let Err(reason) = check_polynomials(
            &share.polynomials,
            self.sums.len(),
            self.ring_degree,
            &self.moduli,
        ) {
            return Err(Error::MalformedShare { party, reason });
        }
        let n = self.ring_degree;
        for (sum, p) in self.sums.iter_mut().zip(&share.polynomials) {
            for ((block, share_block), &q) in sum
                .chunks_exact_mut(n)
                .zip(p.chunks_exact(n))
                .zip(&self.moduli)
            {
                for (x, &y) in block.iter_mut().zip(share_block) {
                    let s = *x + y;
                    *x = if s >= q { s - q } else { s };
                }
            }
        }
        self.seen.insert(party);
        Ok(())
    }

    /// The parties (of the active set, if any) whose shares have not arrived.
    pub fn missing(&self) -> Vec<u32> {
        (0..self.parties)
            .filter(|p| self.members.as_ref().is_none_or(|m| m.contains(p)))
            .filter(|p| !self.seen.contains(p))
            .collect()
    }

    /// The sum of all parties' (or all active parties') shares.
    ///
    /// # Errors
    /// [`Error::MissingShares`] unless every expected share was added.
    pub fn finish(self) -> Result<Aggregate> {
        let missing = self.missing();
        if !missing.is_empty() {
            return Err(Error::MissingShares { missing });
        }
        Ok(Aggregate {
            session: self.session,
            fingerprint: self.fingerprint,
            binding: self.binding,
            sums: self.sums,
        })
    }
}

/// Checks that `polynomials` are `count` polynomials of `moduli.len()`
/// blocks of `n` residues each, every residue below its block's prime
/// (shares at the aggregator, sums read back from bytes).
fn check_polynomials(
    polynomials: &[Vec<u64>],
    count: usize,
    n: usize,
    moduli: &[u64],
) -> std::result::Result<(), String> {
    if polynomials.len() != count {
        return Err(format!(
            "{} polynomials, expected {count}",
            polynomials.len()
        ));
    }
    let len = n * moduli.len();
    for (k, p) in polynomials.iter().enumerate() {
        if p.len() != len {
            return Err(format!(
                "polynomial {k} has {} residues, expected {len}",
                p.len()
            ));
        }
        if let Some(block) = p
            .chunks_exact(n)
            .zip(moduli)
            .position(|(block, &q)| block.iter().any(|&x| x >= q))
        {
            return Err(format!(
                "polynomial {k}: a residue of block {block} is not reduced modulo its prime"
            ));
        }
    }
    Ok(())
}

/// The sum of every party's share of one step (public).
#[derive(Clone, Debug)]
pub struct Aggregate {
    pub(crate) session: [u8; 32],
    pub(crate) fingerprint: [u8; 32],
    pub(crate) binding: Binding,
    pub(crate) sums: Vec<Vec<u64>>,
}

const MAGIC: &[u8; 4] = b"HETA";
/// Version 2: the checksum is BLAKE3 (version 1 ended with SHA-256).
const VERSION: u8 = 2;
/// Fixed bytes before the polynomials: frame header, binding, count.
const HEADER: usize = FRAME_HEADER + BINDING_BYTES + 4;
const WHAT: &str = "aggregate";

impl Aggregate {
    /// What the shares were for.
    pub fn binding(&self) -> &Binding {
        &self.binding
    }
    /// The summed polynomials (residues in NTT form).
    pub fn sums(&self) -> &[Vec<u64>] {
        &self.sums
    }
    /// Bytes of the summed polynomials (what a server broadcasts).
    pub fn size_bytes(&self) -> usize {
        self.sums.iter().map(|s| s.len() * 8).sum()
    }

    /// The wire encoding (public, what a server broadcasts): magic `HETA`,
    /// version 2, context fingerprint, session id, the binding as in a
    /// [`ShareMessage`] (run, step, level, subject, active set), the
    /// polynomials (count, then for each its length and residues) and a
    /// checksum of all of it (BLAKE3); integers little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(
            FRAME_HEADER + BINDING_BYTES + polynomials_len(&self.sums) + CHECKSUM_BYTES,
        );
        write_frame_header(&mut out, MAGIC, VERSION, &self.fingerprint, &self.session);
        write_binding(&mut out, &self.binding);
        write_polynomials(&mut out, &self.sums);
        append_checksum(&mut out);
        out
    }

    /// Reads an aggregate written by [`to_bytes`](Self::to_bytes) for
    /// `session`, checking that it is one an [`Aggregator`] of `session`
    /// could have produced: its binding's shape (key-generation steps at the
    /// top level and bound to no active set; a subject only for steps on a
    /// ciphertext and round 1 of the relinearization key, which is bound to
    /// its commitment set), the number of polynomials of its step, their
    /// lengths for the moduli layout of that binding and every residue
    /// reduced modulo its prime. Memory grows only with the input's length.
    /// It does not check what the finishing steps check (the ciphertext an
    /// aggregate is for, its commitment set against the one a party opened
    /// under): those take the aggregate as before.
    ///
    /// # Errors
    /// [`Error::MalformedMessage`] naming the field for a truncated, corrupted
    /// or inconsistent input; [`Error::ForeignSession`] for an aggregate of
    /// another context or session; the engine's error for a key-generation
    /// aggregate in a context without special primes.
    pub fn from_bytes(session: &Session, bytes: &[u8]) -> Result<Aggregate> {
        let bad = |detail: String| Error::MalformedMessage(format!("{WHAT}: {detail}"));
        let mut r = open_frame(session, bytes, WHAT, MAGIC, VERSION, HEADER)?;
        let binding = r
            .binding()
            .map_err(|_| bad("unknown protocol step".into()))?;
        if let Some(problem) = binding_shape_problem(&binding) {
            return Err(bad(format!("binding: {problem}")));
        }
        let moduli = moduli(session, &binding).map_err(|e| match e {
            Error::InvalidArgument(m) => bad(format!("binding: {m}")),
            other => other,
        })?;
        let count = binding.step.polynomials();
        let sums = r
            .polynomials(count)
            .map_err(|e| bad(format!("polynomials: {}", message_of(&e))))?;
        if !r.bytes.is_empty() {
            return Err(bad("trailing bytes before the checksum".into()));
        }
        let n = session.context().ring_degree();
        check_polynomials(&sums, count, n, &moduli).map_err(bad)?;
        Ok(Aggregate {
            session: *session.id(),
            fingerprint: *session.fingerprint(),
            binding,
            sums,
        })
    }
}

/// The text of a malformed-message error (for re-labelling it).
fn message_of(e: &Error) -> String {
    match e {
        Error::MalformedMessage(m) => m.clone(),
        other => other.to_string(),
    }
}

/// Why no aggregator of any session produces `binding`, if none does.
fn binding_shape_problem(binding: &Binding) -> Option<&'static str> {
    let step = binding.step;
    if step.is_key_generation() && binding.active != [0u8; 32] {
        return Some("a key-generation step bound to an active set");
    }
    let has_subject = matches!(
        step,
        Step::RelinRound1
            | Step::Decrypt
            | Step::EncryptionToShares
            | Step::EncryptionToSharesOfProduct
            | Step::KeySwitch
    );
    if !has_subject && binding.subject != [0u8; 32] {
        return Some("a subject digest on a step that has none");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_of_bindings() {
        let mut b = Binding {
            run: 1,
            step: Step::PublicKey,
            level: 0,
            subject: [0u8; 32],
            active: [0u8; 32],
        };
        assert_eq!(binding_shape_problem(&b), None);
        b.active = [1u8; 32];
        assert!(binding_shape_problem(&b).is_some());
        b.step = Step::Decrypt;
        b.subject = [2u8; 32];
        assert_eq!(binding_shape_problem(&b), None);
        b.step = Step::SharesToEncryption;
        assert!(binding_shape_problem(&b).is_some());
    }
}
