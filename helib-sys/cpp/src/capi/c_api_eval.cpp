// c_api_eval.cpp -- the C shim of the homomorphic operations: additions,
// products, modulus switching, relinearization, automorphisms, rotations and
// linear transforms.
#include <string>
#include <vector>

#include "bgv/block_product.hpp"
#include "util/bigint.hpp"
#include "util/checked_size.hpp"
#include "util/error.hpp"
#include "helib_c.h"
#include "bgv/galois.hpp"
#include "bgv/linear_transform.hpp"
#include "bgv/multiply.hpp"
#include "bgv/scheme.hpp"

#include "capi/c_api_internal.hpp"

using namespace helib_shim;

namespace {

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

/// A caller's integer of k_nlimbs >= 1 limbs.
mpz_class scalar_argument(const uint64_t *k_limbs, size_t k_nlimbs) {
    require_out(k_limbs, "k_limbs");
    bgv::require(k_nlimbs >= 1, bgv::Status::InvalidArgument, "scalar has no limbs");
    return bgv::mpz_from_limbs(k_limbs, k_nlimbs);
}


}  // namespace

extern "C" {

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

helib_status helib_block_product_noise(const helib_context *ctx, size_t level, double noise_a, double b_log2,
                                       int plain, size_t terms, double *out) {
    return guarded([&] {
        require_out(out, "out");
        *out = bgv::eval::block_product_noise(*deref(ctx, "ctx").ctx, level, noise_a, b_log2, plain != 0, terms);
    });
}

helib_status helib_context_convolve_rows(const helib_context *ctx, size_t prime, size_t width,
                                         const uint64_t *const *a, size_t a_blocks, size_t a_parts,
                                         const uint64_t *const *b, size_t b_blocks, size_t b_parts, int b_montgomery,
                                         size_t first, uint64_t *const *out, size_t out_blocks) {
    return guarded([&] {
        bgv::eval::convolve_rows(*deref(ctx, "ctx").ctx, prime, width, a, a_blocks, a_parts, b, b_blocks, b_parts,
                                 b_montgomery != 0, first, out, out_blocks);
    });
}

helib_status helib_ciphertext_import_residues(const helib_context *ctx, size_t level, size_t parts,
                                              const uint64_t *factor, size_t factor_nlimbs, double noise_log2,
                                              const uint64_t *residues, size_t residues_len, helib_ciphertext *dst) {
    return guarded([&] {
        const auto &c = deref(ctx, "ctx").ctx;
        auto &d = deref_mut(dst, "dst");
        bgv::require(factor != nullptr && factor_nlimbs >= 1, bgv::Status::InvalidArgument, "factor has no limbs");
        d.ct = bgv::ciphertext_from_residues(c, level, parts, bgv::mpz_from_limbs(factor, factor_nlimbs), noise_log2,
                                             residues, residues_len);
    });
}

namespace {

/// A ciphertext frame from the C arguments: zeroed, or left unwritten.
helib_status ciphertext_frame(const helib_context *ctx, size_t level, size_t parts, const uint64_t *factor,
                              size_t factor_nlimbs, double noise_log2, bool zeroed, helib_ciphertext *dst) {
    return guarded([&] {
        const auto &c = deref(ctx, "ctx").ctx;
        auto &d = deref_mut(dst, "dst");
        bgv::require(factor != nullptr, bgv::Status::NullPointer, "factor is NULL");
        bgv::require(factor_nlimbs >= 1, bgv::Status::InvalidArgument, "factor has no limbs");
        const mpz_class f = bgv::mpz_from_limbs(factor, factor_nlimbs);
        d.ct = zeroed ? bgv::ciphertext_zeros(c, level, parts, f, noise_log2)
                      : bgv::ciphertext_unwritten(c, level, parts, f, noise_log2);
    });
}

}  // namespace

helib_status helib_ciphertext_zeros(const helib_context *ctx, size_t level, size_t parts, const uint64_t *factor,
                                    size_t factor_nlimbs, double noise_log2, helib_ciphertext *dst) {
    return ciphertext_frame(ctx, level, parts, factor, factor_nlimbs, noise_log2, true, dst);
}

helib_status helib_ciphertext_unwritten(const helib_context *ctx, size_t level, size_t parts,
                                        const uint64_t *factor, size_t factor_nlimbs, double noise_log2,
                                        helib_ciphertext *dst) {
    return ciphertext_frame(ctx, level, parts, factor, factor_nlimbs, noise_log2, false, dst);
}

helib_status helib_ciphertext_write_residue_columns(helib_ciphertext *ct, size_t part, size_t prime, size_t first,
                                                    const uint64_t *words, size_t count) {
    return guarded([&] {
        auto &c = deref_mut(ct, "ct").ct;
        bgv::check_nonempty(c);
        bgv::caller_array_count(count, sizeof(uint64_t), "count");
        bgv::write_residue_columns(c, part, prime, first, words, count);
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
        bgv::require(count == 0 || (elements != nullptr && dsts != nullptr), bgv::Status::NullPointer,
                     "elements or dsts is NULL");
        bgv::caller_array_count(count, sizeof(uint64_t), "count");
        std::vector<uint64_t> list(elements, elements + count);
        std::vector<bgv::Ciphertext *> outs;
        for (size_t i = 0; i < count; ++i) {
            auto &d = deref_mut(dsts[i], "dsts[i]").ct;
            bgv::require(&d != &ct, bgv::Status::InvalidArgument, "a destination aliases the input");
            for (auto *seen : outs) {
                bgv::require(seen != &d, bgv::Status::InvalidArgument, "destinations must be distinct");
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
                     bgv::Status::NullPointer, "baby or plains is NULL");
        bgv::caller_array_count(baby_count, sizeof(uint64_t), "baby_count");
        bgv::caller_array_count(plain_count, sizeof(helib_encoded_plaintext *), "plain_count");
        const std::vector<uint64_t> babies(baby, baby + baby_count);
        std::vector<const bgv::EncodedPlaintext *> terms;
        for (size_t i = 0; i < plain_count; ++i) terms.push_back(plains[i] != nullptr ? &plains[i]->pt : nullptr);
        bgv::eval::linear_transform_hoisted(k, ct, babies, giant, terms, out);
    });
}

}  // extern "C"
