// simd.hpp -- the x86 vector intrinsics and the function-level target
// attributes of the kernels compiled for AVX-512 and AVX2 (the engine itself
// is compiled for its target's baseline; see util/cpu.hpp).
#pragma once

#include "util/cpu.hpp"

#ifdef BGV_X86_KERNELS
// GCC 12 reports -W(maybe-)uninitialized inside its own AVX-512 intrinsics (their
// _mm512_undefined_epi32() pass-through operands) wherever they are inlined.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#pragma GCC diagnostic pop
#define BGV_AVX512 __attribute__((target("avx512f,avx512dq")))
#define BGV_AVX2 __attribute__((target("avx2")))
#endif
