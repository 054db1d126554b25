//! Active sets of a t-out-of-N re-sharing, and the session's aggregators
//! for them.

use helib_rs::Ciphertext;
use sha2::{Digest, Sha256};

use crate::aggregate::Aggregator;
use crate::error::{Error, Result};
use crate::message::Step;
use crate::session::Session;

/// An active set of a t-out-of-N re-sharing: the parties (indices in
/// `0..parties`, at least `threshold` of them, none twice) that take part
/// in one decryption, encryption to shares or key switching. Its digest
/// binds the shares computed for it, so that shares of different active sets
/// (whose Lagrange coefficients do not fit together) are never summed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActiveSet {
    pub(super) members: Vec<u32>,
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

pub(super) fn check_threshold(session: &Session, threshold: u32) -> Result<()> {
    if threshold == 0 || threshold > session.parties() {
        return Err(Error::InvalidArgument(format!(
            "the threshold must be in 1..={}, not {threshold}",
            session.parties()
        )));
    }
    Ok(())
}

impl Session {
    /// An aggregator for `step` of `run` on `ciphertext` among the members
    /// of `active` (t-out-of-N): it takes shares of members only, computed
    /// for this active set, and needs one from every member.
    ///
    /// # Errors
    /// As [`ciphertext_aggregator`](Self::ciphertext_aggregator);
    /// [`Error::InvalidArgument`] for an active set of another session.
    pub fn active_aggregator(
        &self,
        run: u64,
        step: Step,
        ciphertext: &Ciphertext,
        active: &ActiveSet,
    ) -> Result<Aggregator> {
        self.among(self.ciphertext_aggregator(run, step, ciphertext)?, active)
    }

    /// An aggregator for encryption to shares of `run` at `level` of the
    /// size-3 `product` as computed, among the members of `active`
    /// (t-out-of-N): shares of members only, made for this set, one from
    /// every member.
    ///
    /// # Errors
    /// As [`product_aggregator`](Self::product_aggregator);
    /// [`Error::InvalidArgument`] for an active set of another session.
    pub fn active_product_aggregator(
        &self,
        run: u64,
        product: &Ciphertext,
        level: usize,
        active: &ActiveSet,
    ) -> Result<Aggregator> {
        self.among(self.product_aggregator(run, product, level)?, active)
    }

    /// An aggregator for shares to encryption of `run` at `level` among the
    /// members of `active` (t-out-of-N): shares of members only, made for
    /// this set, one from every member.
    ///
    /// # Errors
    /// As [`shares_to_encryption_aggregator`](Self::shares_to_encryption_aggregator);
    /// [`Error::InvalidArgument`] for an active set of another session.
    pub fn active_shares_to_encryption_aggregator(
        &self,
        run: u64,
        level: usize,
        active: &ActiveSet,
    ) -> Result<Aggregator> {
        self.among(self.shares_to_encryption_aggregator(run, level)?, active)
    }

    /// `aggregator` restricted to the members of `active`, its shares bound
    /// to the set.
    fn among(&self, mut aggregator: Aggregator, active: &ActiveSet) -> Result<Aggregator> {
        self.check_active_set(active)?;
        aggregator.binding.active = *active.digest();
        aggregator.members = Some(active.members().iter().copied().collect());
        Ok(aggregator)
    }

    fn check_active_set(&self, active: &ActiveSet) -> Result<()> {
        if active.session_id() != self.id() || active.parties() != self.parties() {
            return Err(Error::InvalidArgument(
                "the active set belongs to another session".into(),
            ));
        }
        Ok(())
    }
}
