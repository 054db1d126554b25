// error.hpp -- the engine's exception type; the C shim maps it to status codes.
#pragma once

#include <stdexcept>
#include <string>

#include "helib_c.h"

namespace bgv {

/// An error a caller can cause (bad argument, wrong level, exhausted noise...).
/// Carries the status code the C shim reports.
class Error : public std::runtime_error {
public:
    Error(helib_status status, const std::string &message)
        : std::runtime_error(message), status_(status) {}
    helib_status status() const { return status_; }

private:
    helib_status status_;
};

[[noreturn]] inline void fail(helib_status status, const std::string &message) {
    throw Error(status, message);
}

inline void require(bool condition, helib_status status, const std::string &message) {
    if (!condition) fail(status, message);
}

/// Internal invariant check: failures are bugs, reported as HELIB_ERR_INTERNAL.
inline void ensure(bool condition, const char *what) {
    if (!condition) throw Error(HELIB_ERR_INTERNAL, std::string("internal invariant failed: ") + what);
}

}  // namespace bgv
