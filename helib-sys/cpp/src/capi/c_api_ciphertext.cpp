// c_api_ciphertext.cpp -- the C shim of ciphertext handles, their accessors,
// encryption and decryption.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "util/checked_size.hpp"
#include "util/error.hpp"
#include "helib_c.h"
#include "rlwe/noise.hpp"
#include "bgv/scheme.hpp"
#include "bgv/smuche_mask.hpp"

#include "capi/c_api_internal.hpp"

using namespace helib_shim;

// The noise model's constants are the engine's.
static_assert(HELIB_ERROR_STD_DEV == bgv::kSigma, "helib_c.h and the Gaussian sampler disagree");
static_assert(HELIB_NOISE_TAIL == bgv::noise::kTail, "helib_c.h and the noise model disagree");

namespace {

/// One figure of the key-free noise model, for parameter searches without a
/// context: `formula` at ring degree `ring_degree` and log2 t = `log2_t`.
helib_status model_figure(double (*formula)(size_t, double), size_t ring_degree, double log2_t, double *out) {
    return guarded([&] {
        require_out(out, "out");
        bgv::require(ring_degree >= 1 && std::isfinite(log2_t), bgv::Status::InvalidArgument,
                     "the ring degree must be at least 1 and log2 t finite");
        *out = formula(ring_degree, log2_t);
    });
}

}  // namespace

