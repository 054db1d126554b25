// c_api_serialize.cpp -- the C shim of serialization: argument checks, the
// two-call protocol, calls into io/serialize.hpp, and error translation.
#include <algorithm>
#include <cstring>
#include <string>

#include "capi/c_api_internal.hpp"
#include "util/checked_size.hpp"
#include "io/serialize.hpp"

using namespace helib_shim;

namespace {

/// Two-call protocol in bytes: the size, or the encoding written to buf.
void emit(const bgv::serial::Encoding &encoding, uint8_t *buf, size_t *len) {
    const size_t size = encoding.size();
    if (buf == nullptr) {
        *len = size;
        return;
    }
    output_capacity(len, 1, "len");
    bgv::require(*len >= size, bgv::Status::BufferTooSmall,
                 "buffer holds " + std::to_string(*len) + " bytes, " + std::to_string(size) + " are needed");
    encoding.write(buf, size);
    *len = size;
}

/// Writes up to `*len` items of `values` (two-call style capacity check; nothing written on failure).
template <typename T, typename U>
void check_capacity(const std::vector<U> &values, const T *out, const size_t *len, const char *name) {
    require_out(out, name);
    output_capacity(len, sizeof(T), name);
    bgv::require(*len >= values.size(), bgv::Status::BufferTooSmall,
                 std::string(name) + " holds " + std::to_string(*len) + " entries, " +
                     std::to_string(values.size()) + " are needed");
}

/// The bytes a deserializer reads: `len` of them at `buf`, an array that can
/// exist (the frame's own length is checked before the bytes past its
/// header are read, see open_frame).
void check_encoding(const uint8_t *buf, size_t len) {
    require_out(buf, "buf");
    bgv::caller_array_count(len, 1, "len");
}

}  // namespace

