//! The error type of this crate.

/// The result type of every fallible operation in this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in a threshold protocol. Every error is
/// raised before anything is released: no key, plaintext or share is output
/// from inputs that failed a check.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The engine refused an operation (see the inner error).
    #[error(transparent)]
    Engine(#[from] helib_rs::Error),

    /// A share was made for another context (parameters or ring).
    #[error("party {party} sent a share for other parameters (context fingerprint mismatch)")]
    ContextMismatch {
        /// The sender.
        party: u32,
    },

    /// A share belongs to another session.
    #[error("party {party} sent a share of another session")]
    SessionMismatch {
        /// The sender.
        party: u32,
    },

    /// A share belongs to another protocol or another run of it.
    #[error("party {party} sent a share of {got}, expected {expected}")]
    RoundMismatch {
        /// The sender.
        party: u32,
        /// The protocol step the aggregator collects.
        expected: String,
        /// The protocol step of the share.
        got: String,
    },

    /// A party index outside the session.
    #[error("party {party} is not in this session of {parties} parties")]
    UnknownParty {
        /// The index in the share.
        party: u32,
        /// The session's number of parties.
        parties: u32,
    },

    /// A second share from the same party.
    #[error("party {party} sent more than one share")]
    DuplicateShare {
        /// The sender.
        party: u32,
    },

    /// Not every party sent its share.
    #[error("shares missing from parties {missing:?}")]
    MissingShares {
        /// The parties whose shares are missing.
        missing: Vec<u32>,
    },

    /// A share of the right session and round whose contents are malformed
    /// (wrong number or length of polynomials, unreduced residues).
    #[error("party {party} sent a malformed share: {reason}")]
    MalformedShare {
        /// The sender.
        party: u32,
        /// What is wrong.
        reason: String,
    },

    /// Bytes that are not a valid protocol message or stored object
    /// (truncated, corrupted, wrong version, an inconsistent field); the
    /// message names the object and the field.
    #[error("malformed message: {0}")]
    MalformedMessage(String),

    /// The combined shares do not decrypt: with every share present and
    /// well-formed, one of them was not computed honestly.
    #[error("the combined shares are inconsistent: {0}")]
    InconsistentShares(String),

    /// An active set (t-out-of-N) with fewer members than the threshold.
    #[error("an active set of {active} parties is below the threshold of {threshold}")]
    BelowThreshold {
        /// The number of parties in the set.
        active: usize,
        /// The threshold of the re-sharing.
        threshold: u32,
    },

    /// A party listed twice in an active set.
    #[error("party {party} is listed twice in the active set")]
    DuplicateParty {
        /// The repeated party.
        party: u32,
    },

    /// A share from a party outside the active set being aggregated.
    #[error("party {party} sent a share but is not in the active set")]
    InactiveParty {
        /// The sender.
        party: u32,
    },

    /// A share computed for another active set than the one aggregated (its
    /// Lagrange coefficient would not fit the other shares).
    #[error("party {party} sent a share computed for another active set")]
    ActiveSetMismatch {
        /// The sender.
        party: u32,
    },

    /// A Shamir dealing addressed to another party.
    #[error("party {party} sent a dealing addressed to party {to}, not to party {expected}")]
    MisaddressedDealing {
        /// The dealer.
        party: u32,
        /// The recipient in the dealing.
        to: u32,
        /// The party that received it.
        expected: u32,
    },

    /// Not every party's dealing arrived.
    #[error("dealings missing from parties {missing:?}")]
    MissingDealings {
        /// The dealers whose dealings are missing.
        missing: Vec<u32>,
    },

    /// A round-1 opening that does not match its sender's commitment (the
    /// share or the random bytes changed after committing).
    #[error("party {party} opened a round-1 share that does not match its commitment")]
    CommitmentMismatch {
        /// The sender.
        party: u32,
    },

    /// A round-1 opening made under another commitment set than the one
    /// aggregated (its header names another set's digest).
    #[error("party {party} opened its round-1 share under another commitment set")]
    CommitmentSetMismatch {
        /// The sender.
        party: u32,
    },
    /// Intact bytes of a stored or broadcast object (a party's state, a
    /// re-shared key, a commitment set, an aggregate) written for another
    /// session than the one reading them: `field` names what differs
    /// (context fingerprint, session id, number of parties, security bits).
    #[error("the {what} belongs to another session: its {field} differs from this session's")]
    ForeignSession {
        /// What was read.
        what: &'static str,
        /// The field that differs.
        field: &'static str,
    },

    /// A malformed argument; the message says which and why.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

impl Error {
    /// Turns the engine's "the combined shares do not decrypt" into
    /// [`Error::InconsistentShares`], other errors into [`Error::Engine`].
    pub(crate) fn from_combine(e: helib_rs::Error) -> Self {
        match e {
            helib_rs::Error::Malformed(message) => Error::InconsistentShares(message),
            other => Error::Engine(other),
        }
    }
}