extern "C" {

/* ------------------------------------------------------------- ciphertext */

helib_status helib_ciphertext_new(const helib_context *ctx, helib_ciphertext **out) {
    return guarded([&] {
        require_out(out, "out");
        const auto &c = deref(ctx, "ctx").ctx;
        auto handle = std::make_unique<helib_ciphertext>();
        handle->ct.ctx = c;
        *out = handle.release();
    });
}

void helib_ciphertext_free(helib_ciphertext *ct) { delete ct; }

helib_status helib_ciphertext_copy(const helib_ciphertext *src, helib_ciphertext *dst) {
    return guarded([&] {
        const auto &s = input(src, "src");
        auto &d = deref_mut(dst, "dst").ct;
        if (&s != &d) d = s;
    });
}

helib_status helib_ciphertext_level(const helib_ciphertext *ct, size_t *out) {
    return guarded([&] {
        const auto &c = input(ct, "ct");
        require_out(out, "out");
        *out = c.level;
    });
}

helib_status helib_ciphertext_size(const helib_ciphertext *ct, size_t *out) {
    return guarded([&] {
        const auto &c = input(ct, "ct");
        require_out(out, "out");
        *out = c.parts.size();
    });
}

helib_status helib_ciphertext_correction_factor(const helib_ciphertext *ct, uint64_t *out, size_t out_len) {
    return guarded([&] {
        const auto &c = input(ct, "ct");
        write_limbs(c.factor, out, out_len, c.ctx->plain_limbs());
    });
}

helib_status helib_ciphertext_noise_estimate(const helib_ciphertext *ct, double *out) {
    return guarded([&] {
        const auto &c = input(ct, "ct");
        require_out(out, "out");
        *out = c.noise_log2;
    });
}

helib_status helib_ciphertext_estimated_budget(const helib_ciphertext *ct, double *out) {
    return guarded([&] {
        const auto &c = input(ct, "ct");
        require_out(out, "out");
        *out = bgv::noise::budget(*c.ctx, c.level, c.noise_log2);
    });
}

helib_status helib_ciphertext_get_info(const helib_ciphertext *ct, helib_ciphertext_info *out, uint64_t *factor,
                                       size_t factor_len) {
    return guarded([&] {
        const auto &c = input(ct, "ct");
        require_out(out, "out");
        write_limbs(c.factor, factor, factor_len, c.ctx->plain_limbs());
        out->level = c.level;
        out->size = c.parts.size();
        out->noise_estimate_bits = c.noise_log2;
        out->estimated_budget_bits = bgv::noise::budget(*c.ctx, c.level, c.noise_log2);
    });
}

helib_status helib_ciphertext_residues(const helib_ciphertext *ct, size_t part, size_t prime, uint64_t *out,
                                       size_t out_len) {
    return guarded([&] {
        const auto &c = input(ct, "ct");
        require_out(out, "out");
        const size_t n = c.ctx->n();
        bgv::require_residue_columns(c, part, prime, 0, n);
        bgv::caller_array_count(out_len, sizeof(uint64_t), "out_len");
        bgv::require(out_len >= n, bgv::Status::BufferTooSmall,
                     "output buffer holds " + std::to_string(out_len) + " values, " + std::to_string(n) +
                         " are needed");
        const uint64_t *residues = c.parts[part].residues(prime);
        std::copy(residues, residues + n, out);
    });
}

helib_status helib_ciphertext_residue_columns(const helib_ciphertext *ct, size_t part, size_t prime, size_t first,
                                              uint64_t *out, size_t count) {
    return guarded([&] {
        const auto &c = input(ct, "ct");
        require_out(out, "out");
        bgv::caller_array_count(count, sizeof(uint64_t), "count");
        bgv::require_residue_columns(c, part, prime, first, count);
        const uint64_t *residues = c.parts[part].residues(prime) + first;
        std::copy(residues, residues + count, out);
    });
}

helib_status helib_ciphertext_residue_row(const helib_ciphertext *ct, size_t part, size_t prime,
                                         const uint64_t **row) {
    return guarded([&] {
        const auto &c = input(ct, "ct");
        require_out(row, "row");
        bgv::require_residue_columns(c, part, prime, 0, c.ctx->n());
        *row = c.parts[part].residues(prime);
    });
}

helib_status helib_ciphertext_residue_row_mut(helib_ciphertext *ct, size_t part, size_t prime, uint64_t **row) {
    return guarded([&] {
        auto &c = deref_mut(ct, "ct").ct;
        bgv::check_nonempty(c);
        require_out(row, "row");
        bgv::require_residue_columns(c, part, prime, 0, c.ctx->n());
        // Residues written in place no longer match a c_1 seed.
        c.c1_seed.reset();
        *row = c.parts[part].residues(prime);
    });
}

helib_status helib_encrypt_public(const helib_public_key *pk, const uint64_t *coeffs, size_t n_coeffs,
                                  size_t limbs_per_coeff, size_t level, helib_ciphertext *dst) {
    return guarded([&] {
        const auto &key = *deref(pk, "pk").key;
        auto &d = deref_mut(dst, "dst").ct;
        bgv::require(d.ctx == key.context(), bgv::Status::ContextMismatch,
                     "destination ciphertext belongs to a different context");
        d = bgv::encrypt_public(key, coeffs, n_coeffs, limbs_per_coeff, level);
    });
}

helib_status helib_encrypt_secret(const helib_secret_key *sk, const uint64_t *coeffs, size_t n_coeffs,
                                  size_t limbs_per_coeff, size_t level, helib_ciphertext *dst) {
    return guarded([&] {
        const auto &key = *deref(sk, "sk").key;
        auto &d = deref_mut(dst, "dst").ct;
        bgv::require(d.ctx == key.context(), bgv::Status::ContextMismatch,
                     "destination ciphertext belongs to a different context");
        d = bgv::encrypt_secret(key, coeffs, n_coeffs, limbs_per_coeff, level);
    });
}

helib_status helib_decrypt(const helib_secret_key *sk, const helib_ciphertext *ct, uint64_t *out,
                           size_t out_len, size_t limbs_per_coeff) {
    return guarded([&] {
        const auto &key = *deref(sk, "sk").key;
        const auto &c = input(ct, "ct");
        require_out(out, "out");
        const bgv::Context &ctx = *key.context();
        const size_t pl = ctx.plain_limbs();
        bgv::require(limbs_per_coeff >= pl, bgv::Status::BufferTooSmall,
                     "limbs_per_coeff must be at least " + std::to_string(pl));
        const size_t needed = bgv::caller_limb_count(ctx.n(), limbs_per_coeff, "N * limbs_per_coeff");
        bgv::caller_array_count(out_len, sizeof(uint64_t), "out_len");
        bgv::require(out_len >= needed, bgv::Status::BufferTooSmall,
                     "output buffer has " + std::to_string(out_len) + " limbs, " + std::to_string(needed) +
                         " are needed");
        const bgv::PlainCoeffs m = bgv::decrypt(key, c);
        for (size_t j = 0; j < ctx.n(); ++j) {
            for (size_t k = 0; k < limbs_per_coeff; ++k) out[j * limbs_per_coeff + k] = k < pl ? m[j * pl + k] : 0;
        }
    });
}

helib_status helib_noise_budget(const helib_secret_key *sk, const helib_ciphertext *ct, double *out) {
    return guarded([&] {
        const auto &key = *deref(sk, "sk").key;
        const auto &c = input(ct, "ct");
        require_out(out, "out");
        *out = bgv::noise_budget(key, c);
    });
}

helib_status helib_noise_fresh_bits(size_t ring_degree, double log2_t, double *out) {
    return model_figure(bgv::noise::fresh_public_bits, ring_degree, log2_t, out);
}

helib_status helib_noise_squared_secret_rounding_bits(size_t ring_degree, double log2_t, double *out) {
    return model_figure(bgv::noise::squared_secret_rounding_bits, ring_degree, log2_t, out);
}

/// INSECURE by design (see bgv/smuche_mask.cpp): kept for he-cache's Smuche.
helib_status helib_ciphertext_add_public_key_mask(const helib_public_key *pk, const helib_ciphertext *a,
                                                  helib_ciphertext *dst) {
    return guarded([&] {
        bgv::add_smuche_mask(*deref(pk, "pk").key, input(a, "a"), deref_mut(dst, "dst").ct);
    });
}

}  // extern "C"
