// noise.cpp -- the key-free noise model.
#include "rlwe/noise.hpp"

#include <algorithm>
#include <cmath>

#include "util/error.hpp"
#include "util/random.hpp"

namespace bgv {
namespace noise {

double fresh_public_bits(size_t ring_degree, double log2_t) {
    const double n = static_cast<double>(ring_degree);
    // e*u and e1*s: each coefficient a sum of N products with variance sigma^2 * 2/3.
    const double product = kTail * kSigma * std::sqrt(2.0 * n / 3.0);
    return log2_t + std::log2(2.0 * product + kTail * kSigma + 0.5);
}

double fresh_public(const Context &ctx) { return fresh_public_bits(ctx.n(), ctx.log2_t()); }

void require_budget(const Context &ctx, size_t level, double noise_after, const std::string &operation) {
    const double left = budget(ctx, level, noise_after);
    require(left >= kMinBudgetBits, Status::NoiseBudgetExhausted,
            operation + " refused: the estimated noise budget would drop to " + std::to_string(left) +
                " bits (switch modulus first, or use a longer chain)");
}

double fresh_secret(const Context &ctx) { return ctx.log2_t() + std::log2(kTail * kSigma + 0.5); }

double add(double a, double b) {
    const double hi = std::max(a, b), lo = std::min(a, b);
    if (lo < -1e200) return hi;
    return hi + std::log2(1.0 + std::exp2(lo - hi));
}

double squared_secret_rounding_bits(size_t n, double log2_t) {
    // The rounding term w2 of c_2 meets s^2, whose coefficients have standard
    // deviation (2/3) sqrt(N): t * w2 * s^2 adds kTail * N / sqrt(27).
    return log2_t + std::log2(kTail * static_cast<double>(n) / std::sqrt(27.0));
}

double after_mod_switch(const Context &ctx, double noise, double log2_q, size_t parts) {
    double floor = ctx.mod_switch_floor_log2();
    if (parts > 2) floor = add(floor, squared_secret_rounding_bits(ctx.n(), ctx.log2_t()));
    return add(noise - log2_q, floor);
}

double budget(const Context &ctx, size_t level, double noise) {
    return ctx.level(level).crt.log2_modulus() - 1.0 - noise;
}

double floor_log2(const Context &ctx) { return std::min(fresh_secret(ctx), ctx.mod_switch_floor_log2()); }

bool level_holds_floor(const Context &ctx, size_t level) {
    return budget(ctx, level, floor_log2(ctx)) >= kMinBudgetBits;
}

}  // namespace noise
}  // namespace bgv
