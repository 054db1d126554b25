// kernels_avx2.hpp -- the element kernels on AVX2 (4 lanes): the NTT's
// butterfly blocks, the reductions and scalings of every residue row, and the
// base conversion of key switching and modulus switching. Same contracts and
// outputs, word for word, as kernels_scalar.hpp, for any length (the last
// n % 4 words take the scalar kernel). The kernels AVX2 has no version of
// are the scalar ones (the `using` declarations at the end), so kernels::X
// (ntt_kernels.hpp) picks among three complete sets. The whole single-prime
// NTT is in ntt_avx2.hpp.
//
// - AVX2 has no 64x64-bit multiply: the Shoup estimate floor(a ws / 2^64) is
//   computed exactly from four 32x32-bit products (as avx512::mulhi_epu64),
//   and the low word of a w - estimate q from six more, so each lazy product
//   is the very word Modulus::mul_shoup_lazy gives;
// - AVX2 has no unsigned 64-bit compare: every conditional subtraction here
//   takes v < 2m with m = q or 2q (q < 2^62, so m < 2^63), where the sign bit
//   of v - m says whether v >= m, and a blend on it picks v or v - m.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ring/kernels_scalar.hpp"
#include "ring/simd.hpp"

#ifdef BGV_X86_KERNELS
namespace bgv {
namespace kernels {
namespace avx2 {
namespace detail {

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

}  // namespace detail

/// scalar::forward_block for t % 4 == 0 (other t take the scalar kernel).
BGV_AVX2 inline void forward_block(u64 *__restrict x, u64 *__restrict y, size_t t, u64 w, u64 ws, const Modulus &mod) {
    if (t % 4 != 0) return scalar::forward_block(x, y, t, w, ws, mod);
    using namespace detail;
    butterflies(x, y, t, twiddle(w, ws), lanes(mod), Forward{});
}

/// scalar::inverse_block for t % 4 == 0 (other t take the scalar kernel).
BGV_AVX2 inline void inverse_block(u64 *__restrict x, u64 *__restrict y, size_t t, u64 w, u64 ws, const Modulus &mod) {
    if (t % 4 != 0) return scalar::inverse_block(x, y, t, w, ws, mod);
    using namespace detail;
    butterflies(x, y, t, twiddle(w, ws), lanes(mod), Inverse{});
}

/// scalar::reduce_from_4q: values[j] in [0, 4q) -> values[j] mod q.
BGV_AVX2 inline void reduce_from_4q(u64 *values, size_t n, const Modulus &mod) {
    using namespace detail;
    const Lanes c = lanes(mod);
    const size_t whole = n - n % 4;
    for (size_t j = 0; j < whole; j += 4) store(values + j, reduce_once(reduce_once(load(values + j), c.two_q), c.q));
    scalar::reduce_from_4q(values + whole, n - whole, mod);
}

/// scalar::scale: values[j] = values[j] * w mod q in [0, q), for any values.
BGV_AVX2 inline void scale(u64 *values, size_t n, u64 w, u64 ws, const Modulus &mod) {
    using namespace detail;
    const Lanes c = lanes(mod);
    const Twiddle vw = twiddle(w, ws);
    const size_t whole = n - n % 4;
    for (size_t j = 0; j < whole; j += 4) store(values + j, reduce_once(mul_shoup_lazy(load(values + j), vw, c), c.q));
    scalar::scale(values + whole, n - whole, w, ws, mod);
}

/// scalar::base_convert_row: out[j] = sum_s y[s * stride + j] * hat[s] mod p.
/// Each term is a lazy product in [0, 2p), the running sum is kept in
/// [0, 2p) and reduced once at the end.
BGV_AVX2 inline void base_convert_row(u64 *out, const u64 *y, size_t sources, size_t stride, size_t n,
                                      const u64 *hat, const u64 *hat_shoup, const Modulus &mod) {
    using namespace detail;
    const Lanes c = lanes(mod);
    const size_t whole = n - n % 4;
    for (size_t j = 0; j < whole; j += 4) {
        __m256i acc = _mm256_setzero_si256();
        for (size_t s = 0; s < sources; ++s) {
            const __m256i term = mul_shoup_lazy(load(y + s * stride + j), twiddle(hat[s], hat_shoup[s]), c);
            acc = reduce_once(_mm256_add_epi64(acc, term), c.two_q);
        }
        store(out + j, reduce_once(acc, c.q));
    }
    scalar::base_convert_row(out + whole, y + whole, sources, stride, n - whole, hat, hat_shoup, mod);
}

/// scalar::subtract_multiple_then_scale: r[j] = (r[j] - k[j] w) t mod p (r < p).
BGV_AVX2 inline void subtract_multiple_then_scale(u64 *r, const u64 *k, u64 w, u64 ws, u64 t, u64 ts, size_t n,
                                                  const Modulus &mod) {
    using namespace detail;
    const Lanes c = lanes(mod);
    const Twiddle vw = twiddle(w, ws), vt = twiddle(t, ts);
    const size_t whole = n - n % 4;
    for (size_t j = 0; j < whole; j += 4) {
        const __m256i multiple = reduce_once(mul_shoup_lazy(load(k + j), vw, c), c.q);
        const __m256i difference = reduce_once(_mm256_sub_epi64(_mm256_add_epi64(load(r + j), c.q), multiple), c.q);
        store(r + j, reduce_once(mul_shoup_lazy(difference, vt, c), c.q));
    }
    scalar::subtract_multiple_then_scale(r + whole, k + whole, w, ws, t, ts, n - whole, mod);
}

/// scalar::add_then_scale: r[j] = (src[j] + r[j]) w mod p (inputs < p).
BGV_AVX2 inline void add_then_scale(u64 *r, const u64 *src, u64 w, u64 ws, size_t n, const Modulus &mod) {
    using namespace detail;
    const Lanes c = lanes(mod);
    const Twiddle vw = twiddle(w, ws);
    const size_t whole = n - n % 4;
    for (size_t j = 0; j < whole; j += 4) {
        const __m256i sum = _mm256_add_epi64(load(src + j), load(r + j));
        store(r + j, reduce_once(mul_shoup_lazy(sum, vw, c), c.q));
    }
    scalar::add_then_scale(r + whole, src + whole, w, ws, n - whole, mod);
}

/// scalar::forward_rows_stage (rows of `width` words; a width that is not a
/// multiple of 4 takes the scalar blocks).
BGV_AVX2 inline void forward_rows_stage(u64 *rows, size_t m, size_t t, size_t width, const u64 *roots,
                                        const u64 *roots_shoup, const Modulus &mod) {
    for (size_t i = 0; i < m; ++i) {
        for (size_t j = 0; j < t; ++j) {
            u64 *x = rows + (2 * i * t + j) * width;
            forward_block(x, x + t * width, width, roots[m + i], roots_shoup[m + i], mod);
        }
    }
}

/// scalar::inverse_rows_stage (rows of `width` words, as forward_rows_stage).
BGV_AVX2 inline void inverse_rows_stage(u64 *rows, size_t h, size_t t, size_t width, const u64 *inv_roots,
                                        const u64 *inv_roots_shoup, const Modulus &mod) {
    for (size_t i = 0; i < h; ++i) {
        for (size_t j = 0; j < t; ++j) {
            u64 *x = rows + (2 * i * t + j) * width;
            inverse_block(x, x + t * width, width, inv_roots[h + i], inv_roots_shoup[h + i], mod);
        }
    }
}

// No AVX2 versions: 64-bit Montgomery products and their sums need the
// full 128-bit product, which costs AVX2 more 32x32-bit multiplies than the
// scalar mulx; the constant-time small-error scaling stays scalar too.
using scalar::dot_product_pair;
using scalar::key_switch_key_row;
using scalar::multiply_montgomery;
using scalar::scale_small;

}  // namespace avx2
}  // namespace kernels
}  // namespace bgv
#endif
