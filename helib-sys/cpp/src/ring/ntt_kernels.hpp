// ntt_kernels.hpp -- kernels::X, the entry points of the engine's element
// kernels (NTT butterflies, Montgomery products, base conversion, scalings),
// each calling the version of the path cpu_path() picked (util/cpu.hpp):
// kernels_scalar.hpp (any CPU, and the reference), kernels_avx2.hpp or
// kernels_avx512.hpp. Every path has every kernel (AVX2 reuses the scalar
// ones it has no version of); what each needs of its length is in its
// header (the AVX2 ones take any length). Callers
// pass whole rows or whole NTT stages, so the choice costs one predictable
// branch per row, not per element. The whole single-prime NTTs are in
// ntt_avx2.hpp and ntt_avx512.hpp, called by NttTables.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ring/kernels_avx2.hpp"
#include "ring/kernels_avx512.hpp"
#include "ring/kernels_scalar.hpp"
#include "util/cpu.hpp"
#include "util/modarith.hpp"

namespace bgv {
namespace kernels {

/// Whether the AVX-512 kernels run (the choice of cpu.hpp).
inline bool use_avx512() {
#ifdef BGV_X86_KERNELS
    return cpu_path() == CpuPath::Avx512;
#else
    return false;
#endif
}

/// Calls kernel `name` of path `path` (a CpuPath) with the arguments that
/// follow; the test entry points use it to run each path on this CPU.
#ifdef BGV_X86_KERNELS
#define BGV_KERNEL_ON(path, name, ...)          \
    do {                                        \
        switch (path) {                         \
        case ::bgv::CpuPath::Avx512:            \
            ::bgv::kernels::avx512::name(__VA_ARGS__); \
            break;                              \
        case ::bgv::CpuPath::Avx2:              \
            ::bgv::kernels::avx2::name(__VA_ARGS__); \
            break;                              \
        case ::bgv::CpuPath::Scalar:            \
            ::bgv::kernels::scalar::name(__VA_ARGS__); \
            break;                              \
        }                                       \
    } while (false)
#else
#define BGV_KERNEL_ON(path, name, ...) ((void)(path), ::bgv::kernels::scalar::name(__VA_ARGS__))
#endif
#define BGV_DISPATCH(name, ...) BGV_KERNEL_ON(cpu_path(), name, __VA_ARGS__)

// The entry points: the same contracts as the versions above.
inline void forward_rows_stage(u64 *rows, size_t m, size_t t, size_t width, const u64 *roots, const u64 *roots_shoup, const Modulus &mod) { BGV_DISPATCH(forward_rows_stage, rows, m, t, width, roots, roots_shoup, mod); }
inline void inverse_rows_stage(u64 *rows, size_t h, size_t t, size_t width, const u64 *inv_roots, const u64 *inv_roots_shoup, const Modulus &mod) { BGV_DISPATCH(inverse_rows_stage, rows, h, t, width, inv_roots, inv_roots_shoup, mod); }
inline void reduce_from_4q(u64 *values, size_t n, const Modulus &mod) { BGV_DISPATCH(reduce_from_4q, values, n, mod); }
inline void scale(u64 *values, size_t n, u64 w, u64 ws, const Modulus &mod) { BGV_DISPATCH(scale, values, n, w, ws, mod); }
inline void scale_small(const int32_t *e, const u64 *plus, u64 *out, size_t n, u64 w, u64 ws, const Modulus &mod) { BGV_DISPATCH(scale_small, e, plus, out, n, w, ws, mod); }
inline void base_convert_row(u64 *out, const u64 *y, size_t sources, size_t stride, size_t n, const u64 *hat, const u64 *hat_shoup, const Modulus &mod) { BGV_DISPATCH(base_convert_row, out, y, sources, stride, n, hat, hat_shoup, mod); }
inline void dot_product_pair(u64 *out0, u64 *out1, const u64 *const *v, const uint32_t *perm, const u64 *const *x, const u64 *const *y, size_t terms, size_t len, const Modulus &mod) { BGV_DISPATCH(dot_product_pair, out0, out1, v, perm, x, y, terms, len, mod); }
inline void subtract_multiple_then_scale(u64 *r, const u64 *k, u64 w, u64 ws, u64 t, u64 ts, size_t n, const Modulus &mod) { BGV_DISPATCH(subtract_multiple_then_scale, r, k, w, ws, t, ts, n, mod); }
inline void add_then_scale(u64 *r, const u64 *src, u64 w, u64 ws, size_t n, const Modulus &mod) { BGV_DISPATCH(add_then_scale, r, src, w, ws, n, mod); }
inline void multiply_montgomery(u64 *out, const u64 *a, const u64 *b, size_t n, const Modulus &mod, bool accumulate) { BGV_DISPATCH(multiply_montgomery, out, a, b, n, mod, accumulate); }
inline void key_switch_key_row(u64 *b, u64 *a, const u64 *s, const u64 *g, const uint32_t *perm, u64 w,
                               u64 ws, u64 v, u64 vs, size_t n, const Modulus &mod) {
    BGV_DISPATCH(key_switch_key_row, b, a, s, g, perm, w, ws, v, vs, n, mod);
}

#undef BGV_DISPATCH

}  // namespace kernels
}  // namespace bgv
