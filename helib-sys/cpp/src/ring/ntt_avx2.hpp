// ntt_avx2.hpp -- the whole negacyclic NTT modulo one prime on AVX2
// (NttTables::forward / inverse with CpuPath::Avx2; the butterfly blocks of
// the row transforms are in kernels_avx2.hpp, with the lane arithmetic both
// use).
//
// Same butterflies, twiddles and lazy ranges as the scalar reference
// (kernels::scalar::ntt_forward / ntt_inverse), four lanes at a time, and the
// same outputs word for word:
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

#include "ring/kernels_avx2.hpp"

#ifdef BGV_X86_KERNELS
namespace bgv {
namespace kernels {
namespace avx2 {
namespace detail {

/// Twiddles tw[0], tw[0], tw[1], tw[1] (two blocks of t = 2).
BGV_AVX2 inline __m256i pairs(const u64 *tw) {
    const __m128i two = _mm_loadu_si128(reinterpret_cast<const __m128i *>(tw));
    return _mm256_permute4x64_epi64(_mm256_castsi128_si256(two), 0x50);
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

}  // namespace detail

/// scalar::ntt_forward: input in [0, 4q), output in [0, q).
BGV_AVX2 inline void ntt_forward(u64 *a, size_t n, const u64 *roots, const u64 *roots_shoup, const Modulus &mod) {
    if (n < 8) return scalar::ntt_forward(a, n, roots, roots_shoup, mod);
    using namespace detail;
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
    using namespace detail;
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
