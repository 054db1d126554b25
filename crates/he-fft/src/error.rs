//! Errors of the encrypted FFT.

/// What can go wrong building or running an FFT plan.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The size is not a power of two ≥ 2, or the field has no root of unity of that order.
    #[error("FFT size {0} is not a power of two ≥ 2 supported by the field")]
    InvalidSize(usize),
    /// A factored plan needs 1 to 4 levels.
    #[error("{0} levels requested; the factored strategy uses 1 to 4")]
    InvalidLevels(usize),
    /// The input level leaves too little noise budget for the plan.
    #[error(
        "the plan needs {needed} multiplication levels but the input level affords {available}"
    )]
    InsufficientBudget {
        /// Levels the plan needs.
        needed: usize,
        /// Levels the input's modulus affords.
        available: usize,
    },
    /// A vector of the wrong length.
    #[error("expected a vector of {expected} entries, got {got}")]
    WrongLength {
        /// The plan's size.
        expected: usize,
        /// The given length.
        got: usize,
    },
    /// The wrong number of input ciphertexts.
    #[error("expected {expected} input ciphertexts, got {got}")]
    WrongInputCount {
        /// Ciphertexts per vector.
        expected: usize,
        /// Ciphertexts given.
        got: usize,
    },
    /// An input ciphertext is not at the level the plan was built for.
    #[error("input ciphertext at level {got}, the plan expects level {expected}")]
    WrongInputLevel {
        /// The plan's input level.
        expected: usize,
        /// The ciphertext's level.
        got: usize,
    },
    /// A Galois key the plan needs is not in the key set.
    #[error("missing Galois key for element {element} (generate the plan's required elements)")]
    MissingGaloisKey {
        /// The Galois element.
        element: u64,
    },
    /// A combination the plan does not support.
    #[error("unsupported: {0}")]
    Unsupported(&'static str),
    /// The homomorphic-encryption layer failed.
    #[error(transparent)]
    He(#[from] helib_rs::Error),
    /// An internal invariant failed (a bug).
    #[error("internal error: {0}")]
    Internal(&'static str),
}

/// Result alias.
pub type Result<T> = std::result::Result<T, Error>;
