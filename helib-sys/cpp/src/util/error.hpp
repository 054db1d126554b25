// error.hpp -- the engine's status codes and exception type. The engine's
// layers throw these and know nothing of the C interface; the C shim
// (capi/c_api_status.hpp) alone maps them to helib_status.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace bgv {

/// What went wrong, as a caller can act on it.
enum class Status {
    /// A required pointer argument was null.
    NullPointer,
    /// An argument is out of range or malformed (see the message).
    InvalidArgument,
    /// A level argument or a ciphertext level is not acceptable.
    InvalidLevel,
    /// Objects from different contexts were combined.
    ContextMismatch,
    /// Operands are at different levels.
    LevelMismatch,
    /// Operands carry different plaintext correction factors.
    FactorMismatch,
    /// The noise budget is (or would be) exhausted.
    NoiseBudgetExhausted,
    /// A caller-given buffer is too small.
    BufferTooSmall,
    /// The operating system's random source failed.
    Randomness,
    /// Memory allocation failed (or a worker thread could not be started).
    OutOfMemory,
    /// An internal invariant failed (a bug).
    Internal,
    /// A needed key is not in the key set.
    MissingKey,
    /// Bytes given to a decoder are not a valid encoding of the object asked for.
    MalformedInput,
    /// The parameters are below 128-bit security and insecure ones were not allowed.
    InsecureParameters,
};

/// Which fields of an ErrorDetail are meaningful.
enum class DetailKind {
    /// No detail beyond the status and the message.
    None,
    /// Status::MissingKey: the key for Galois element `element` (rotating the
    /// rows by `step` when `has_step`).
    MissingGaloisKey,
    /// Status::LevelMismatch: the operands are at `left` and `right`.
    LevelMismatch,
    /// Status::InvalidLevel: `left` was asked for, `right` is the highest allowed.
    LevelOutOfRange,
    /// Status::InvalidLevel: a modulus switch at level 0.
    ChainExhausted,
};

/// The typed detail of a failure (fields not named by `kind` are 0).
struct ErrorDetail {
    Status status = Status::Internal;
    DetailKind kind = DetailKind::None;
    uint64_t element = 0;
    int64_t step = 0;
    bool has_step = false;
    size_t left = 0;
    size_t right = 0;
};

/// An error a caller can cause (bad argument, wrong level, exhausted noise...).
/// Carries its status and, for the failures that have one, the typed detail
/// (missing key, levels) callers read instead of the message.
class Error : public std::runtime_error {
public:
    Error(Status status, const std::string &message) : std::runtime_error(message), detail_{} {
        detail_.status = status;
    }
    Error(const ErrorDetail &detail, const std::string &message) : std::runtime_error(message), detail_(detail) {}
    Status status() const { return detail_.status; }
    const ErrorDetail &detail() const { return detail_; }

private:
    ErrorDetail detail_;
};

[[noreturn]] inline void fail(Status status, const std::string &message) {
    throw Error(status, message);
}

/// Operands at levels `left` and `right` where equal levels (or, for
/// plaintexts, `right` >= `left`) are needed.
[[noreturn]] inline void fail_level_mismatch(size_t left, size_t right, const std::string &message) {
    ErrorDetail d;
    d.status = Status::LevelMismatch;
    d.kind = DetailKind::LevelMismatch;
    d.left = left;
    d.right = right;
    throw Error(d, message);
}

/// Level `level` was asked for where at most `max` is allowed.
[[noreturn]] inline void fail_level_out_of_range(size_t level, size_t max, const std::string &message) {
    ErrorDetail d;
    d.status = Status::InvalidLevel;
    d.kind = DetailKind::LevelOutOfRange;
    d.left = level;
    d.right = max;
    throw Error(d, message);
}

/// A modulus switch was asked for at level 0.
[[noreturn]] inline void fail_chain_exhausted(const std::string &message) {
    ErrorDetail d;
    d.status = Status::InvalidLevel;
    d.kind = DetailKind::ChainExhausted;
    throw Error(d, message);
}

/// The key for Galois element `element` is missing (`step`: the rotation it serves, if any).
[[noreturn]] inline void fail_missing_galois_key(uint64_t element, const int64_t *step, const std::string &message) {
    ErrorDetail d;
    d.status = Status::MissingKey;
    d.kind = DetailKind::MissingGaloisKey;
    d.element = element;
    if (step != nullptr) {
        d.has_step = true;
        d.step = *step;
    }
    throw Error(d, message);
}

inline void require(bool condition, Status status, const std::string &message) {
    if (!condition) fail(status, message);
}

/// Internal invariant check: failures are bugs, reported as Status::Internal.
inline void ensure(bool condition, const char *what) {
    if (!condition) throw Error(Status::Internal, std::string("internal invariant failed: ") + what);
}

}  // namespace bgv
