// c_api_security.cpp -- the C shim of the security table: argument checks,
// calls into security.cpp, and error translation.
#include <string>

#include "capi/c_api_internal.hpp"
#include "ring/security.hpp"

using namespace helib_shim;

extern "C" {

helib_status helib_security_max_log_qp(uint64_t ring_degree, uint32_t security_bits, uint32_t *out) {
    return guarded([&] {
        require_out(out, "out");
        const unsigned bound = bgv::security::max_log_qp(ring_degree, security_bits);
        bgv::require(bound != 0, bgv::Status::InvalidArgument,
                     "the security table has no entry for ring degree " + std::to_string(ring_degree) + " at " +
                         std::to_string(security_bits) +
                         " bits (ring degrees: powers of two in [2^10, 2^17]; levels: 128, 192, 256)");
        *out = bound;
    });
}

helib_status helib_security_estimate(uint64_t ring_degree, double log2_qp, uint32_t *out) {
    return guarded([&] {
        require_out(out, "out");
        *out = bgv::security::estimate(ring_degree, log2_qp);
    });
}

}  // extern "C"
