// wipe.hpp -- erasing secret-dependent memory before it is released.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace bgv {

/// Overwrites `bytes` bytes at `data` with zeros in a way the compiler cannot
/// elide (the stores happen even if the memory is freed right afterwards).
void secure_wipe(void *data, size_t bytes);

/// A vector of secret values (ephemeral randomness, key coefficients) that
/// wipes its elements in its destructor, also when an exception unwinds it.
/// It cannot be copied, and it must not grow once filled (a reallocation
/// would free the old buffer unwiped). A move hands the buffer over and leaves
/// the source empty, so it is wiped once, by its last owner.
template <typename T>
struct WipedVector : std::vector<T> {
    using std::vector<T>::vector;
    WipedVector(std::vector<T> &&other) : std::vector<T>(std::move(other)) {}
    WipedVector(const WipedVector &) = delete;
    WipedVector &operator=(const WipedVector &) = delete;
    WipedVector(WipedVector &&) noexcept = default;
    ~WipedVector() { secure_wipe(this->data(), this->capacity() * sizeof(T)); }
};

/// Wipes a fixed object (a seed on the stack, a block of keystream) when the
/// scope ends, however it ends.
class ScopedWipe {
public:
    ScopedWipe(void *data, size_t bytes) : data_(data), bytes_(bytes) {}
    ~ScopedWipe() { secure_wipe(data_, bytes_); }
    ScopedWipe(const ScopedWipe &) = delete;
    ScopedWipe &operator=(const ScopedWipe &) = delete;

private:
    void *data_;
    size_t bytes_;
};

}  // namespace bgv