extern "C" {

helib_status helib_context_fingerprint(const helib_context *ctx, uint8_t *out, size_t out_len) {
    return guarded([&] {
        const auto &c = *deref(ctx, "ctx").ctx;
        require_out(out, "out");
        bgv::caller_array_count(out_len, 1, "out_len");
        bgv::require(out_len >= HELIB_FINGERPRINT_BYTES, bgv::Status::BufferTooSmall,
                     "a fingerprint needs " + std::to_string(HELIB_FINGERPRINT_BYTES) + " bytes");
        const bgv::serial::Fingerprint fp = bgv::serial::context_fingerprint(c);
        std::memcpy(out, fp.data(), fp.size());
    });
}

helib_status helib_parameters_serialize(uint64_t ring_degree, const uint64_t *t_limbs, size_t t_nlimbs,
                                        const uint32_t *chain_bits, size_t chain_len,
                                        const uint32_t *special_bits, size_t special_len, uint32_t flags,
                                        uint8_t *buf, size_t *len) {
    return guarded([&] {
        require_out(len, "len");
        check_parameter_arguments(t_limbs, t_nlimbs, chain_bits, chain_len, special_bits, special_len);
        bgv::serial::ParameterSet p;
        p.ring_degree = ring_degree;
        p.t_limbs.assign(t_limbs, t_limbs + t_nlimbs);
        p.chain_bits.assign(chain_bits, chain_bits + chain_len);
        if (special_len != 0) p.special_bits.assign(special_bits, special_bits + special_len);
        p.flags = flags;
        emit(bgv::serial::encode_parameters(p), buf, len);
    });
}

helib_status helib_parameters_deserialize(const uint8_t *buf, size_t len, uint64_t *ring_degree,
                                          uint64_t *t_limbs, size_t *t_nlimbs, uint32_t *chain_bits,
                                          size_t *chain_len, uint32_t *special_bits, size_t *special_len,
                                          uint32_t *flags) {
    return guarded([&] {
        check_encoding(buf, len);
        require_out(ring_degree, "ring_degree");
        require_out(flags, "flags");
        const bgv::serial::ParameterSet p = bgv::serial::decode_parameters(buf, len);
        check_capacity(p.t_limbs, t_limbs, t_nlimbs, "t_limbs");
        check_capacity(p.chain_bits, chain_bits, chain_len, "chain_bits");
        check_capacity(p.special_bits, special_bits, special_len, "special_bits");
        *ring_degree = p.ring_degree;
        std::copy(p.t_limbs.begin(), p.t_limbs.end(), t_limbs);
        *t_nlimbs = p.t_limbs.size();
        std::copy(p.chain_bits.begin(), p.chain_bits.end(), chain_bits);
        *chain_len = p.chain_bits.size();
        std::copy(p.special_bits.begin(), p.special_bits.end(), special_bits);
        *special_len = p.special_bits.size();
        *flags = p.flags;
    });
}

helib_status helib_public_key_serialize(const helib_public_key *pk, uint8_t *buf, size_t *len) {
    return guarded([&] {
        const auto &key = *deref(pk, "pk").key;
        require_out(len, "len");
        emit(bgv::serial::encode(key), buf, len);
    });
}

helib_status helib_public_key_deserialize(const helib_context *ctx, const uint8_t *buf, size_t len,
                                          helib_public_key **out) {
    return guarded([&] {
        const auto &c = deref(ctx, "ctx").ctx;
        check_encoding(buf, len);
        require_out(out, "out");
        auto handle = std::make_unique<helib_public_key>();
        handle->key = bgv::serial::decode_public_key(c, buf, len);
        *out = handle.release();
    });
}

helib_status helib_relin_key_serialize(const helib_relin_key *rk, uint8_t *buf, size_t *len) {
    return guarded([&] {
        const auto &key = deref(rk, "rk").key;
        require_out(len, "len");
        emit(bgv::serial::encode(key), buf, len);
    });
}

helib_status helib_relin_key_deserialize(const helib_context *ctx, const uint8_t *buf, size_t len,
                                         helib_relin_key **out) {
    return guarded([&] {
        const auto &c = deref(ctx, "ctx").ctx;
        check_encoding(buf, len);
        require_out(out, "out");
        auto handle = std::make_unique<helib_relin_key>(helib_relin_key{bgv::serial::decode_relin_key(c, buf, len)});
        *out = handle.release();
    });
}

helib_status helib_galois_keys_serialize(const helib_galois_keys *keys, uint8_t *buf, size_t *len) {
    return guarded([&] {
        const auto &k = *deref(keys, "keys").keys;
        require_out(len, "len");
        emit(bgv::serial::encode(k), buf, len);
    });
}

helib_status helib_galois_keys_deserialize(const helib_context *ctx, const uint8_t *buf, size_t len,
                                           helib_galois_keys **out) {
    return guarded([&] {
        const auto &c = deref(ctx, "ctx").ctx;
        check_encoding(buf, len);
        require_out(out, "out");
        auto handle = std::make_unique<helib_galois_keys>();
        handle->keys = bgv::serial::decode_galois_keys(c, buf, len);
        *out = handle.release();
    });
}

helib_status helib_ciphertext_serialize(const helib_ciphertext *ct, uint8_t *buf, size_t *len) {
    return guarded([&] {
        const auto &c = input(ct, "ct");
        require_out(len, "len");
        emit(bgv::serial::encode(c), buf, len);
    });
}

helib_status helib_ciphertext_deserialize(const helib_context *ctx, const uint8_t *buf, size_t len,
                                          helib_ciphertext *dst) {
    return guarded([&] {
        const auto &c = deref(ctx, "ctx").ctx;
        check_encoding(buf, len);
        auto &d = deref_mut(dst, "dst").ct;
        bgv::require(d.ctx == c, bgv::Status::ContextMismatch, "destination ciphertext belongs to a different context");
        d = bgv::serial::decode_ciphertext(c, buf, len);
    });
}

helib_status helib_plaintext_serialize(const helib_context *ctx, const uint64_t *coeffs, size_t n_coeffs,
                                       size_t limbs_per_coeff, uint8_t *buf, size_t *len) {
    return guarded([&] {
        const auto &c = *deref(ctx, "ctx").ctx;
        require_out(len, "len");
        bgv::require(n_coeffs == 0 || coeffs != nullptr, bgv::Status::NullPointer, "coeffs is NULL");
        const bgv::PlainCoeffs m = bgv::load_plaintext(c, coeffs, n_coeffs, limbs_per_coeff, nullptr);
        emit(bgv::serial::encode_plaintext(c, m), buf, len);
    });
}

helib_status helib_plaintext_deserialize(const helib_context *ctx, const uint8_t *buf, size_t len,
                                         uint64_t *coeffs, size_t coeffs_len, size_t limbs_per_coeff) {
    return guarded([&] {
        const auto &c = *deref(ctx, "ctx").ctx;
        check_encoding(buf, len);
        require_out(coeffs, "coeffs");
        const size_t pl = c.plain_limbs();
        bgv::require(limbs_per_coeff >= pl, bgv::Status::BufferTooSmall,
                     "limbs_per_coeff must be at least " + std::to_string(pl));
        const size_t needed = bgv::caller_limb_count(c.n(), limbs_per_coeff, "N * limbs_per_coeff");
        bgv::caller_array_count(coeffs_len, sizeof(uint64_t), "coeffs_len");
        bgv::require(coeffs_len >= needed, bgv::Status::BufferTooSmall,
                     "output buffer has " + std::to_string(coeffs_len) + " limbs, " + std::to_string(needed) +
                         " (N coefficients of " + std::to_string(limbs_per_coeff) + " limbs) are needed");
        const bgv::PlainCoeffs m = bgv::serial::decode_plaintext(c, buf, len);
        for (size_t j = 0; j < c.n(); ++j) {
            for (size_t k = 0; k < limbs_per_coeff; ++k) coeffs[j * limbs_per_coeff + k] = k < pl ? m[j * pl + k] : 0;
        }
    });
}

helib_status helib_secret_key_export(const helib_secret_key *sk, uint8_t *buf, size_t *len) {
    return guarded([&] {
        const auto &key = *deref(sk, "sk").key;
        require_out(len, "len");
        emit(bgv::serial::encode_secret_key(key), buf, len);
    });
}

helib_status helib_secret_key_import(const helib_context *ctx, const uint8_t *buf, size_t len,
                                     helib_secret_key **out) {
    return guarded([&] {
        const auto &c = deref(ctx, "ctx").ctx;
        check_encoding(buf, len);
        require_out(out, "out");
        auto handle = std::make_unique<helib_secret_key>();
        handle->key = bgv::serial::decode_secret_key(c, buf, len);
        *out = handle.release();
    });
}

}  // extern "C"
