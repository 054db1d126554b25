// c_api.cpp -- the C shim: argument checks, calls into the engine, and error
// translation. No exception crosses this file's functions.
#include <algorithm>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "bgv/block_product.hpp"
#include "util/checked_size.hpp"
#include "util/error.hpp"
#include "helib_c.h"
#include "bgv/galois.hpp"
#include "bgv/linear_transform.hpp"
#include "bgv/multiply.hpp"
#include "rlwe/noise.hpp"
#include "bgv/scheme.hpp"

#include "capi/c_api_internal.hpp"

using namespace helib_shim;

namespace {

void write_limbs(const mpz_class &value, uint64_t *out, size_t out_len, size_t needed) {
    require_out(out, "out");
    bgv::require(out_len >= needed, HELIB_ERR_BUFFER_TOO_SMALL,
                 "output buffer has " + std::to_string(out_len) + " limbs, " + std::to_string(needed) +
                     " are needed");
    bgv::mpz_to_limbs(value, out, out_len);
}

/// Two-call protocol for arrays of primes.
void write_primes(const std::vector<bgv::Modulus> &primes, size_t begin, size_t end, uint64_t *buf,
                  size_t *len) {
    require_out(len, "len");
    const size_t count = end - begin;
    if (buf == nullptr) {
        *len = count;
        return;
    }
    bgv::require(*len >= count, HELIB_ERR_BUFFER_TOO_SMALL,
                 "buffer holds " + std::to_string(*len) + " primes, " + std::to_string(count) + " needed");
    for (size_t i = 0; i < count; ++i) buf[i] = primes[begin + i].value();
    *len = count;
}

/// The caller's array of `count` handles as engine pointers (each checked non-NULL).
template <typename Handle, typename Inner, typename Get>
std::vector<Inner *> handle_array(Handle *const *handles, size_t count, const char *name, Get get) {
    require_out(handles, name);
    bgv::caller_array_count(count, sizeof(Handle *), name);
    std::vector<Inner *> out;
    out.reserve(count);
    for (size_t i = 0; i < count; ++i) out.push_back(&get(deref_mut(handles[i], name)));
    return out;
}

std::vector<const bgv::Ciphertext *> ciphertext_inputs(const helib_ciphertext *const *handles, size_t count,
                                                      const char *name) {
    return handle_array<const helib_ciphertext, const bgv::Ciphertext>(
        handles, count, name, [](const helib_ciphertext &h) -> const bgv::Ciphertext & { return h.ct; });
}

std::vector<bgv::Ciphertext *> ciphertext_outputs(helib_ciphertext *const *handles, size_t count) {
    return handle_array<helib_ciphertext, bgv::Ciphertext>(
        handles, count, "dsts", [](helib_ciphertext &h) -> bgv::Ciphertext & { return h.ct; });
}

}  // namespace

