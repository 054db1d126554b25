//! The error type of this crate.

use num_bigint::BigUint;

/// The result type of every fallible operation in this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong when caching or encrypting.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The engine refused an operation (noise, context, randomness, memory…).
    #[error(transparent)]
    Engine(#[from] helib_rs::Error),

    /// A value to encrypt is not below the plaintext modulus t.
    #[error("the value {value} is not below the plaintext modulus t = {modulus}")]
    ValueNotBelowModulus {
        /// The value given.
        value: BigUint,
        /// The plaintext modulus t.
        modulus: BigUint,
    },

    /// A value has more radix digits than there are cached pivots.
    #[error("the value needs {needed} radix-{radix} digits but only {pivots} pivots are cached")]
    ValueTooLarge {
        /// The radix r.
        radix: u64,
        /// The number of digits the value has.
        needed: usize,
        /// The number of cached pivots r^0 … r^(pivots−1).
        pivots: usize,
    },

    /// A configuration was rejected (the message says which setting and why).
    #[error("invalid configuration: {0}")]
    InvalidConfig(String),

    /// The pool had no prepared encryption of zero and its
    /// [`WhenDry`](crate::WhenDry) policy says to fail.
    #[error("the encryption pool is dry")]
    PoolDry,

    /// A background worker of the pool failed; the pool cannot refill.
    #[error("the encryption pool's workers stopped: {0}")]
    PoolStopped(helib_rs::Error),

    /// Bytes are not a serialized ciphertext of the given context (the
    /// message says what is wrong).
    #[error("malformed ciphertext bytes: {0}")]
    Malformed(String),

    /// The operating system's random source failed.
    #[error("the operating system's random source failed: {0}")]
    Randomness(String),
}
