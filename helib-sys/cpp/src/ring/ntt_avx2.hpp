// ntt_avx2.hpp -- the negacyclic NTT modulo one prime on AVX2
// (NttTables::forward / inverse / forward_rows / inverse_rows with
// CpuPath::Avx2).
//
// Same butterflies, twiddles and lazy ranges as the scalar reference
// (kernels::scalar::ntt_forward / ntt_inverse), four lanes at a time, and the
// same outputs word for word:
// - AVX2 has no 64x64-bit multiply: the Shoup estimate floor(a ws / 2^64) is
//   computed exactly from four 32x32-bit products (as avx512::mulhi_epu64),
//   and the low word of a w - estimate q from six more, so each lazy product
//   is the very word Modulus::mul_shoup_lazy gives;
// - AVX2 has no unsigned 64-bit compare: every conditional subtraction here
//   takes v < 2m with m = q or 2q (q < 2^62, so m < 2^63), where the sign bit
//   of v - m says whether v >= m, and a blend on it picks v or v - m;
// - the stages whose blocks span at least 4 words run block by block, one
//   stage per pass (AVX2's 16 registers do not hold the radix-4 passes of
//   ntt_avx512.hpp without spilling: they measured slower); the two narrowest
//   (t = 2 and t = 1) run together on 8 consecutive words held in two
//   vectors, rearranged in registers between them;
// - the inverse's scaling by n^-1 is folded into its last stage (twiddle
//   w n^-1 for the difference, n^-1 for the sum), as in ntt_avx512.hpp.
// Lengths below 8 use the scalar kernels.
#pragma once

#include <cstddef>

#include "ring/ntt_kernels.hpp"
#include "util/modarith.hpp"

#ifdef BGV_X86_KERNELS
#define BGV_AVX2 __attribute__((target("avx2")))

