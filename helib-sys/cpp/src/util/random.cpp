// random.cpp -- ChaCha20 keystream (scalar, AVX2, AVX-512), OS seeding and the samplers.
#include "util/random.hpp"

#if defined(__linux__)
#include <sys/random.h>
#define BGV_OS_RANDOM_GETRANDOM 1
#elif defined(__APPLE__) || defined(__FreeBSD__) || defined(__OpenBSD__) || defined(__NetBSD__) || \
    defined(__DragonFly__)
#include <stdlib.h>  // arc4random_buf
#define BGV_OS_RANDOM_ARC4RANDOM 1
#else
#error "helib-sys: no OS randomness source is known for this platform (it needs getrandom(2) or arc4random_buf)"
#endif

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

#include "util/cpu.hpp"
#include "util/error.hpp"

#ifdef BGV_X86_KERNELS
// GCC 12 reports -W(maybe-)uninitialized inside its own AVX-512 intrinsics (their
// _mm512_undefined_epi32() pass-through operands) wherever they are inlined.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#define BGV_AVX2 __attribute__((target("avx2")))
#define BGV_AVX512 __attribute__((target("avx512f")))
#endif

namespace bgv {
namespace {

inline uint32_t rotl(uint32_t x, int k) { return (x << k) | (x >> (32 - k)); }

inline void quarter_round(uint32_t &a, uint32_t &b, uint32_t &c, uint32_t &d) {
    a += b; d ^= a; d = rotl(d, 16);
    c += d; b ^= c; b = rotl(b, 12);
    a += b; d ^= a; d = rotl(d, 8);
    c += d; b ^= c; b = rotl(b, 7);
}

/// Adds `k` to the 64-bit block counter in words 12 (low) and 13 (high).
inline void advance_counter(uint32_t *state, uint64_t k) {
    const uint64_t counter = (static_cast<uint64_t>(state[13]) << 32 | state[12]) + k;
    state[12] = static_cast<uint32_t>(counter);
    state[13] = static_cast<uint32_t>(counter >> 32);
}

/// The reference: `blocks` blocks one after the other. The permuted state
/// gives the key back (the rounds are invertible): it is wiped, not left on
/// the stack.
void blocks_scalar(const uint32_t *input, size_t blocks, uint32_t *out) {
    std::array<uint32_t, 16> state, x;
    const ScopedWipe wipe_state(state.data(), sizeof(state)), wipe_x(x.data(), sizeof(x));
    std::memcpy(state.data(), input, sizeof(state));
    for (size_t b = 0; b < blocks; ++b, advance_counter(state.data(), 1)) {
        x = state;
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
        for (int i = 0; i < 16; ++i) out[16 * b + i] = x[i] + state[i];
    }
}

#ifdef BGV_X86_KERNELS

// The vector versions compute 8 (AVX2) or 16 (AVX-512) blocks at once, one
// block per lane: vector i holds word i of every block, so a quarter round is
// the scalar one applied lane-wise and the diagonal rounds need no shuffles.
// The lanes are then transposed through a small table (wiped afterwards) into
// the usual block order. Fewer blocks than lanes are left to the scalar code.

BGV_AVX2 inline __m256i rotl_avx2(__m256i v, int k) {
    return _mm256_or_si256(_mm256_slli_epi32(v, k), _mm256_srli_epi32(v, 32 - k));
}

BGV_AVX2 inline void quarter_round_avx2(__m256i &a, __m256i &b, __m256i &c, __m256i &d, __m256i rot16,
                                        __m256i rot8) {
    a = _mm256_add_epi32(a, b); d = _mm256_shuffle_epi8(_mm256_xor_si256(d, a), rot16);
    c = _mm256_add_epi32(c, d); b = rotl_avx2(_mm256_xor_si256(b, c), 12);
    a = _mm256_add_epi32(a, b); d = _mm256_shuffle_epi8(_mm256_xor_si256(d, a), rot8);
    c = _mm256_add_epi32(c, d); b = rotl_avx2(_mm256_xor_si256(b, c), 7);
}

BGV_AVX2 void blocks_avx2(const uint32_t *input, size_t blocks, uint32_t *out) {
    // Byte shuffles rotating each 32-bit lane left by 16 and by 8.
    const __m256i rot16 = _mm256_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1, 6, 7,
                                           4, 5, 10, 11, 8, 9, 14, 15, 12, 13);
    const __m256i rot8 = _mm256_setr_epi8(3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14, 3, 0, 1, 2, 7, 4, 5,
                                          6, 11, 8, 9, 10, 15, 12, 13, 14);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i sign = _mm256_set1_epi32(static_cast<int>(0x80000000u));
    std::array<uint32_t, 16> state;
    alignas(32) uint32_t table[16][8];
    const ScopedWipe wipe_state(state.data(), sizeof(state)), wipe_table(table, sizeof(table));
    std::memcpy(state.data(), input, sizeof(state));
    size_t b = 0;
    for (; b + 8 <= blocks; b += 8, advance_counter(state.data(), 8)) {
        __m256i start[16];
        for (int i = 0; i < 16; ++i) start[i] = _mm256_set1_epi32(static_cast<int>(state[i]));
        // Per-lane 64-bit counters: low word + lane, with the carry into the high word.
        start[12] = _mm256_add_epi32(start[12], lane);
        const __m256i carry = _mm256_cmpgt_epi32(_mm256_xor_si256(lane, sign), _mm256_xor_si256(start[12], sign));
        start[13] = _mm256_sub_epi32(start[13], carry);
        __m256i x[16];
        for (int i = 0; i < 16; ++i) x[i] = start[i];
        for (int round = 0; round < 10; ++round) {
            quarter_round_avx2(x[0], x[4], x[8], x[12], rot16, rot8);
            quarter_round_avx2(x[1], x[5], x[9], x[13], rot16, rot8);
            quarter_round_avx2(x[2], x[6], x[10], x[14], rot16, rot8);
            quarter_round_avx2(x[3], x[7], x[11], x[15], rot16, rot8);
            quarter_round_avx2(x[0], x[5], x[10], x[15], rot16, rot8);
            quarter_round_avx2(x[1], x[6], x[11], x[12], rot16, rot8);
            quarter_round_avx2(x[2], x[7], x[8], x[13], rot16, rot8);
            quarter_round_avx2(x[3], x[4], x[9], x[14], rot16, rot8);
        }
        for (int i = 0; i < 16; ++i) {
            _mm256_store_si256(reinterpret_cast<__m256i *>(table[i]), _mm256_add_epi32(x[i], start[i]));
        }
        for (int k = 0; k < 8; ++k) {
            for (int i = 0; i < 16; ++i) out[16 * (b + k) + i] = table[i][k];
        }
    }
    if (b < blocks) blocks_scalar(state.data(), blocks - b, out + 16 * b);
}

BGV_AVX512 inline void quarter_round_avx512(__m512i &a, __m512i &b, __m512i &c, __m512i &d) {
    a = _mm512_add_epi32(a, b); d = _mm512_rol_epi32(_mm512_xor_si512(d, a), 16);
    c = _mm512_add_epi32(c, d); b = _mm512_rol_epi32(_mm512_xor_si512(b, c), 12);
    a = _mm512_add_epi32(a, b); d = _mm512_rol_epi32(_mm512_xor_si512(d, a), 8);
    c = _mm512_add_epi32(c, d); b = _mm512_rol_epi32(_mm512_xor_si512(b, c), 7);
}

BGV_AVX512 void blocks_avx512(const uint32_t *input, size_t blocks, uint32_t *out) {
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    std::array<uint32_t, 16> state;
    alignas(64) uint32_t table[16][16];
    const ScopedWipe wipe_state(state.data(), sizeof(state)), wipe_table(table, sizeof(table));
    std::memcpy(state.data(), input, sizeof(state));
    size_t b = 0;
    for (; b + 16 <= blocks; b += 16, advance_counter(state.data(), 16)) {
        __m512i x[16];
        for (int i = 0; i < 16; ++i) x[i] = _mm512_set1_epi32(static_cast<int>(state[i]));
        const __m512i low = _mm512_add_epi32(x[12], lane);
        x[13] = _mm512_mask_add_epi32(x[13], _mm512_cmplt_epu32_mask(low, lane), x[13], _mm512_set1_epi32(1));
        x[12] = low;
        const __m512i counter_low = x[12], counter_high = x[13];
        for (int round = 0; round < 10; ++round) {
            quarter_round_avx512(x[0], x[4], x[8], x[12]);
            quarter_round_avx512(x[1], x[5], x[9], x[13]);
            quarter_round_avx512(x[2], x[6], x[10], x[14]);
            quarter_round_avx512(x[3], x[7], x[11], x[15]);
            quarter_round_avx512(x[0], x[5], x[10], x[15]);
            quarter_round_avx512(x[1], x[6], x[11], x[12]);
            quarter_round_avx512(x[2], x[7], x[8], x[13]);
            quarter_round_avx512(x[3], x[4], x[9], x[14]);
        }
        for (int i = 0; i < 16; ++i) {
            const __m512i start = i == 12   ? counter_low
                                  : i == 13 ? counter_high
                                            : _mm512_set1_epi32(static_cast<int>(state[i]));
            _mm512_store_si512(table[i], _mm512_add_epi32(x[i], start));
        }
        for (int k = 0; k < 16; ++k) {
            for (int i = 0; i < 16; ++i) out[16 * (b + k) + i] = table[i][k];
        }
    }
    if (b < blocks) blocks_scalar(state.data(), blocks - b, out + 16 * b);
}

#endif

/// Overwrites the stack below the caller's frame, where a vector kernel that
/// just returned may have spilled state words (the key can be recomputed from
/// any intermediate state). Not inlined, so its frame lies where theirs did.
__attribute__((noinline)) void wipe_stack_below() {
    unsigned char area[4096];
    secure_wipe(area, sizeof(area));
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

#ifdef BGV_X86_KERNELS
/// sample_gaussian's map from keystream words to coefficients, 8 words at a
/// time (count % 8 == 0): each lane makes the same comparisons against every
/// threshold as the scalar loop and counts them in a mask-add, then takes the
/// sign from the word's low bit; no branch or address depends on the words.
BGV_AVX512 void gaussian_from_words_avx512(const uint64_t *words, size_t count, const uint64_t *thresholds,
                                           int32_t *out) {
    const __m512i one = _mm512_set1_epi64(1);
    for (size_t k = 0; k < count; k += 8) {
        const __m512i word = _mm512_loadu_si512(words + k);
        const __m512i r = _mm512_srli_epi64(word, 1);
        __m512i magnitude = _mm512_setzero_si512();
        for (int i = 0; i < GaussianTable::kMax; ++i) {
            const __mmask8 at_least =
                _mm512_cmpge_epu64_mask(r, _mm512_set1_epi64(static_cast<long long>(thresholds[i])));
            magnitude = _mm512_mask_add_epi64(magnitude, at_least, magnitude, one);
        }
        // sign = 0 or all ones; (m ^ sign) - sign is m or -m.
        const __m512i sign = _mm512_sub_epi64(_mm512_setzero_si512(), _mm512_and_si512(word, one));
        const __m512i value = _mm512_sub_epi64(_mm512_xor_si512(magnitude, sign), sign);
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + k), _mm512_cvtepi64_epi32(value));
    }
}
#endif

