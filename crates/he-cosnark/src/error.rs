//! Errors of the collaborative prover: each names the party or the cause.

use crate::transport::Role;

/// A failed step of a collaborative proof.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An argument a caller passed is out of range or inconsistent.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A message is not in the expected format (truncated, a changed byte,
    /// another kind or version).
    #[error("malformed message from {from}: {reason}")]
    Malformed {
        /// Who sent it.
        from: Role,
        /// What is wrong.
        reason: String,
    },
    /// A well-formed message for another session, proof, round or circuit.
    #[error("{from} sent a message for {got}, expected one for {expected}")]
    WrongBinding {
        /// Who sent it.
        from: Role,
        /// What the receiver expected.
        expected: String,
        /// What the message is for.
        got: String,
    },
    /// A well-formed message whose content no honest party sends.
    #[error("{from} deviated from the protocol: {reason}")]
    Deviation {
        /// Who sent it.
        from: Role,
        /// What is wrong.
        reason: String,
    },
    /// A role's message did not arrive in a round.
    #[error("no message from {from} in round {round}")]
    Missing {
        /// Who should have sent it.
        from: Role,
        /// The round.
        round: &'static str,
    },
    /// The transport failed: a connection could not be made or broke, or a
    /// peer sent what no honest transport sends.
    #[error("transport{}: {reason}", peer.map(|p| format!(" ({p})")).unwrap_or_default())]
    Transport {
        /// The peer concerned, when one is.
        peer: Option<Role>,
        /// What happened.
        reason: String,
    },
    /// A witness share of the wrong length, or public inputs of the wrong number.
    #[error("the {what} has {got} values, the circuit needs {expected}")]
    WrongLength {
        /// What was passed.
        what: &'static str,
        /// What the circuit needs.
        expected: usize,
        /// What was passed.
        got: usize,
    },
    /// The combined proof does not verify: the shared witness does not
    /// satisfy the circuit for these public inputs, or a party deviated.
    #[error("the combined proof does not verify: the witness does not satisfy the circuit for the public inputs, or a party deviated")]
    ProofRejected,
    /// A threshold-protocol step failed (names the party at fault when one is).
    #[error(transparent)]
    Threshold(#[from] he_threshold::Error),
    /// An encrypted-polynomial step failed.
    #[error(transparent)]
    Polynomial(#[from] he_poly::Error),
    /// The engine failed.
    #[error(transparent)]
    Engine(#[from] helib_rs::Error),
    /// A circom or snarkjs file was refused, or a zkey does not match its
    /// r1cs.
    #[error(transparent)]
    Circom(#[from] he_circom::Error),
    /// The constraint system could not be synthesized or reduced.
    #[error("constraint system: {0}")]
    Synthesis(#[from] ark_relations::gr1cs::SynthesisError),
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
