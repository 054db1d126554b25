// decompose.cpp -- the digit decomposition of key switching (ModUp): each digit
// of a polynomial extended to the basis Q_level * P.
#include "rlwe/keyswitch.hpp"

#include <algorithm>

#include "util/error.hpp"
#include "ring/base_conversion.hpp"

namespace bgv {

Decomposition decompose(const Context &ctx, const RnsPoly &d, size_t level) {
    ensure(!ctx.digits().empty(), "decompose needs special primes");
    const size_t n = ctx.n(), K = ctx.special_size(), ext = level + 1 + K;
    // Coefficient form of d.
    RnsPoly coeff = d;
    coeff.truncate(level + 1);
    for_each_prime(ctx, level + 1, [&](size_t i) { ctx.ntt(i).inverse(coeff.residues(i)); });

    Decomposition out;
    out.level = level;
    for (const auto &[begin, end_all] : ctx.digits()) {
        if (begin > level) break;
        const size_t end = std::min(end_all, level + 1);
        std::vector<size_t> from, to, to_residue;
        for (size_t i = begin; i < end; ++i) from.push_back(i);
        for (size_t r = 0; r < ext; ++r) {
            if (r >= begin && r < end) continue;
            to.push_back(extended_prime(ctx, level, r));
            to_residue.push_back(r);
        }
        const BaseConversion conversion(ctx, from, to);
        std::vector<u64> y(from.size() * n);
        for (size_t s = 0; s < from.size(); ++s) {
            std::copy(coeff.residues(from[s]), coeff.residues(from[s]) + n, y.data() + s * n);
        }
        conversion.scale_sources(ctx, y, n);
        RnsPoly digit(n, ext);
        for (size_t i = begin; i < end; ++i) std::copy(d.residues(i), d.residues(i) + n, digit.residues(i));
        for_each_prime(ctx, to.size(), [&](size_t t) {
            u64 *r = digit.residues(to_residue[t]);
            conversion.convert(ctx, y, n, t, r);
            ctx.ntt(to[t]).forward(r);
        });
        out.digits.push_back(std::move(digit));
    }
    return out;
}

}  // namespace bgv
