// base_conversion.hpp -- fast RNS base conversion between sets of primes of
// a context (the core of ModUp and ModDown in key switching).
#pragma once

#include <vector>

#include "ring/context.hpp"
#include "ring/ntt_kernels.hpp"

namespace bgv {

/// Constants of a fast base conversion from primes `from` (indices into
/// ctx.primes()) to primes `to`: y_i = x_i * (M/m_i)^-1 mod m_i, then
/// sum_i y_i * (M/m_i mod p) for each target p.
struct BaseConversion {
    std::vector<size_t> from, to;
    std::vector<u64> hat_inverse, hat_inverse_shoup;  // per source
    std::vector<u64> hat_mod_target;                  // [target][source]
    std::vector<u64> hat_mod_target_shoup;            // Shoup factors of the above
    std::vector<u64> modulus_mod_target;              // M mod p, per target
    std::vector<double> inverse_moduli;               // 1 / m_i, per source

    BaseConversion(const Context &ctx, std::vector<size_t> from_, std::vector<size_t> to_)
        : from(std::move(from_)), to(std::move(to_)) {
        for (size_t i : from) {
            const Modulus &m = ctx.prime(i);
            u64 hat = 1;
            for (size_t k : from) {
                if (k != i) hat = m.mul(hat, m.reduce(ctx.prime(k).value()));
            }
            hat_inverse.push_back(m.inv(hat));
            hat_inverse_shoup.push_back(m.shoup(hat_inverse.back()));
            inverse_moduli.push_back(1.0 / static_cast<double>(m.value()));
        }
        for (size_t p_index : to) {
            const Modulus &p = ctx.prime(p_index);
            u64 whole = 1;
            for (size_t i : from) {
                u64 hat = 1;
                for (size_t k : from) {
                    if (k != i) hat = p.mul(hat, p.reduce(ctx.prime(k).value()));
                }
                hat_mod_target.push_back(hat);
                hat_mod_target_shoup.push_back(p.shoup(hat));
                whole = p.mul(whole, p.reduce(ctx.prime(i).value()));
            }
            modulus_mod_target.push_back(whole);
        }
    }

    /// y_i in place (coefficient form, source-major, n per source).
    void scale_sources(const Context &ctx, std::vector<u64> &y, size_t n) const {
        for (size_t s = 0; s < from.size(); ++s) {
            const Modulus &m = ctx.prime(from[s]);
            u64 *row = y.data() + s * n;
            for (size_t j = 0; j < n; ++j) row[j] = m.mul_shoup(row[j], hat_inverse[s], hat_inverse_shoup[s]);
        }
    }

    /// Writes sum_i y_i * (M/m_i) mod target `t` into out.
    void convert(const Context &ctx, const std::vector<u64> &y, size_t n, size_t t, u64 *out) const {
        kernels::base_convert_row(out, y.data(), from.size(), n, n, hat_mod_target.data() + t * from.size(),
                                  hat_mod_target_shoup.data() + t * from.size(), ctx.prime(to[t]));
    }
};

}  // namespace bgv