namespace bgv {
namespace kernels {
namespace avx2 {
namespace ntt_detail {

/// The modulus in every lane: q, its high halves, 2q, and the mask of the
/// low 32 bits.
struct Lanes {
    __m256i q, q_hi, two_q, low32;
};

BGV_AVX2 inline Lanes lanes(const Modulus &mod) {
    const __m256i q = _mm256_set1_epi64x(static_cast<long long>(mod.value()));
    return {q, _mm256_srli_epi64(q, 32), _mm256_add_epi64(q, q), _mm256_set1_epi64x(0xffffffffLL)};
}

/// A twiddle per lane with its Shoup factor, each also as its high halves
/// (_mm256_mul_epu32 reads the low half of each lane of the whole words).
struct Twiddle {
    __m256i w, w_hi, ws, ws_hi;
};

BGV_AVX2 inline Twiddle twiddle(__m256i w, __m256i ws) {
    return {w, _mm256_srli_epi64(w, 32), ws, _mm256_srli_epi64(ws, 32)};
}
BGV_AVX2 inline Twiddle twiddle(u64 w, u64 ws) {
    return twiddle(_mm256_set1_epi64x(static_cast<long long>(w)), _mm256_set1_epi64x(static_cast<long long>(ws)));
}

BGV_AVX2 inline __m256i load(const u64 *p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)); }
BGV_AVX2 inline void store(u64 *p, __m256i v) { _mm256_storeu_si256(reinterpret_cast<__m256i *>(p), v); }

/// Twiddles tw[0], tw[0], tw[1], tw[1] (two blocks of t = 2).
BGV_AVX2 inline __m256i pairs(const u64 *tw) {
    const __m128i two = _mm_loadu_si128(reinterpret_cast<const __m128i *>(tw));
    return _mm256_permute4x64_epi64(_mm256_castsi128_si256(two), 0x50);
}

/// v - m if v >= m else v, for v < 2m and m < 2^63: v - m is then below 2^63
/// when v >= m and wraps above it otherwise, so its sign bit is the borrow.
BGV_AVX2 inline __m256i reduce_once(__m256i v, __m256i m) {
    const __m256i d = _mm256_sub_epi64(v, m);
    return _mm256_castpd_si256(
        _mm256_blendv_pd(_mm256_castsi256_pd(d), _mm256_castsi256_pd(v), _mm256_castsi256_pd(d)));
}

/// Lazy Shoup product a * w mod q in [0, 2q) per lane, for any a: the word
/// Modulus::mul_shoup_lazy gives.
BGV_AVX2 inline __m256i mul_shoup_lazy(__m256i a, const Twiddle &w, const Lanes &c) {
    const __m256i a_hi = _mm256_srli_epi64(a, 32);
    // The estimate: the high word of a ws from its four partial products; the
    // two cross products each absorb one carry word without overflow.
    const __m256i p00 = _mm256_mul_epu32(a, w.ws);
    const __m256i p01 = _mm256_mul_epu32(a, w.ws_hi);
    const __m256i p10 = _mm256_mul_epu32(a_hi, w.ws);
    const __m256i p11 = _mm256_mul_epu32(a_hi, w.ws_hi);
    const __m256i mid = _mm256_add_epi64(p10, _mm256_srli_epi64(p00, 32));
    const __m256i mid2 = _mm256_add_epi64(p01, _mm256_and_si256(mid, c.low32));
    const __m256i est =
        _mm256_add_epi64(_mm256_add_epi64(p11, _mm256_srli_epi64(mid, 32)), _mm256_srli_epi64(mid2, 32));
    // The low word of a w - est q: the low-half products, then the cross terms
    // (only their low halves matter) summed before one shift.
    const __m256i est_hi = _mm256_srli_epi64(est, 32);
    const __m256i low = _mm256_sub_epi64(_mm256_mul_epu32(a, w.w), _mm256_mul_epu32(est, c.q));
    const __m256i cross = _mm256_sub_epi64(_mm256_add_epi64(_mm256_mul_epu32(a, w.w_hi), _mm256_mul_epu32(a_hi, w.w)),
                                           _mm256_add_epi64(_mm256_mul_epu32(est, c.q_hi), _mm256_mul_epu32(est_hi, c.q)));
    return _mm256_add_epi64(low, _mm256_slli_epi64(cross, 32));
}

/// Cooley-Tukey: x, y in [0, 4q) -> x + w y, x - w y, both in [0, 4q) (scalar::forward_block).
BGV_AVX2 inline void forward_butterfly(__m256i &x, __m256i &y, const Twiddle &w, const Lanes &c) {
    const __m256i u = reduce_once(x, c.two_q);
    const __m256i v = mul_shoup_lazy(y, w, c);
    x = _mm256_add_epi64(u, v);
    y = _mm256_sub_epi64(_mm256_add_epi64(u, c.two_q), v);
}

/// Gentleman-Sande: x, y in [0, 2q) -> x + y, (x - y) w, both in [0, 2q) (scalar::inverse_block).
BGV_AVX2 inline void inverse_butterfly(__m256i &x, __m256i &y, const Twiddle &w, const Lanes &c) {
    const __m256i d = _mm256_sub_epi64(_mm256_add_epi64(x, c.two_q), y);
    x = reduce_once(_mm256_add_epi64(x, y), c.two_q);
    y = mul_shoup_lazy(d, w, c);
}

/// The last inverse butterfly with the scaling folded in: x, y in [0, 2q) ->
/// (x + y) n^-1, (x - y) w n^-1, both in [0, q) (`scale` is n^-1, `w` is
/// w n^-1).
BGV_AVX2 inline void inverse_butterfly_scaled(__m256i &x, __m256i &y, const Twiddle &scale, const Twiddle &w,
                                              const Lanes &c) {
    const __m256i d = _mm256_sub_epi64(_mm256_add_epi64(x, c.two_q), y);
    const __m256i s = _mm256_add_epi64(x, y);
    x = reduce_once(mul_shoup_lazy(s, scale, c), c.q);
    y = reduce_once(mul_shoup_lazy(d, w, c), c.q);
}

/// The two butterflies as types, for `butterflies` to call inline.
struct Forward {
    BGV_AVX2 void operator()(__m256i &x, __m256i &y, const Twiddle &w, const Lanes &c) const {
        forward_butterfly(x, y, w, c);
    }
};
struct Inverse {
    BGV_AVX2 void operator()(__m256i &x, __m256i &y, const Twiddle &w, const Lanes &c) const {
        inverse_butterfly(x, y, w, c);
    }
};

/// `butterfly` with twiddle w on x[j], y[j] for j in [0, t), four lanes at
/// a time (t % 4 == 0).
template <class Butterfly>
BGV_AVX2 inline void butterflies(u64 *__restrict x, u64 *__restrict y, size_t t, const Twiddle &w, const Lanes &c,
                                 Butterfly butterfly) {
    for (size_t j = 0; j < t; j += 4) {
        __m256i u = load(x + j), v = load(y + j);
        butterfly(u, v, w, c);
        store(x + j, u);
        store(y + j, v);
    }
}

// The two narrowest stages on 8 consecutive words p[0..8): with t = 2 the
// pairs are (0, 2), (1, 3) (block 2b) and (4, 6), (5, 7) (block 2b + 1); with
// t = 1 they are (0, 1), (2, 3), (4, 5), (6, 7) (blocks 4b .. 4b + 3). From
// lo = p[0..4) and hi = p[4..8), vperm2i128 gives X = words 0 1 4 5 and
// Y = 2 3 6 7 (the t = 2 pairs, twiddles w w w' w'); vpunpck{l,h}qdq of those
// gives 0 2 4 6 and 1 3 5 7 (the t = 1 pairs, twiddles in table order), and
// the same unpacks applied again give back 0 1 4 5 and 2 3 6 7.

/// The forward stages t = 2 and t = 1 with the final reduction: inputs in
/// [0, 4q), outputs in [0, q). n >= 8.
BGV_AVX2 inline void forward_tail(u64 *a, size_t n, const u64 *roots, const u64 *roots_shoup, const Lanes &c) {
    const size_t m2 = n / 4, m1 = n / 2;
    for (size_t b = 0; b < n / 8; ++b) {
        u64 *p = a + 8 * b;
        const __m256i lo = load(p), hi = load(p + 4);
        __m256i x = _mm256_permute2x128_si256(lo, hi, 0x20);
        __m256i y = _mm256_permute2x128_si256(lo, hi, 0x31);
        forward_butterfly(x, y, twiddle(pairs(roots + m2 + 2 * b), pairs(roots_shoup + m2 + 2 * b)), c);
        __m256i even = _mm256_unpacklo_epi64(x, y), odd = _mm256_unpackhi_epi64(x, y);
        forward_butterfly(even, odd, twiddle(load(roots + m1 + 4 * b), load(roots_shoup + m1 + 4 * b)), c);
        even = reduce_once(reduce_once(even, c.two_q), c.q);
        odd = reduce_once(reduce_once(odd, c.two_q), c.q);
        x = _mm256_unpacklo_epi64(even, odd);
        y = _mm256_unpackhi_epi64(even, odd);
        store(p, _mm256_permute2x128_si256(x, y, 0x20));
        store(p + 4, _mm256_permute2x128_si256(x, y, 0x31));
    }
}

/// The inverse stages t = 1 and t = 2: values in [0, 2q) stay in [0, 2q). n >= 8.
BGV_AVX2 inline void inverse_head(u64 *a, size_t n, const u64 *inv_roots, const u64 *inv_roots_shoup,
                                  const Lanes &c) {
    const size_t h1 = n / 2, h2 = n / 4;
    for (size_t b = 0; b < n / 8; ++b) {
        u64 *p = a + 8 * b;
        const __m256i lo = load(p), hi = load(p + 4);
        const __m256i x = _mm256_permute2x128_si256(lo, hi, 0x20);
        const __m256i y = _mm256_permute2x128_si256(lo, hi, 0x31);
        __m256i even = _mm256_unpacklo_epi64(x, y), odd = _mm256_unpackhi_epi64(x, y);
        inverse_butterfly(even, odd, twiddle(load(inv_roots + h1 + 4 * b), load(inv_roots_shoup + h1 + 4 * b)), c);
        __m256i u = _mm256_unpacklo_epi64(even, odd), v = _mm256_unpackhi_epi64(even, odd);
        inverse_butterfly(u, v, twiddle(pairs(inv_roots + h2 + 2 * b), pairs(inv_roots_shoup + h2 + 2 * b)), c);
        store(p, _mm256_permute2x128_si256(u, v, 0x20));
        store(p + 4, _mm256_permute2x128_si256(u, v, 0x31));
    }
}

}  // namespace ntt_detail

/// scalar::forward_block for t % 4 == 0 (other t take the scalar kernel).
BGV_AVX2 inline void forward_block(u64 *__restrict x, u64 *__restrict y, size_t t, u64 w, u64 ws, const Modulus &mod) {
    if (t % 4 != 0) return scalar::forward_block(x, y, t, w, ws, mod);
    using namespace ntt_detail;
    butterflies(x, y, t, twiddle(w, ws), lanes(mod), Forward{});
}

/// scalar::inverse_block for t % 4 == 0 (other t take the scalar kernel).
BGV_AVX2 inline void inverse_block(u64 *__restrict x, u64 *__restrict y, size_t t, u64 w, u64 ws, const Modulus &mod) {
    if (t % 4 != 0) return scalar::inverse_block(x, y, t, w, ws, mod);
    using namespace ntt_detail;
    butterflies(x, y, t, twiddle(w, ws), lanes(mod), Inverse{});
}

/// scalar::reduce_from_4q: values[j] in [0, 4q) -> values[j] mod q, for n % 4 == 0.
BGV_AVX2 inline void reduce_from_4q(u64 *values, size_t n, const Modulus &mod) {
    using namespace ntt_detail;
    const Lanes c = lanes(mod);
    for (size_t j = 0; j < n; j += 4) store(values + j, reduce_once(reduce_once(load(values + j), c.two_q), c.q));
}

/// scalar::scale: values[j] = values[j] * w mod q in [0, q), for n % 4 == 0.
BGV_AVX2 inline void scale(u64 *values, size_t n, u64 w, u64 ws, const Modulus &mod) {
    using namespace ntt_detail;
    const Lanes c = lanes(mod);
    const Twiddle vw = twiddle(w, ws);
    for (size_t j = 0; j < n; j += 4) store(values + j, reduce_once(mul_shoup_lazy(load(values + j), vw, c), c.q));
}

/// scalar::forward_rows_stage (rows of `width` words, width % 4 == 0).
BGV_AVX2 inline void forward_rows_stage(u64 *rows, size_t m, size_t t, size_t width, const u64 *roots,
                                        const u64 *roots_shoup, const Modulus &mod) {
    for (size_t i = 0; i < m; ++i) {
        for (size_t j = 0; j < t; ++j) {
            u64 *x = rows + (2 * i * t + j) * width;
            forward_block(x, x + t * width, width, roots[m + i], roots_shoup[m + i], mod);
        }
    }
}

/// scalar::inverse_rows_stage (rows of `width` words, width % 4 == 0).
BGV_AVX2 inline void inverse_rows_stage(u64 *rows, size_t h, size_t t, size_t width, const u64 *inv_roots,
                                        const u64 *inv_roots_shoup, const Modulus &mod) {
    for (size_t i = 0; i < h; ++i) {
        for (size_t j = 0; j < t; ++j) {
            u64 *x = rows + (2 * i * t + j) * width;
            inverse_block(x, x + t * width, width, inv_roots[h + i], inv_roots_shoup[h + i], mod);
        }
    }
}

/// scalar::ntt_forward: input in [0, 4q), output in [0, q).
BGV_AVX2 inline void ntt_forward(u64 *a, size_t n, const u64 *roots, const u64 *roots_shoup, const Modulus &mod) {
    if (n < 8) return scalar::ntt_forward(a, n, roots, roots_shoup, mod);
    using namespace ntt_detail;
    const Lanes c = lanes(mod);
    // The stages with t >= 4 (m = 1, 2, ..., n / 8), one pass each.
    for (size_t m = 1, t = n / 2; t >= 4; m <<= 1, t >>= 1) {
        for (size_t i = 0; i < m; ++i) {
            u64 *x = a + 2 * i * t;
            butterflies(x, x + t, t, twiddle(roots[m + i], roots_shoup[m + i]), c, Forward{});
        }
    }
    forward_tail(a, n, roots, roots_shoup, c);
}

/// scalar::ntt_inverse: input in [0, 2q), output in [0, q). `last` and
/// `last_shoup` are inv_roots[1] n^-1 and its Shoup factor.
BGV_AVX2 inline void ntt_inverse(u64 *a, size_t n, const u64 *inv_roots, const u64 *inv_roots_shoup, u64 n_inv,
                                 u64 n_inv_shoup, u64 last, u64 last_shoup, const Modulus &mod) {
    if (n < 8) return scalar::ntt_inverse(a, n, inv_roots, inv_roots_shoup, n_inv, n_inv_shoup, mod);
    using namespace ntt_detail;
    const Lanes c = lanes(mod);
    inverse_head(a, n, inv_roots, inv_roots_shoup, c);
    // The stages with 4 <= t < n / 2 (h = n / 16, ..., 2), one pass each.
    size_t t = 4;
    for (size_t h = n / 8; h >= 2; h >>= 1, t <<= 1) {
        for (size_t i = 0; i < h; ++i) {
            u64 *x = a + 2 * i * t;
            butterflies(x, x + t, t, twiddle(inv_roots[h + i], inv_roots_shoup[h + i]), c, Inverse{});
        }
    }
    // The last stage (t = n / 2: one block, twiddle inv_roots[1]) with the scaling.
    const Twiddle scale_tw = twiddle(n_inv, n_inv_shoup), last_tw = twiddle(last, last_shoup);
    u64 *x = a, *y = a + t;
    for (size_t j = 0; j < t; j += 4) {
        __m256i u = load(x + j), v = load(y + j);
        inverse_butterfly_scaled(u, v, scale_tw, last_tw, c);
        store(x + j, u);
        store(y + j, v);
    }
}

}  // namespace avx2
}  // namespace kernels
}  // namespace bgv
#endif
