// mod_down.cpp -- the BGV-exact division by P (ModDown) or by other primes of
// the basis, and the lift of a polynomial times P into the extended basis.
#include "rlwe/keyswitch.hpp"

#include <cmath>

#include "util/error.hpp"
#include "ring/base_conversion.hpp"

namespace bgv {

void mod_down(const Context &ctx, const RnsPoly &u, size_t level, RnsPoly &out) {
    std::vector<size_t> specials;
    for (size_t k = 0; k < ctx.special_size(); ++k) specials.push_back(ctx.special_index(k));
    divide_by_primes(ctx, u, level, specials, out);
}

void divide_by_primes(const Context &ctx, const RnsPoly &u, size_t level, const std::vector<size_t> &divisors,
                      RnsPoly &out) {
    ensure(&out != &u, "divide_by_primes writes a separate polynomial");
    const size_t n = ctx.n(), K = divisors.size();
    std::vector<size_t> chain;
    for (size_t i = 0; i <= level; ++i) chain.push_back(i);
    const BaseConversion conversion(ctx, divisors, chain);
    // omega = [-u * t^-1]_D residues (coefficient form), scaled for the conversion.
    std::vector<u64> y(K * n);
    for_each_prime(ctx, K, [&](size_t k) {
        const size_t pi = divisors[k];
        const Modulus &p = ctx.prime(pi);
        u64 *row = y.data() + k * n;
        std::copy(u.residues(level + 1 + k), u.residues(level + 1 + k) + n, row);
        ctx.ntt(pi).inverse(row);
        const u64 w = p.neg(ctx.t_inv_mod(pi)), ws = p.shoup(w);
        for (size_t j = 0; j < n; ++j) row[j] = p.mul_shoup(row[j], w, ws);
    });
    conversion.scale_sources(ctx, y, n);
    // Centring: subtract round(sum_k y_k / p_k) * D so omega lies in (-D/2, D/2].
    std::vector<u64> correction(n);
    for (size_t j = 0; j < n; ++j) {
        double fraction = 0;
        for (size_t k = 0; k < K; ++k) fraction += static_cast<double>(y[k * n + j]) * conversion.inverse_moduli[k];
        correction[j] = static_cast<u64>(std::llround(fraction));
    }
    out.reshape(n, level + 1);
    for_each_prime(ctx, level + 1, [&](size_t i) {
        const Modulus &q = ctx.prime(i);
        u64 *r = out.residues(i);
        // delta = t * (sum_k y_k (D/p_k) - correction * D), then (u + delta) / D.
        conversion.convert(ctx, y, n, i, r);
        const u64 whole = conversion.modulus_mod_target[i], t = ctx.t_mod(i);
        kernels::subtract_multiple_then_scale(r, correction.data(), whole, q.shoup(whole), t, q.shoup(t), n, q);
        ctx.ntt(i).forward(r);
        const u64 d_inv = q.inv(whole);
        kernels::add_then_scale(r, u.residues(i), d_inv, q.shoup(d_inv), n, q);
    });
}

void add_times_special_modulus(const Context &ctx, const RnsPoly &x, size_t level, RnsPoly &u) {
    for_each_prime(ctx, level + 1, [&](size_t i) {
        const Modulus &q = ctx.prime(i);
        const u64 p = ctx.special_modulus_mod(i), ps = q.shoup(p);
        const u64 *xi = x.residues(i);
        u64 *ui = u.residues(i);
        for (size_t j = 0; j < ctx.n(); ++j) ui[j] = q.add(ui[j], q.mul_shoup(xi[j], p, ps));
    });
}

}  // namespace bgv
