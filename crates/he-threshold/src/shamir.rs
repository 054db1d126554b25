//! t-out-of-N by Shamir re-sharing: the dealings each party sends after key
//! generation, its re-shared key, active sets and the active party that
//! makes decryption, encryption-to-shares and key-switching shares with
//! `λ_j(T)·S_j` in place of its N-out-of-N secret share.

use std::collections::BTreeMap;

use helib_rs::threshold::{self as engine, ResidueShare, Smudging};
use helib_rs::zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};
use helib_rs::{Ciphertext, PublicKey};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::message::Reader;
use crate::party::{AdditiveShare, Party, Sender};
use crate::session::Session;
use crate::ShareMessage;

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
const DEALING_VERSION: u8 = 1;
const DEALING_HEADER: usize = 4 + 1 + 32 + 32 + 4 + 4 + 4 + 8 + 8;

impl DealingMessage {
    /// The wire encoding: magic, version, fingerprint, session, threshold,
    /// from, to, run, the residue count and the residues (little-endian),
    /// then a SHA-256 checksum of all of it. Secret, like the dealing.
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut out = Zeroizing::new(Vec::with_capacity(
            DEALING_HEADER + 8 * self.residues.len() + 32,
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
        for v in &self.residues {
            out.extend_from_slice(&v.to_le_bytes());
        }
        let digest = Sha256::digest(&out[..]);
        out.extend_from_slice(&digest);
        out
    }

    /// Reads a dealing written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    /// [`Error::MalformedMessage`] for truncated or trailing bytes, a wrong
    /// magic, version or checksum.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let bad = |what: &str| Error::MalformedMessage(what.to_owned());
        if bytes.len() < DEALING_HEADER + 32 {
            return Err(bad("shorter than a dealing header"));
        }
        let (body, checksum) = bytes.split_at(bytes.len() - 32);
        if Sha256::digest(body).as_slice() != checksum {
            return Err(bad("checksum mismatch (corrupted in transit)"));
        }
        let mut r = Reader { bytes: body };
        if r.take(4)? != DEALING_MAGIC {
            return Err(bad("not a Shamir dealing"));
        }
        if r.take(1)?[0] != DEALING_VERSION {
            return Err(bad("unsupported dealing version"));
        }
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
        let residues = r
            .bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8-byte chunks")))
            .collect();
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

/// An active set of a t-out-of-N re-sharing: the parties (indices in
/// `0..parties`, at least `threshold` of them, none twice) that take part
/// in one decryption, encryption to shares or key switching. Its digest
/// binds the shares computed for it, so that shares of different active sets
/// (whose Lagrange coefficients do not fit together) are never summed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActiveSet {
    members: Vec<u32>,
    threshold: u32,
    parties: u32,
    session: [u8; 32],
    digest: [u8; 32],
}

impl ActiveSet {
    /// The active set `members` (any order) of `session` for `threshold`.
    ///
    /// # Errors
    /// [`Error::UnknownParty`] for an index outside the session,
    /// [`Error::DuplicateParty`] for an index listed twice,
    /// [`Error::BelowThreshold`] for fewer than `threshold` members,
    /// [`Error::InvalidArgument`] for a threshold outside `1..=parties`.
    pub fn new(session: &Session, threshold: u32, members: &[u32]) -> Result<Self> {
        check_threshold(session, threshold)?;
        let mut sorted = members.to_vec();
        sorted.sort_unstable();
        for (k, &party) in sorted.iter().enumerate() {
            if party >= session.parties() {
                return Err(Error::UnknownParty {
                    party,
                    parties: session.parties(),
                });
            }
            if k > 0 && sorted[k - 1] == party {
                return Err(Error::DuplicateParty { party });
            }
        }
        if sorted.len() < threshold as usize {
            return Err(Error::BelowThreshold {
                active: sorted.len(),
                threshold,
            });
        }
        let mut h = Sha256::new();
        h.update(b"he-threshold active set");
        h.update(session.id());
        h.update(threshold.to_le_bytes());
        h.update((sorted.len() as u32).to_le_bytes());
        for p in &sorted {
            h.update(p.to_le_bytes());
        }
        Ok(Self {
            members: sorted,
            threshold,
            parties: session.parties(),
            session: *session.id(),
            digest: h.finalize().into(),
        })
    }

