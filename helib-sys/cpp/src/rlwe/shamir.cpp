// shamir.cpp -- Shamir dealings over the chain residues, Lagrange coefficients
// at zero and the activation of a re-shared key for an active set.
#include "rlwe/shamir.hpp"

#include <algorithm>
#include <string>

#include "rlwe/threshold.hpp"
#include "util/error.hpp"
#include "util/wipe.hpp"

namespace bgv {

void check_shamir_sizes(uint32_t threshold, uint32_t parties) {
    require(parties >= 1 && parties <= threshold::kMaxParties, Status::InvalidArgument,
            "the number of parties of a Shamir re-sharing must be in [1, " + std::to_string(threshold::kMaxParties) +
                "], not " + std::to_string(parties));
    require(threshold >= 1 && threshold <= parties, Status::InvalidArgument,
            "the threshold must be in [1, " + std::to_string(parties) + "], not " + std::to_string(threshold));
}

ResidueSecret::ResidueSecret(std::shared_ptr<const Context> ctx, RnsPoly s, uint32_t index, uint32_t threshold,
                             uint32_t parties)
    : ctx_(std::move(ctx)), s_(std::move(s)), index_(index), threshold_(threshold), parties_(parties) {
    check_shamir_sizes(threshold, parties);
    require(index >= 1 && index <= parties, Status::InvalidArgument,
            "party index " + std::to_string(index) + " is outside [1, " + std::to_string(parties) + "]");
    require(s_.n == ctx_->n() && s_.count == ctx_->chain_size(), Status::Internal,
            "a residue secret covers the whole chain");
}

std::unique_ptr<ResidueSecret> ResidueSecret::activate(const std::vector<uint32_t> &active) const {
    require(active_.empty(), Status::InvalidArgument, "the share is already activated for an active set");
    std::vector<uint32_t> sorted = active;
    std::sort(sorted.begin(), sorted.end());
    for (size_t k = 0; k < sorted.size(); ++k) {
        require(sorted[k] >= 1 && sorted[k] <= parties_, Status::InvalidArgument,
                "active party " + std::to_string(sorted[k]) + " is outside [1, " + std::to_string(parties_) + "]");
        require(k == 0 || sorted[k] != sorted[k - 1], Status::InvalidArgument,
                "active party " + std::to_string(sorted[k]) + " is listed twice");
    }
    require(sorted.size() >= threshold_, Status::InvalidArgument,
            "an active set of " + std::to_string(sorted.size()) + " parties is below the threshold " +
                std::to_string(threshold_));
    require(std::binary_search(sorted.begin(), sorted.end(), index_), Status::InvalidArgument,
            "party " + std::to_string(index_) + " is not in the active set");
    const Context &ctx = *ctx_;
    RnsPoly scaled(ctx.n(), ctx.chain_size(), Secrecy::Secret);
    for (size_t i = 0; i < ctx.chain_size(); ++i) {
        const Modulus &q = ctx.prime(i);
        const u64 lambda = lagrange_at_zero(q, index_, sorted);
        const u64 lambda_shoup = q.shoup(lambda);
        const u64 *x = s_.residues(i);
        u64 *o = scaled.residues(i);
        for (size_t j = 0; j < ctx.n(); ++j) o[j] = q.mul_shoup(x[j], lambda, lambda_shoup);
    }
    auto out = std::make_unique<ResidueSecret>(ctx_, std::move(scaled), index_, threshold_, parties_);
    out->active_ = std::move(sorted);
    return out;
}

void shamir_deal(const SecretKey &sk, uint32_t threshold, uint32_t parties, Prng &prng, u64 *const *outs) {
    check_shamir_sizes(threshold, parties);
    const Context &ctx = *sk.context();
    const size_t n = ctx.n(), chain = ctx.chain_size();
    // The random coefficients a_1..a_{threshold-1} of one prime, coefficient-major.
    const size_t degree = threshold - 1;
    WipedVector<u64> coeffs(std::vector<u64>(n * degree, 0));
    for (size_t i = 0; i < chain; ++i) {
        const Modulus &q = ctx.prime(i);
        if (degree > 0) prng.fill_uniform_below(q.value(), coeffs.data(), coeffs.size());
        const u64 *s = sk.ntt_montgomery().residues(i);
        for (uint32_t p = 0; p < parties; ++p) {
            const u64 x = q.reduce(p + 1), xs = q.shoup(x);
            u64 *o = outs[p] + i * n;
            for (size_t j = 0; j < n; ++j) {
                // Horner: f(x) = s + x (a_1 + x (a_2 + ... )).
                u64 acc = 0;
                for (size_t k = degree; k-- > 0;) acc = q.mul_shoup(q.add(acc, coeffs[j * degree + k]), x, xs);
                // s is in Montgomery form: times 1 with a Montgomery product gives it in standard form.
                o[j] = q.add(acc, q.mul_montgomery(s[j], 1));
            }
        }
    }
}

u64 lagrange_at_zero(const Modulus &q, uint32_t index, const std::vector<uint32_t> &active) {
    u64 num = 1 % q.value(), den = 1 % q.value();
    for (uint32_t k : active) {
        if (k == index) continue;
        const u64 diff = q.sub(q.reduce(k), q.reduce(index));
        require(diff != 0 && q.reduce(k) != 0, Status::InvalidArgument,
                "party indices " + std::to_string(k) + " and " + std::to_string(index) +
                    " are not distinct modulo the prime " + std::to_string(q.value()));
        num = q.mul(num, q.reduce(k));
        den = q.mul(den, diff);
    }
    return q.mul(num, q.inv(den));
}

}  // namespace bgv
