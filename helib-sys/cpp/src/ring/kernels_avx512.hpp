// kernels_avx512.hpp -- the element kernels on AVX-512 (8 lanes): the high
// word of a 64x64-bit product from four 32x32-bit ones, compiled with a
// function-level target attribute. Same contracts and outputs as
// kernels_scalar.hpp. The kernels that row transforms and block products
// call on rows of any width (the butterfly blocks, reduce_from_4q, scale,
// multiply_montgomery) finish a length that is not a multiple
// of 8 with the scalar kernel; the others take whole ring rows (n % 8 == 0),
// as each says. The whole single-prime NTT is in ntt_avx512.hpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ring/kernels_scalar.hpp"
#include "ring/simd.hpp"

namespace bgv {
namespace kernels {

#ifdef BGV_X86_KERNELS
namespace avx512 {


/// High 64 bits of a * b per lane, with b given as its 32-bit halves (only
/// the low 32 bits of each lane of b_lo are read). Four 32x32-bit products;
/// the two cross products each absorb one carry word without overflow
/// ((2^32 - 1)^2 + 2 (2^32 - 1) < 2^64), so the sum needs no masking of the
/// high words and one masking only.
BGV_AVX512 inline __m512i mulhi_epu64(__m512i a, __m512i b_lo, __m512i b_hi) {
    const __m512i a_hi = _mm512_srli_epi64(a, 32);
    const __m512i p00 = _mm512_mul_epu32(a, b_lo);
    const __m512i p01 = _mm512_mul_epu32(a, b_hi);
    const __m512i p10 = _mm512_mul_epu32(a_hi, b_lo);
    const __m512i p11 = _mm512_mul_epu32(a_hi, b_hi);
    // t = a_hi b_lo + (a_lo b_lo >> 32); u = a_lo b_hi + (t mod 2^32); the
    // product is p11 2^64 + (t >> 32) 2^64 + u 2^32 + (p00 mod 2^32).
    const __m512i t = _mm512_add_epi64(p10, _mm512_srli_epi64(p00, 32));
    const __m512i u = _mm512_add_epi64(p01, _mm512_and_si512(t, _mm512_set1_epi64(0xffffffffLL)));
    return _mm512_add_epi64(_mm512_add_epi64(p11, _mm512_srli_epi64(t, 32)), _mm512_srli_epi64(u, 32));
}

/// A constant w per lane with its Shoup factor ws = floor(w 2^64 / q), ws
/// taken apart for mulhi_epu64: ws_lo holds ws or its low half (only the low
/// 32 bits of each lane are read), ws_hi its high half.
struct ShoupX8 {
    __m512i w, ws_lo, ws_hi;
};

BGV_AVX512 inline ShoupX8 broadcast_shoup(u64 w, u64 ws) {
    return {_mm512_set1_epi64(static_cast<long long>(w)), _mm512_set1_epi64(static_cast<long long>(ws & 0xffffffffULL)),
            _mm512_set1_epi64(static_cast<long long>(ws >> 32))};
}

/// Lazy Shoup product a * w mod q in [0, 2q) per lane.
BGV_AVX512 inline __m512i mul_shoup_lazy_x8(__m512i a, const ShoupX8 &w, __m512i q) {
    const __m512i estimate = mulhi_epu64(a, w.ws_lo, w.ws_hi);
    return _mm512_sub_epi64(_mm512_mullo_epi64(a, w.w), _mm512_mullo_epi64(estimate, q));
}

/// v - m if v >= m else v (unsigned): the wrapped difference is larger otherwise.
BGV_AVX512 inline __m512i reduce_once(__m512i v, __m512i m) { return _mm512_min_epu64(v, _mm512_sub_epi64(v, m)); }

BGV_AVX512 inline void forward_block(u64 *__restrict x, u64 *__restrict y, size_t t, u64 w, u64 ws, const Modulus &mod) {
    if (t % 8 != 0) return scalar::forward_block(x, y, t, w, ws, mod);
    const __m512i q = _mm512_set1_epi64(static_cast<long long>(mod.value()));
    const __m512i two_q = _mm512_add_epi64(q, q);
    const ShoupX8 vw = broadcast_shoup(w, ws);
    for (size_t j = 0; j < t; j += 8) {
        const __m512i u = reduce_once(_mm512_loadu_si512(x + j), two_q);
        const __m512i v = mul_shoup_lazy_x8(_mm512_loadu_si512(y + j), vw, q);
        _mm512_storeu_si512(x + j, _mm512_add_epi64(u, v));
        _mm512_storeu_si512(y + j, _mm512_sub_epi64(_mm512_add_epi64(u, two_q), v));
    }
}

BGV_AVX512 inline void inverse_block(u64 *__restrict x, u64 *__restrict y, size_t t, u64 w, u64 ws, const Modulus &mod) {
    if (t % 8 != 0) return scalar::inverse_block(x, y, t, w, ws, mod);
    const __m512i q = _mm512_set1_epi64(static_cast<long long>(mod.value()));
    const __m512i two_q = _mm512_add_epi64(q, q);
    const ShoupX8 vw = broadcast_shoup(w, ws);
    for (size_t j = 0; j < t; j += 8) {
        const __m512i u = _mm512_loadu_si512(x + j), v = _mm512_loadu_si512(y + j);
        _mm512_storeu_si512(x + j, reduce_once(_mm512_add_epi64(u, v), two_q));
        const __m512i diff = _mm512_sub_epi64(_mm512_add_epi64(u, two_q), v);
        _mm512_storeu_si512(y + j, mul_shoup_lazy_x8(diff, vw, q));
    }
}

/// values[j] in [0, 4q) -> values[j] mod q (the last n % 8 by the scalar kernel).
BGV_AVX512 inline void reduce_from_4q(u64 *values, size_t n, const Modulus &mod) {
    const __m512i q = _mm512_set1_epi64(static_cast<long long>(mod.value()));
    const __m512i two_q = _mm512_add_epi64(q, q);
    const size_t whole = n - n % 8;
    for (size_t j = 0; j < whole; j += 8) {
        const __m512i v = reduce_once(_mm512_loadu_si512(values + j), two_q);
        _mm512_storeu_si512(values + j, reduce_once(v, q));
    }
    scalar::reduce_from_4q(values + whole, n - whole, mod);
}

/// values[j] = values[j] * w mod q in [0, q), for inputs below 2^64 (the
/// last n % 8 by the scalar kernel).
BGV_AVX512 inline void scale(u64 *values, size_t n, u64 w, u64 ws, const Modulus &mod) {
    const __m512i q = _mm512_set1_epi64(static_cast<long long>(mod.value()));
    const ShoupX8 vw = broadcast_shoup(w, ws);
    const size_t whole = n - n % 8;
    for (size_t j = 0; j < whole; j += 8) {
        const __m512i r = mul_shoup_lazy_x8(_mm512_loadu_si512(values + j), vw, q);
        _mm512_storeu_si512(values + j, reduce_once(r, q));
    }
    scalar::scale(values + whole, n - whole, w, ws, mod);
}

/// out[j] = e[j] * w (+ plus[j]) mod q in [0, q) for signed e[j] with |e[j]| < q
/// (w < q with Shoup factor ws; `plus` may be null, else its values are < q); a
/// length that is not a multiple of 8 takes the scalar kernel.
/// Constant time in e: the residue of e[j] is e[j] + (q masked by its sign), the
/// product a lazy Shoup product, and every correction a vector minimum. No branch and
/// no address depends on e, which holds secret errors in encryption: a table indexed
/// by e[j] would leak them through the cache.
BGV_AVX512 inline void scale_small(const int32_t *e, const u64 *plus, u64 *out, size_t n, u64 w, u64 ws, const Modulus &mod) {
    if (n % 8 != 0) return scalar::scale_small(e, plus, out, n, w, ws, mod);
    const __m512i q = _mm512_set1_epi64(static_cast<long long>(mod.value()));
    const ShoupX8 vw = broadcast_shoup(w, ws);
    for (size_t j = 0; j < n; j += 8) {
        __m512i v = _mm512_cvtepi32_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(e + j)));
        v = _mm512_add_epi64(v, _mm512_and_si512(_mm512_srai_epi64(v, 63), q));
        __m512i r = reduce_once(mul_shoup_lazy_x8(v, vw, q), q);
        if (plus != nullptr) r = reduce_once(_mm512_add_epi64(r, _mm512_loadu_si512(plus + j)), q);
        _mm512_storeu_si512(out + j, r);
    }
}

/// Montgomery product a * b * 2^-64 mod q per lane (a, b < q < 2^62).
BGV_AVX512 inline __m512i mul_montgomery_x8(__m512i a, __m512i b, __m512i q, __m512i q_hi, __m512i q_inv) {
    const __m512i low = _mm512_mullo_epi64(a, b);
    const __m512i high = mulhi_epu64(a, b, _mm512_srli_epi64(b, 32));
    const __m512i m = _mm512_mullo_epi64(low, q_inv);
    const __m512i correction = mulhi_epu64(m, q, q_hi);
    const __m512i r = _mm512_sub_epi64(high, correction);
    return _mm512_mask_add_epi64(r, _mm512_cmplt_epu64_mask(high, correction), r, q);
}

/// out[j] = sum_s y[s * stride + j] * hat[s] mod p (hat with Shoup factors; the
/// last n % 8 by the scalar kernel).
BGV_AVX512 inline void base_convert_row(u64 *out, const u64 *y, size_t sources, size_t stride, size_t n,
                                        const u64 *hat, const u64 *hat_shoup, const Modulus &mod) {
    const __m512i p = _mm512_set1_epi64(static_cast<long long>(mod.value()));
    const __m512i two_p = _mm512_add_epi64(p, p);
    const size_t whole = n - n % 8;
    for (size_t j = 0; j < whole; j += 8) {
        __m512i acc = _mm512_setzero_si512();
        for (size_t s = 0; s < sources; ++s) {
            const ShoupX8 w = broadcast_shoup(hat[s], hat_shoup[s]);
            const __m512i v = mul_shoup_lazy_x8(_mm512_loadu_si512(y + s * stride + j), w, p);
            acc = reduce_once(_mm512_add_epi64(acc, v), two_p);
        }
        _mm512_storeu_si512(out + j, reduce_once(acc, p));
    }
    scalar::base_convert_row(out + whole, y + whole, sources, stride, n - whole, hat, hat_shoup, mod);
}

/// (lo, hi) += a * b as 128-bit lanes.
BGV_AVX512 inline void accumulate_product(__m512i &lo, __m512i &hi, __m512i a, __m512i b) {
    const __m512i product_lo = _mm512_mullo_epi64(a, b);
    const __m512i product_hi = mulhi_epu64(a, b, _mm512_srli_epi64(b, 32));
    lo = _mm512_add_epi64(lo, product_lo);
    const __mmask8 carry = _mm512_cmplt_epu64_mask(lo, product_lo);
    hi = _mm512_add_epi64(hi, product_hi);
    hi = _mm512_mask_add_epi64(hi, carry, hi, _mm512_set1_epi64(1));
}

/// Montgomery reduction (hi * 2^64 + lo) * 2^-64 mod q in [0, q), for hi < q.
BGV_AVX512 inline __m512i reduce_montgomery_x8(__m512i lo, __m512i hi, __m512i q, __m512i q_hi, __m512i q_inv) {
    const __m512i correction = mulhi_epu64(_mm512_mullo_epi64(lo, q_inv), q, q_hi);
    const __m512i r = _mm512_sub_epi64(hi, correction);
    return _mm512_mask_add_epi64(r, _mm512_cmplt_epu64_mask(hi, correction), r, q);
}

/// out0[k] = sum_t v_t[k'] * x_t[k] * 2^-64 mod q and out1[k] the same with
/// y_t, k' = perm[k] when `perm` is given (else k): Montgomery dot products
/// (one factor of each product in Montgomery form gives the plain sum) with
/// one reduction per terms_per_reduction() terms. A length that is not a
/// multiple of 8 takes the scalar kernel.
BGV_AVX512 inline void dot_product_pair(u64 *out0, u64 *out1, const u64 *const *v, const uint32_t *perm, const u64 *const *x,
                             const u64 *const *y, size_t terms, size_t len, const Modulus &mod) {
    if (len % 8 != 0) return scalar::dot_product_pair(out0, out1, v, perm, x, y, terms, len, mod);
    const __m512i q = _mm512_set1_epi64(static_cast<long long>(mod.value()));
    const __m512i q_hi = _mm512_srli_epi64(q, 32);
    const __m512i q_inv = _mm512_set1_epi64(static_cast<long long>(mod.inverse_mod_word()));
    const size_t chunk = terms_per_reduction(mod);
    for (size_t j = 0; j < len; j += 8) {
        const __m256i index =
            perm != nullptr ? _mm256_loadu_si256(reinterpret_cast<const __m256i *>(perm + j)) : _mm256_setzero_si256();
        __m512i r0 = _mm512_setzero_si512(), r1 = _mm512_setzero_si512();
        for (size_t first = 0; first < terms; first += chunk) {
            const size_t last = std::min(terms, first + chunk);
            __m512i lo0 = _mm512_setzero_si512(), hi0 = lo0, lo1 = lo0, hi1 = lo0;
            for (size_t t = first; t < last; ++t) {
                const __m512i a = perm != nullptr
                                      ? _mm512_i32gather_epi64(index, reinterpret_cast<const long long *>(v[t]), 8)
                                      : _mm512_loadu_si512(v[t] + j);
                accumulate_product(lo0, hi0, a, _mm512_loadu_si512(x[t] + j));
                accumulate_product(lo1, hi1, a, _mm512_loadu_si512(y[t] + j));
            }
            r0 = reduce_once(_mm512_add_epi64(r0, reduce_montgomery_x8(lo0, hi0, q, q_hi, q_inv)), q);
            r1 = reduce_once(_mm512_add_epi64(r1, reduce_montgomery_x8(lo1, hi1, q, q_hi, q_inv)), q);
        }
        _mm512_storeu_si512(out0 + j, r0);
        _mm512_storeu_si512(out1 + j, r1);
    }
}

/// r = (r - k * w) * t mod p for small k (the CRT overflow count) per lane (the
/// last n % 8 by the scalar kernel).
BGV_AVX512 inline void subtract_multiple_then_scale(u64 *r, const u64 *k, u64 w, u64 ws, u64 t, u64 ts, size_t n,
                                         const Modulus &mod) {
    const __m512i p = _mm512_set1_epi64(static_cast<long long>(mod.value()));
    const ShoupX8 vw = broadcast_shoup(w, ws);
    const ShoupX8 vt = broadcast_shoup(t, ts);
    const size_t whole = n - n % 8;
    for (size_t j = 0; j < whole; j += 8) {
        const __m512i x = _mm512_loadu_si512(r + j);
        const __m512i c = reduce_once(mul_shoup_lazy_x8(_mm512_loadu_si512(k + j), vw, p), p);
        __m512i d = _mm512_sub_epi64(x, c);
        d = _mm512_mask_add_epi64(d, _mm512_cmplt_epu64_mask(x, c), d, p);
        _mm512_storeu_si512(r + j, reduce_once(mul_shoup_lazy_x8(d, vt, p), p));
    }
    scalar::subtract_multiple_then_scale(r + whole, k + whole, w, ws, t, ts, n - whole, mod);
}

/// r = (src + r) * w mod p per lane (inputs < p; the last n % 8 by the scalar
/// kernel).
BGV_AVX512 inline void add_then_scale(u64 *r, const u64 *src, u64 w, u64 ws, size_t n, const Modulus &mod) {
    const __m512i p = _mm512_set1_epi64(static_cast<long long>(mod.value()));
    const ShoupX8 vw = broadcast_shoup(w, ws);
    const size_t whole = n - n % 8;
    for (size_t j = 0; j < whole; j += 8) {
        const __m512i s = reduce_once(_mm512_add_epi64(_mm512_loadu_si512(src + j), _mm512_loadu_si512(r + j)), p);
        _mm512_storeu_si512(r + j, reduce_once(mul_shoup_lazy_x8(s, vw, p), p));
    }
    scalar::add_then_scale(r + whole, src + whole, w, ws, n - whole, mod);
}

/// out = mont(a, b) (or out + mont(a, b) with `accumulate`), b in Montgomery form
/// (the last n % 8 by the scalar kernel: block products pass any width).
BGV_AVX512 inline void multiply_montgomery(u64 *out, const u64 *a, const u64 *b, size_t n, const Modulus &mod, bool accumulate) {
    const __m512i q = _mm512_set1_epi64(static_cast<long long>(mod.value()));
    const __m512i q_hi = _mm512_srli_epi64(q, 32);
    const __m512i q_inv = _mm512_set1_epi64(static_cast<long long>(mod.inverse_mod_word()));
    const size_t whole = n - n % 8;
    for (size_t j = 0; j < whole; j += 8) {
        __m512i v = mul_montgomery_x8(_mm512_loadu_si512(a + j), _mm512_loadu_si512(b + j), q, q_hi, q_inv);
        if (accumulate) v = reduce_once(_mm512_add_epi64(v, _mm512_loadu_si512(out + j)), q);
        _mm512_storeu_si512(out + j, v);
    }
    scalar::multiply_montgomery(out + whole, a + whole, b + whole, n - whole, mod, accumulate);
}

BGV_AVX512 inline void key_switch_key_row(u64 *b, u64 *a, const u64 *s, const u64 *g, const uint32_t *perm,
                                          u64 w, u64 ws, u64 v, u64 vs, size_t n, const Modulus &mod) {
    if (n % 8 != 0) return scalar::key_switch_key_row(b, a, s, g, perm, w, ws, v, vs, n, mod);
    const __m512i q = _mm512_set1_epi64(static_cast<long long>(mod.value()));
    const __m512i q_hi = _mm512_srli_epi64(q, 32);
    const __m512i q_inv = _mm512_set1_epi64(static_cast<long long>(mod.inverse_mod_word()));
    const ShoupX8 vw = broadcast_shoup(w, ws);
    const ShoupX8 vv = broadcast_shoup(v, vs);
    for (size_t j = 0; j < n; j += 8) {
        const __m512i aw = reduce_once(mul_shoup_lazy_x8(_mm512_loadu_si512(a + j), vw, q), q);
        _mm512_storeu_si512(a + j, aw);
        const __m512i te = _mm512_loadu_si512(b + j);
        const __m512i as = mul_montgomery_x8(aw, _mm512_loadu_si512(s + j), q, q_hi, q_inv);
        __m512i r = _mm512_sub_epi64(te, as);
        r = _mm512_mask_add_epi64(r, _mm512_cmplt_epu64_mask(te, as), r, q);
        if (g != nullptr) {
            const __m512i x =
                perm != nullptr
                    ? _mm512_i32gather_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(perm + j)),
                                             reinterpret_cast<const long long *>(g), 8)
                    : _mm512_loadu_si512(g + j);
            const __m512i gv = reduce_once(mul_shoup_lazy_x8(x, vv, q), q);
            r = reduce_once(_mm512_add_epi64(r, gv), q);
        }
        _mm512_storeu_si512(b + j, r);
    }
}

/// forward_stage on rows of `width` words (NttTables::forward_rows).
BGV_AVX512 inline void forward_rows_stage(u64 *rows, size_t m, size_t t, size_t width, const u64 *roots,
                                   const u64 *roots_shoup, const Modulus &mod) {
    for (size_t i = 0; i < m; ++i) {
        for (size_t j = 0; j < t; ++j) {
            u64 *x = rows + (2 * i * t + j) * width;
            forward_block(x, x + t * width, width, roots[m + i], roots_shoup[m + i], mod);
        }
    }
}

/// inverse_stage on rows of `width` words (NttTables::inverse_rows).
BGV_AVX512 inline void inverse_rows_stage(u64 *rows, size_t h, size_t t, size_t width, const u64 *inv_roots,
                                   const u64 *inv_roots_shoup, const Modulus &mod) {
    for (size_t i = 0; i < h; ++i) {
        for (size_t j = 0; j < t; ++j) {
            u64 *x = rows + (2 * i * t + j) * width;
            inverse_block(x, x + t * width, width, inv_roots[h + i], inv_roots_shoup[h + i], mod);
        }
    }
}

}  // namespace avx512
#endif

}  // namespace kernels
}  // namespace bgv
