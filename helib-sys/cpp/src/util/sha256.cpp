// sha256.cpp -- SHA-256 as specified in FIPS 180-4, section 6.2.
#include "util/sha256.hpp"

#include <cstring>

#include "util/wipe.hpp"

#ifdef BGV_X86_KERNELS
#include <cpuid.h>
#include <immintrin.h>
#define BGV_SHA_NI __attribute__((target("sha,sse4.1")))
#endif

namespace bgv {
namespace {

constexpr uint32_t kRound[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

inline uint32_t rotr(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

/// FIPS 180-4 §6.2.2 on `count` 64-byte blocks; wipes the message schedule
/// after each block when `secret`.
void compress_portable(std::array<uint32_t, 8> &state, const uint8_t *blocks, size_t count, bool secret) {
    uint32_t w[64];
    for (; count != 0; --count, blocks += 64) {
        for (int i = 0; i < 16; ++i) {
            w[i] = (uint32_t{blocks[4 * i]} << 24) | (uint32_t{blocks[4 * i + 1]} << 16) |
                   (uint32_t{blocks[4 * i + 2]} << 8) | uint32_t{blocks[4 * i + 3]};
        }
        for (int i = 16; i < 64; ++i) {
            const uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
            const uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
        uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
        for (int i = 0; i < 64; ++i) {
            const uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kRound[i] + w[i];
            const uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            h = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + t2;
        }
        state[0] += a;
        state[1] += b;
        state[2] += c;
        state[3] += d;
        state[4] += e;
        state[5] += f;
        state[6] += g;
        state[7] += h;
        if (secret) secure_wipe(w, sizeof w);
    }
}

#ifdef BGV_X86_KERNELS
/// The same compression with the SHA extensions. The state lives in two
/// registers as the instructions want it, (a, b, e, f) and (c, d, g, h), each
/// listed from its highest lane; `sha256rnds2` runs two rounds, so each
/// group of four rounds is two calls, the second on the upper half of the
/// group's W + K. Schedule words W[4g..4g+3] for g >= 4 are
///   msg2(msg1(W_{g-4}, W_{g-3}) + (W[4g-7..4g-4]), W_{g-1}),
/// msg1 adding sigma0 of the next words and msg2 adding sigma1 of the
/// words two behind (FIPS 180-4 (6.2.2), step 1).
BGV_SHA_NI void compress_sha_extensions(std::array<uint32_t, 8> &state, const uint8_t *blocks, size_t count) {
    // Byte order: each 32-bit word of the message is big-endian.
    const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    const __m128i dcba = _mm_loadu_si128(reinterpret_cast<const __m128i *>(&state[0]));
    const __m128i hgfe = _mm_loadu_si128(reinterpret_cast<const __m128i *>(&state[4]));
    const __m128i badc = _mm_shuffle_epi32(dcba, 0xB1);
    const __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
    __m128i abef = _mm_alignr_epi8(badc, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, badc, 0xF0);
    for (; count != 0; --count, blocks += 64) {
        const __m128i abef_in = abef, cdgh_in = cdgh;
        __m128i w[4];
        for (int g = 0; g < 4; ++g) {
            const __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i *>(blocks + 16 * g));
            w[g] = _mm_shuffle_epi8(raw, swap);
        }
        for (int g = 0; g < 16; ++g) {
            __m128i &now = w[g & 3];
            if (g >= 4) {
                const __m128i &back3 = w[(g + 1) & 3], &back2 = w[(g + 2) & 3], &back1 = w[(g + 3) & 3];
                now = _mm_sha256msg2_epu32(
                    _mm_add_epi32(_mm_sha256msg1_epu32(now, back3), _mm_alignr_epi8(back1, back2, 4)), back1);
            }
            __m128i wk =
                _mm_add_epi32(now, _mm_loadu_si128(reinterpret_cast<const __m128i *>(&kRound[4 * g])));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
            wk = _mm_shuffle_epi32(wk, 0x0E);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, wk);
        }
        abef = _mm_add_epi32(abef, abef_in);
        cdgh = _mm_add_epi32(cdgh, cdgh_in);
    }
    const __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    const __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(&state[0]), _mm_blend_epi16(feba, dchg, 0xF0));
    _mm_storeu_si128(reinterpret_cast<__m128i *>(&state[4]), _mm_alignr_epi8(dchg, feba, 8));
}
#endif

/// Whether a hasher for kernel path `path` uses the SHA extensions.
bool use_sha_extensions(bool secret, CpuPath path) {
    return !secret && path != CpuPath::Scalar && cpu_supports(path) && cpu_has_sha_extensions();
}

}  // namespace

bool cpu_has_sha_extensions() {
#ifdef BGV_X86_KERNELS
    // CPUID leaf 7, subleaf 0: EBX bit 29 is SHA (Intel SDM vol. 2A, CPUID).
    // Asked directly: not every compiler's __builtin_cpu_supports knows "sha".
    // Asked once: the engine builds a hasher for every frame it writes.
    static const bool has = [] {
        unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
        if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
        return (ebx & (1u << 29)) != 0;
    }();
    return has;
#else
    return false;
#endif
}

Sha256::Sha256(bool secret) : Sha256(secret, cpu_path()) {}

Sha256::Sha256(bool secret, CpuPath path)
    : state_{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19},
      buffer_{},
      secret_(secret),
      sha_extensions_(use_sha_extensions(secret, path)) {}

Sha256::~Sha256() {
    secure_wipe(buffer_.data(), buffer_.size());
    secure_wipe(state_.data(), sizeof state_);
}

void Sha256::compress(const uint8_t *blocks, size_t count) {
#ifdef BGV_X86_KERNELS
    if (sha_extensions_) return compress_sha_extensions(state_, blocks, count);
#endif
    compress_portable(state_, blocks, count, secret_);
}

void Sha256::update(const uint8_t *data, size_t len) {
    total_ += len;
    if (buffered_ != 0) {
        const size_t take = len < 64 - buffered_ ? len : 64 - buffered_;
        std::memcpy(buffer_.data() + buffered_, data, take);
        buffered_ += take;
        data += take;
        len -= take;
        if (buffered_ < 64) return;
        compress(buffer_.data(), 1);
        buffered_ = 0;
    }
    const size_t whole = len / 64;
    if (whole != 0) compress(data, whole);
    data += 64 * whole;
    len -= 64 * whole;
    if (len != 0) std::memcpy(buffer_.data(), data, len);
    buffered_ = len;
}

Digest Sha256::finish() {
    const uint64_t bits = total_ * 8;
    uint8_t pad[72] = {0x80};
    // Pad to 56 mod 64, then the message length in bits, big-endian.
    const size_t pad_len = buffered_ < 56 ? 56 - buffered_ : 120 - buffered_;
    for (int i = 0; i < 8; ++i) pad[pad_len + i] = static_cast<uint8_t>(bits >> (56 - 8 * i));
    update(pad, pad_len + 8);
    Digest out;
    for (int i = 0; i < 8; ++i) {
        for (int k = 0; k < 4; ++k) out[4 * i + k] = static_cast<uint8_t>(state_[i] >> (24 - 8 * k));
    }
    return out;
}

Digest sha256(const uint8_t *data, size_t len, bool secret) {
    Sha256 h(secret);
    h.update(data, len);
    return h.finish();
}

}  // namespace bgv