extern "C" {

const char *helib_last_error_message(void) { return last_error.c_str(); }

/* ---------------------------------------------------------------- context */

helib_status helib_context_new(uint64_t ring_degree, const uint64_t *t_limbs, size_t t_nlimbs,
                               const uint32_t *chain_bits, size_t chain_len,
                               const uint32_t *special_bits, size_t special_len, uint32_t threads,
                               uint32_t flags, helib_context **out) {
    return guarded([&] {
        require_out(out, "out");
        check_parameter_arguments(t_limbs, t_nlimbs, chain_bits, chain_len, special_bits, special_len);
        bgv::require((flags & ~HELIB_CONTEXT_ALLOW_INSECURE) == 0, HELIB_ERR_INVALID_ARGUMENT,
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

/* ------------------------------------------------------------------- keys */

helib_status helib_secret_key_generate(const helib_context *ctx, helib_secret_key **out) {
    return guarded([&] {
        require_out(out, "out");
        const auto &c = deref(ctx, "ctx").ctx;
        auto handle = std::make_unique<helib_secret_key>();
        handle->key = std::make_unique<bgv::SecretKey>(c);
        *out = handle.release();
    });
}

void helib_secret_key_free(helib_secret_key *sk) { delete sk; }

helib_status helib_public_key_generate(const helib_secret_key *sk, helib_public_key **out) {
    return guarded([&] {
        require_out(out, "out");
        const auto &key = *deref(sk, "sk").key;
        auto handle = std::make_unique<helib_public_key>();
        handle->key = std::make_unique<bgv::PublicKey>(key);
        *out = handle.release();
    });
}

void helib_public_key_free(helib_public_key *pk) { delete pk; }

/* ------------------------------------------------------ encoded plaintext */

namespace {

helib_status encoded_plaintext_new(const helib_context *ctx, const uint64_t *coeffs, size_t n_coeffs,
                                   size_t limbs_per_coeff, size_t level, const uint64_t *factor,
                                   size_t factor_nlimbs, bool extended, helib_encoded_plaintext **out) {
    return guarded([&] {
        require_out(out, "out");
        const auto &c = deref(ctx, "ctx").ctx;
        mpz_class f = 1;
        if (factor != nullptr) {
            bgv::require(factor_nlimbs >= 1, HELIB_ERR_INVALID_ARGUMENT, "factor has no limbs");
            f = bgv::mpz_from_limbs(factor, factor_nlimbs);
            bgv::require(f < c->t(), HELIB_ERR_INVALID_ARGUMENT, "correction factor is not reduced mod t");
        }
        auto handle = std::make_unique<helib_encoded_plaintext>();
        handle->pt = bgv::encode_plaintext(c, coeffs, n_coeffs, limbs_per_coeff, level, f, extended);
        *out = handle.release();
    });
}

}  // namespace

helib_status helib_encoded_plaintext_new(const helib_context *ctx, const uint64_t *coeffs,
                                         size_t n_coeffs, size_t limbs_per_coeff, size_t level,
                                         const uint64_t *factor, size_t factor_nlimbs,
                                         helib_encoded_plaintext **out) {
    return encoded_plaintext_new(ctx, coeffs, n_coeffs, limbs_per_coeff, level, factor, factor_nlimbs, false, out);
}

helib_status helib_encoded_plaintext_new_extended(const helib_context *ctx, const uint64_t *coeffs,
                                                  size_t n_coeffs, size_t limbs_per_coeff, size_t level,
                                                  const uint64_t *factor, size_t factor_nlimbs,
                                                  helib_encoded_plaintext **out) {
    return encoded_plaintext_new(ctx, coeffs, n_coeffs, limbs_per_coeff, level, factor, factor_nlimbs, true, out);
}

void helib_encoded_plaintext_free(helib_encoded_plaintext *pt) { delete pt; }

helib_status helib_encoded_plaintext_level(const helib_encoded_plaintext *pt, size_t *out) {
    return guarded([&] {
        const auto &p = deref(pt, "pt").pt;
        require_out(out, "out");
        *out = p.level;
    });
}

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

/* ------------------------------------------------- structured results */

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

helib_status helib_last_error_detail(helib_error_detail *out) {
    if (out == nullptr) return HELIB_ERR_NULL_POINTER;  // keeps the recorded detail
    *out = last_detail;
    return HELIB_OK;
}

helib_status helib_rotation_terms(const helib_context *ctx, int64_t step, int64_t *buf, size_t *len) {
    return guarded([&] {
        const auto &c = *deref(ctx, "ctx").ctx;
        require_out(len, "len");
        const std::vector<int64_t> terms = bgv::rotation_terms(c.n(), step);
        if (buf == nullptr) {
            *len = terms.size();
            return;
        }
        bgv::require(*len >= terms.size(), HELIB_ERR_BUFFER_TOO_SMALL,
                     "buffer holds " + std::to_string(*len) + " terms, " + std::to_string(terms.size()) +
                         " needed");
        std::copy(terms.begin(), terms.end(), buf);
        *len = terms.size();
    });
}

helib_status helib_ciphertext_residues(const helib_ciphertext *ct, size_t part, size_t prime, uint64_t *out,
                                       size_t out_len) {
    return guarded([&] {
        const auto &c = input(ct, "ct");
        require_out(out, "out");
        bgv::require(part < c.parts.size(), HELIB_ERR_INVALID_ARGUMENT,
                     "part " + std::to_string(part) + " of a ciphertext with " + std::to_string(c.parts.size()) +
                         " polynomials");
        if (prime > c.level)
            bgv::fail_level_out_of_range(prime, c.level,
                                         "prime " + std::to_string(prime) + " is above the ciphertext's level " +
                                             std::to_string(c.level));
        const size_t n = c.ctx->n();
        bgv::require(out_len >= n, HELIB_ERR_BUFFER_TOO_SMALL,
                     "output buffer holds " + std::to_string(out_len) + " values, " + std::to_string(n) +
                         " are needed");
        const uint64_t *residues = c.parts[part].residues(prime);
        std::copy(residues, residues + n, out);
    });
}

/* --------------------------------------------- end structured results */

helib_status helib_encrypt_public(const helib_public_key *pk, const uint64_t *coeffs, size_t n_coeffs,
                                  size_t limbs_per_coeff, size_t level, helib_ciphertext *dst) {
    return guarded([&] {
        const auto &key = *deref(pk, "pk").key;
        auto &d = deref_mut(dst, "dst").ct;
        bgv::require(d.ctx == key.context(), HELIB_ERR_CONTEXT_MISMATCH,
                     "destination ciphertext belongs to a different context");
        d = bgv::encrypt_public(key, coeffs, n_coeffs, limbs_per_coeff, level);
    });
}

helib_status helib_encrypt_secret(const helib_secret_key *sk, const uint64_t *coeffs, size_t n_coeffs,
                                  size_t limbs_per_coeff, size_t level, helib_ciphertext *dst) {
    return guarded([&] {
        const auto &key = *deref(sk, "sk").key;
        auto &d = deref_mut(dst, "dst").ct;
        bgv::require(d.ctx == key.context(), HELIB_ERR_CONTEXT_MISMATCH,
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
        bgv::require(limbs_per_coeff >= pl, HELIB_ERR_BUFFER_TOO_SMALL,
                     "limbs_per_coeff must be at least " + std::to_string(pl));
        const size_t needed = bgv::caller_limb_count(ctx.n(), limbs_per_coeff, "N * limbs_per_coeff");
        bgv::require(out_len >= needed, HELIB_ERR_BUFFER_TOO_SMALL,
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

/* -------------------------------------------------------------- evaluator */

helib_status helib_ciphertext_add(const helib_ciphertext *a, const helib_ciphertext *b, helib_ciphertext *dst) {
    return guarded([&] { bgv::eval::add(input(a, "a"), input(b, "b"), deref_mut(dst, "dst").ct); });
}

helib_status helib_ciphertext_sub(const helib_ciphertext *a, const helib_ciphertext *b, helib_ciphertext *dst) {
    return guarded([&] { bgv::eval::sub(input(a, "a"), input(b, "b"), deref_mut(dst, "dst").ct); });
}

helib_status helib_ciphertext_negate(const helib_ciphertext *a, helib_ciphertext *dst) {
    return guarded([&] { bgv::eval::negate(input(a, "a"), deref_mut(dst, "dst").ct); });
}

helib_status helib_ciphertext_add_plain(const helib_ciphertext *a, const helib_encoded_plaintext *p,
                                        helib_ciphertext *dst) {
    return guarded([&] { bgv::eval::add_plain(input(a, "a"), deref(p, "p").pt, deref_mut(dst, "dst").ct); });
}

helib_status helib_ciphertext_sub_plain(const helib_ciphertext *a, const helib_encoded_plaintext *p,
                                        helib_ciphertext *dst) {
    return guarded([&] { bgv::eval::sub_plain(input(a, "a"), deref(p, "p").pt, deref_mut(dst, "dst").ct); });
}

helib_status helib_ciphertext_mul_plain(const helib_ciphertext *a, const helib_encoded_plaintext *p,
                                        helib_ciphertext *dst) {
    return guarded([&] { bgv::eval::mul_plain(input(a, "a"), deref(p, "p").pt, deref_mut(dst, "dst").ct); });
}

namespace {

/// A caller's integer of k_nlimbs >= 1 limbs.
mpz_class scalar_argument(const uint64_t *k_limbs, size_t k_nlimbs) {
    require_out(k_limbs, "k_limbs");
    bgv::require(k_nlimbs >= 1, HELIB_ERR_INVALID_ARGUMENT, "scalar has no limbs");
    return bgv::mpz_from_limbs(k_limbs, k_nlimbs);
}

}  // namespace

helib_status helib_ciphertext_mul_scalar(const helib_ciphertext *a, const uint64_t *k_limbs, size_t k_nlimbs,
                                         helib_ciphertext *dst) {
    return guarded([&] {
        const auto &c = input(a, "a");
        const mpz_class k = scalar_argument(k_limbs, k_nlimbs);
        bgv::eval::mul_scalar(c, k, deref_mut(dst, "dst").ct);
    });
}

helib_status helib_ciphertext_add_scalar(const helib_ciphertext *a, const uint64_t *k_limbs, size_t k_nlimbs,
                                         helib_ciphertext *dst) {
    return guarded([&] {
        const auto &c = input(a, "a");
        const mpz_class k = scalar_argument(k_limbs, k_nlimbs);
        bgv::eval::add_scalar(c, k, deref_mut(dst, "dst").ct);
    });
}

helib_status helib_ciphertext_mod_switch(const helib_ciphertext *a, helib_ciphertext *dst) {
    return guarded([&] { bgv::eval::mod_switch(input(a, "a"), deref_mut(dst, "dst").ct); });
}

helib_status helib_ciphertext_mod_switch_to(const helib_ciphertext *a, size_t level, helib_ciphertext *dst) {
    return guarded([&] { bgv::eval::mod_switch_to(input(a, "a"), level, deref_mut(dst, "dst").ct); });
}

helib_status helib_ciphertext_mod_switch_reduce_noise(const helib_ciphertext *a, helib_ciphertext *dst) {
    return guarded([&] { bgv::eval::mod_switch_reduce_noise(input(a, "a"), deref_mut(dst, "dst").ct); });
}

/* ---------------------------------------------------------- key switching */

helib_status helib_context_key_switching_digits(const helib_context *ctx, size_t *out) {
    return guarded([&] {
        const auto &c = *deref(ctx, "ctx").ctx;
        require_out(out, "out");
        *out = c.digits().size();
    });
}

helib_status helib_relin_key_generate(const helib_secret_key *sk, helib_relin_key **out) {
    return guarded([&] {
        require_out(out, "out");
        const auto &key = *deref(sk, "sk").key;
        auto handle = std::make_unique<helib_relin_key>(helib_relin_key{bgv::make_relin_key(key)});
        *out = handle.release();
    });
}

void helib_relin_key_free(helib_relin_key *rk) { delete rk; }

helib_status helib_relin_key_size_bytes(const helib_relin_key *rk, size_t *out) {
    return guarded([&] {
        const auto &k = deref(rk, "rk").key;
        require_out(out, "out");
        *out = k.key.size_bytes();
    });
}

helib_status helib_galois_keys_new(const helib_context *ctx, helib_galois_keys **out) {
    return guarded([&] {
        require_out(out, "out");
        const auto &c = deref(ctx, "ctx").ctx;
        auto handle = std::make_unique<helib_galois_keys>();
        handle->keys = std::make_unique<bgv::GaloisKeys>(c);
        *out = handle.release();
    });
}

void helib_galois_keys_free(helib_galois_keys *keys) { delete keys; }

helib_status helib_galois_keys_add(helib_galois_keys *keys, const helib_secret_key *sk, uint64_t g) {
    return guarded([&] { deref_mut(keys, "keys").keys->add(*deref(sk, "sk").key, g); });
}

helib_status helib_galois_keys_contains(const helib_galois_keys *keys, uint64_t g, int *out) {
    return guarded([&] {
        const auto &k = *deref(keys, "keys").keys;
        require_out(out, "out");
        *out = k.contains(g) ? 1 : 0;
    });
}

helib_status helib_galois_keys_elements(const helib_galois_keys *keys, uint64_t *buf, size_t *len) {
    return guarded([&] {
        const auto &k = *deref(keys, "keys").keys;
        require_out(len, "len");
        const std::vector<uint64_t> elements = k.elements();
        if (buf == nullptr) {
            *len = elements.size();
            return;
        }
        bgv::require(*len >= elements.size(), HELIB_ERR_BUFFER_TOO_SMALL,
                     "buffer holds " + std::to_string(*len) + " elements, " + std::to_string(elements.size()) +
                         " needed");
        std::copy(elements.begin(), elements.end(), buf);
        *len = elements.size();
    });
}

helib_status helib_galois_keys_size_bytes(const helib_galois_keys *keys, size_t *out) {
    return guarded([&] {
        const auto &k = *deref(keys, "keys").keys;
        require_out(out, "out");
        *out = k.size_bytes();
    });
}

helib_status helib_galois_element_for_step(const helib_context *ctx, int64_t step, uint64_t *out) {
    return guarded([&] {
        const auto &c = *deref(ctx, "ctx").ctx;
        require_out(out, "out");
        *out = bgv::galois_element_for_step(c.n(), step);
    });
}

helib_status helib_galois_element_row_swap(const helib_context *ctx, uint64_t *out) {
    return guarded([&] {
        const auto &c = *deref(ctx, "ctx").ctx;
        require_out(out, "out");
        *out = bgv::galois_element_row_swap(c.n());
    });
}

helib_status helib_ciphertext_multiply(const helib_ciphertext *a, const helib_ciphertext *b, helib_ciphertext *dst) {
    return guarded([&] { bgv::eval::multiply(input(a, "a"), input(b, "b"), deref_mut(dst, "dst").ct); });
}

helib_status helib_ciphertext_multiply_blocks(const helib_ciphertext *const *a, size_t a_count,
                                              const helib_ciphertext *const *b, size_t b_count, size_t first,
                                              helib_ciphertext *const *dsts, size_t dst_count) {
    return guarded([&] {
        bgv::eval::multiply_blocks(ciphertext_inputs(a, a_count, "a"), ciphertext_inputs(b, b_count, "b"), first,
                                   ciphertext_outputs(dsts, dst_count));
    });
}

helib_status helib_ciphertext_multiply_plain_blocks(const helib_ciphertext *const *a, size_t a_count,
                                                    const helib_encoded_plaintext *const *b, size_t b_count,
                                                    size_t first, helib_ciphertext *const *dsts, size_t dst_count) {
    return guarded([&] {
        const auto plain = handle_array<const helib_encoded_plaintext, const bgv::EncodedPlaintext>(
            b, b_count, "b", [](const helib_encoded_plaintext &h) -> const bgv::EncodedPlaintext & { return h.pt; });
        bgv::eval::multiply_plain_blocks(ciphertext_inputs(a, a_count, "a"), plain, first,
                                         ciphertext_outputs(dsts, dst_count));
    });
}

helib_status helib_ciphertext_mul_monomial(const helib_ciphertext *a, uint64_t k, helib_ciphertext *dst) {
    return guarded([&] { bgv::eval::mul_monomial(input(a, "a"), k, deref_mut(dst, "dst").ct); });
}

helib_status helib_ciphertext_relinearize(const helib_relin_key *rk, const helib_ciphertext *a, helib_ciphertext *dst) {
    return guarded([&] { bgv::eval::relinearize(deref(rk, "rk").key, input(a, "a"), deref_mut(dst, "dst").ct); });
}

helib_status helib_ciphertext_apply_galois(const helib_galois_keys *keys, const helib_ciphertext *a, uint64_t g,
                                           helib_ciphertext *dst) {
    return guarded([&] {
        bgv::eval::apply_galois(*deref(keys, "keys").keys, input(a, "a"), g, deref_mut(dst, "dst").ct);
    });
}

helib_status helib_ciphertext_rotate_rows(const helib_galois_keys *keys, const helib_ciphertext *a, int64_t step,
                                          int compose, helib_ciphertext *dst) {
    return guarded([&] {
        bgv::eval::rotate_rows(*deref(keys, "keys").keys, input(a, "a"), step, compose != 0,
                               deref_mut(dst, "dst").ct);
    });
}

helib_status helib_ciphertext_apply_galois_hoisted(const helib_galois_keys *keys, const helib_ciphertext *a,
                                                   const uint64_t *elements, size_t count,
                                                   helib_ciphertext *const *dsts) {
    return guarded([&] {
        const auto &k = *deref(keys, "keys").keys;
        const auto &ct = input(a, "a");
        bgv::require(count == 0 || (elements != nullptr && dsts != nullptr), HELIB_ERR_NULL_POINTER,
                     "elements or dsts is NULL");
        bgv::caller_array_count(count, sizeof(uint64_t), "count");
        std::vector<uint64_t> list(elements, elements + count);
        std::vector<bgv::Ciphertext *> outs;
        for (size_t i = 0; i < count; ++i) {
            auto &d = deref_mut(dsts[i], "dsts[i]").ct;
            bgv::require(&d != &ct, HELIB_ERR_INVALID_ARGUMENT, "a destination aliases the input");
            for (auto *seen : outs) {
                bgv::require(seen != &d, HELIB_ERR_INVALID_ARGUMENT, "destinations must be distinct");
            }
            outs.push_back(&d);
        }
        bgv::eval::apply_galois_hoisted(k, ct, list, outs);
    });
}

helib_status helib_ciphertext_linear_transform(const helib_galois_keys *keys, const helib_ciphertext *a,
                                               const uint64_t *baby, size_t baby_count, uint64_t giant,
                                               const helib_encoded_plaintext *const *plains,
                                               size_t plain_count, helib_ciphertext *dst) {
    return guarded([&] {
        const auto &k = *deref(keys, "keys").keys;
        const auto &ct = input(a, "a");
        auto &out = deref_mut(dst, "dst").ct;
        bgv::require((baby != nullptr || baby_count == 0) && (plains != nullptr || plain_count == 0),
                     HELIB_ERR_NULL_POINTER, "baby or plains is NULL");
        bgv::caller_array_count(baby_count, sizeof(uint64_t), "baby_count");
        bgv::caller_array_count(plain_count, sizeof(helib_encoded_plaintext *), "plain_count");
        const std::vector<uint64_t> babies(baby, baby + baby_count);
        std::vector<const bgv::EncodedPlaintext *> terms;
        for (size_t i = 0; i < plain_count; ++i) terms.push_back(plains[i] != nullptr ? &plains[i]->pt : nullptr);
        bgv::eval::linear_transform_hoisted(k, ct, babies, giant, terms, out);
    });
}

}  // extern "C"
