// ntt_kernels.hpp -- the butterfly loops of the NTT, scalar and AVX-512.
//
// A block applies one twiddle w (with Shoup factor ws) to t butterflies
// between x[0..t) and y[0..t). The AVX-512 versions handle 8 lanes at a time
// and compute the high word of a 64x64-bit product from four 32x32-bit ones.
#pragma once

#include <cstddef>

#include "modarith.hpp"

#if defined(__AVX512F__) && defined(__AVX512DQ__)
#include <immintrin.h>
#define BGV_NTT_AVX512 1
#endif

namespace bgv {
namespace kernels {

/// Cooley-Tukey: x, y in [0, 4q) -> x + w*y, x - w*y, both in [0, 4q).
inline void forward_block_scalar(u64 *__restrict x, u64 *__restrict y, size_t t, u64 w, u64 ws,
                                 const Modulus &mod) {
    const u64 two_q = 2 * mod.value();
    for (size_t j = 0; j < t; ++j) {
        u64 u = x[j];
        u = u >= two_q ? u - two_q : u;
        const u64 v = mod.mul_shoup_lazy(y[j], w, ws);
        x[j] = u + v;
        y[j] = u + two_q - v;
    }
}

/// Gentleman-Sande: x, y in [0, 2q) -> x + y, (x - y) * w, both in [0, 2q).
inline void inverse_block_scalar(u64 *__restrict x, u64 *__restrict y, size_t t, u64 w, u64 ws,
                                 const Modulus &mod) {
    const u64 two_q = 2 * mod.value();
    for (size_t j = 0; j < t; ++j) {
        const u64 u = x[j], v = y[j];
        const u64 sum = u + v;
        x[j] = sum >= two_q ? sum - two_q : sum;
        y[j] = mod.mul_shoup_lazy(u + two_q - v, w, ws);
    }
}

#ifdef BGV_NTT_AVX512

/// High 64 bits of a * b per lane, with b given as its 32-bit halves.
inline __m512i mulhi_epu64(__m512i a, __m512i b_lo, __m512i b_hi) {
    const __m512i low_mask = _mm512_set1_epi64(0xffffffffLL);
    const __m512i a_hi = _mm512_srli_epi64(a, 32);
    const __m512i p00 = _mm512_mul_epu32(a, b_lo);
    const __m512i p01 = _mm512_mul_epu32(a, b_hi);
    const __m512i p10 = _mm512_mul_epu32(a_hi, b_lo);
    const __m512i p11 = _mm512_mul_epu32(a_hi, b_hi);
    __m512i mid = _mm512_add_epi64(_mm512_srli_epi64(p00, 32), _mm512_and_si512(p01, low_mask));
    mid = _mm512_add_epi64(mid, _mm512_and_si512(p10, low_mask));
    __m512i hi = _mm512_add_epi64(p11, _mm512_srli_epi64(p01, 32));
    hi = _mm512_add_epi64(hi, _mm512_srli_epi64(p10, 32));
    return _mm512_add_epi64(hi, _mm512_srli_epi64(mid, 32));
}

/// Lazy Shoup product a * w mod q in [0, 2q) per lane.
inline __m512i mul_shoup_lazy_x8(__m512i a, __m512i w, __m512i ws_lo, __m512i ws_hi, __m512i q) {
    const __m512i estimate = mulhi_epu64(a, ws_lo, ws_hi);
    return _mm512_sub_epi64(_mm512_mullo_epi64(a, w), _mm512_mullo_epi64(estimate, q));
}

/// v - m if v >= m else v (unsigned): the wrapped difference is larger otherwise.
inline __m512i reduce_once(__m512i v, __m512i m) { return _mm512_min_epu64(v, _mm512_sub_epi64(v, m)); }

inline void forward_block(u64 *__restrict x, u64 *__restrict y, size_t t, u64 w, u64 ws, const Modulus &mod) {
    if (t % 8 != 0) return forward_block_scalar(x, y, t, w, ws, mod);
    const __m512i q = _mm512_set1_epi64(static_cast<long long>(mod.value()));
    const __m512i two_q = _mm512_add_epi64(q, q);
    const __m512i vw = _mm512_set1_epi64(static_cast<long long>(w));
    const __m512i ws_lo = _mm512_set1_epi64(static_cast<long long>(ws & 0xffffffffULL));
    const __m512i ws_hi = _mm512_set1_epi64(static_cast<long long>(ws >> 32));
    for (size_t j = 0; j < t; j += 8) {
        const __m512i u = reduce_once(_mm512_loadu_si512(x + j), two_q);
        const __m512i v = mul_shoup_lazy_x8(_mm512_loadu_si512(y + j), vw, ws_lo, ws_hi, q);
        _mm512_storeu_si512(x + j, _mm512_add_epi64(u, v));
        _mm512_storeu_si512(y + j, _mm512_sub_epi64(_mm512_add_epi64(u, two_q), v));
    }
}

inline void inverse_block(u64 *__restrict x, u64 *__restrict y, size_t t, u64 w, u64 ws, const Modulus &mod) {
    if (t % 8 != 0) return inverse_block_scalar(x, y, t, w, ws, mod);
    const __m512i q = _mm512_set1_epi64(static_cast<long long>(mod.value()));
    const __m512i two_q = _mm512_add_epi64(q, q);
    const __m512i vw = _mm512_set1_epi64(static_cast<long long>(w));
    const __m512i ws_lo = _mm512_set1_epi64(static_cast<long long>(ws & 0xffffffffULL));
    const __m512i ws_hi = _mm512_set1_epi64(static_cast<long long>(ws >> 32));
    for (size_t j = 0; j < t; j += 8) {
        const __m512i u = _mm512_loadu_si512(x + j), v = _mm512_loadu_si512(y + j);
        _mm512_storeu_si512(x + j, reduce_once(_mm512_add_epi64(u, v), two_q));
        const __m512i diff = _mm512_sub_epi64(_mm512_add_epi64(u, two_q), v);
        _mm512_storeu_si512(y + j, mul_shoup_lazy_x8(diff, vw, ws_lo, ws_hi, q));
    }
}

/// values[j] = values[j] * w mod q in [0, q), for inputs below 2^64 and n % 8 == 0.
inline void scale(u64 *values, size_t n, u64 w, u64 ws, const Modulus &mod) {
    const __m512i q = _mm512_set1_epi64(static_cast<long long>(mod.value()));
    const __m512i vw = _mm512_set1_epi64(static_cast<long long>(w));
    const __m512i ws_lo = _mm512_set1_epi64(static_cast<long long>(ws & 0xffffffffULL));
    const __m512i ws_hi = _mm512_set1_epi64(static_cast<long long>(ws >> 32));
    for (size_t j = 0; j < n; j += 8) {
        const __m512i r = mul_shoup_lazy_x8(_mm512_loadu_si512(values + j), vw, ws_lo, ws_hi, q);
        _mm512_storeu_si512(values + j, reduce_once(r, q));
    }
}

#else

inline void forward_block(u64 *x, u64 *y, size_t t, u64 w, u64 ws, const Modulus &mod) {
    forward_block_scalar(x, y, t, w, ws, mod);
}
inline void inverse_block(u64 *x, u64 *y, size_t t, u64 w, u64 ws, const Modulus &mod) {
    inverse_block_scalar(x, y, t, w, ws, mod);
}
inline void scale(u64 *values, size_t n, u64 w, u64 ws, const Modulus &mod) {
    for (size_t j = 0; j < n; ++j) values[j] = mod.mul_shoup(values[j], w, ws);
}

#endif

}  // namespace kernels
}  // namespace bgv
