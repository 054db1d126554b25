// field_ntt_kernels.hpp -- the AVX-512 IFMA big-field NTT (field_ntt.hpp).
//
// Eight butterflies run at once. An element is five 52-bit limbs (value <
// 2^260); a transform keeps its n elements as five limb rows of n words,
// so that 8 consecutive elements of a row form one vector. Montgomery
// products use R = 2^260 with vpmadd52luq/vpmadd52huq: the 25 partial
// products, then five reduction steps, each adding m * t with m the low 52
// bits of the current column times -t^-1. Values stay in [0, 2t) between
// butterflies (2t < 2^256 since t < 2^255) and are reduced to [0, t) at the
// end.
//
// Stages whose butterflies pair elements at least 8 apart use one twiddle per
// vector. The three stages of distance 4, 2, 1 run on 8 x 8 blocks
// transposed so that lane g holds group g (8 consecutive elements) of a
// 64-element chunk and vector p the p-th element of each group; their
// twiddles differ per lane (tables built in field_ntt.cpp).
//
// The functions carry function-level target attributes; field_ntt.cpp calls
// them only when the CPU has AVX-512F/DQ and IFMA.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "util/cpu.hpp"

#ifdef BGV_X86_KERNELS
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#define BGV_IFMA __attribute__((target("avx512f,avx512dq,avx512ifma")))