    /// The members, ascending.
    pub fn members(&self) -> &[u32] {
        &self.members
    }
    /// The threshold the set was formed for.
    pub fn threshold(&self) -> u32 {
        self.threshold
    }
    /// Whether `party` is a member.
    pub fn contains(&self, party: u32) -> bool {
        self.members.binary_search(&party).is_ok()
    }
    /// The digest that binds the shares computed for this set.
    pub fn digest(&self) -> &[u8; 32] {
        &self.digest
    }
    pub(crate) fn parties(&self) -> u32 {
        self.parties
    }
    pub(crate) fn session_id(&self) -> &[u8; 32] {
        &self.session
    }
}

fn check_threshold(session: &Session, threshold: u32) -> Result<()> {
    if threshold == 0 || threshold > session.parties() {
        return Err(Error::InvalidArgument(format!(
            "the threshold must be in 1..={}, not {threshold}",
            session.parties()
        )));
    }
    Ok(())
}

impl Party {
    /// The party's Shamir dealings of its secret share for re-sharing with
    /// `threshold` (run `run`): one per party, itself included, each to be
    /// sent to its recipient ([`DealingMessage::to`]) over a private channel.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a threshold outside `1..=parties`; the
    /// engine's error when the OS random source fails.
    pub fn shamir_dealings(&self, run: u64, threshold: u32) -> Result<Vec<DealingMessage>> {
        let session = self.session();
        check_threshold(session, threshold)?;
        let all = engine::shamir_deal(self.secret_share(), threshold, session.parties())?;
        let each = all.len() / session.parties() as usize;
        Ok(all
            .chunks_exact(each)
            .enumerate()
            .map(|(to, residues)| DealingMessage {
                fingerprint: *session.fingerprint(),
                session: *session.id(),
                threshold,
                from: self.index(),
                to: to as u32,
                run,
                residues: residues.to_vec(),
            })
            .collect())
    }

    /// The party's re-shared key `S_j` from the dealings it received (one
    /// from every party, itself included, for run `run` and `threshold`).
    ///
    /// # Errors
    /// Naming the dealer: [`Error::ContextMismatch`], [`Error::SessionMismatch`],
    /// [`Error::UnknownParty`], [`Error::MisaddressedDealing`] (a dealing for
    /// another recipient), [`Error::RoundMismatch`] (another run or
    /// threshold), [`Error::DuplicateShare`], [`Error::MalformedShare`]
    /// (wrong length, unreduced residue); [`Error::MissingDealings`] unless
    /// every party's dealing is there.
    pub fn reshare(
        &self,
        run: u64,
        threshold: u32,
        dealings: &[DealingMessage],
    ) -> Result<ShamirShare> {
        let session = self.session();
        check_threshold(session, threshold)?;
        let context = session.context();
        let each = engine::chain_share_len(context, context.max_level());
        let primes = &context.chain_primes()[..=context.max_level()];
        let mut by_dealer: BTreeMap<u32, &DealingMessage> = BTreeMap::new();
        for d in dealings {
            let party = d.from;
            if d.fingerprint != *session.fingerprint() {
                return Err(Error::ContextMismatch { party });
            }
            if d.session != *session.id() {
                return Err(Error::SessionMismatch { party });
            }
            if party >= session.parties() {
                return Err(Error::UnknownParty {
                    party,
                    parties: session.parties(),
                });
            }
            if d.to != self.index() {
                return Err(Error::MisaddressedDealing {
                    party,
                    to: d.to,
                    expected: self.index(),
                });
            }
            if d.run != run || d.threshold != threshold {
                return Err(Error::RoundMismatch {
                    party,
                    expected: format!("re-sharing run {run} with threshold {threshold}"),
                    got: format!("re-sharing run {} with threshold {}", d.run, d.threshold),
                });
            }
            if !engine::share_is_reduced(context, primes, &d.residues) || d.residues.len() != each {
                return Err(Error::MalformedShare {
                    party,
                    reason: format!(
                        "a dealing must hold {each} residues, each reduced modulo its prime"
                    ),
                });
            }
            if by_dealer.insert(party, d).is_some() {
                return Err(Error::DuplicateShare { party });
            }
        }
        let missing: Vec<u32> = (0..session.parties())
            .filter(|p| !by_dealer.contains_key(p))
            .collect();
        if !missing.is_empty() {
            return Err(Error::MissingDealings { missing });
        }
        let mut sum = Zeroizing::new(vec![0u64; each]);
        for d in by_dealer.values() {
            engine::add_chain_shares(context, context.max_level(), &mut sum, &d.residues)?;
        }
        ShamirShare::from_residues(session, self.index(), threshold, sum)
    }
}

/// A party's re-shared key `S_j` (t-out-of-N): the sum of the dealings it
/// received, a Shamir share of the collective secret `s` (any `threshold`
/// of them determine `s`, fewer reveal nothing). Secret: it keeps `S_j`
/// twice, as the engine's share (wiped by the engine when dropped) and as
/// the residues its export writes (wiped when dropped, [`Zeroizing`]), as
/// the engine has no export of a residue share.
pub struct ShamirShare {
    session: Session,
    index: u32,
    threshold: u32,
    /// `S_j`: a chain share at the top level (NTT form, standard residues).
    residues: Zeroizing<Vec<u64>>,
    share: ResidueShare,
}

impl std::fmt::Debug for ShamirShare {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShamirShare")
            .field("index", &self.index)
            .field("threshold", &self.threshold)
            .finish_non_exhaustive()
    }
}

