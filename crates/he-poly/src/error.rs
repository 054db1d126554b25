//! The error type of this crate.

/// The result type of every fallible operation in this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong with encrypted polynomials.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The engine refused an operation (mismatched contexts, levels, an
    /// exhausted noise budget, …).
    #[error(transparent)]
    Engine(#[from] helib_rs::Error),

    /// An encryptor of `he-cache` failed.
    #[error(transparent)]
    Encryptor(#[from] he_cache::Error),

    /// The plaintext modulus of the context is not the field's modulus.
    #[error("the plaintext modulus of the context is not the modulus of the field")]
    FieldMismatch,

    /// A polynomial is longer than this layout or these parameters allow.
    #[error("a polynomial of {len} coefficients does not fit: at most {max} are allowed here")]
    TooLong {
        /// The number of coefficients asked for.
        len: usize,
        /// The most allowed.
        max: usize,
    },

    /// Two polynomials are split into blocks differently (stride or origin).
    #[error("the polynomials have different block layouts ({left} and {right})")]
    LayoutMismatch {
        /// The layout of the left operand.
        left: String,
        /// The layout of the right operand.
        right: String,
    },

    /// A product's blocks would wrap around X^N + 1 (and mix coefficients).
    #[error(
        "the product's blocks would have {width} coefficients, more than the ring degree {ring_degree}: \
         use a smaller stride (parameters for a higher product depth)"
    )]
    WouldWrap {
        /// The coefficients a product block would need.
        width: usize,
        /// The ring degree N.
        ring_degree: usize,
    },

    /// A quotient (a polynomial whose low coefficients were cut off) cannot
    /// be multiplied: the cut-off part would spill into the kept one.
    #[error("a quotient with {cut} cut-off coefficients cannot be multiplied")]
    PendingCut {
        /// How many coefficients lie below the polynomial's constant term.
        cut: usize,
    },

    /// A witness does not satisfy a constraint (a_i·b_i ≠ c_i), so the
    /// Groth16 quotient does not exist (see [`quotient`](crate::quotient)).
    #[error("the witness does not satisfy constraint {constraint}")]
    Unsatisfied {
        /// The index of the first unsatisfied constraint.
        constraint: usize,
    },

    /// A malformed argument; the message says which and why.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),

    /// Bytes that do not hold a valid encrypted polynomial.
    #[error("malformed encrypted polynomial: {0}")]
    Malformed(String),

    /// No parameters hold the request at 128-bit security on the engine's rings.
    #[error("no ring of degree at most 2^17 holds this at 128-bit security: {0}")]
    NoParameters(String),
}
