// c_api_encode.cpp -- the C shim of encoded plaintexts.
#include <cstring>
#include <memory>
#include <string>

#include "util/error.hpp"
#include "helib_c.h"
#include "bgv/scheme.hpp"

#include "capi/c_api_internal.hpp"

using namespace helib_shim;

extern "C" {

/* ------------------------------------------------------ encoded plaintext */

namespace {

helib_status encoded_plaintext_new(const helib_context *ctx, const uint64_t *coeffs, size_t n_coeffs,
                                   size_t limbs_per_coeff, size_t level, const uint64_t *factor,
                                   size_t factor_nlimbs, bool extended, bgv::Visibility visibility,
                                   helib_encoded_plaintext **out) {
    return guarded([&] {
        require_out(out, "out");
        const auto &c = deref(ctx, "ctx").ctx;
        mpz_class f = 1;
        if (factor != nullptr) {
            bgv::require(factor_nlimbs >= 1, bgv::Status::InvalidArgument, "factor has no limbs");
            f = bgv::mpz_from_limbs(factor, factor_nlimbs);
            bgv::require(f < c->t(), bgv::Status::InvalidArgument, "correction factor is not reduced mod t");
        }
        auto handle = std::make_unique<helib_encoded_plaintext>();
        handle->pt = bgv::encode_plaintext(c, coeffs, n_coeffs, limbs_per_coeff, level, f, extended, visibility);
        *out = handle.release();
    });
}

}  // namespace

helib_status helib_encoded_plaintext_new(const helib_context *ctx, const uint64_t *coeffs,
                                         size_t n_coeffs, size_t limbs_per_coeff, size_t level,
                                         const uint64_t *factor, size_t factor_nlimbs,
                                         helib_encoded_plaintext **out) {
    return encoded_plaintext_new(ctx, coeffs, n_coeffs, limbs_per_coeff, level, factor, factor_nlimbs, false,
                                 bgv::Visibility::MaySecret, out);
}

helib_status helib_encoded_plaintext_new_extended(const helib_context *ctx, const uint64_t *coeffs,
                                                  size_t n_coeffs, size_t limbs_per_coeff, size_t level,
                                                  const uint64_t *factor, size_t factor_nlimbs,
                                                  helib_encoded_plaintext **out) {
    return encoded_plaintext_new(ctx, coeffs, n_coeffs, limbs_per_coeff, level, factor, factor_nlimbs, true,
                                 bgv::Visibility::MaySecret, out);
}

helib_status helib_encoded_plaintext_new_public(const helib_context *ctx, const uint64_t *coeffs,
                                                size_t n_coeffs, size_t limbs_per_coeff, size_t level,
                                                const uint64_t *factor, size_t factor_nlimbs, int extended,
                                                helib_encoded_plaintext **out) {
    if (extended != 0 && extended != 1) {
        return guarded([] { bgv::fail(bgv::Status::InvalidArgument, "extended must be 0 or 1"); });
    }
    return encoded_plaintext_new(ctx, coeffs, n_coeffs, limbs_per_coeff, level, factor, factor_nlimbs,
                                 extended == 1, bgv::Visibility::Public, out);
}

void helib_encoded_plaintext_free(helib_encoded_plaintext *pt) { delete pt; }

helib_status helib_encoded_plaintext_level(const helib_encoded_plaintext *pt, size_t *out) {
    return guarded([&] {
        const auto &p = deref(pt, "pt").pt;
        require_out(out, "out");
        *out = p.level;
    });
}

helib_status helib_encoded_plaintext_stride(const helib_encoded_plaintext *pt, size_t *out) {
    return guarded([&] {
        const auto &p = deref(pt, "pt").pt;
        require_out(out, "out");
        *out = bgv::encoded_stride(p);
    });
}

helib_status helib_encoded_plaintext_word_count(const helib_encoded_plaintext *pt, size_t *out) {
    return guarded([&] {
        const auto &p = deref(pt, "pt").pt;
        require_out(out, "out");
        *out = bgv::encoded_word_count(p);
    });
}

helib_status helib_encoded_plaintext_export_residues(const helib_encoded_plaintext *pt, uint64_t *residues,
                                                     size_t residues_len, double *log2_linf,
                                                     double *log2_l1) {
    return guarded([&] {
        const auto &p = deref(pt, "pt").pt;
        const size_t words = bgv::encoded_word_count(p);
        bgv::require(residues_len == words, bgv::Status::InvalidArgument,
                     "residues_len is not the encoding's word count");
        bgv::require(words == 0 || residues != nullptr, bgv::Status::NullPointer, "residues is NULL");
        if (words > 0) std::memcpy(residues, p.poly.data.data(), words * sizeof(uint64_t));
        if (log2_linf != nullptr) *log2_linf = p.log2_linf;
        if (log2_l1 != nullptr) *log2_l1 = p.log2_l1;
    });
}

helib_status helib_encoded_plaintext_import_residues(const helib_context *ctx, size_t level, int extended,
                                                     size_t stride, const uint64_t *factor, size_t factor_nlimbs,
                                                     const uint64_t *residues, size_t residues_len,
                                                     double log2_linf, double log2_l1,
                                                     helib_encoded_plaintext **out) {
    return guarded([&] {
        require_out(out, "out");
        const auto &c = deref(ctx, "ctx").ctx;
        // A field of the raw form: bad input, as the header says, not a bad argument.
        bgv::require(extended == 0 || extended == 1, bgv::Status::MalformedInput,
                     "malformed input: extended must be 0 or 1");
        mpz_class f = 1;
        if (factor != nullptr) {
            bgv::require(factor_nlimbs >= 1, bgv::Status::InvalidArgument, "factor has no limbs");
            f = bgv::mpz_from_limbs(factor, factor_nlimbs);
        }
        auto handle = std::make_unique<helib_encoded_plaintext>();
        handle->pt = bgv::encoded_plaintext_from_residues(c, level, extended == 1, stride, f, residues, residues_len,
                                                          log2_linf, log2_l1);
        *out = handle.release();
    });
}

helib_status helib_encoded_plaintext_residues(const helib_encoded_plaintext *pt, const uint64_t **residues,
                                              size_t *residues_len, double *log2_linf, double *log2_l1) {
    return guarded([&] {
        const auto &p = deref(pt, "pt").pt;
        require_out(residues, "residues");
        require_out(residues_len, "residues_len");
        *residues = p.poly.data.data();
        *residues_len = bgv::encoded_word_count(p);
        if (log2_linf != nullptr) *log2_linf = p.log2_linf;
        if (log2_l1 != nullptr) *log2_l1 = p.log2_l1;
    });
}

helib_status helib_residue_import_begin(const helib_context *ctx, size_t level, int extended, size_t stride,
                                        helib_residue_import **out, uint64_t **residues, size_t *residues_len) {
    return guarded([&] {
        require_out(out, "out");
        require_out(residues, "residues");
        require_out(residues_len, "residues_len");
        const auto &c = deref(ctx, "ctx").ctx;
        // A field of the raw form: bad input, as the header says, not a bad argument.
        bgv::require(extended == 0 || extended == 1, bgv::Status::MalformedInput,
                     "malformed input: extended must be 0 or 1");
        auto handle = std::make_unique<helib_residue_import>();
        handle->import = bgv::residue_import_begin(c, level, extended == 1, stride);
        *residues = handle->import.poly.data.data();
        *residues_len = handle->import.poly.data.size();
        *out = handle.release();
    });
}

helib_status helib_residue_import_check(helib_residue_import *import, size_t upto) {
    return guarded([&] {
        auto &i = deref_mut(import, "import");
        bgv::require(!i.spent, bgv::Status::InvalidArgument, "the import is already finished");
        bgv::residue_import_check(i.import, upto);
    });
}

helib_status helib_residue_import_finish(helib_residue_import *import, const uint64_t *factor,
                                         size_t factor_nlimbs, double log2_linf, double log2_l1,
                                         helib_encoded_plaintext **out) {
    return guarded([&] {
        require_out(out, "out");
        auto &i = deref_mut(import, "import");
        bgv::require(!i.spent, bgv::Status::InvalidArgument, "the import is already finished");
        mpz_class f = 1;
        if (factor != nullptr) {
            bgv::require(factor_nlimbs >= 1, bgv::Status::InvalidArgument, "factor has no limbs");
            f = bgv::mpz_from_limbs(factor, factor_nlimbs);
        }
        // Checked first, so that a failure leaves the import as it was.
        bgv::residue_import_check(i.import, i.import.poly.data.size());
        auto handle = std::make_unique<helib_encoded_plaintext>();
        handle->pt = bgv::residue_import_finish(std::move(i.import), f, log2_linf, log2_l1);
        i.spent = true;
        *out = handle.release();
    });
}

void helib_residue_import_free(helib_residue_import *import) { delete import; }

}  // extern "C"
