// checked_size.hpp -- overflow-checked arithmetic on sizes that come from a
// caller or from untrusted bytes. Every product or sum of such sizes goes
// through these helpers, so a wrapped value can never pass a bounds check.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "util/error.hpp"

namespace bgv {

/// a * b; fails with `status` (naming `what`) when the product does not fit in size_t.
inline size_t checked_mul(size_t a, size_t b, Status status, const char *what) {
    if (b != 0 && a > std::numeric_limits<size_t>::max() / b) {
        fail(status, std::string(what) + " overflows: " + std::to_string(a) + " * " + std::to_string(b) +
                         " does not fit in size_t");
    }
    return a * b;
}

/// a + b; fails with `status` (naming `what`) when the sum does not fit in size_t.
inline size_t checked_add(size_t a, size_t b, Status status, const char *what) {
    if (a > std::numeric_limits<size_t>::max() - b) {
        fail(status, std::string(what) + " overflows: " + std::to_string(a) + " + " + std::to_string(b) +
                         " does not fit in size_t");
    }
    return a + b;
}

/// Checks that `count` items of `item_bytes` bytes each can be an array a
/// caller passes (at most PTRDIFF_MAX bytes), so that pointer arithmetic over
/// it cannot wrap; returns count. Fails with Status::InvalidArgument.
inline size_t caller_array_count(size_t count, size_t item_bytes, const char *what) {
    const size_t max_count = static_cast<size_t>(std::numeric_limits<std::ptrdiff_t>::max()) / item_bytes;
    require(count <= max_count, Status::InvalidArgument,
            std::string(what) + " is " + std::to_string(count) + " entries, more than any array can hold");
    return count;
}

/// The number of 64-bit limbs in `count` items of `width` limbs each, for an
/// array a caller passes: the product must not wrap, and the array must be
/// one that can exist (caller_array_count). Fails with
/// Status::InvalidArgument.
inline size_t caller_limb_count(size_t count, size_t width, const char *what) {
    return caller_array_count(checked_mul(count, width, Status::InvalidArgument, what), sizeof(uint64_t),
                              what);
}

}  // namespace bgv