/// Fills `seed` from the operating system's CSPRNG: getrandom(2) on Linux
/// (blocks only until the kernel's pool is first initialized),
/// arc4random_buf on macOS and the BSDs (cannot fail).
void fill_from_os(Seed &seed) {
#if defined(BGV_OS_RANDOM_ARC4RANDOM)
    arc4random_buf(seed.data(), seed.size());
#else
    size_t filled = 0;
    while (filled < seed.size()) {
        const ssize_t got = getrandom(seed.data() + filled, seed.size() - filled, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            fail(Status::Randomness, std::string("getrandom failed: ") + std::strerror(errno));
        }
        filled += static_cast<size_t>(got);
    }
#endif
}

}  // namespace

Seed os_seed() {
    Seed seed{};
    fill_from_os(seed);
    return seed;
}

Prng::Prng(const Seed &seed, uint64_t stream) { key(seed, stream); }

Prng::Prng(FromOs) : secret_(true) {
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

void chacha20_blocks(CpuPath path, const uint32_t *state, size_t blocks, uint32_t *out) {
#ifdef BGV_X86_KERNELS
    if (path == CpuPath::Avx512) return blocks_avx512(state, blocks, out);
    if (path == CpuPath::Avx2) return blocks_avx2(state, blocks, out);
#endif
    (void)path;
    blocks_scalar(state, blocks, out);
}

void Prng::refill() {
    const CpuPath path = cpu_path();
    chacha20_blocks(path, key_state_.data(), kBufferBlocks, block_.data());
    if (secret_ && path != CpuPath::Scalar) wipe_stack_below();
    advance_counter(key_state_.data(), kBufferBlocks);
    used_ = 0;
}

uint64_t Prng::next_u64() {
    if (used_ + 2 > kBufferWords) refill();
    const uint64_t lo = block_[used_], hi = block_[used_ + 1];
    used_ += 2;
    return lo | (hi << 32);
}

namespace {

/// The smallest all-ones mask covering [0, bound).
uint64_t rejection_mask(uint64_t bound) {
    unsigned bits = 64 - static_cast<unsigned>(__builtin_clzll(bound | 1));
    if ((bound & (bound - 1)) == 0) bits = bits == 0 ? 0 : bits - 1;
    return bits >= 64 ? ~0ULL : ((1ULL << bits) - 1);
}

}  // namespace

uint64_t Prng::uniform_below(uint64_t bound) {
    const uint64_t mask = rejection_mask(bound);
    for (;;) {
        const uint64_t v = next_u64() & mask;
        if (v < bound) return v;
    }
}

void Prng::fill_uniform_below(uint64_t bound, uint64_t *out, size_t count) {
    const uint64_t mask = rejection_mask(bound);
    size_t k = 0;
    while (k < count) {
        if (used_ + 2 > kBufferWords) refill();
        // Every candidate is stored and kept only if below the bound: no branch
        // on the (public) values, and out[k] is always in bounds since k < count.
        const uint32_t *words = block_.data();
        size_t used = used_;
        while (used + 2 <= kBufferWords && k < count) {
            const uint64_t v = (words[used] | static_cast<uint64_t>(words[used + 1]) << 32) & mask;
            used += 2;
            out[k] = v;
            k += static_cast<size_t>(v < bound);
        }
        used_ = used;
    }
}

void chacha20_keystream(CpuPath path, const Seed &key, uint64_t stream, uint64_t counter, uint8_t *out,
                        size_t len) {
    std::array<uint32_t, 16> state{0x61707865u, 0x3320646eu, 0x79622d32u, 0x6b206574u};
    for (int i = 0; i < 8; ++i) std::memcpy(&state[4 + i], key.data() + 4 * i, 4);
    state[12] = static_cast<uint32_t>(counter);
    state[13] = static_cast<uint32_t>(counter >> 32);
    state[14] = static_cast<uint32_t>(stream);
    state[15] = static_cast<uint32_t>(stream >> 32);
    const size_t blocks = (len + 63) / 64;
    std::vector<uint32_t> words(16 * blocks);
    chacha20_blocks(path, state.data(), blocks, words.data());
    // Each word little-endian, as RFC 8439 serializes the state.
    for (size_t i = 0; i < len; ++i) out[i] = static_cast<uint8_t>(words[i / 4] >> (8 * (i % 4)));
}

// The one branch on random bits here rejects the 2-bit value 3. Whether a value was
// rejected is independent of the values kept (each is uniform on {-1, 0, 1} either
// way), so the branch and the position of the next store reveal nothing about the
// output; the output values themselves steer no branch or address.
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

std::vector<int32_t> sample_gaussian(Prng &prng, size_t n) { return sample_gaussian(cpu_path(), prng, n); }

std::vector<int32_t> sample_gaussian(CpuPath path, Prng &prng, size_t n) {
    static const GaussianTable table;
    std::vector<int32_t> out(n);
    size_t i = 0;
#ifdef BGV_X86_KERNELS
    if (path == CpuPath::Avx512 && n >= 8) {
        // The same words in the same order as the scalar loop below, mapped 8 at a time.
        constexpr size_t kBatch = 256;
        uint64_t words[kBatch];
        const ScopedWipe wipe(words, sizeof(words));
        while (n - i >= 8) {
            const size_t batch = std::min(kBatch, (n - i) & ~size_t{7});
            for (size_t k = 0; k < batch; ++k) words[k] = prng.next_u64();
            gaussian_from_words_avx512(words, batch, table.thresholds.data(), out.data() + i);
            i += batch;
        }
        wipe_stack_below();
    }
#else
    (void)path;
#endif
    for (; i < n; ++i) {
        const uint64_t word = prng.next_u64();
        const uint64_t r = word >> 1;
        int32_t magnitude = 0;
        // Scan the whole table and count with comparisons (no branch, no early exit,
        // no index from the sample): the time does not depend on the sample, as
        // helib-sys/ct/run.sh checks under memcheck.
        for (uint64_t threshold : table.thresholds) magnitude += static_cast<int32_t>(r >= threshold);
        const int32_t sign = static_cast<int32_t>(word & 1);
        out[i] = magnitude * (1 - 2 * sign);
    }
    return out;
}

}  // namespace bgv
