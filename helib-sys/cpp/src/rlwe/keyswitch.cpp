// keyswitch.cpp -- key generation, digit decomposition (ModUp) and the
// BGV-exact division by P (ModDown) of hybrid key switching.
#include "rlwe/keyswitch.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "util/error.hpp"
#include "rlwe/noise.hpp"
#include "ring/ntt_kernels.hpp"


namespace bgv {
namespace {

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
        kernels::base_convert_row(out, y.data(), from.size(), n, hat_mod_target.data() + t * from.size(),
                                  hat_mod_target_shoup.data() + t * from.size(), ctx.prime(to[t]));
    }
};

}  // namespace

size_t KeySwitchKey::size_bytes() const {
    size_t total = 0;
    for (const auto &p : b) total += p.data.size() * sizeof(u64);
    for (const auto &p : a) total += p.data.size() * sizeof(u64);
    return total;
}

KeySwitchKey make_key_switch_key(const SecretKey &sk, const RnsPoly &s_prime,
                                 const std::vector<uint32_t> *permutation) {
    const Context &ctx = *sk.context();
    require(!ctx.digits().empty(), HELIB_ERR_INVALID_ARGUMENT,
            "key switching needs special primes: the context has none");
    const size_t all = ctx.primes().size(), n = ctx.n(), digits = ctx.digits().size();
    ensure(s_prime.n == n && s_prime.count >= all, "s' covers every prime");
    ensure(permutation == nullptr || permutation->size() == n, "one permutation entry per slot");
    KeySwitchKey key;
    key.ctx = sk.context();
    for (size_t d = 0; d < digits; ++d) {
        key.a_seeds.push_back(os_seed());
        // Final storage, written once below (residues uninitialized until then).
        key.a.emplace_back(n, all);
        key.b.emplace_back(n, all);
    }
    // The errors e_d (secret, wiped when released), drawn in parallel.
    std::vector<std::unique_ptr<WipedVector<int32_t>>> errors(digits);
    for_each_prime(ctx, digits, [&](size_t d) {
        Prng prng = Prng::from_os();
        errors[d] = std::make_unique<WipedVector<int32_t>>(sample_gaussian(prng, n));
    });
    // One task per (digit, prime) row, each in place in the key's own buffers:
    // a = the seed's stream for this prime (as uniform_from_seed) times 2^64;
    // b = NTT(e) first, then (t e - a s + [in digit] P s') * 2^64 over it. The
    // row of b holds NTT(e), a secret, only inside its task, which cannot fail
    // between the two steps; should the pool still report a failure, every b
    // is wiped before the key is released (b is a public buffer, not wiped on
    // release, so a key costs no 14 MB memset when freed).
    const uint32_t *perm = permutation != nullptr ? permutation->data() : nullptr;
    auto row = [&](size_t task) {
        const size_t d = task / all, i = task % all;
        const auto [begin, end] = ctx.digits()[d];
        const Modulus &q = ctx.prime(i);
        u64 *a = key.a[d].residues(i), *b = key.b[d].residues(i);
        {
            Prng prng(key.a_seeds[d], i);
            prng.fill_uniform_below(q.value(), a, n);
        }
        const u64 r = q.to_montgomery(1);  // 2^64 mod q
        kernels::scale(a, n, r, q.shoup(r), q);
        const int32_t *e = errors[d]->data();
        for (size_t j = 0; j < n; ++j) b[j] = q.from_small(e[j]);
        ctx.ntt(i).forward(b);
        const u64 t = q.to_montgomery(ctx.t_mod(i));  // t * 2^64: the result comes out in Montgomery form
        const bool in_digit = i >= begin && i < end;
        // P mod q (chain primes only): times s' (Montgomery form) gives P s' 2^64.
        const u64 p = in_digit ? ctx.special_modulus_mod(i) : 0;
        kernels::key_switch_key_row(b, a, sk.ntt_montgomery().residues(i), in_digit ? s_prime.residues(i) : nullptr,
                                    perm, t, q.shoup(t), p, q.shoup(p), n, q);
    };
    try {
        for_each_prime(ctx, digits * all, row);
    } catch (...) {
        for (RnsPoly &b : key.b) secure_wipe(b.data.data(), b.data.size() * sizeof(u64));
        throw;
    }
    return key;
}

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

void key_switch_inner_product_block(const KeySwitchKey &key, const Decomposition &dec, size_t r,
                                    const uint32_t *permutation, size_t begin, size_t len, u64 *u0, u64 *u1) {
    const Context &ctx = *key.ctx;
    const size_t prime = extended_prime(ctx, dec.level, r), digits = dec.digits.size();
    ensure(digits <= Context::kMaxPrimes, "a digit holds at least one prime");
    const u64 *digit_rows[Context::kMaxPrimes], *b_rows[Context::kMaxPrimes], *a_rows[Context::kMaxPrimes];
    for (size_t d = 0; d < digits; ++d) {
        digit_rows[d] = dec.digits[d].residues(r);
        b_rows[d] = key.b[d].residues(prime) + begin;
        a_rows[d] = key.a[d].residues(prime) + begin;
    }
    kernels::dot_product_pair(u0, u1, digit_rows, permutation != nullptr ? permutation + begin : nullptr, b_rows,
                              a_rows, digits, len, ctx.prime(prime));
}

void key_switch_inner_product(const KeySwitchKey &key, const Decomposition &dec,
                              const std::vector<uint32_t> *permutation, RnsPoly &u0, RnsPoly &u1) {
    const Context &ctx = *key.ctx;
    const size_t n = ctx.n(), ext = dec.level + 1 + ctx.special_size();
    u0.reshape(n, ext);
    u1.reshape(n, ext);
    const uint32_t *perm = permutation != nullptr ? permutation->data() : nullptr;
    for_each_prime(ctx, ext, [&](size_t r) {
        key_switch_inner_product_block(key, dec, r, perm, 0, n, u0.residues(r), u1.residues(r));
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

void key_switch(const KeySwitchKey &key, const Decomposition &dec, const std::vector<uint32_t> *permutation,
                RnsPoly &k0, RnsPoly &k1) {
    RnsPoly u0, u1;
    key_switch_inner_product(key, dec, permutation, u0, u1);
    const Context &ctx = *key.ctx;
    const size_t level = dec.level;
    mod_down(ctx, u0, level, k0);
    mod_down(ctx, u1, level, k1);
}

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
