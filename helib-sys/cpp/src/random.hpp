// random.hpp -- the CSPRNG (ChaCha20 keyed from the OS) and the samplers.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "modarith.hpp"

namespace bgv {

using Seed = std::array<uint8_t, 32>;

/// 32 bytes from the operating system's CSPRNG (getrandom); throws
/// HELIB_ERR_RANDOMNESS if the OS cannot provide them.
Seed os_seed();

/// A ChaCha20 keystream used as a deterministic random generator: the same
/// seed gives the same stream (used to store uniform polynomials as seeds).
class Prng {
public:
    /// The keystream for `seed`; independent streams share a seed with distinct `stream` ids.
    explicit Prng(const Seed &seed, uint64_t stream = 0);
    ~Prng();
    Prng(const Prng &) = delete;
    Prng &operator=(const Prng &) = delete;

    uint64_t next_u64();
    /// Uniform in [0, bound) by rejection (bound >= 1).
    uint64_t uniform_below(uint64_t bound);

private:
    void refill();
    std::array<uint32_t, 16> key_state_;
    std::array<uint32_t, 16> block_;
    size_t used_ = 16;
};

/// Ternary coefficients, each -1, 0, 1 with probability 1/3.
std::vector<int8_t> sample_ternary(Prng &prng, size_t n);
/// Discrete Gaussian coefficients with standard deviation `kSigma`,
/// tail-cut at 13 sigma (probability mass beyond < 2^-120).
std::vector<int32_t> sample_gaussian(Prng &prng, size_t n);

constexpr double kSigma = 3.2;
/// Largest magnitude the Gaussian sampler returns (13 sigma).
constexpr int kMaxGaussian = 42;

/// Overwrites memory in a way the compiler cannot elide.
void secure_wipe(void *data, size_t bytes);

/// Wipes a vector of secret values (ephemeral randomness, key copies) in its destructor.
template <typename T>
struct WipedVector : std::vector<T> {
    using std::vector<T>::vector;
    WipedVector(std::vector<T> &&other) : std::vector<T>(std::move(other)) {}
    WipedVector(const WipedVector &) = delete;
    WipedVector &operator=(const WipedVector &) = delete;
    ~WipedVector() { secure_wipe(this->data(), this->size() * sizeof(T)); }
};

}  // namespace bgv
