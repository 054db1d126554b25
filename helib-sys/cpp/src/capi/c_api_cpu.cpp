// c_api_cpu.cpp -- the C shim of the kernel path choice and of the ChaCha20
// keystream (for tests of every path against published vectors).
#include <cstring>
#include <string>

#include "capi/c_api_internal.hpp"
#include "util/cpu.hpp"
#include "util/random.hpp"

using helib_shim::guarded;
using helib_shim::require_out;

namespace {

bgv::CpuPath path_from_c(uint32_t path) {
    bgv::require(path <= HELIB_CPU_AVX512, HELIB_ERR_INVALID_ARGUMENT,
                 "unknown kernel path " + std::to_string(path) + " (HELIB_CPU_SCALAR, HELIB_CPU_AVX2, HELIB_CPU_AVX512)");
    return static_cast<bgv::CpuPath>(path);
}

}  // namespace

helib_status helib_cpu_path(uint32_t *out) {
    return guarded([&] {
        require_out(out, "out");
        const bgv::CpuChoice &choice = bgv::cpu_choice();
        bgv::require(choice.error.empty(), HELIB_ERR_INVALID_ARGUMENT, choice.error);
        *out = static_cast<uint32_t>(choice.path);
    });
}

helib_status helib_cpu_supports(uint32_t path, int *out) {
    return guarded([&] {
        require_out(out, "out");
        *out = bgv::cpu_supports(path_from_c(path)) ? 1 : 0;
    });
}

helib_status helib_chacha20_keystream(uint32_t path, const uint8_t *key, uint64_t stream, uint64_t counter,
                                      uint8_t *out, size_t len) {
    return guarded([&] {
        require_out(key, "key");
        if (len != 0) require_out(out, "out");
        const bgv::CpuPath p = path_from_c(path);
        bgv::require(bgv::cpu_supports(p), HELIB_ERR_INVALID_ARGUMENT,
                     std::string("this CPU cannot run the ") + bgv::cpu_path_name(p) + " kernels");
        bgv::Seed seed;
        std::memcpy(seed.data(), key, seed.size());
        bgv::chacha20_keystream(p, seed, stream, counter, out, len);
    });
}
