//! The error type of this crate and the engine's status codes.

/// The result type of every fallible operation in this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A status code of the C++ engine that has no more specific [`Error`] variant.
///
/// These mirror the `helib_status` codes of the C interface; the ones with a
/// structured meaning (context, factor and noise errors, bad arguments,
/// randomness, memory) are turned into their own [`Error`] variants instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Status {
    /// A required pointer was null (a bug in this crate: please report it).
    NullPointer,
    /// A level argument or a ciphertext level was not acceptable to the engine.
    InvalidLevel,
    /// The engine found operands at different levels.
    LevelMismatch,
    /// A buffer handed to the engine was too small (a bug in this crate).
    BufferTooSmall,
    /// An internal invariant of the engine failed (a bug: please report it).
    Internal,
    /// A status code this version of the crate does not know.
    Unknown(u32),
}

/// Everything that can go wrong in this crate.
///
/// Errors found on the Rust side (before the engine is called) carry
/// structured data; errors reported by the engine carry its message.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The parameters are malformed (the message says which one and why).
    #[error("invalid parameters: {0}")]
    InvalidParameters(String),

    /// The parameters give less than 128-bit security and
    /// [`allow_insecure`](crate::ParametersBuilder::allow_insecure) was not called.
    #[error(
        "insecure parameters: log2(QP) = {log_qp} exceeds {max_log_qp}, the most that \
         ring degree {ring_degree} allows for 128-bit security (call allow_insecure() to \
         use them anyway, for tests only)"
    )]
    InsecureParameters {
        /// The ring degree N.
        ring_degree: usize,
        /// The bit size of the whole key modulus Q·P (chain and special primes).
        log_qp: u32,
        /// The largest log2(Q·P) with 128-bit security at this ring degree.
        max_log_qp: u32,
    },

    /// A level is out of the allowed range `0..=max`.
    #[error("level {level} is out of range (the highest allowed here is {max})")]
    InvalidLevel {
        /// The level asked for.
        level: usize,
        /// The highest level allowed in this place.
        max: usize,
    },

    /// A ciphertext at level 0 cannot be modulus-switched: no prime is left to drop.
    #[error("the ciphertext is at level 0: there is no prime left to drop")]
    ModulusChainExhausted,

    /// Two operands are at different levels.
    #[error("operands are at different levels ({left} and {right})")]
    LevelMismatch {
        /// The level of the left operand.
        left: usize,
        /// The level of the right operand.
        right: usize,
    },

    /// Objects made in different contexts were combined.
    #[error("objects from different contexts were combined")]
    ContextMismatch,

    /// Two operands carry different plaintext correction factors, so adding
    /// them would not add their plaintexts (see [`EncodedPlaintext`](crate::EncodedPlaintext)).
    #[error("operands carry different correction factors")]
    CorrectionFactorMismatch,

    /// The noise budget is exhausted (or the operation would exhaust it):
    /// decryption would not give the plaintext back.
    #[error("the noise budget is exhausted: the result would not decrypt correctly")]
    NoiseBudgetExhausted,

    /// A plaintext is malformed: a coefficient is not below t, there are more
    /// than N coefficients, or it does not fit the asked-for representation.
    #[error("invalid plaintext: {0}")]
    InvalidPlaintext(String),

    /// The batch encoder cannot be used with these parameters.
    #[error("batching is not supported: {reason}")]
    BatchingUnsupported {
        /// Why batching is impossible.
        reason: String,
    },

    /// An argument was rejected by the engine (the message says which).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),

    /// The operating system's random source failed.
    #[error("the operating system's random source failed: {0}")]
    Randomness(String),

    /// The engine could not allocate memory.
    #[error("the engine ran out of memory: {0}")]
    OutOfMemory(String),

    /// Bytes given to `from_bytes` are not a valid serialized object of the
    /// asked-for kind: truncated, corrupted, another kind of object, another
    /// format version, or out-of-range fields (the message says which).
    #[error("malformed serialized data: {0}")]
    Malformed(String),

    /// A prepared transform is not the slot transform it was checked
    /// against ([`PreparedTransform::verify`](crate::lintrans::PreparedTransform::verify)):
    /// the message names the first difference found.
    #[error("the prepared transform does not match the expected one: {0}")]
    TransformMismatch(String),

    /// Reading or writing a stream failed (saving or loading a prepared
    /// transform, see [`lintrans::io`](crate::lintrans::io) and [`io`](crate::io)).
    #[error("I/O error: {message}")]
    Io {
        /// The kind of the underlying error.
        kind: std::io::ErrorKind,
        /// Its message.
        message: String,
    },

    /// The context has no special primes, so nothing that needs key
    /// switching (relinearization keys, Galois keys, rotations) is possible.
    #[error("key switching needs special primes, and the context has none")]
    NoSpecialPrimes,

    /// A ciphertext has the wrong number of polynomials for the operation,
    /// e.g. a size-3 product (relinearize it first) given to a rotation.
    #[error("the ciphertext has {size} polynomials but the operation needs {expected}")]
    InvalidCiphertextSize {
        /// The ciphertext's number of polynomials.
        size: usize,
        /// The number the operation needs.
        expected: usize,
    },

    /// A Galois element is not odd or not below 2N.
    #[error("the Galois element {element} is not an odd number below 2N = {two_n}")]
    InvalidGaloisElement {
        /// The element asked for.
        element: u64,
        /// 2N, the bound on Galois elements.
        two_n: u64,
    },

    /// The Galois key needed for an automorphism or rotation is not in the key set.
    ///
    /// `step` is the rotation step whose key is missing (for a composed
    /// rotation, the power-of-two step that could not be found), or `None`
    /// when an element was asked for directly.
    #[error("no Galois key for the element {element}{}", missing_step(*.step))]
    MissingGaloisKey {
        /// The rotation step the missing key rotates by, if a rotation needed it.
        step: Option<i64>,
        /// The Galois element whose key is missing.
        element: u64,
    },

    /// More worker threads were asked for than the engine supports
    /// ([`Context::MAX_THREADS`](crate::Context::MAX_THREADS)).
    #[error("{requested} worker threads were asked for; the engine supports at most {max}")]
    TooManyThreads {
        /// The thread count asked for.
        requested: u32,
        /// The most threads a context may have.
        max: u32,
    },

    /// Any other failure reported by the engine.
    #[error("engine error ({status:?}): {message}")]
    Engine {
        /// The engine's status code.
        status: Status,
        /// The engine's message.
        message: String,
    },
}

/// The step part of the [`Error::MissingGaloisKey`] message.
fn missing_step(step: Option<i64>) -> String {
    step.map(|step| format!(" (a rotation by {step})"))
        .unwrap_or_default()
}

/// The error for an I/O failure.
pub(crate) fn io_error(e: std::io::Error) -> Error {
    Error::Io {
        kind: e.kind(),
        message: e.to_string(),
    }
}
