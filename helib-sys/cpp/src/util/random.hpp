// random.hpp -- the CSPRNG (ChaCha20 keyed from the OS) and the samplers.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "util/cpu.hpp"
#include "util/modarith.hpp"
#include "util/wipe.hpp"

namespace bgv {

using Seed = std::array<uint8_t, 32>;

/// 32 bytes from the operating system's CSPRNG (getrandom(2) on Linux,
/// arc4random_buf on macOS and the BSDs; other systems do not build), for seeds that
/// are stored in the clear (the uniform halves of keys and ciphertexts);
/// throws Status::Randomness if the OS cannot provide them. Secret
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
    /// out[k] = uniform_below(bound) for k < count, in order: the same values
    /// as that many calls, drawn a whole keystream buffer at a time.
    void fill_uniform_below(uint64_t bound, uint64_t *out, size_t count);

private:
    /// Keystream blocks computed per refill: one AVX-512 batch.
    static constexpr size_t kBufferBlocks = 16;
    static constexpr size_t kBufferWords = 16 * kBufferBlocks;
    struct FromOs {};
    explicit Prng(FromOs);
    void key(const Seed &seed, uint64_t stream);
    void refill();
    std::array<uint32_t, 16> key_state_;
    std::array<uint32_t, kBufferWords> block_;
    size_t used_ = kBufferWords;
    bool secret_ = false;
};

/// ChaCha20 blocks [counter, counter + blocks) of `state` (the 16 input words,
/// block counter in words 12 and 13 as one 64-bit number, words 14 and 15
/// the stream id) written to out, 16 words per block, with the kernels of
/// `path` (which this CPU must support).
void chacha20_blocks(CpuPath path, const uint32_t *state, size_t blocks, uint32_t *out);
/// `len` keystream bytes of the ChaCha20 variant Prng uses (64-bit counter,
/// 64-bit nonce `stream`) from block `counter` on, as RFC 8439 serializes
/// them; RFC 8439's layout is the same with the counter's high word taken as
/// the first nonce word. For tests against published vectors.
void chacha20_keystream(CpuPath path, const Seed &key, uint64_t stream, uint64_t counter, uint8_t *out,
                        size_t len);

/// Ternary coefficients, each -1, 0, 1 with probability 1/3.
std::vector<int8_t> sample_ternary(Prng &prng, size_t n);
/// Discrete Gaussian coefficients with standard deviation `kSigma`,
/// tail-cut at 13 sigma (probability mass beyond < 2^-120).
std::vector<int32_t> sample_gaussian(Prng &prng, size_t n);
/// sample_gaussian with the kernels of `path` (which this CPU must support):
/// every path maps the same keystream words to the same coefficients.
std::vector<int32_t> sample_gaussian(CpuPath path, Prng &prng, size_t n);

constexpr double kSigma = 3.2;
/// Largest magnitude the Gaussian sampler returns (13 sigma).
constexpr int kMaxGaussian = 42;

}  // namespace bgv