impl ShamirShare {
    /// The re-shared key of party `index` with residues `S_j` (checked
    /// reduced by the engine). The engine builds a residue share only from
    /// dealings, so it gets `S_j` as the first dealer's and zeros from the
    /// others: their sum is `S_j`. The buffer of `parties` chain shares this
    /// takes is as large as the dealings of a re-sharing.
    pub(crate) fn from_residues(
        session: &Session,
        index: u32,
        threshold: u32,
        residues: Zeroizing<Vec<u64>>,
    ) -> Result<Self> {
        let each = residues.len();
        let len = each
            .checked_mul(session.parties() as usize)
            .ok_or_else(|| Error::InvalidArgument("the dealing length overflows".into()))?;
        let mut dealings = Zeroizing::new(vec![0u64; len]);
        dealings[..each].copy_from_slice(&residues);
        let share = engine::shamir_combine(
            session.context(),
            index + 1,
            threshold,
            session.parties(),
            &dealings,
        )?;
        Ok(Self {
            session: session.clone(),
            index,
            threshold,
            residues,
            share,
        })
    }

    /// `S_j`'s residues (secret; for the export).
    pub(crate) fn residues(&self) -> &[u64] {
        &self.residues
    }

    /// The session of the re-sharing.
    pub(crate) fn session(&self) -> &Session {
        &self.session
    }

    /// The party's index.
    pub fn index(&self) -> u32 {
        self.index
    }
    /// The number of parties needed.
    pub fn threshold(&self) -> u32 {
        self.threshold
    }

    /// The party as a member of the active set `active`: its additive share
    /// is `λ_j(T)·S_j`, and its shares are bound to `active`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an active set of another session or
    /// threshold, or one that does not contain this party.
    pub fn activate(&self, active: &ActiveSet) -> Result<ActiveParty> {
        if active.session_id() != self.session.id()
            || active.parties() != self.session.parties()
            || active.threshold() != self.threshold
        {
            return Err(Error::InvalidArgument(
                "the active set belongs to another session or threshold".into(),
            ));
        }
        if !active.contains(self.index) {
            return Err(Error::InvalidArgument(format!(
                "party {} is not in the active set",
                self.index
            )));
        }
        let points: Vec<u32> = active.members().iter().map(|p| p + 1).collect();
        Ok(ActiveParty {
            session: self.session.clone(),
            index: self.index,
            active: active.clone(),
            secret: self.share.activate(&points)?,
        })
    }
}

/// A party taking part in one active set of a t-out-of-N re-sharing: it
/// makes the same shares as [`Party`] (the same code), with `λ_j(T)·S_j` as
/// its additive share, bound to the active set. Aggregate them with
/// [`Session::active_aggregator`]; the session's finishing steps
/// ([`Session::decrypt`], [`Session::open_masked`], [`Session::key_switch`])
/// are unchanged.
pub struct ActiveParty {
    session: Session,
    index: u32,
    active: ActiveSet,
    secret: ResidueShare,
}

impl std::fmt::Debug for ActiveParty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ActiveParty")
            .field("index", &self.index)
            .field("active", &self.active.members)
            .finish_non_exhaustive()
    }
}

impl ActiveParty {
    /// The party's index.
    pub fn index(&self) -> u32 {
        self.index
    }
    /// The active set.
    pub fn active_set(&self) -> &ActiveSet {
        &self.active
    }

    fn sender(&self) -> Sender<'_, ResidueShare> {
        Sender {
            session: &self.session,
            index: self.index,
            secret: &self.secret,
            active: self.active.digest(),
        }
    }

    /// As [`Party::decryption_share`], for this active set.
    ///
    /// # Errors
    /// As [`Party::decryption_share`].
    pub fn decryption_share(
        &self,
        run: u64,
        ciphertext: &Ciphertext,
        smudging: &Smudging,
    ) -> Result<ShareMessage> {
        self.sender().decryption_share(run, ciphertext, smudging)
    }

    /// As [`Party::encryption_to_shares`], for this active set: the members'
    /// additive shares sum to the plaintext.
    ///
    /// # Errors
    /// As [`Party::decryption_share`].
    pub fn encryption_to_shares(
        &self,
        run: u64,
        ciphertext: &Ciphertext,
        smudging: &Smudging,
    ) -> Result<(AdditiveShare, ShareMessage)> {
        self.sender()
            .encryption_to_shares(run, ciphertext, smudging)
    }

    /// As [`Party::shares_to_encryption`], for this active set: the
    /// members' shares sum to a fresh encryption of the sum of their
    /// additive shares under the collective key (aggregate them with
    /// [`Session::active_shares_to_encryption_aggregator`](crate::Session::active_shares_to_encryption_aggregator)).
    ///
    /// # Errors
    /// As [`Party::shares_to_encryption`].
    pub fn shares_to_encryption(
        &self,
        run: u64,
        level: usize,
        share: &AdditiveShare,
    ) -> Result<ShareMessage> {
        self.sender().shares_to_encryption(run, level, share)
    }

    /// As [`Party::key_switch_share`], for this active set.
    ///
    /// # Errors
    /// As [`Party::decryption_share`].
    pub fn key_switch_share(
        &self,
        run: u64,
        ciphertext: &Ciphertext,
        target: &PublicKey,
        smudging: &Smudging,
    ) -> Result<ShareMessage> {
        self.sender()
            .key_switch_share(run, ciphertext, target, smudging)
    }
}
