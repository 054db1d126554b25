// kernels_scalar.hpp -- the portable element kernels of the engine (NTT
// butterflies and whole transforms, Montgomery products, base conversion,
// scalings): any length, and the reference the vector versions
// (kernels_avx2.hpp, kernels_avx512.hpp) are tested against. Callers use
// kernels::X (ntt_kernels.hpp), which picks the path.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "util/modarith.hpp"

namespace bgv {
namespace kernels {

/// Terms per 128-bit Montgomery accumulation: sums of products below q^2 must
/// stay below q * 2^64 for one reduction to be exact.
inline size_t terms_per_reduction(const Modulus &mod) { return static_cast<size_t>(~u64{0} / mod.value()); }

/// Portable versions (also the reference the vector ones are tested against).
namespace scalar {

/// Cooley-Tukey: x, y in [0, 4q) -> x + w*y, x - w*y, both in [0, 4q).
inline void forward_block(u64 *__restrict x, u64 *__restrict y, size_t t, u64 w, u64 ws,
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
inline void inverse_block(u64 *__restrict x, u64 *__restrict y, size_t t, u64 w, u64 ws,
                                 const Modulus &mod) {
    const u64 two_q = 2 * mod.value();
    for (size_t j = 0; j < t; ++j) {
        const u64 u = x[j], v = y[j];
        const u64 sum = u + v;
        x[j] = sum >= two_q ? sum - two_q : sum;
        y[j] = mod.mul_shoup_lazy(u + two_q - v, w, ws);
    }
}


inline void reduce_from_4q(u64 *values, size_t n, const Modulus &mod) {
    const u64 q = mod.value(), two_q = 2 * q;
    for (size_t j = 0; j < n; ++j) {
        u64 v = values[j];
        v = v >= two_q ? v - two_q : v;
        values[j] = v >= q ? v - q : v;
    }
}

inline void multiply_montgomery(u64 *out, const u64 *a, const u64 *b, size_t n, const Modulus &mod, bool accumulate) {
    for (size_t j = 0; j < n; ++j) {
        const u64 v = mod.mul_montgomery(a[j], b[j]);
        out[j] = accumulate ? mod.add(out[j], v) : v;
    }
}

inline void dot_product_pair(u64 *out0, u64 *out1, const u64 *const *v, const uint32_t *perm, const u64 *const *x,
                             const u64 *const *y, size_t terms, size_t len, const Modulus &mod) {
    const size_t chunk = terms_per_reduction(mod);
    for (size_t j = 0; j < len; ++j) {
        const size_t k = perm != nullptr ? perm[j] : j;
        u64 r0 = 0, r1 = 0;
        for (size_t first = 0; first < terms; first += chunk) {
            const size_t last = std::min(terms, first + chunk);
            u128 sum0 = 0, sum1 = 0;
            for (size_t t = first; t < last; ++t) {
                sum0 += static_cast<u128>(v[t][k]) * x[t][j];
                sum1 += static_cast<u128>(v[t][k]) * y[t][j];
            }
            r0 = mod.add(r0, mod.reduce_montgomery(sum0));
            r1 = mod.add(r1, mod.reduce_montgomery(sum1));
        }
        out0[j] = r0;
        out1[j] = r1;
    }
}

inline void subtract_multiple_then_scale(u64 *r, const u64 *k, u64 w, u64 ws, u64 t, u64 ts, size_t n,
                                         const Modulus &mod) {
    for (size_t j = 0; j < n; ++j) r[j] = mod.mul_shoup(mod.sub(r[j], mod.mul_shoup(k[j], w, ws)), t, ts);
}

inline void add_then_scale(u64 *r, const u64 *src, u64 w, u64 ws, size_t n, const Modulus &mod) {
    for (size_t j = 0; j < n; ++j) r[j] = mod.mul_shoup(mod.add(src[j], r[j]), w, ws);
}

/// out[j] = sum_s y[s * stride + j] * hat[s] mod p: source s's row starts at y + s * stride.
inline void base_convert_row(u64 *out, const u64 *y, size_t sources, size_t stride, size_t n, const u64 *hat,
                             const u64 *hat_shoup, const Modulus &mod) {
    for (size_t j = 0; j < n; ++j) {
        u64 acc = 0;
        for (size_t s = 0; s < sources; ++s) acc = mod.add(acc, mod.mul_shoup(y[s * stride + j], hat[s], hat_shoup[s]));
        out[j] = acc;
    }
}

inline void scale(u64 *values, size_t n, u64 w, u64 ws, const Modulus &mod) {
    for (size_t j = 0; j < n; ++j) values[j] = mod.mul_shoup(values[j], w, ws);
}
inline void scale_small(const int32_t *e, const u64 *plus, u64 *out, size_t n, u64 w, u64 ws, const Modulus &mod) {
    for (size_t j = 0; j < n; ++j) {
        const u64 r = mod.mul_shoup(mod.from_small(e[j]), w, ws);
        out[j] = plus != nullptr ? mod.add(r, plus[j]) : r;
    }
}

/// One residue row of a key-switching key, in Montgomery form, with the
/// uniform row scaled in the same pass: a[j] = a[j] * w mod q (in place), then
/// b[j] = b[j] - a[j] * s[j] * 2^-64 (+ g[k] * v with k = perm[j], or j without
/// `perm`, when g is given) mod q, with the scaled a[j]. On entry b holds
/// NTT(t e) in Montgomery form (< q), a the uniform residues (< q), s and g
/// residues in Montgomery form; w, v < q with Shoup factors.
inline void key_switch_key_row(u64 *b, u64 *a, const u64 *s, const u64 *g, const uint32_t *perm, u64 w,
                               u64 ws, u64 v, u64 vs, size_t n, const Modulus &mod) {
    for (size_t j = 0; j < n; ++j) {
        const u64 aw = mod.mul_shoup(a[j], w, ws);
        a[j] = aw;
        u64 r = mod.sub(b[j], mod.mul_montgomery(aw, s[j]));
        if (g != nullptr) r = mod.add(r, mod.mul_shoup(g[perm != nullptr ? perm[j] : j], v, vs));
        b[j] = r;
    }
}

/// The last forward stage (t = 1, block i with twiddle roots[m + i]) with the
/// final reduction folded in: inputs in [0, 4q), outputs in [0, q).
inline void forward_last_stage(u64 *a, size_t m, const u64 *roots, const u64 *roots_shoup, const Modulus &mod) {
    const u64 q = mod.value(), two_q = 2 * q;
    for (size_t i = 0; i < m; ++i) {
        const u64 w = roots[m + i], ws = roots_shoup[m + i];
        u64 u = a[2 * i];
        u = u >= two_q ? u - two_q : u;
        const u64 v = mod.mul_shoup_lazy(a[2 * i + 1], w, ws);
        u64 x = u + v, y = u + two_q - v;
        x = x >= two_q ? x - two_q : x;
        y = y >= two_q ? y - two_q : y;
        a[2 * i] = x >= q ? x - q : x;
        a[2 * i + 1] = y >= q ? y - q : y;
    }
}

/// One stage of the forward transform: m blocks of t butterflies, block i
/// with twiddle roots[m + i].
inline void forward_stage(u64 *a, size_t m, size_t t, const u64 *roots, const u64 *roots_shoup,
                              const Modulus &mod) {
    for (size_t i = 0; i < m; ++i) forward_block(a + 2 * i * t, a + 2 * i * t + t, t, roots[m + i], roots_shoup[m + i], mod);
}

/// One stage of the inverse transform: h blocks of t butterflies, block i with
/// twiddle inv_roots[h + i].
inline void inverse_stage(u64 *a, size_t h, size_t t, const u64 *inv_roots, const u64 *inv_roots_shoup,
                              const Modulus &mod) {
    for (size_t i = 0; i < h; ++i) {
        inverse_block(a + 2 * i * t, a + 2 * i * t + t, t, inv_roots[h + i], inv_roots_shoup[h + i], mod);
    }
}

/// forward_stage on rows of `width` words (NttTables::forward_rows).
inline void forward_rows_stage(u64 *rows, size_t m, size_t t, size_t width, const u64 *roots,
                                   const u64 *roots_shoup, const Modulus &mod) {
    for (size_t i = 0; i < m; ++i) {
        for (size_t j = 0; j < t; ++j) {
            u64 *x = rows + (2 * i * t + j) * width;
            forward_block(x, x + t * width, width, roots[m + i], roots_shoup[m + i], mod);
        }
    }
}

/// inverse_stage on rows of `width` words (NttTables::inverse_rows).
inline void inverse_rows_stage(u64 *rows, size_t h, size_t t, size_t width, const u64 *inv_roots,
                                   const u64 *inv_roots_shoup, const Modulus &mod) {
    for (size_t i = 0; i < h; ++i) {
        for (size_t j = 0; j < t; ++j) {
            u64 *x = rows + (2 * i * t + j) * width;
            inverse_block(x, x + t * width, width, inv_roots[h + i], inv_roots_shoup[h + i], mod);
        }
    }
}

/// The whole forward transform of length n (NttTables::forward): stages m = 1,
/// 2, ..., n / 2 with t = n / (2m), values kept in [0, 4q), the last stage
/// reducing to [0, q). The reference the vector versions must match.
inline void ntt_forward(u64 *a, size_t n, const u64 *roots, const u64 *roots_shoup, const Modulus &mod) {
    size_t t = n;
    for (size_t m = 1; m < n / 2; m <<= 1) {
        t >>= 1;
        forward_stage(a, m, t, roots, roots_shoup, mod);
    }
    forward_last_stage(a, n / 2, roots, roots_shoup, mod);
}

/// The whole inverse transform of length n (NttTables::inverse), with the
/// final scaling by n^-1 (n_inv with Shoup factor n_inv_shoup): input in
/// [0, 2q), output in [0, q).
inline void ntt_inverse(u64 *a, size_t n, const u64 *inv_roots, const u64 *inv_roots_shoup, u64 n_inv,
                        u64 n_inv_shoup, const Modulus &mod) {
    size_t t = 1;
    for (size_t h = n / 2; h >= 1; h >>= 1) {
        inverse_stage(a, h, t, inv_roots, inv_roots_shoup, mod);
        t <<= 1;
    }
    scale(a, n, n_inv, n_inv_shoup, mod);
}

}  // namespace scalar

}  // namespace kernels
}  // namespace bgv
