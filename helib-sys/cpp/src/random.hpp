// random.hpp -- the CSPRNG (ChaCha20 keyed from the OS) and the samplers.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "modarith.hpp"
#include "wipe.hpp"

namespace bgv {

using Seed = std::array<uint8_t, 32>;

/// 32 bytes from the operating system's CSPRNG (getrandom), for seeds that
/// are stored in the clear (the uniform halves of keys and ciphertexts);
/// throws HELIB_ERR_RANDOMNESS if the OS cannot provide them. Secret
/// randomness comes from Prng::from_os(), which never lets its seed out.
Seed os_seed();

/// A ChaCha20 keystream used as a deterministic random generator: the same
/// seed gives the same stream (used to store uniform polynomials as seeds).
/// Its key and keystream are wiped when it is destroyed.
class Prng {
public:
    /// The keystream for `seed`; independent streams share a seed with distinct `stream` ids.
    explicit Prng(const Seed &seed, uint64_t stream = 0);
    /// A generator keyed with a fresh seed from the operating system, for
    /// secret randomness (keys, encryption randomness, errors): the seed
    /// exists only inside this call and is wiped before it returns.
    static Prng from_os();
    ~Prng();
    Prng(const Prng &) = delete;
    Prng &operator=(const Prng &) = delete;

    uint64_t next_u64();
    /// Uniform in [0, bound) by rejection (bound >= 1).
    uint64_t uniform_below(uint64_t bound);

private:
    struct FromOs {};
    explicit Prng(FromOs);
    void key(const Seed &seed, uint64_t stream);
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

}  // namespace bgv
