// sha256.hpp -- SHA-256 (FIPS 180-4), for parameter fingerprints and the
// checksums of serialized objects.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace bgv {

using Digest = std::array<uint8_t, 32>;

/// Incremental SHA-256: update() any number of times, then finish() once.
/// A `secret` hasher (over an exported secret key) also wipes each block's
/// message schedule; every hasher wipes its buffered input when destroyed.
class Sha256 {
public:
    explicit Sha256(bool secret = false);
    ~Sha256();
    Sha256(const Sha256 &) = delete;
    Sha256 &operator=(const Sha256 &) = delete;
    void update(const uint8_t *data, size_t len);
    Digest finish();

private:
    void compress(const uint8_t *block);
    std::array<uint32_t, 8> state_;
    std::array<uint8_t, 64> buffer_;
    size_t buffered_ = 0;
    uint64_t total_ = 0;  // bytes hashed so far
    bool secret_ = false;
};

/// The SHA-256 digest of `len` bytes (`secret`: as for Sha256).
Digest sha256(const uint8_t *data, size_t len, bool secret = false);

}  // namespace bgv
