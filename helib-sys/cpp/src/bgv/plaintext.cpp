// plaintext.cpp -- plaintext validation and centred lifting.
#include "bgv/plaintext.hpp"

#include <cmath>
#include <string>

#include "ring/ntt_kernels.hpp"
#include "util/checked_size.hpp"
#include "util/error.hpp"

namespace bgv {

PlainCoeffs load_plaintext(const Context &ctx, const u64 *coeffs, size_t n_coeffs,
                           size_t limbs_per_coeff, const mpz_class *factor) {
    require(coeffs != nullptr || n_coeffs == 0, HELIB_ERR_NULL_POINTER, "coefficient array is NULL");
    require(limbs_per_coeff >= 1, HELIB_ERR_INVALID_ARGUMENT, "limbs_per_coeff must be at least 1");
    require(n_coeffs <= ctx.n(), HELIB_ERR_INVALID_ARGUMENT,
            "plaintext has " + std::to_string(n_coeffs) + " coefficients but the ring degree is " +
                std::to_string(ctx.n()));
    // The caller's array is n_coeffs * limbs_per_coeff limbs: that size must exist.
    caller_limb_count(n_coeffs, limbs_per_coeff, "n_coeffs * limbs_per_coeff");
    const size_t pl = ctx.plain_limbs();
    const auto &t = ctx.t_limbs();
    PlainCoeffs out(ctx.n() * pl, 0);
    for (size_t j = 0; j < n_coeffs; ++j) {
        const u64 *c = coeffs + j * limbs_per_coeff;
        require(compare_limbs(c, limbs_per_coeff, t.data(), pl) < 0, HELIB_ERR_INVALID_ARGUMENT,
                "plaintext coefficient " + std::to_string(j) + " is not reduced modulo t");
        for (size_t k = 0; k < pl && k < limbs_per_coeff; ++k) out[j * pl + k] = c[k];
    }
    if (factor != nullptr && *factor != 1) {
        mpz_class value;
        for (size_t j = 0; j < n_coeffs; ++j) {
            value = mpz_from_limbs(out.data() + j * pl, pl);
            value = value * *factor % ctx.t();
            mpz_to_limbs(value, out.data() + j * pl, pl);
        }
    }
    return out;
}

LiftedPlaintext lift_plaintext(const Context &ctx, const PlainCoeffs &coeffs, size_t count,
                               bool to_ntt) {
    std::vector<size_t> primes(count);
    for (size_t i = 0; i < count; ++i) primes[i] = i;
    return lift_plaintext(ctx, coeffs, primes, to_ntt);
}

LiftedPlaintext lift_plaintext(const Context &ctx, const PlainCoeffs &coeffs, const std::vector<size_t> &primes,
                               bool to_ntt) {
    const size_t n = ctx.n(), pl = ctx.plain_limbs();
    const auto &t = ctx.t_limbs();
    const auto &half = ctx.half_t_limbs();
    // Coefficients above t/2 are lifted to c - t: store |c - t| and a sign
    // mask. The magnitudes are stored limb-major (limb k of every coefficient
    // in one row), so that each prime's residues are one vector pass of
    // base_convert_row: sum_k limb_k * (2^(64k) mod q).
    std::vector<u64> magnitude(n * pl);
    std::vector<u64> negative(n, 0);
    std::vector<u64> magnitude_of_one(pl);
    u64 *m = magnitude_of_one.data();
    long double l1 = 0, linf = 0;
    for (size_t j = 0; j < n; ++j) {
        const u64 *c = coeffs.data() + j * pl;
        if (compare_limbs(c, pl, half.data(), pl) > 0) {
            negative[j] = ~u64{0};
            mpn_sub_n(reinterpret_cast<mp_limb_t *>(m), reinterpret_cast<const mp_limb_t *>(t.data()),
                      reinterpret_cast<const mp_limb_t *>(c), static_cast<mp_size_t>(pl));
        } else {
            for (size_t k = 0; k < pl; ++k) m[k] = c[k];
        }
        long double value = 0;
        for (size_t k = pl; k-- > 0;) {
            magnitude[k * n + j] = m[k];
            value = value * 18446744073709551616.0L + static_cast<long double>(m[k]);
        }
        l1 += value;
        if (value > linf) linf = value;
    }
    RnsPoly poly(n, primes.size());
    for_each_prime(ctx, primes.size(), [&](size_t r_index) {
        const size_t i = primes[r_index];
        const Modulus &q = ctx.prime(i);
        std::vector<u64> power(pl), power_shoup(pl);
        ctx.limb_powers(i, power.data(), power_shoup.data());
        u64 *r = poly.residues(r_index);
        kernels::base_convert_row(r, magnitude.data(), pl, n, power.data(), power_shoup.data(), q);
        // Branch-free sign: the signs are random, so a branch would mispredict.
        for (size_t j = 0; j < n; ++j) r[j] = (r[j] & ~negative[j]) | (q.neg(r[j]) & negative[j]);
        if (to_ntt) ctx.ntt(i).forward(r);
    });
    const double log_l1 = l1 > 0 ? static_cast<double>(log2l(l1)) : -1e300;
    const double log_linf = linf > 0 ? static_cast<double>(log2l(linf)) : -1e300;
    return LiftedPlaintext{std::move(poly), log_linf, log_l1};
}

mpz_class reduce_mod_t(const Context &ctx, const u64 *limbs, size_t count) {
    require(limbs != nullptr || count == 0, HELIB_ERR_NULL_POINTER, "integer limbs are NULL");
    mpz_class value = mpz_from_limbs(limbs, count);
    return value % ctx.t();
}

}  // namespace bgv
