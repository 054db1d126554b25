//! The error type of this crate.

/// The result type of every fallible operation in this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in this crate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A value to encode is outside the range of its stochastic encoding
    /// (\[0, 1\] for unipolar, \[−1, 1\] for inverted bipolar) or not finite.
    #[error("value {value} is outside [{min}, {max}], the range of the encoding")]
    ValueOutOfRange {
        /// The value asked for.
        value: f64,
        /// The smallest value the encoding represents.
        min: f64,
        /// The largest value the encoding represents.
        max: f64,
    },

    /// A probability or weight is negative, not finite, or the weights do not
    /// sum to a positive number.
    #[error("invalid probability or weight: {0}")]
    InvalidProbability(String),

    /// Two operands have different stream lengths where equal ones are needed.
    #[error("stream lengths differ ({left} and {right})")]
    LengthMismatch {
        /// Length of the left (or first) operand.
        left: usize,
        /// Length of the right (or offending) operand.
        right: usize,
    },

    /// Two operands use different stochastic encodings.
    #[error("the operands use different stochastic encodings")]
    EncodingMismatch,

    /// The operation is not defined for this encoding.
    #[error("operation not supported: {0}")]
    Unsupported(String),

    /// An argument is empty or otherwise malformed (the message says which).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),

    /// A decrypted value is larger than the backend can recover (e.g. beyond
    /// the EC-ElGamal discrete-log table, or ≥ t for BGV).
    #[error("a decrypted value is beyond the recoverable bound {bound}")]
    PlaintextOverflow {
        /// The largest value that can be recovered.
        bound: u64,
    },

    /// A ciphertext does not belong to the key or parameters it is used with.
    #[error("the ciphertext does not belong to these keys or parameters")]
    KeyMismatch,

    /// Fusion is impossible: the weights overflow t or the noise budget.
    #[error("cannot fuse: {0}")]
    Fusion(String),

    /// An error from the BGV engine.
    #[error(transparent)]
    Bgv(#[from] helib_rs::Error),

    /// Serialization of a curve point failed (should not happen).
    #[error("curve point serialization failed: {0}")]
    Serialization(String),

    /// The operating system's random source failed.
    #[error("the operating system's random source failed: {0}")]
    Randomness(String),
}
