//! The error type of this crate.

/// The result type of every fallible operation in this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in a distributed computation.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An operation on encrypted polynomials failed (layouts, levels, noise).
    #[error(transparent)]
    Poly(#[from] he_poly::Error),

    /// The encrypted FFT refused its plan, inputs or keys.
    #[error(transparent)]
    Fft(#[from] he_fft::Error),

    /// The engine refused an operation.
    #[error(transparent)]
    Engine(#[from] helib_rs::Error),

    /// A rank's context differs from rank 0's (other parameters).
    #[error("rank {rank} has other parameters than rank 0 (context fingerprints differ)")]
    ParameterMismatch {
        /// The first rank whose fingerprint differs from rank 0's.
        rank: usize,
    },

    /// The layout cannot be spread over this many ranks.
    #[error("{ranks} ranks cannot share this layout: {reason}")]
    RankCount {
        /// The number of ranks.
        ranks: usize,
        /// Why not.
        reason: String,
    },

    /// Residues arrived corrupted (or not as announced) at a rank.
    #[error("rank {receiver} received corrupted residues from rank {sender}: {reason}")]
    Corrupted {
        /// The rank that sent them.
        sender: usize,
        /// The rank that found the damage.
        receiver: usize,
        /// What was wrong (known in full on the receiving rank only).
        reason: String,
    },

    /// A rank failed a step that the others completed; every rank reports it.
    #[error("rank {rank} failed: {reason}")]
    RankFailed {
        /// The failing rank.
        rank: usize,
        /// Its error (in full on that rank only).
        reason: String,
    },

    /// Two distributed polynomials are spread differently.
    #[error("the polynomials are spread differently: {0}")]
    DistributionMismatch(String),

    /// An MPI call returned an error (the error handler returns errors).
    #[error("MPI error {code} at rank {rank} in {call}")]
    Mpi {
        /// The MPI error code.
        code: i32,
        /// The rank that saw it.
        rank: usize,
        /// The call.
        call: &'static str,
    },
}
