// cpu.hpp -- the instruction set the vector kernels use, chosen once at run time.
//
// The engine is compiled for the baseline of its target (no -march=native
// unless the `native` cargo feature asks for it); the kernels that profit from
// wider vectors also exist in versions compiled with function-level target
// attributes (AVX-512: NTT butterflies, Montgomery products, base conversion,
// ChaCha20; AVX2: the NTT, its butterflies, base conversion, the scalings,
// ChaCha20; see ring/ntt_kernels.hpp), and the first
// use picks the widest path the CPU and the OS support. The
// environment variable HELIB_CPU=scalar|avx2|avx512 (read once, at the first
// use) forces a path, so that each one can be tested on a machine that has
// them all; "auto" or an unset variable means the widest. A value naming a
// path this CPU cannot run, or no path at all, leaves the widest path in use
// and makes every Context construction fail with a message saying why.
#pragma once

#include <cstdlib>
#include <cstring>
#include <string>

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#define BGV_X86_KERNELS 1
#endif

namespace bgv {

enum class CpuPath : unsigned { Scalar = 0, Avx2 = 1, Avx512 = 2 };

struct CpuChoice {
    CpuPath path = CpuPath::Scalar;
    /// Empty unless HELIB_CPU asked for something this process cannot do.
    std::string error;
};

inline const char *cpu_path_name(CpuPath path) {
    switch (path) {
    case CpuPath::Scalar: return "scalar";
    case CpuPath::Avx2: return "avx2";
    case CpuPath::Avx512: return "avx512";
    }
    return "unknown";
}

/// Whether this CPU (and the OS, which must save the wider registers) can run `path`.
inline bool cpu_supports(CpuPath path) {
#ifdef BGV_X86_KERNELS
    __builtin_cpu_init();
    switch (path) {
    case CpuPath::Scalar: return true;
    case CpuPath::Avx2: return __builtin_cpu_supports("avx2") != 0;
    case CpuPath::Avx512: return __builtin_cpu_supports("avx512f") != 0 && __builtin_cpu_supports("avx512dq") != 0;
    }
    return false;
#else
    return path == CpuPath::Scalar;
#endif
}

/// The widest path this CPU supports.
inline CpuPath cpu_best_path() {
    if (cpu_supports(CpuPath::Avx512)) return CpuPath::Avx512;
    if (cpu_supports(CpuPath::Avx2)) return CpuPath::Avx2;
    return CpuPath::Scalar;
}

/// Applies HELIB_CPU (nullptr or "" or "auto": the widest path).
inline CpuChoice cpu_choose(const char *request) {
    CpuChoice choice;
    choice.path = cpu_best_path();
    if (request == nullptr || *request == '\0' || std::strcmp(request, "auto") == 0) return choice;
    for (CpuPath path : {CpuPath::Scalar, CpuPath::Avx2, CpuPath::Avx512}) {
        if (std::strcmp(request, cpu_path_name(path)) != 0) continue;
        if (cpu_supports(path)) {
            choice.path = path;
        } else {
            choice.error = std::string("HELIB_CPU=") + request + " forces a path this CPU does not support";
        }
        return choice;
    }
    choice.error = std::string("HELIB_CPU=") + request + " is not one of scalar, avx2, avx512, auto";
    return choice;
}

/// The choice made at the first call (thread-safe; the same for the whole process).
inline const CpuChoice &cpu_choice() {
    static const CpuChoice choice = cpu_choose(std::getenv("HELIB_CPU"));
    return choice;
}

inline CpuPath cpu_path() { return cpu_choice().path; }

}  // namespace bgv
