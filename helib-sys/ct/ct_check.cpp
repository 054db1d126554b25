// ct_check.cpp -- checks under Valgrind's memcheck that the engine's code on secret
// errors is constant time: no branch and no memory address depends on them.
//
// The secret inputs are marked "undefined" (VALGRIND_MAKE_MEM_UNDEFINED); memcheck
// then reports every conditional jump and every address computed from them, while
// arithmetic, masks and conditional moves on them pass silently (the method of
// Langley's ctgrind). Checked: the Gaussian sampler (from an undefined seed) and
// kernels::scale_small, which computes t * e in encryption. With --control the
// program instead runs a table lookup indexed by the errors (the way encryption
// computed t * e before), which memcheck must flag: run.sh requires both outcomes,
// so the check is known to detect what it looks for.
//
// Valgrind does not implement AVX-512, so this is compiled for x86-64-v3 and checks
// the scalar kernels; the AVX-512 kernels are straight-line intrinsics (no branches,
// no lookups: vector minimum for the corrections).
#include <valgrind/memcheck.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <vector>

#include "ring/ntt_kernels.hpp"
#include "util/random.hpp"

using bgv::u64;

namespace {

constexpr size_t kN = 1024;

/// An odd 61-bit modulus (the products checked here do not need a prime).
constexpr u64 kQ = 0x1fffffffffe00001ULL;

void declassify(const void *p, size_t bytes) { VALGRIND_MAKE_MEM_DEFINED(p, bytes); }
void classify(const void *p, size_t bytes) { VALGRIND_MAKE_MEM_UNDEFINED(p, bytes); }

/// Errors from the Gaussian sampler keyed by an undefined seed: every sample, and
/// everything derived from them, is secret to memcheck.
std::vector<int32_t> secret_errors() {
    bgv::Seed seed{};
    for (size_t i = 0; i < seed.size(); ++i) seed[i] = static_cast<uint8_t>(i * 37 + 11);
    classify(seed.data(), seed.size());
    bgv::Prng prng(seed);
    return bgv::sample_gaussian(prng, kN);
}

}  // namespace

int main(int argc, char **argv) {
    const bool control = argc > 1 && std::strcmp(argv[1], "--control") == 0;
    const bgv::Modulus q(kQ);
    const u64 t = 0x30644e72e131a029ULL % kQ, ts = q.shoup(t);
    std::vector<int32_t> e = secret_errors();
    std::vector<u64> plus(kN, 12345), out(kN);
    if (control) {
        std::array<u64, 2 * bgv::kMaxGaussian + 1> table{};
        for (int k = -bgv::kMaxGaussian; k <= bgv::kMaxGaussian; ++k) table[k + bgv::kMaxGaussian] = q.mul(q.from_small(k), t);
        for (size_t j = 0; j < kN; ++j) out[j] = table[e[j] + bgv::kMaxGaussian];
    } else {
        bgv::kernels::scale_small(e.data(), plus.data(), out.data(), kN, t, ts, q);
        bgv::kernels::scale_small(e.data(), nullptr, out.data(), kN, t, ts, q);
    }
    // The results are secret too; declassify them to check they are right.
    declassify(e.data(), e.size() * sizeof(int32_t));
    declassify(out.data(), out.size() * sizeof(u64));
    for (size_t j = 0; j < kN; ++j) {
        if (e[j] < -bgv::kMaxGaussian || e[j] > bgv::kMaxGaussian || out[j] != q.mul(q.from_signed(e[j]), t)) {
            std::fprintf(stderr, "wrong t * e at %zu\n", j);
            return 2;
        }
    }
    std::printf("%s: %zu products checked\n", control ? "control (table lookup)" : "constant-time kernels", kN);
    return 0;
}
