// ntt_avx512.hpp -- the whole negacyclic NTT modulo one prime on AVX-512
// (NttTables::forward / inverse with CpuPath::Avx512).
//
// Same butterflies, twiddles and lazy ranges as the scalar reference
// (kernels::scalar::ntt_forward / ntt_inverse), and the same outputs word for
// word (they are fully reduced), with fewer passes over memory:
// - the stages whose blocks span at least 16 words run two at a time, each
//   pass loading four vectors (x0..x3), applying both stages' butterflies in
//   registers and storing them once (radix-4 passes; one radix-2 pass when the
//   count is odd);
// - the four narrowest stages (t = 8, 4, 2, 1) run on 16 consecutive words
//   held in two vectors, permuted between stages so that each stage pairs lane
//   l of one vector with lane l of the other, and arranged so that each
//   stage's twiddles are one broadcast or one contiguous load (see Layout);
// - the inverse's scaling by n^-1 is folded into its last stage (twiddle
//   w n^-1 for the difference, n^-1 for the sum).
#pragma once

#include <cstddef>

#include "ring/kernels_avx512.hpp"
#include "util/modarith.hpp"

#ifdef BGV_X86_KERNELS
namespace bgv {
namespace kernels {
namespace avx512 {
namespace ntt_detail {

/// A twiddle per lane with its Shoup factor (whole in ws_lo, whose low halves
/// mulhi_epu64 reads, and its high halves in ws_hi).
using Twiddle = ShoupX8;

BGV_AVX512 inline Twiddle twiddle(__m512i w, __m512i ws) { return {w, ws, _mm512_srli_epi64(ws, 32)}; }
BGV_AVX512 inline Twiddle twiddle(u64 w, u64 ws) {
    return twiddle(_mm512_set1_epi64(static_cast<long long>(w)), _mm512_set1_epi64(static_cast<long long>(ws)));
}
/// Twiddles tw[0], tw[1] repeated four times (lane l gets tw[l % 2]).
BGV_AVX512 inline __m512i repeat2(const u64 *tw) {
    return _mm512_broadcast_i64x2(_mm_loadu_si128(reinterpret_cast<const __m128i *>(tw)));
}
/// Twiddles tw[0..4) repeated twice (lane l gets tw[l % 4]).
BGV_AVX512 inline __m512i repeat4(const u64 *tw) {
    return _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(tw)));
}

/// Cooley-Tukey: x, y in [0, 4q) -> x + w y, x - w y, both in [0, 4q) (scalar::forward_block).
BGV_AVX512 inline void forward_butterfly(__m512i &x, __m512i &y, const Twiddle &w, __m512i q, __m512i two_q) {
    const __m512i u = reduce_once(x, two_q);
    const __m512i v = mul_shoup_lazy_x8(y, w, q);
    x = _mm512_add_epi64(u, v);
    y = _mm512_sub_epi64(_mm512_add_epi64(u, two_q), v);
}

/// Gentleman-Sande: x, y in [0, 2q) -> x + y, (x - y) w, both in [0, 2q) (scalar::inverse_block).
BGV_AVX512 inline void inverse_butterfly(__m512i &x, __m512i &y, const Twiddle &w, __m512i q, __m512i two_q) {
    const __m512i d = _mm512_sub_epi64(_mm512_add_epi64(x, two_q), y);
    x = reduce_once(_mm512_add_epi64(x, y), two_q);
    y = mul_shoup_lazy_x8(d, w, q);
}

/// The last inverse butterfly with the scaling folded in: x, y in [0, 2q) ->
/// (x + y) n^-1, (x - y) w n^-1, both in [0, q) (`scale` is n^-1, `twiddle`
/// is w n^-1).
BGV_AVX512 inline void inverse_butterfly_scaled(__m512i &x, __m512i &y, const Twiddle &scale, const Twiddle &w,
                                                __m512i q, __m512i two_q) {
    const __m512i d = _mm512_sub_epi64(_mm512_add_epi64(x, two_q), y);
    const __m512i s = _mm512_add_epi64(x, y);
    x = reduce_once(mul_shoup_lazy_x8(s, scale, q), q);
    y = reduce_once(mul_shoup_lazy_x8(d, w, q), q);
}

/// Where the 16 words of a block of the four narrowest stages sit in the two
/// vectors X, Y: position p (bits b3 b2 b1 b0) is in Y when bit `pair` of p is
/// set, else in X, at the lane whose bit k is bit source[k] of p. The stage
/// with t = 2^pair pairs lane l of X with lane l of Y. The layouts below put
/// the twiddle index of each stage (the bits of p above `pair`) in the low lane
/// bits, so t = 8 has one twiddle for all lanes, t = 4 two repeated (lane
/// bit 0 = b3), t = 2 four repeated (lane bits 1, 0 = b3, b2) and t = 1 eight
/// in order (lane = b3 b2 b1).
struct Layout {
    unsigned pair;
    unsigned source[3];
};
constexpr Layout kT8{3, {0, 1, 2}};  // also the natural order: X = words 0..7, Y = words 8..15
constexpr Layout kT4{2, {3, 0, 1}};
constexpr Layout kT2{1, {2, 3, 0}};
constexpr Layout kT1{0, {1, 2, 3}};

inline unsigned position(const Layout &layout, unsigned half, unsigned lane) {
    unsigned p = half << layout.pair;
    for (unsigned k = 0; k < 3; ++k) p |= ((lane >> k) & 1u) << layout.source[k];
    return p;
}

/// The _mm512_permutex2var_epi64 indices that build vector `half` of layout
/// `to` from the vectors (X, Y) of layout `from`.
BGV_AVX512 inline __m512i relayout(const Layout &from, const Layout &to, unsigned half) {
    alignas(64) long long index[8];
    for (unsigned lane = 0; lane < 8; ++lane) {
        const unsigned p = position(to, half, lane);
        unsigned from_lane = 0;
        for (unsigned k = 0; k < 3; ++k) from_lane |= ((p >> from.source[k]) & 1u) << k;
        index[lane] = static_cast<long long>((((p >> from.pair) & 1u) << 3) | from_lane);
    }
    return _mm512_load_si512(index);
}

struct Relayout {
    __m512i x, y;
};
BGV_AVX512 inline Relayout relayout(const Layout &from, const Layout &to) {
    return {relayout(from, to, 0), relayout(from, to, 1)};
}
BGV_AVX512 inline void apply(const Relayout &r, __m512i &x, __m512i &y) {
    const __m512i nx = _mm512_permutex2var_epi64(x, r.x, y);
    y = _mm512_permutex2var_epi64(x, r.y, y);
    x = nx;
}

/// Two forward stages, m blocks of t words then 2m blocks of t / 2 (t / 2 a
/// multiple of 8), in one pass: values in [0, 4q) stay in [0, 4q).
BGV_AVX512 inline void forward_radix4(u64 *a, size_t m, size_t t, const u64 *roots, const u64 *roots_shoup, __m512i q,
                                      __m512i two_q) {
    const size_t h = t / 2;
    for (size_t i = 0; i < m; ++i) {
        const Twiddle w1 = twiddle(roots[m + i], roots_shoup[m + i]);
        const Twiddle w2 = twiddle(roots[2 * m + 2 * i], roots_shoup[2 * m + 2 * i]);
        const Twiddle w3 = twiddle(roots[2 * m + 2 * i + 1], roots_shoup[2 * m + 2 * i + 1]);
        u64 *p0 = a + 2 * i * t, *p1 = p0 + h, *p2 = p0 + t, *p3 = p2 + h;
        for (size_t j = 0; j < h; j += 8) {
            __m512i x0 = _mm512_loadu_si512(p0 + j), x1 = _mm512_loadu_si512(p1 + j);
            __m512i x2 = _mm512_loadu_si512(p2 + j), x3 = _mm512_loadu_si512(p3 + j);
            forward_butterfly(x0, x2, w1, q, two_q);
            forward_butterfly(x1, x3, w1, q, two_q);
            forward_butterfly(x0, x1, w2, q, two_q);
            forward_butterfly(x2, x3, w3, q, two_q);
            _mm512_storeu_si512(p0 + j, x0);
            _mm512_storeu_si512(p1 + j, x1);
            _mm512_storeu_si512(p2 + j, x2);
            _mm512_storeu_si512(p3 + j, x3);
        }
    }
}

/// The four last forward stages (t = 8, 4, 2, 1) on each block of 16 words,
/// with the final reduction: inputs in [0, 4q), outputs in [0, q). n >= 16.
BGV_AVX512 inline void forward_tail(u64 *a, size_t n, const u64 *roots, const u64 *roots_shoup, __m512i q,
                                    __m512i two_q) {
    const Relayout to4 = relayout(kT8, kT4), to2 = relayout(kT4, kT2), to1 = relayout(kT2, kT1);
    const Relayout back = relayout(kT1, kT8);
    const size_t m8 = n / 16, m4 = n / 8, m2 = n / 4, m1 = n / 2;
    for (size_t b = 0; b < m8; ++b) {
        u64 *p = a + 16 * b;
        __m512i x = _mm512_loadu_si512(p), y = _mm512_loadu_si512(p + 8);
        forward_butterfly(x, y, twiddle(roots[m8 + b], roots_shoup[m8 + b]), q, two_q);
        apply(to4, x, y);
        forward_butterfly(x, y, twiddle(repeat2(roots + m4 + 2 * b), repeat2(roots_shoup + m4 + 2 * b)), q, two_q);
        apply(to2, x, y);
        forward_butterfly(x, y, twiddle(repeat4(roots + m2 + 4 * b), repeat4(roots_shoup + m2 + 4 * b)), q, two_q);
        apply(to1, x, y);
        const Twiddle w1 = twiddle(_mm512_loadu_si512(roots + m1 + 8 * b), _mm512_loadu_si512(roots_shoup + m1 + 8 * b));
        forward_butterfly(x, y, w1, q, two_q);
        x = reduce_once(reduce_once(x, two_q), q);
        y = reduce_once(reduce_once(y, two_q), q);
        apply(back, x, y);
        _mm512_storeu_si512(p, x);
        _mm512_storeu_si512(p + 8, y);
    }
}

/// The four first inverse stages (t = 1, 2, 4, 8) on each block of 16 words:
/// values in [0, 2q) stay in [0, 2q). n >= 16.
BGV_AVX512 inline void inverse_head(u64 *a, size_t n, const u64 *inv_roots, const u64 *inv_roots_shoup, __m512i q,
                                    __m512i two_q) {
    const Relayout to1 = relayout(kT8, kT1), to2 = relayout(kT1, kT2), to4 = relayout(kT2, kT4);
    const Relayout to8 = relayout(kT4, kT8);
    const size_t h1 = n / 2, h2 = n / 4, h4 = n / 8, h8 = n / 16;
    for (size_t b = 0; b < h8; ++b) {
        u64 *p = a + 16 * b;
        __m512i x = _mm512_loadu_si512(p), y = _mm512_loadu_si512(p + 8);
        apply(to1, x, y);
        const Twiddle w1 =
            twiddle(_mm512_loadu_si512(inv_roots + h1 + 8 * b), _mm512_loadu_si512(inv_roots_shoup + h1 + 8 * b));
        inverse_butterfly(x, y, w1, q, two_q);
        apply(to2, x, y);
        inverse_butterfly(x, y, twiddle(repeat4(inv_roots + h2 + 4 * b), repeat4(inv_roots_shoup + h2 + 4 * b)), q,
                          two_q);
        apply(to4, x, y);
        inverse_butterfly(x, y, twiddle(repeat2(inv_roots + h4 + 2 * b), repeat2(inv_roots_shoup + h4 + 2 * b)), q,
                          two_q);
        apply(to8, x, y);
        inverse_butterfly(x, y, twiddle(inv_roots[h8 + b], inv_roots_shoup[h8 + b]), q, two_q);
        _mm512_storeu_si512(p, x);
        _mm512_storeu_si512(p + 8, y);
    }
}

/// Two inverse stages, h blocks of t words (t a multiple of 8) then h / 2
/// blocks of 2t, in one pass: values in [0, 2q) stay in [0, 2q); when h = 2
/// the second stage is the last one and `scaled` gives its outputs times
/// n^-1 in [0, q) (`scale` = n^-1, `last` = inv_roots[1] n^-1).
BGV_AVX512 inline void inverse_radix4(u64 *a, size_t h, size_t t, const u64 *inv_roots, const u64 *inv_roots_shoup,
                                      const Twiddle &scale, const Twiddle &last, __m512i q, __m512i two_q) {
    const bool scaled = h == 2;
    for (size_t i = 0; i < h / 2; ++i) {
        const Twiddle wa = twiddle(inv_roots[h + 2 * i], inv_roots_shoup[h + 2 * i]);
        const Twiddle wb = twiddle(inv_roots[h + 2 * i + 1], inv_roots_shoup[h + 2 * i + 1]);
        const Twiddle wc = twiddle(inv_roots[h / 2 + i], inv_roots_shoup[h / 2 + i]);
        u64 *p0 = a + 4 * i * t, *p1 = p0 + t, *p2 = p1 + t, *p3 = p2 + t;
        for (size_t j = 0; j < t; j += 8) {
            __m512i x0 = _mm512_loadu_si512(p0 + j), x1 = _mm512_loadu_si512(p1 + j);
            __m512i x2 = _mm512_loadu_si512(p2 + j), x3 = _mm512_loadu_si512(p3 + j);
            inverse_butterfly(x0, x1, wa, q, two_q);
            inverse_butterfly(x2, x3, wb, q, two_q);
            if (scaled) {
                inverse_butterfly_scaled(x0, x2, scale, last, q, two_q);
                inverse_butterfly_scaled(x1, x3, scale, last, q, two_q);
            } else {
                inverse_butterfly(x0, x2, wc, q, two_q);
                inverse_butterfly(x1, x3, wc, q, two_q);
            }
            _mm512_storeu_si512(p0 + j, x0);
            _mm512_storeu_si512(p1 + j, x1);
            _mm512_storeu_si512(p2 + j, x2);
            _mm512_storeu_si512(p3 + j, x3);
        }
    }
}

}  // namespace ntt_detail

/// scalar::ntt_forward: input in [0, 4q), output in [0, q).
BGV_AVX512 inline void ntt_forward(u64 *a, size_t n, const u64 *roots, const u64 *roots_shoup, const Modulus &mod) {
    if (n < 16) return scalar::ntt_forward(a, n, roots, roots_shoup, mod);
    using namespace ntt_detail;
    const __m512i q = _mm512_set1_epi64(static_cast<long long>(mod.value()));
    const __m512i two_q = _mm512_add_epi64(q, q);
    // The stages with t >= 16 (m = 1, 2, ..., n / 32), two per pass after a
    // single one when their count is odd.
    size_t m = 1, t = n / 2;
    unsigned wide = 0;
    for (size_t s = n; s > 16; s >>= 1) ++wide;
    if (wide % 2 == 1) {
        forward_block(a, a + t, t, roots[1], roots_shoup[1], mod);
        m = 2;
        t /= 2;
    }
    for (; t >= 32; m *= 4, t /= 4) forward_radix4(a, m, t, roots, roots_shoup, q, two_q);
    forward_tail(a, n, roots, roots_shoup, q, two_q);
}

/// scalar::ntt_inverse: input in [0, 2q), output in [0, q). `last` and
/// `last_shoup` are inv_roots[1] n^-1 and its Shoup factor.
BGV_AVX512 inline void ntt_inverse(u64 *a, size_t n, const u64 *inv_roots, const u64 *inv_roots_shoup, u64 n_inv,
                                   u64 n_inv_shoup, u64 last, u64 last_shoup, const Modulus &mod) {
    if (n < 16) return scalar::ntt_inverse(a, n, inv_roots, inv_roots_shoup, n_inv, n_inv_shoup, mod);
    using namespace ntt_detail;
    const __m512i q = _mm512_set1_epi64(static_cast<long long>(mod.value()));
    const __m512i two_q = _mm512_add_epi64(q, q);
    const Twiddle scale_tw = twiddle(n_inv, n_inv_shoup), last_tw = twiddle(last, last_shoup);
    inverse_head(a, n, inv_roots, inv_roots_shoup, q, two_q);
    if (n == 16) return scale(a, n, n_inv, n_inv_shoup, mod);
    // The stages with t >= 16 (h = n / 32, ..., 2, 1), two per pass; the last
    // one alone (with the scaling) when their count is odd.
    size_t h = n / 32, t = 16;
    for (; h >= 2; h /= 4, t *= 4) inverse_radix4(a, h, t, inv_roots, inv_roots_shoup, scale_tw, last_tw, q, two_q);
    if (h == 1) {
        // t = n / 2: one block, twiddle inv_roots[1].
        u64 *x = a, *y = a + t;
        for (size_t j = 0; j < t; j += 8) {
            __m512i u = _mm512_loadu_si512(x + j), v = _mm512_loadu_si512(y + j);
            inverse_butterfly_scaled(u, v, scale_tw, last_tw, q, two_q);
            _mm512_storeu_si512(x + j, u);
            _mm512_storeu_si512(y + j, v);
        }
    }
}

}  // namespace avx512
}  // namespace kernels
}  // namespace bgv
#endif
