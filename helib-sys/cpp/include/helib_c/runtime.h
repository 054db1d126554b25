/*
 * helib_c/runtime.h -- the CPU kernel paths and the engine's memory pool.
 *
 * A part of the C interface: include "helib_c.h", which includes every part
 * and states the conventions all of them follow.
 */
#ifndef HELIB_C_RUNTIME_H
#define HELIB_C_RUNTIME_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ CPU kernels */

/** Instruction-set paths of the vector kernels (helib_cpu_path). */
#define HELIB_CPU_SCALAR 0u
#define HELIB_CPU_AVX2 1u
#define HELIB_CPU_AVX512 2u

/**
 * The kernel path in use: the widest this CPU supports, unless the
 * environment variable HELIB_CPU (scalar, avx2, avx512 or auto; read once, at
 * the first use) forces one. A HELIB_CPU value that names no path, or a path
 * this CPU lacks, gives HELIB_ERR_INVALID_ARGUMENT here and from every
 * helib_context_new, with a message saying why.
 */
helib_status helib_cpu_path(uint32_t *out);
/**
 * Whether this CPU can run kernel path `path` (1 or 0 in *out);
 * HELIB_ERR_INVALID_ARGUMENT for an unknown path.
 */
helib_status helib_cpu_supports(uint32_t path, int *out);

/* ------------------------------------------------------------ engine memory */

/**
 * The most bytes of freed residue buffers the engine keeps for reuse
 * (process-wide, in *out): memory a computation may hold beyond its live
 * objects, for memory estimates to count.
 */
helib_status helib_buffer_pool_limit(uint64_t *out);

#ifdef __cplusplus
}
#endif

#endif /* HELIB_C_RUNTIME_H */
