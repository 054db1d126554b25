// encrypt.cpp -- public- and secret-key encryption, plaintext encoding.
#include <array>
#include <cmath>
#include <string>

#include "error.hpp"
#include "noise.hpp"
#include "ntt_kernels.hpp"

#include "scheme.hpp"

namespace bgv {
namespace {

/// t * e mod q for Gaussian samples e, by table lookup (|e| <= kMaxGaussian).
class TimesT {
public:
    TimesT(const Modulus &q, u64 t) {
        for (int k = -kMaxGaussian; k <= kMaxGaussian; ++k) table_[k + kMaxGaussian] = q.mul(q.from_small(k), t);
    }
    u64 operator()(int32_t e) const { return table_[e + kMaxGaussian]; }

private:
    std::array<u64, 2 * kMaxGaussian + 1> table_{};
};

/// Loads the message scaled by the level's canonical correction factor,
/// refusing a level whose modulus cannot hold the fresh noise `noise_log2`.
PlainCoeffs load_for_level(const Context &ctx, const u64 *coeffs, size_t n_coeffs,
                           size_t limbs_per_coeff, size_t level, double noise_log2) {
    ctx.check_level(level);
    const double budget = noise::budget(ctx, level, noise_log2);
    require(budget >= noise::kMinBudgetBits, HELIB_ERR_NOISE_BUDGET_EXHAUSTED,
            "level " + std::to_string(level) + " is too low for a fresh encryption (estimated budget " +
                std::to_string(budget) + " bits)");
    const mpz_class &factor = ctx.level(level).canonical_factor;
    return load_plaintext(ctx, coeffs, n_coeffs, limbs_per_coeff, &factor);
}

}  // namespace

Ciphertext encrypt_public(const PublicKey &pk, const u64 *coeffs, size_t n_coeffs,
                          size_t limbs_per_coeff, size_t level) {
    const Context &ctx = *pk.context();
    const PlainCoeffs m = load_for_level(ctx, coeffs, n_coeffs, limbs_per_coeff, level, noise::fresh_public(ctx));
    const LiftedPlaintext lifted = lift_plaintext(ctx, m, level + 1, false);
    Prng prng = Prng::from_os();
    // Ephemeral secrets: anyone who learns u can strip the encryption.
    const WipedVector<int8_t> u = sample_ternary(prng, ctx.n());
    const WipedVector<int32_t> e0 = sample_gaussian(prng, ctx.n());
    const WipedVector<int32_t> e1 = sample_gaussian(prng, ctx.n());

    Ciphertext ct;
    ct.ctx = pk.context();
    ct.level = level;
    ct.factor = ctx.level(level).canonical_factor;
    ct.parts.assign(2, RnsPoly(ctx.n(), level + 1));
    for_each_prime(ctx, level + 1, [&](size_t i) {
        const Modulus &q = ctx.prime(i);
        const NttTables &ntt = ctx.ntt(i);
        const TimesT times_t(q, ctx.t_mod(i));
        WipedVector<u64> u_ntt(ctx.n());
        for (size_t j = 0; j < ctx.n(); ++j) u_ntt[j] = q.from_small(u[j]);
        ntt.forward(u_ntt.data());
        u64 *c0 = ct.parts[0].residues(i);
        u64 *c1 = ct.parts[1].residues(i);
        const u64 *msg = lifted.poly.residues(i);
        for (size_t j = 0; j < ctx.n(); ++j) {
            c0[j] = q.add(times_t(e0[j]), msg[j]);
            c1[j] = times_t(e1[j]);
        }
        ntt.forward(c0);
        ntt.forward(c1);
        kernels::multiply_montgomery(c0, u_ntt.data(), pk.b().residues(i), ctx.n(), q, true);
        kernels::multiply_montgomery(c1, u_ntt.data(), pk.a().residues(i), ctx.n(), q, true);
    });
    ct.noise_log2 = noise::fresh_public(ctx);
    return ct;
}

Ciphertext encrypt_secret(const SecretKey &sk, const u64 *coeffs, size_t n_coeffs,
                          size_t limbs_per_coeff, size_t level) {
    const Context &ctx = *sk.context();
    const PlainCoeffs m = load_for_level(ctx, coeffs, n_coeffs, limbs_per_coeff, level, noise::fresh_secret(ctx));
    const LiftedPlaintext lifted = lift_plaintext(ctx, m, level + 1, false);
    Prng prng = Prng::from_os();
    const WipedVector<int32_t> e = sample_gaussian(prng, ctx.n());

    Ciphertext ct;
    ct.ctx = sk.context();
    ct.level = level;
    ct.factor = ctx.level(level).canonical_factor;
    ct.c1_seed = os_seed();
    ct.parts.resize(2);
    ct.parts[1] = uniform_from_seed(ctx, *ct.c1_seed, level + 1);
    ct.parts[0] = RnsPoly(ctx.n(), level + 1);
    for_each_prime(ctx, level + 1, [&](size_t i) {
        const Modulus &q = ctx.prime(i);
        const u64 t = ctx.t_mod(i), ts = q.shoup(t);
        u64 *c0 = ct.parts[0].residues(i);
        const u64 *msg = lifted.poly.residues(i);
        for (size_t j = 0; j < ctx.n(); ++j) c0[j] = q.add(q.mul_shoup(q.from_small(e[j]), t, ts), msg[j]);
        ctx.ntt(i).forward(c0);
        const u64 *a = ct.parts[1].residues(i), *s = sk.ntt_montgomery().residues(i);
        for (size_t j = 0; j < ctx.n(); ++j) c0[j] = q.sub(c0[j], q.mul_montgomery(a[j], s[j]));
    });
    ct.noise_log2 = noise::fresh_secret(ctx);
    return ct;
}

namespace eval {

void add_public_key_mask(const PublicKey &pk, const Ciphertext &a, Ciphertext &dst) {
    check_nonempty(a);
    require(pk.context() == a.ctx, HELIB_ERR_CONTEXT_MISMATCH,
            "public key and ciphertext belong to different contexts");
    const Context &ctx = *a.ctx;
    Prng prng = Prng::from_os();
    const WipedVector<int8_t> xi = sample_ternary(prng, ctx.n());
    // b * xi + a_pk * xi * s = t * e * xi: the only noise added.
    const double noise = noise::add(a.noise_log2, ctx.log2_t() + std::log2(noise::kTail * kSigma *
                                                                       std::sqrt(2.0 * ctx.n() / 3.0)));
    noise::require_budget(ctx, a.level, noise, "public-key mask");
    if (&dst != &a) dst = a;
    dst.c1_seed.reset();
    dst.noise_log2 = noise;
    for_each_prime(ctx, a.count(), [&](size_t i) {
        const Modulus &q = ctx.prime(i);
        WipedVector<u64> xi_ntt(ctx.n());
        for (size_t j = 0; j < ctx.n(); ++j) xi_ntt[j] = q.from_small(xi[j]);
        ctx.ntt(i).forward(xi_ntt.data());
        u64 *c0 = dst.parts[0].residues(i), *c1 = dst.parts[1].residues(i);
        const u64 *b = pk.b().residues(i), *pa = pk.a().residues(i);
        for (size_t j = 0; j < ctx.n(); ++j) {
            c0[j] = q.add(c0[j], q.mul_montgomery(xi_ntt[j], b[j]));
            c1[j] = q.add(c1[j], q.mul_montgomery(xi_ntt[j], pa[j]));
        }
    });
}

}  // namespace eval

EncodedPlaintext encode_plaintext(std::shared_ptr<const Context> ctx_ptr, const u64 *coeffs,
                                  size_t n_coeffs, size_t limbs_per_coeff, size_t level,
                                  const mpz_class &factor, bool extended) {
    const Context &ctx = *ctx_ptr;
    ctx.check_level(level);
    const mpz_class reduced = factor % ctx.t();
    mpz_class common;
    mpz_gcd(common.get_mpz_t(), reduced.get_mpz_t(), ctx.t().get_mpz_t());
    require(reduced != 0 && common == 1, HELIB_ERR_INVALID_ARGUMENT,
            "correction factor must be invertible mod t");
    const PlainCoeffs m = load_plaintext(ctx, coeffs, n_coeffs, limbs_per_coeff, &reduced);
    require(!extended || ctx.special_size() > 0, HELIB_ERR_INVALID_ARGUMENT,
            "an extended encoding needs special primes: the context has none");
    std::vector<size_t> primes;
    for (size_t i = 0; i <= level; ++i) primes.push_back(i);
    for (size_t k = 0; extended && k < ctx.special_size(); ++k) primes.push_back(ctx.special_index(k));
    LiftedPlaintext lifted = lift_plaintext(ctx, m, primes, true);
    for_each_prime(ctx, primes.size(), [&](size_t r) {
        const Modulus &q = ctx.prime(primes[r]);
        u64 *x = lifted.poly.residues(r);
        for (size_t j = 0; j < ctx.n(); ++j) x[j] = q.to_montgomery(x[j]);
    });
    EncodedPlaintext out;
    out.extended = extended;
    out.ctx = std::move(ctx_ptr);
    out.poly = std::move(lifted.poly);
    out.level = level;
    out.factor = reduced;
    out.log2_linf = lifted.log2_linf;
    out.log2_l1 = lifted.log2_l1;
    return out;
}

}  // namespace bgv
