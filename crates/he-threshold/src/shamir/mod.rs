//! t-out-of-N by Shamir re-sharing: the dealings each party sends after key
//! generation, its re-shared key, active sets and the active party that
//! makes decryption, encryption-to-shares and key-switching shares with
//! `λ_j(T)·S_j` in place of its N-out-of-N secret share.

mod active_party;
mod active_set;
mod dealing;
mod reshare;

pub use active_party::ActiveParty;
pub use active_set::ActiveSet;
pub use dealing::DealingMessage;
pub use reshare::ShamirShare;
