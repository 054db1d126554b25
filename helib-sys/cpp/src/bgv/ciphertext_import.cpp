// ciphertext_import.cpp -- ciphertexts assembled from residues computed elsewhere.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "bgv/ciphertext.hpp"
#include "rlwe/noise.hpp"
#include "util/error.hpp"

namespace bgv {
namespace {

/// The checked shape of an imported ciphertext, its residues uninitialized.
Ciphertext ciphertext_shell(const std::shared_ptr<const Context> &ctx_ptr, size_t level, size_t parts,
                            const mpz_class &factor, double noise_log2) {
    require(ctx_ptr != nullptr, Status::NullPointer, "the context is NULL");
    const Context &ctx = *ctx_ptr;
    ctx.check_level(level);
    require(parts == 2 || parts == 3, Status::MalformedInput,
            "malformed input: a ciphertext has 2 or 3 polynomials, not " + std::to_string(parts));
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
    for (size_t p = 0; p < parts; ++p) ct.parts.emplace_back(ctx.n(), level + 1);
    return ct;
}

/// Throws Status::MalformedInput naming the first of `count` words not below
/// q, as column `first + j` of row (part, prime).
void require_below_prime(const u64 *words, size_t count, u64 q, size_t part, size_t prime, size_t first) {
    const u64 *bad = std::find_if(words, words + count, [q](u64 w) { return w >= q; });
    if (bad != words + count) {
        throw Error(Status::MalformedInput, "malformed input: residue " + std::to_string(first + (bad - words)) +
                                                " of polynomial " + std::to_string(part) + " is not below prime " +
                                                std::to_string(prime));
    }
}

}  // namespace

Ciphertext ciphertext_from_residues(const std::shared_ptr<const Context> &ctx_ptr, size_t level, size_t parts,
                                    const mpz_class &factor, double noise_log2, const u64 *residues, size_t len) {
    Ciphertext ct = ciphertext_shell(ctx_ptr, level, parts, factor, noise_log2);
    const Context &ctx = *ctx_ptr;
    const size_t n = ctx.n(), count = level + 1;
    require(residues != nullptr, Status::NullPointer, "residues is NULL");
    require(len == parts * count * n, Status::MalformedInput,
            "malformed input: " + std::to_string(parts) + " polynomials at level " + std::to_string(level) +
                " take " + std::to_string(parts * count * n) + " words, not " + std::to_string(len));
    for (size_t p = 0; p < parts; ++p) {
        for (size_t i = 0; i < count; ++i) {
            const u64 *src = residues + (p * count + i) * n;
            require_below_prime(src, n, ctx.prime(i).value(), p, i, 0);
            std::memcpy(ct.parts[p].residues(i), src, n * sizeof(u64));
        }
    }
    return ct;
}

Ciphertext ciphertext_zeros(const std::shared_ptr<const Context> &ctx, size_t level, size_t parts,
                            const mpz_class &factor, double noise_log2) {
    Ciphertext ct = ciphertext_shell(ctx, level, parts, factor, noise_log2);
    for (RnsPoly &poly : ct.parts) std::fill(poly.data.begin(), poly.data.end(), u64{0});
    return ct;
}

Ciphertext ciphertext_unwritten(const std::shared_ptr<const Context> &ctx, size_t level, size_t parts,
                                const mpz_class &factor, double noise_log2) {
    return ciphertext_shell(ctx, level, parts, factor, noise_log2);
}

void require_residue_columns(const Ciphertext &ct, size_t part, size_t prime, size_t first, size_t count) {
    require(part < ct.parts.size(), Status::InvalidArgument,
            "part " + std::to_string(part) + " of a ciphertext with " + std::to_string(ct.parts.size()) +
                " polynomials");
    if (prime > ct.level)
        fail_level_out_of_range(prime, ct.level,
                                "prime " + std::to_string(prime) + " is above the ciphertext's level " +
                                    std::to_string(ct.level));
    const size_t n = ct.ctx->n();
    require(first <= n && count <= n - first, Status::InvalidArgument,
            "columns [" + std::to_string(first) + ", " + std::to_string(first) + " + " + std::to_string(count) +
                ") are not within the N = " + std::to_string(n) + " columns of a residue row");
}

void write_residue_columns(Ciphertext &ct, size_t part, size_t prime, size_t first, const u64 *words, size_t count) {
    require_residue_columns(ct, part, prime, first, count);
    require(words != nullptr || count == 0, Status::NullPointer, "words is NULL");
    if (count == 0) return;
    require_below_prime(words, count, ct.ctx->prime(prime).value(), part, prime, first);
    std::memcpy(ct.parts[part].residues(prime) + first, words, count * sizeof(u64));
    ct.c1_seed.reset();
}

}  // namespace bgv
