// keyswitch_noise.cpp -- the bound on the noise one key switch adds.
#include "rlwe/keyswitch.hpp"

#include <algorithm>
#include <cmath>

#include "rlwe/noise.hpp"
#include "util/error.hpp"
#include "util/random.hpp"

namespace bgv {

namespace {

/// The bound with the key's error `error_scale` times a single key's and a
/// secret that is a sum of `secrets` ternary secrets.
double noise_bound_log2(const Context &ctx, size_t level, double error_scale, double secrets) {
    const double n = static_cast<double>(ctx.n());
    double digits_term = 0;
    for (const auto &[begin, end_all] : ctx.digits()) {
        if (begin > level) break;
        const size_t end = std::min(end_all, level + 1);
        double log2_digit = 0;
        for (size_t i = begin; i < end; ++i) log2_digit += std::log2(static_cast<double>(ctx.prime(i).value()));
        // Extended digit (< |D| * Q_j in magnitude) times the key's error e_j, divided by P.
        digits_term += static_cast<double>(end - begin) * std::exp2(log2_digit - ctx.log2_special_modulus()) *
                       noise::kTail * kSigma * error_scale * std::sqrt(n / 12.0);
    }
    // The rounding of the division by P: t * (w0 + w1 s), w uniform in [-1/2, 1/2].
    const double rounding = 0.5 + noise::kTail * std::sqrt(secrets * n / 18.0);
    return ctx.log2_t() + std::log2(digits_term + rounding);
}

}  // namespace

double key_switch_noise_log2(const Context &ctx, size_t level) { return noise_bound_log2(ctx, level, 1.0, 1.0); }

double key_switch_noise_log2(const Context &ctx, size_t level, const KeySwitchKey &key) {
    return noise_bound_log2(ctx, level, key.error_scale, std::max<double>(key.parties, 1));
}

void mark_collective(KeySwitchKey &key, uint32_t parties, CollectiveKind kind) {
    ensure(parties >= 1, "a collective key has at least one party");
    const double p = parties, n = static_cast<double>(key.ctx->n());
    key.parties = parties;
    if (kind == CollectiveKind::Galois) {
        key.error_scale = std::sqrt(p);
    } else {
        // Variances over sigma^2: s e0 and u e1 each N * (2p/3) * p, e2 p.
        key.error_scale = std::sqrt(2.0 * n * (2.0 * p / 3.0) * p + p);
    }
}

}  // namespace bgv
