// c_api.cpp -- the C shim's error reporting and contexts. The shim is split
// by job: keys (c_api_keys.cpp), encoding (c_api_encode.cpp), ciphertexts,
// encryption and decryption (c_api_ciphertext.cpp), homomorphic operations
// (c_api_eval.cpp), serialization, threshold protocols, parameter security and
// kernel paths. Every entry point checks its arguments, calls into the engine
// and translates errors; no exception crosses them.
#include <memory>
#include <string>
#include <vector>

#include "util/error.hpp"
#include "helib_c.h"

#include "capi/c_api_internal.hpp"

using namespace helib_shim;

namespace {

/// Two-call protocol for arrays of primes.
void write_primes(const std::vector<bgv::Modulus> &primes, size_t begin, size_t end, uint64_t *buf,
                  size_t *len) {
    require_out(len, "len");
    const size_t count = end - begin;
    if (buf == nullptr) {
        *len = count;
        return;
    }
    output_capacity(len, sizeof(uint64_t), "len");
    bgv::require(*len >= count, bgv::Status::BufferTooSmall,
                 "buffer holds " + std::to_string(*len) + " primes, " + std::to_string(count) + " needed");
    for (size_t i = 0; i < count; ++i) buf[i] = primes[begin + i].value();
    *len = count;
}

}  // namespace

extern "C" {

const char *helib_last_error_message(void) { return last_error.c_str(); }

helib_status helib_last_error_detail(helib_error_detail *out) {
    if (out == nullptr) return HELIB_ERR_NULL_POINTER;  // keeps the recorded detail
    *out = last_detail;
    return HELIB_OK;
}

/* ---------------------------------------------------------------- context */

helib_status helib_context_new(uint64_t ring_degree, const uint64_t *t_limbs, size_t t_nlimbs,
                               const uint32_t *chain_bits, size_t chain_len,
                               const uint32_t *special_bits, size_t special_len, uint32_t threads,
                               uint32_t flags, helib_context **out) {
    return guarded([&] {
        require_out(out, "out");
        check_parameter_arguments(t_limbs, t_nlimbs, chain_bits, chain_len, special_bits, special_len);
        bgv::require((flags & ~HELIB_CONTEXT_ALLOW_INSECURE) == 0, bgv::Status::InvalidArgument,
                     "unknown context flags " + std::to_string(flags));
        const bool allow_insecure = (flags & HELIB_CONTEXT_ALLOW_INSECURE) != 0;
        const mpz_class t = bgv::mpz_from_limbs(t_limbs, t_nlimbs);
        std::vector<unsigned> chain(chain_bits, chain_bits + chain_len);
        std::vector<unsigned> special(special_bits, special_bits + special_len);
        auto handle = std::make_unique<helib_context>();
        handle->ctx = std::make_shared<const bgv::Context>(ring_degree, t, chain, special, threads, allow_insecure);
        *out = handle.release();
    });
}

void helib_context_free(helib_context *ctx) { delete ctx; }

helib_status helib_context_ring_degree(const helib_context *ctx, uint64_t *out) {
    return guarded([&] {
        const auto &c = *deref(ctx, "ctx").ctx;
        require_out(out, "out");
        *out = c.n();
    });
}

helib_status helib_context_max_level(const helib_context *ctx, size_t *out) {
    return guarded([&] {
        const auto &c = *deref(ctx, "ctx").ctx;
        require_out(out, "out");
        *out = c.max_level();
    });
}

helib_status helib_context_plain_limbs(const helib_context *ctx, size_t *out) {
    return guarded([&] {
        const auto &c = *deref(ctx, "ctx").ctx;
        require_out(out, "out");
        *out = c.plain_limbs();
    });
}

helib_status helib_context_chain_primes(const helib_context *ctx, uint64_t *buf, size_t *len) {
    return guarded([&] {
        const auto &c = *deref(ctx, "ctx").ctx;
        write_primes(c.primes(), 0, c.chain_size(), buf, len);
    });
}

helib_status helib_context_special_primes(const helib_context *ctx, uint64_t *buf, size_t *len) {
    return guarded([&] {
        const auto &c = *deref(ctx, "ctx").ctx;
        write_primes(c.primes(), c.chain_size(), c.primes().size(), buf, len);
    });
}

helib_status helib_context_log2_modulus(const helib_context *ctx, size_t level, double *out) {
    return guarded([&] {
        const auto &c = *deref(ctx, "ctx").ctx;
        require_out(out, "out");
        c.check_level(level);
        *out = c.level(level).crt.log2_modulus();
    });
}

helib_status helib_context_log2_special_modulus(const helib_context *ctx, double *out) {
    return guarded([&] {
        const auto &c = *deref(ctx, "ctx").ctx;
        require_out(out, "out");
        *out = c.log2_special_modulus();
    });
}

helib_status helib_context_correction_factor(const helib_context *ctx, size_t level, uint64_t *out,
                                             size_t out_len) {
    return guarded([&] {
        const auto &c = *deref(ctx, "ctx").ctx;
        c.check_level(level);
        write_limbs(c.level(level).canonical_factor, out, out_len, c.plain_limbs());
    });
}

helib_status helib_context_threads(const helib_context *ctx, uint32_t *out) {
    return guarded([&] {
        const auto &c = *deref(ctx, "ctx").ctx;
        require_out(out, "out");
        *out = c.pool().size();
    });
}

helib_status helib_context_set_threads(const helib_context *ctx, uint32_t threads) {
    return guarded([&] {
        const auto &c = *deref(ctx, "ctx").ctx;
        c.pool().resize(threads);
    });
}

helib_status helib_context_key_switching_digits(const helib_context *ctx, size_t *out) {
    return guarded([&] {
        const auto &c = *deref(ctx, "ctx").ctx;
        require_out(out, "out");
        *out = c.digits().size();
    });
}

}  // extern "C"
