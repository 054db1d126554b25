// c_api_keys.cpp -- the C shim of secret and public keys, relinearization
// keys, Galois keys and the Galois elements of rotations.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "util/error.hpp"
#include "helib_c.h"
#include "bgv/galois.hpp"
#include "bgv/multiply.hpp"

#include "capi/c_api_internal.hpp"

using namespace helib_shim;

extern "C" {

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

helib_status helib_galois_keys_add_many(helib_galois_keys *keys, const helib_secret_key *sk, const uint64_t *gs,
                                        size_t count) {
    return guarded([&] {
        auto &k = *deref_mut(keys, "keys").keys;
        const auto &key = *deref(sk, "sk").key;
        bgv::require(gs != nullptr || count == 0, bgv::Status::NullPointer, "gs is null");
        // Before gs + count is formed: a count beyond any array would wrap it.
        bgv::caller_array_count(count, sizeof(uint64_t), "count");
        const std::vector<uint64_t> elements(gs, gs + count);
        k.add_many(key, elements);
    });
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
        output_capacity(len, sizeof(uint64_t), "len");
        bgv::require(*len >= elements.size(), bgv::Status::BufferTooSmall,
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

helib_status helib_rotation_terms(const helib_context *ctx, int64_t step, int64_t *buf, size_t *len) {
    return guarded([&] {
        const auto &c = *deref(ctx, "ctx").ctx;
        require_out(len, "len");
        const std::vector<int64_t> terms = bgv::rotation_terms(c.n(), step);
        if (buf == nullptr) {
            *len = terms.size();
            return;
        }
        output_capacity(len, sizeof(int64_t), "len");
        bgv::require(*len >= terms.size(), bgv::Status::BufferTooSmall,
                     "buffer holds " + std::to_string(*len) + " terms, " + std::to_string(terms.size()) +
                         " needed");
        std::copy(terms.begin(), terms.end(), buf);
        *len = terms.size();
    });
}

}  // extern "C"
