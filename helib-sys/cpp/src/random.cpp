// random.cpp -- ChaCha20 keystream, OS seeding and the samplers.
#include "random.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include "error.hpp"

namespace bgv {
namespace {

inline uint32_t rotl(uint32_t x, int k) { return (x << k) | (x >> (32 - k)); }

inline void quarter_round(uint32_t &a, uint32_t &b, uint32_t &c, uint32_t &d) {
    a += b; d ^= a; d = rotl(d, 16);
    c += d; b ^= c; b = rotl(b, 12);
    a += b; d ^= a; d = rotl(d, 8);
    c += d; b ^= c; b = rotl(b, 7);
}

/// Cumulative thresholds of |x| for the discrete Gaussian: the magnitude is
/// the number of thresholds a uniform 63-bit value is >= to.
struct GaussianTable {
    static constexpr int kMax = kMaxGaussian;
    std::array<uint64_t, kMax> thresholds{};
    GaussianTable() {
        long double weights[kMax + 1];
        long double total = 0;
        for (int k = 0; k <= kMax; ++k) {
            const long double x = static_cast<long double>(k);
            weights[k] = (k == 0 ? 1.0L : 2.0L) * expl(-x * x / (2.0L * kSigma * kSigma));
            total += weights[k];
        }
        long double cumulative = 0;
        const long double scale = 9223372036854775808.0L;  // 2^63
        for (int k = 0; k < kMax; ++k) {
            cumulative += weights[k] / total;
            const long double scaled = cumulative * scale;
            thresholds[k] = scaled >= scale ? (1ULL << 63) : static_cast<uint64_t>(scaled);
        }
    }
};

/// Fills `seed` from the operating system's CSPRNG.
void fill_from_os(Seed &seed) {
    size_t filled = 0;
    while (filled < seed.size()) {
        const ssize_t got = getrandom(seed.data() + filled, seed.size() - filled, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            fail(HELIB_ERR_RANDOMNESS, std::string("getrandom failed: ") + std::strerror(errno));
        }
        filled += static_cast<size_t>(got);
    }
}

}  // namespace

Seed os_seed() {
    Seed seed{};
    fill_from_os(seed);
    return seed;
}

Prng::Prng(const Seed &seed, uint64_t stream) { key(seed, stream); }

Prng::Prng(FromOs) {
    Seed seed;
    const ScopedWipe wipe(seed.data(), seed.size());
    fill_from_os(seed);
    key(seed, 0);
}

Prng Prng::from_os() { return Prng(FromOs{}); }

void Prng::key(const Seed &seed, uint64_t stream) {
    key_state_ = {0x61707865u, 0x3320646eu, 0x79622d32u, 0x6b206574u};
    for (int i = 0; i < 8; ++i) {
        uint32_t word;
        std::memcpy(&word, seed.data() + 4 * i, 4);
        key_state_[4 + i] = word;
    }
    // Words 12..15: a 64-bit block counter and the 64-bit stream id as nonce.
    key_state_[12] = key_state_[13] = 0;
    key_state_[14] = static_cast<uint32_t>(stream);
    key_state_[15] = static_cast<uint32_t>(stream >> 32);
}

Prng::~Prng() {
    secure_wipe(key_state_.data(), sizeof(key_state_));
    secure_wipe(block_.data(), sizeof(block_));
}

void Prng::refill() {
    // The permuted state gives the key back (the rounds are invertible): it
    // is wiped, not left on the stack. (Running the rounds in block_ instead
    // measured some 6% slower.)
    std::array<uint32_t, 16> x = key_state_;
    const ScopedWipe wipe_x(x.data(), sizeof(x));
    for (int round = 0; round < 10; ++round) {
        quarter_round(x[0], x[4], x[8], x[12]);
        quarter_round(x[1], x[5], x[9], x[13]);
        quarter_round(x[2], x[6], x[10], x[14]);
        quarter_round(x[3], x[7], x[11], x[15]);
        quarter_round(x[0], x[5], x[10], x[15]);
        quarter_round(x[1], x[6], x[11], x[12]);
        quarter_round(x[2], x[7], x[8], x[13]);
        quarter_round(x[3], x[4], x[9], x[14]);
    }
    for (int i = 0; i < 16; ++i) block_[i] = x[i] + key_state_[i];
    if (++key_state_[12] == 0) ++key_state_[13];
    used_ = 0;
}

uint64_t Prng::next_u64() {
    if (used_ + 2 > 16) refill();
    const uint64_t lo = block_[used_], hi = block_[used_ + 1];
    used_ += 2;
    return lo | (hi << 32);
}

uint64_t Prng::uniform_below(uint64_t bound) {
    unsigned bits = 64 - static_cast<unsigned>(__builtin_clzll(bound | 1));
    if ((bound & (bound - 1)) == 0) bits = bits == 0 ? 0 : bits - 1;
    const uint64_t mask = bits >= 64 ? ~0ULL : ((1ULL << bits) - 1);
    for (;;) {
        const uint64_t v = next_u64() & mask;
        if (v < bound) return v;
    }
}

std::vector<int8_t> sample_ternary(Prng &prng, size_t n) {
    std::vector<int8_t> out(n);
    size_t i = 0;
    while (i < n) {
        uint64_t word = prng.next_u64();
        for (int k = 0; k < 32 && i < n; ++k, word >>= 2) {
            const unsigned v = static_cast<unsigned>(word & 3);
            if (v != 3) out[i++] = static_cast<int8_t>(static_cast<int>(v) - 1);
        }
    }
    return out;
}

std::vector<int32_t> sample_gaussian(Prng &prng, size_t n) {
    static const GaussianTable table;
    std::vector<int32_t> out(n);
    for (size_t i = 0; i < n; ++i) {
        const uint64_t word = prng.next_u64();
        const uint64_t r = word >> 1;
        int32_t magnitude = 0;
        // Scan the whole table: the time does not depend on the sample.
        for (uint64_t threshold : table.thresholds) magnitude += static_cast<int32_t>(r >= threshold);
        const int32_t sign = static_cast<int32_t>(word & 1);
        out[i] = magnitude * (1 - 2 * sign);
    }
    return out;
}

}  // namespace bgv
