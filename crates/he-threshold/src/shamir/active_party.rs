//! A party taking part in one active set: the shares of [`Party`], made
//! with its activated re-shared key and bound to the set.

use helib_rs::threshold::ResidueShare;

use super::active_set::ActiveSet;
use crate::party::Sender;
use crate::session::Session;
use crate::share_methods::share_methods;

#[cfg(doc)]
use crate::party::Party;

/// A party taking part in one active set of a t-out-of-N re-sharing: it
/// makes the same shares as [`Party`] (the same code), with `λ_j(T)·S_j` as
/// its additive share, bound to the active set. Aggregate them with
/// [`Session::active_aggregator`]; the session's finishing steps
/// ([`Session::decrypt`], [`Session::open_masked`], [`Session::key_switch`])
/// are unchanged.
pub struct ActiveParty {
    pub(super) session: Session,
    pub(super) index: u32,
    pub(super) active: ActiveSet,
    pub(super) secret: ResidueShare,
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
            lowest: self.active.members().first() == Some(&self.index),
        }
    }

    share_methods! {
        /// As [`Party::decryption_share`], for this active set.
        ///
        /// # Errors
        /// As [`Party::decryption_share`].
        decryption_share;
        /// As [`Party::encryption_to_shares`], for this active set: the members'
        /// additive shares sum to the plaintext.
        ///
        /// # Errors
        /// As [`Party::decryption_share`].
        encryption_to_shares;
        /// As [`Party::encryption_to_shares_of_product`], for this active
        /// set: its first member adds the relinearization's public part.
        ///
        /// # Errors
        /// As [`Party::encryption_to_shares_of_product`].
        encryption_to_shares_of_product;
        /// As [`Party::shares_to_encryption`], for this active set: the
        /// members' shares sum to a fresh encryption of the sum of their
        /// additive shares under the collective key (aggregate them with
        /// [`Session::active_shares_to_encryption_aggregator`](crate::Session::active_shares_to_encryption_aggregator)).
        ///
        /// # Errors
        /// As [`Party::shares_to_encryption`].
        shares_to_encryption;
        /// As [`Party::key_switch_share`], for this active set.
        ///
        /// # Errors
        /// As [`Party::decryption_share`].
        key_switch_share;
    }
}
