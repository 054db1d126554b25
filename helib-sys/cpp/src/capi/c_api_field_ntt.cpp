// c_api_field_ntt.cpp -- the C shim of the NTT over the plaintext field (ring/field_ntt.hpp).
#include <memory>
#include <string>

#include "capi/c_api_internal.hpp"
#include "ring/field_ntt.hpp"

using helib_shim::deref;
using helib_shim::guarded;
using helib_shim::require_out;

struct helib_field_ntt {
    std::unique_ptr<const bgv::FieldNttTable> table;
};

namespace {

bgv::Limbs4 read_limbs(const uint64_t *p) { return {p[0], p[1], p[2], p[3]}; }

enum class Direction { Forward, Inverse };

void transform(const helib_field_ntt *handle, uint64_t *values, size_t len, uint32_t kernel, Direction direction) {
    const bgv::FieldNttTable &table = *deref(handle, "table").table;
    require_out(values, "values");
    // A multiple of 4 n can still be more words than any array holds.
    bgv::caller_array_count(len, sizeof(uint64_t), "len");
    const size_t words = 4 * table.size();
    bgv::require(len % words == 0, bgv::Status::InvalidArgument,
                 "the buffer has " + std::to_string(len) + " words, not a multiple of 4 n = " +
                     std::to_string(words));
    bgv::require(kernel <= HELIB_FIELD_NTT_IFMA, bgv::Status::InvalidArgument,
                 "unknown field NTT kernel " + std::to_string(kernel));
    bgv::require(kernel != HELIB_FIELD_NTT_IFMA || table.vector_available(), bgv::Status::InvalidArgument,
                 "the AVX-512 IFMA field NTT cannot run here (it needs the CPU extension and n >= 64)");
    const bgv::Limbs4 &t = table.mont().modulus();
    for (size_t i = 0; i < len; i += 4) {
        // The message is built only on failure (this loop runs over every element).
        if (!bgv::limbs_less(read_limbs(values + i), t)) {
            bgv::fail(bgv::Status::InvalidArgument, "element " + std::to_string(i / 4) + " is not reduced modulo t");
        }
    }
    for (size_t at = 0; at < len; at += words) {
        uint64_t *v = values + at;
        const bool forward = direction == Direction::Forward;
        switch (kernel) {
        case HELIB_FIELD_NTT_SCALAR:
            forward ? table.forward_scalar(v) : table.inverse_scalar(v);
            break;
        case HELIB_FIELD_NTT_IFMA:
            forward ? table.forward_vector(v) : table.inverse_vector(v);
            break;
        default:
            forward ? table.forward(v) : table.inverse(v);
            break;
        }
    }
}

}  // namespace

helib_status helib_field_ntt_new(const uint64_t *t, uint64_t n, const uint64_t *psi, helib_field_ntt **out) {
    return guarded([&] {
        require_out(out, "out");
        require_out(t, "t");
        require_out(psi, "psi");
        auto handle = std::make_unique<helib_field_ntt>();
        handle->table = std::make_unique<const bgv::FieldNttTable>(read_limbs(t), static_cast<size_t>(n),
                                                                   read_limbs(psi));
        *out = handle.release();
    });
}

void helib_field_ntt_free(helib_field_ntt *table) { delete table; }

helib_status helib_field_ntt_vectorized(const helib_field_ntt *table, int *out) {
    return guarded([&] {
        require_out(out, "out");
        *out = deref(table, "table").table->vectorized() ? 1 : 0;
    });
}

helib_status helib_field_ntt_ifma_available(const helib_field_ntt *table, int *out) {
    return guarded([&] {
        require_out(out, "out");
        *out = deref(table, "table").table->vector_available() ? 1 : 0;
    });
}

helib_status helib_field_ntt_forward(const helib_field_ntt *table, uint64_t *values, size_t len, uint32_t kernel) {
    return guarded([&] { transform(table, values, len, kernel, Direction::Forward); });
}

helib_status helib_field_ntt_inverse(const helib_field_ntt *table, uint64_t *values, size_t len, uint32_t kernel) {
    return guarded([&] { transform(table, values, len, kernel, Direction::Inverse); });
}