namespace bgv {
namespace field_kernels {

using u64 = uint64_t;

constexpr u64 kLimbMask = (u64{1} << 52) - 1;
/// Extra words per limb row (a transform's rows are n + kRowPad apart).
constexpr size_t kRowPad = 40;

/// The modulus in 52-bit limbs and -t^-1 mod 2^52.
struct Field52 {
    const u64 *t;
    u64 neg_inv;
};

/// Broadcast constants of one transform.
struct Consts {
    __m512i t[5];
    __m512i two_t[5];
    __m512i neg_inv;
    __m512i mask;
};

BGV_IFMA inline Consts make_consts(const Field52 &f) {
    Consts c;
    u64 two_t[5];
    u64 carry = 0;
    for (int i = 0; i < 5; ++i) {
        const u64 v = 2 * f.t[i] + carry;
        two_t[i] = i < 4 ? (v & kLimbMask) : v;
        carry = v >> 52;
    }
    for (int i = 0; i < 5; ++i) {
        c.t[i] = _mm512_set1_epi64(static_cast<long long>(f.t[i]));
        c.two_t[i] = _mm512_set1_epi64(static_cast<long long>(two_t[i]));
    }
    c.neg_inv = _mm512_set1_epi64(static_cast<long long>(f.neg_inv));
    c.mask = _mm512_set1_epi64(static_cast<long long>(kLimbMask));
    return c;
}

/// Carries limbs that may be negative or above 52 bits into the next one.
BGV_IFMA inline void normalize(__m512i *x, const Consts &c) {
    for (int i = 0; i < 4; ++i) {
        const __m512i carry = _mm512_srai_epi64(x[i], 52);
        x[i] = _mm512_and_si512(x[i], c.mask);
        x[i + 1] = _mm512_add_epi64(x[i + 1], carry);
    }
}

/// x in [0, 2m) (normalized) -> x mod m in [0, m).
BGV_IFMA inline void cond_sub(__m512i *x, const __m512i *m, const Consts &c) {
    __m512i d[5];
    for (int i = 0; i < 5; ++i) d[i] = _mm512_sub_epi64(x[i], m[i]);
    normalize(d, c);
    const __mmask8 negative = _mm512_cmplt_epi64_mask(d[4], _mm512_setzero_si512());
    for (int i = 0; i < 5; ++i) x[i] = _mm512_mask_blend_epi64(negative, d[i], x[i]);
}

/// a * b / 2^260 mod t in [0, 2t), for normalized a, b with a * b < 2^260 * t.
BGV_IFMA inline void mont_mul(const __m512i *a, const __m512i *b, __m512i *out, const Consts &c) {
    const __m512i zero = _mm512_setzero_si512();
    __m512i acc[10];
    for (int i = 0; i < 10; ++i) acc[i] = zero;
    for (int i = 0; i < 5; ++i) {
        for (int j = 0; j < 5; ++j) {
            acc[i + j] = _mm512_madd52lo_epu64(acc[i + j], a[i], b[j]);
            acc[i + j + 1] = _mm512_madd52hi_epu64(acc[i + j + 1], a[i], b[j]);
        }
    }
    for (int i = 0; i < 5; ++i) {
        const __m512i m = _mm512_madd52lo_epu64(zero, acc[i], c.neg_inv);
        for (int j = 0; j < 5; ++j) {
            acc[i + j] = _mm512_madd52lo_epu64(acc[i + j], m, c.t[j]);
            acc[i + j + 1] = _mm512_madd52hi_epu64(acc[i + j + 1], m, c.t[j]);
        }
        acc[i + 1] = _mm512_add_epi64(acc[i + 1], _mm512_srli_epi64(acc[i], 52));
    }
    for (int i = 5; i < 9; ++i) {
        acc[i + 1] = _mm512_add_epi64(acc[i + 1], _mm512_srli_epi64(acc[i], 52));
        out[i - 5] = _mm512_and_si512(acc[i], c.mask);
    }
    out[4] = acc[9];
}

BGV_IFMA inline void load5(const u64 *rows, size_t stride, size_t at, __m512i *x) {
    for (int l = 0; l < 5; ++l) x[l] = _mm512_loadu_si512(rows + l * stride + at);
}

BGV_IFMA inline void store5(u64 *rows, size_t stride, size_t at, const __m512i *x) {
    for (int l = 0; l < 5; ++l) _mm512_storeu_si512(rows + l * stride + at, x[l]);
}

/// Cooley-Tukey on the vectors at x_at and y_at: x + w y, x - w y.
BGV_IFMA inline void forward_butterfly(u64 *rows, size_t stride, size_t x_at, size_t y_at, const __m512i *w,
                                       const Consts &c) {
    __m512i u[5], y[5], v[5], s[5], d[5];
    load5(rows, stride, x_at, u);
    load5(rows, stride, y_at, y);
    mont_mul(y, w, v, c);
    for (int l = 0; l < 5; ++l) {
        s[l] = _mm512_add_epi64(u[l], v[l]);
        d[l] = _mm512_sub_epi64(_mm512_add_epi64(u[l], c.two_t[l]), v[l]);
    }
    normalize(s, c);
    normalize(d, c);
    cond_sub(s, c.two_t, c);
    cond_sub(d, c.two_t, c);
    store5(rows, stride, x_at, s);
    store5(rows, stride, y_at, d);
}

/// Gentleman-Sande on the vectors at x_at and y_at: x + y, (x - y) w.
BGV_IFMA inline void inverse_butterfly(u64 *rows, size_t stride, size_t x_at, size_t y_at, const __m512i *w,
                                       const Consts &c) {
    __m512i u[5], v[5], s[5], d[5], p[5];
    load5(rows, stride, x_at, u);
    load5(rows, stride, y_at, v);
    for (int l = 0; l < 5; ++l) {
        s[l] = _mm512_add_epi64(u[l], v[l]);
        d[l] = _mm512_sub_epi64(_mm512_add_epi64(u[l], c.two_t[l]), v[l]);
    }
    normalize(s, c);
    normalize(d, c);
    cond_sub(s, c.two_t, c);
    mont_mul(d, w, p, c);
    store5(rows, stride, x_at, s);
    store5(rows, stride, y_at, p);
}

/// The low `bits` bits of x reversed, for 1 <= bits <= 64 (swaps of bits,
/// pairs and nibbles, then of bytes: no loop over the bits).
inline size_t bit_reverse(size_t x, unsigned bits) {
    uint64_t r = x;
    r = ((r >> 1) & 0x5555555555555555ULL) | ((r & 0x5555555555555555ULL) << 1);
    r = ((r >> 2) & 0x3333333333333333ULL) | ((r & 0x3333333333333333ULL) << 2);
    r = ((r >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((r & 0x0f0f0f0f0f0f0f0fULL) << 4);
    return static_cast<size_t>(__builtin_bswap64(r) >> (64 - bits));
}

/// Where element i sits in the transposed layout (an involution).
inline size_t transposed(size_t i) { return (i & ~size_t{63}) | ((i & 7) << 3) | ((i >> 3) & 7); }

inline void transpose_blocks(u64 *rows, size_t stride, size_t n) {
    for (size_t l = 0; l < 5; ++l) {
        u64 *row = rows + l * stride;
        for (size_t base = 0; base < n; base += 64) {
            for (size_t p = 0; p < 8; ++p) {
                for (size_t g = p + 1; g < 8; ++g) {
                    const u64 tmp = row[base + 8 * p + g];
                    row[base + 8 * p + g] = row[base + 8 * g + p];
                    row[base + 8 * g + p] = tmp;
                }
            }
        }
    }
}

/// A per-thread work buffer of at least `words` words, kept between calls
/// (a fresh one per transform costs page faults comparable to the transform).
inline u64 *scratch(size_t words) {
    thread_local std::vector<u64> buffer;
    if (buffer.size() < words) buffer.resize(words);
    return buffer.data();
}

inline void put52(u64 *rows, size_t stride, size_t at, const u64 *a) {
    rows[at] = a[0] & kLimbMask;
    rows[stride + at] = ((a[0] >> 52) | (a[1] << 12)) & kLimbMask;
    rows[2 * stride + at] = ((a[1] >> 40) | (a[2] << 24)) & kLimbMask;
    rows[3 * stride + at] = ((a[2] >> 28) | (a[3] << 36)) & kLimbMask;
    rows[4 * stride + at] = a[3] >> 16;
}

inline void get52(const u64 *rows, size_t stride, size_t at, u64 *a) {
    const u64 l0 = rows[at], l1 = rows[stride + at], l2 = rows[2 * stride + at], l3 = rows[3 * stride + at],
              l4 = rows[4 * stride + at];
    a[0] = l0 | (l1 << 52);
    a[1] = (l1 >> 12) | (l2 << 40);
    a[2] = (l2 >> 24) | (l3 << 28);
    a[3] = (l3 >> 36) | (l4 << 16);
}

/// The first per-lane twiddle vector of half-distance `half` (4, 2, 1) in a chunk's 7.
inline size_t lane_slot(size_t half) { return half == 4 ? 0 : (half == 2 ? 1 : 3); }

/// Butterflies of distance 4, 2, 1 on the transposed chunk at `base`.
template <bool Forward>
BGV_IFMA inline void chunk_stage(u64 *rows, size_t stride, size_t base, size_t half, const u64 *chunk_lanes,
                                 const Consts &c) {
    for (size_t p = 0; p < 8; ++p) {
        if ((p & half) != 0) continue;
        const u64 *tw = chunk_lanes + (lane_slot(half) + p / (2 * half)) * 40;
        __m512i w[5];
        for (int l = 0; l < 5; ++l) w[l] = _mm512_loadu_si512(tw + 8 * l);
        if (Forward) {
            forward_butterfly(rows, stride, base + 8 * p, base + 8 * (p + half), w, c);
        } else {
            inverse_butterfly(rows, stride, base + 8 * p, base + 8 * (p + half), w, c);
        }
    }
}

/// In place on n >= 64 canonical elements (4 limbs each); see FieldNttTable::forward.
BGV_IFMA inline void forward(u64 *values, size_t n, unsigned log_n, const Field52 &f, const u64 *tw,
                             const u64 *lanes) {
    const Consts c = make_consts(f);
    // Rows a little longer than n, so that the ten streams of a butterfly do
    // not all fall into the same cache sets.
    const size_t stride = n + kRowPad;
    u64 *rows = scratch(5 * stride);
    for (size_t i = 0; i < n; ++i) put52(rows, stride, i, values + 4 * i);
    size_t m = 1, half = n / 2;
    for (; half >= 8; m <<= 1, half >>= 1) {
        for (size_t i = 0; i < m; ++i) {
            __m512i w[5];
            for (int l = 0; l < 5; ++l) w[l] = _mm512_set1_epi64(static_cast<long long>(tw[5 * (m + i) + l]));
            const size_t start = 2 * i * half;
            for (size_t j = start; j < start + half; j += 8) forward_butterfly(rows, stride, j, j + half, w, c);
        }
    }
    transpose_blocks(rows, stride, n);
    for (size_t base = 0; base < n; base += 64) {
        const u64 *chunk_lanes = lanes + (base / 64) * 7 * 40;
        for (size_t h = 4; h >= 1; h >>= 1) chunk_stage<true>(rows, stride, base, h, chunk_lanes, c);
    }
    for (size_t at = 0; at < n; at += 8) {
        __m512i x[5];
        load5(rows, stride, at, x);
        cond_sub(x, c.t, c);
        store5(rows, stride, at, x);
    }
    // Rows read in order, results written to their bit-reversed places.
    for (size_t at = 0; at < n; ++at) get52(rows, stride, at, values + 4 * bit_reverse(transposed(at), log_n));
}

/// In place on n >= 64 canonical elements; see FieldNttTable::inverse.
BGV_IFMA inline void inverse(u64 *values, size_t n, unsigned log_n, const Field52 &f, const u64 *tw,
                             const u64 *lanes, const u64 *n_inv) {
    const Consts c = make_consts(f);
    // Rows a little longer than n, so that the ten streams of a butterfly do
    // not all fall into the same cache sets.
    const size_t stride = n + kRowPad;
    u64 *rows = scratch(5 * stride);
    for (size_t at = 0; at < n; ++at) put52(rows, stride, at, values + 4 * bit_reverse(transposed(at), log_n));
    for (size_t base = 0; base < n; base += 64) {
        const u64 *chunk_lanes = lanes + (base / 64) * 7 * 40;
        for (size_t h = 1; h <= 4; h <<= 1) chunk_stage<false>(rows, stride, base, h, chunk_lanes, c);
    }
    transpose_blocks(rows, stride, n);
    for (size_t half = 8; half < n; half <<= 1) {
        const size_t m = n / (2 * half);
        for (size_t i = 0; i < m; ++i) {
            __m512i w[5];
            for (int l = 0; l < 5; ++l) w[l] = _mm512_set1_epi64(static_cast<long long>(tw[5 * (m + i) + l]));
            const size_t start = 2 * i * half;
            for (size_t j = start; j < start + half; j += 8) inverse_butterfly(rows, stride, j, j + half, w, c);
        }
    }
    __m512i scale[5];
    for (int l = 0; l < 5; ++l) scale[l] = _mm512_set1_epi64(static_cast<long long>(n_inv[l]));
    for (size_t at = 0; at < n; at += 8) {
        __m512i x[5], y[5];
        load5(rows, stride, at, x);
        mont_mul(x, scale, y, c);
        cond_sub(y, c.t, c);
        store5(rows, stride, at, y);
    }
    for (size_t i = 0; i < n; ++i) get52(rows, stride, i, values + 4 * i);
}

}  // namespace field_kernels
}  // namespace bgv

#endif  // BGV_X86_KERNELS
