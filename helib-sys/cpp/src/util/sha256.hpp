// sha256.hpp -- SHA-256 (FIPS 180-4), for parameter fingerprints and the
// checksums of serialized objects.
//
// Two compression functions compute the same digest: the portable one, and
// on x86-64 one with the SHA extensions (SHA-NI), about six times faster,
// used on the AVX2 and AVX-512 paths (util/cpu.hpp) when the CPU has them.
// HELIB_CPU=scalar keeps every hash on the portable one.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "util/cpu.hpp"

namespace bgv {

using Digest = std::array<uint8_t, 32>;

/// Incremental SHA-256: update() any number of times, then finish() once.
/// A `secret` hasher (over an exported secret key) runs the portable
/// compression, which wipes each block's message schedule (the SHA-NI one
/// keeps it in registers the compiler may spill); every hasher wipes its
/// buffered input and state when destroyed.
class Sha256 {
public:
    /// A hasher with the compression of the process's kernel path.
    explicit Sha256(bool secret = false);
    /// A hasher with the compression of kernel path `path`: the SHA
    /// extensions on the AVX2 and AVX-512 paths if this CPU has them, the
    /// portable compression otherwise (and always for a `secret` hasher).
    Sha256(bool secret, CpuPath path);
    ~Sha256();
    Sha256(const Sha256 &) = delete;
    Sha256 &operator=(const Sha256 &) = delete;
    void update(const uint8_t *data, size_t len);
    Digest finish();

private:
    void compress(const uint8_t *blocks, size_t count);
    std::array<uint32_t, 8> state_;
    std::array<uint8_t, 64> buffer_;
    size_t buffered_ = 0;
    uint64_t total_ = 0;  // bytes hashed so far
    bool secret_ = false;
    bool sha_extensions_ = false;
};

/// The SHA-256 digest of `len` bytes (`secret`: as for Sha256).
Digest sha256(const uint8_t *data, size_t len, bool secret = false);

/// Whether this CPU has the SHA extensions (SHA-NI).
bool cpu_has_sha_extensions();

}  // namespace bgv
