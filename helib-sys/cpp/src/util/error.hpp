// error.hpp -- the engine's exception type; the C shim maps it to status codes.
#pragma once

#include <stdexcept>
#include <string>

#include "helib_c.h"

namespace bgv {

/// An error a caller can cause (bad argument, wrong level, exhausted noise...).
/// Carries the status code the C shim reports and, for the failures that have
/// one, the typed detail (missing key, levels) callers read instead of the message.
class Error : public std::runtime_error {
public:
    Error(helib_status status, const std::string &message)
        : std::runtime_error(message), status_(status), detail_{} {
        detail_.status = status;
    }
    Error(const helib_error_detail &detail, const std::string &message)
        : std::runtime_error(message), status_(detail.status), detail_(detail) {}
    helib_status status() const { return status_; }
    const helib_error_detail &detail() const { return detail_; }

private:
    helib_status status_;
    helib_error_detail detail_;
};

[[noreturn]] inline void fail(helib_status status, const std::string &message) {
    throw Error(status, message);
}

/// Operands at levels `left` and `right` where equal levels (or, for
/// plaintexts, `right` >= `left`) are needed.
[[noreturn]] inline void fail_level_mismatch(size_t left, size_t right, const std::string &message) {
    helib_error_detail d{};
    d.status = HELIB_ERR_LEVEL_MISMATCH;
    d.kind = HELIB_DETAIL_LEVEL_MISMATCH;
    d.left = left;
    d.right = right;
    throw Error(d, message);
}

/// Level `level` was asked for where at most `max` is allowed.
[[noreturn]] inline void fail_level_out_of_range(size_t level, size_t max, const std::string &message) {
    helib_error_detail d{};
    d.status = HELIB_ERR_INVALID_LEVEL;
    d.kind = HELIB_DETAIL_LEVEL_OUT_OF_RANGE;
    d.left = level;
    d.right = max;
    throw Error(d, message);
}

/// The key for Galois element `element` is missing (`step`: the rotation it serves, if any).
[[noreturn]] inline void fail_missing_galois_key(uint64_t element, const int64_t *step, const std::string &message) {
    helib_error_detail d{};
    d.status = HELIB_ERR_MISSING_KEY;
    d.kind = HELIB_DETAIL_MISSING_GALOIS_KEY;
    d.element = element;
    if (step != nullptr) {
        d.has_step = 1;
        d.step = *step;
    }
    throw Error(d, message);
}

inline void require(bool condition, helib_status status, const std::string &message) {
    if (!condition) fail(status, message);
}

/// Internal invariant check: failures are bugs, reported as HELIB_ERR_INTERNAL.
inline void ensure(bool condition, const char *what) {
    if (!condition) throw Error(HELIB_ERR_INTERNAL, std::string("internal invariant failed: ") + what);
}

}  // namespace bgv
