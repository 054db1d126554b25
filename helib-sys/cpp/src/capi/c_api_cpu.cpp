// c_api_cpu.cpp -- the C shim of the kernel path choice and of the engine
// memory the buffer pool may keep.
#include <string>

#include "capi/c_api_internal.hpp"
#include "util/buffer_pool.hpp"
#include "util/cpu.hpp"

using helib_shim::guarded;
using helib_shim::path_from_c;
using helib_shim::require_out;

helib_status helib_cpu_path(uint32_t *out) {
    return guarded([&] {
        require_out(out, "out");
        const bgv::CpuChoice &choice = bgv::cpu_choice();
        bgv::require(choice.error.empty(), bgv::Status::InvalidArgument, choice.error);
        *out = static_cast<uint32_t>(choice.path);
    });
}

helib_status helib_cpu_supports(uint32_t path, int *out) {
    return guarded([&] {
        require_out(out, "out");
        *out = bgv::cpu_supports(path_from_c(path)) ? 1 : 0;
    });
}

helib_status helib_buffer_pool_limit(uint64_t *out) {
    return guarded([&] {
        require_out(out, "out");
        *out = bgv::buffer_pool::kMaxPooledBytes;
    });
}
