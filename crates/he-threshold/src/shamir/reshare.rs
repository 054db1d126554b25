//! Re-sharing: a party's dealings of its secret share, its re-shared key
//! from the dealings it receives, and that key's activation for an active
//! set.

use std::collections::BTreeMap;

use helib_rs::threshold::{self as engine, ResidueShare};
use helib_rs::zeroize::Zeroizing;

use super::active_party::ActiveParty;
use super::active_set::{check_threshold, ActiveSet};
use super::dealing::DealingMessage;
use crate::error::{Error, Result};
use crate::party::Party;
use crate::session::Session;

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
        let dealt = engine::shamir_deal(self.secret_share(), threshold, session.parties())?;
        Ok(dealt
            .into_iter()
            .enumerate()
            .map(|(to, mut residues)| DealingMessage {
                fingerprint: *session.fingerprint(),
                session: *session.id(),
                threshold,
                from: self.index(),
                to: to as u32,
                run,
                // Moved, not copied: the message wipes them when dropped.
                residues: std::mem::take(&mut *residues),
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
    /// reduced by the engine, which keeps its own copy in wiped memory).
    pub(crate) fn from_residues(
        session: &Session,
        index: u32,
        threshold: u32,
        residues: Zeroizing<Vec<u64>>,
    ) -> Result<Self> {
        let share = engine::shamir_share_from_residues(
            session.context(),
            index + 1,
            threshold,
            session.parties(),
            &residues,
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
