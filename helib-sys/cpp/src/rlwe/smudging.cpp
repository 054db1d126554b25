// smudging.cpp -- the smudging rule of the threshold protocols.
#include "rlwe/smudging.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "rlwe/noise.hpp"
#include "rlwe/threshold.hpp"
#include "util/error.hpp"

namespace bgv {
namespace smudging {
namespace {

/// The width for a spec whose fields are in range, and the budget it leaves.
Width width_of(const Context &ctx, const Spec &spec, double &budget_left) {
    const double error_log2 = noise::add(spec.noise_bits - ctx.log2_t(), 0.0);
    const double k = std::ceil(error_log2 + spec.security_bits + std::log2(static_cast<double>(ctx.n())));
    const unsigned bits = static_cast<unsigned>(std::max(k, 1.0));
    const double after =
        noise::add(spec.noise_bits, std::log2(static_cast<double>(spec.parties)) + ctx.log2_t() + bits);
    budget_left = noise::budget(ctx, spec.level, after);
    return Width{bits, after};
}

void check_range(const Context &ctx, uint32_t parties, uint32_t security_bits, size_t level) {
    threshold::check_parties(parties);
    require(security_bits >= 1 && security_bits <= 128, Status::InvalidArgument,
            "the statistical security parameter must be in [1, 128] bits");
    ctx.check_level(level);
}

constexpr double kRequiredBudget = noise::kMinBudgetBits + kCheckBits;

/// ceil(log2 x) for x >= 1.
unsigned ceil_log2(uint64_t x) {
    unsigned bits = 0;
    while ((uint64_t{1} << bits) < x) ++bits;
    return bits;
}

}  // namespace

unsigned room_bits(size_t n, uint32_t parties, uint32_t security_bits) {
    threshold::check_parties(parties);
    require(security_bits >= 1 && security_bits <= 128, Status::InvalidArgument,
            "the statistical security parameter must be in [1, 128] bits");
    require(n >= 1 && n <= (size_t{1} << 40), Status::InvalidArgument, "the ring degree must be in [1, 2^40]");
    return security_bits + ceil_log2(n) + ceil_log2(parties) + 2 + static_cast<unsigned>(kCheckBits);
}

Width width(const Context &ctx, const Spec &spec) {
    check_range(ctx, spec.parties, spec.security_bits, spec.level);
    require(std::isfinite(spec.noise_bits) && spec.noise_bits >= noise::floor_log2(ctx),
            Status::InvalidArgument,
            "the agreed noise bound (" + std::to_string(spec.noise_bits) +
                " bits) is not a number at or above the noise floor of every ciphertext (" +
                std::to_string(noise::floor_log2(ctx)) + " bits)");
    double left = 0;
    const Width w = width_of(ctx, spec, left);
    require(left >= kRequiredBudget, Status::NoiseBudgetExhausted,
            "smudging noise of " + std::to_string(w.bits) + " bits per party (" + std::to_string(spec.parties) +
                " parties, 2^-" + std::to_string(spec.security_bits) + ") for noise up to " +
                std::to_string(spec.noise_bits) + " bits does not fit level " + std::to_string(spec.level) +
                ": the noise would reach " + std::to_string(w.noise_after) + " bits of log2 Q = " +
                std::to_string(ctx.level(spec.level).crt.log2_modulus()));
    return w;
}

double level_bound(const Context &ctx, uint32_t parties, uint32_t security_bits, size_t level) {
    check_range(ctx, parties, security_bits, level);
    Spec spec{parties, security_bits, level, noise::floor_log2(ctx)};
    double left = 0;
    width_of(ctx, spec, left);
    require(left >= kRequiredBudget, Status::NoiseBudgetExhausted,
            "level " + std::to_string(level) + " cannot hold the smudging of " + std::to_string(parties) +
                " parties (2^-" + std::to_string(security_bits) +
                ") even for the least noise a ciphertext carries: decrypt collectively at a higher level");
    // The budget left falls as the bound grows: bisect to 1/64 bit, keeping
    // the lower end accepted.
    double lo = spec.noise_bits, hi = ctx.level(level).crt.log2_modulus();
    while (hi - lo > 1.0 / 64) {
        spec.noise_bits = (lo + hi) / 2;
        width_of(ctx, spec, left);
        (left >= kRequiredBudget ? lo : hi) = spec.noise_bits;
    }
    return lo;
}

}  // namespace smudging
}  // namespace bgv
