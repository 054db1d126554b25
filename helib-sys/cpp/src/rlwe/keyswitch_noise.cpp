// keyswitch_noise.cpp -- the bound on the noise one key switch adds.
#include "rlwe/keyswitch.hpp"

#include <algorithm>
#include <cmath>

#include "rlwe/noise.hpp"
#include "util/random.hpp"

namespace bgv {

double key_switch_noise_log2(const Context &ctx, size_t level) {
    const double n = static_cast<double>(ctx.n());
    double digits_term = 0;
    for (const auto &[begin, end_all] : ctx.digits()) {
        if (begin > level) break;
        const size_t end = std::min(end_all, level + 1);
        double log2_digit = 0;
        for (size_t i = begin; i < end; ++i) log2_digit += std::log2(static_cast<double>(ctx.prime(i).value()));
        // Extended digit (< |D| * Q_j in magnitude) times a Gaussian e_j, divided by P.
        digits_term += static_cast<double>(end - begin) * std::exp2(log2_digit - ctx.log2_special_modulus()) *
                       noise::kTail * kSigma * std::sqrt(n / 12.0);
    }
    // The rounding of the division by P: t * (w0 + w1 s), w uniform in [-1/2, 1/2].
    const double rounding = 0.5 + noise::kTail * std::sqrt(n / 18.0);
    return ctx.log2_t() + std::log2(digits_term + rounding);
}

}  // namespace bgv
