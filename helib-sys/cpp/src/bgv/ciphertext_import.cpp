// ciphertext_import.cpp -- ciphertexts assembled from residues computed elsewhere.
#include <cmath>
#include <cstring>
#include <string>

#include "bgv/ciphertext.hpp"
#include "rlwe/noise.hpp"
#include "util/error.hpp"

namespace bgv {

Ciphertext ciphertext_from_residues(const std::shared_ptr<const Context> &ctx_ptr, size_t level, size_t parts,
                                    const mpz_class &factor, double noise_log2, const u64 *residues, size_t len) {
    require(ctx_ptr != nullptr, Status::NullPointer, "the context is NULL");
    const Context &ctx = *ctx_ptr;
    ctx.check_level(level);
    require(parts == 2 || parts == 3, Status::MalformedInput,
            "malformed input: a ciphertext has 2 or 3 polynomials, not " + std::to_string(parts));
    const size_t n = ctx.n(), count = level + 1;
    require(residues != nullptr, Status::NullPointer, "residues is NULL");
    require(len == parts * count * n, Status::MalformedInput,
            "malformed input: " + std::to_string(parts) + " polynomials at level " + std::to_string(level) +
                " take " + std::to_string(parts * count * n) + " words, not " + std::to_string(len));
    mpz_class common;
    mpz_gcd(common.get_mpz_t(), factor.get_mpz_t(), ctx.t().get_mpz_t());
    require(factor > 0 && factor < ctx.t() && common == 1, Status::MalformedInput,
            "malformed input: the correction factor is not an invertible residue mod t");
    require(std::isfinite(noise_log2), Status::MalformedInput,
            "malformed input: the noise estimate is not a finite number");
    Ciphertext ct;
    ct.ctx = ctx_ptr;
    ct.level = level;
    ct.factor = factor;
    ct.noise_log2 = std::max(noise_log2, noise::floor_log2(ctx));
    for (size_t p = 0; p < parts; ++p) {
        RnsPoly poly(n, count);
        for (size_t i = 0; i < count; ++i) {
            const u64 *src = residues + (p * count + i) * n;
            const u64 q = ctx.prime(i).value();
            for (size_t j = 0; j < n; ++j) {
                if (src[j] >= q) {
                    throw Error(Status::MalformedInput, "malformed input: residue " + std::to_string(j) +
                                                               " of polynomial " + std::to_string(p) +
                                                               " is not below prime " + std::to_string(i));
                }
            }
            std::memcpy(poly.residues(i), src, n * sizeof(u64));
        }
        ct.parts.push_back(std::move(poly));
    }
    return ct;
}

}  // namespace bgv
