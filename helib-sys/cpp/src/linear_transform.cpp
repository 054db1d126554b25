// linear_transform.cpp -- baby-step giant-step linear transforms with double hoisting.
#include "linear_transform.hpp"

#include <algorithm>
#include <string>

#include "error.hpp"
#include "noise.hpp"
#include "ntt_kernels.hpp"
#include "scheme.hpp"

namespace bgv {
namespace eval {
namespace {

/// P * (c0, c1) plus a small key-switching term, modulo Q_level * P (extended
/// layout, NTT form): what a key switch holds before its division by P.
struct ExtendedCiphertext {
    RnsPoly c0, c1;
};

/// P * sigma_g(x) in the extended basis, from x's decomposition (unused for g = 1).
ExtendedCiphertext automorphism_extended(const GaloisKeys &keys, const Ciphertext &x, const Decomposition &dec,
                                         uint64_t g) {
    const Context &ctx = *x.ctx;
    const size_t ext = x.level + 1 + ctx.special_size();
    ExtendedCiphertext out;
    if (g == 1) {
        out.c0 = RnsPoly(ctx.n(), ext);
        out.c1 = RnsPoly(ctx.n(), ext);
        std::fill(out.c0.data.begin(), out.c0.data.end(), 0);
        std::fill(out.c1.data.begin(), out.c1.data.end(), 0);
        add_times_special_modulus(ctx, x.parts[0], x.level, out.c0);
        add_times_special_modulus(ctx, x.parts[1], x.level, out.c1);
        return out;
    }
    const std::vector<uint32_t> perm = galois_permutation(ctx.n(), g);
    key_switch_inner_product(keys.key(g), dec, &perm, out.c0, out.c1);
    RnsPoly rotated;
    permute_slots(ctx, x.parts[0], perm, rotated, x.count());
    add_times_special_modulus(ctx, rotated, x.level, out.c0);
    return out;
}

/// acc (+)= p * x over every extended residue (overwritten with `first`).
void multiply_accumulate(const Context &ctx, const EncodedPlaintext &p, const ExtendedCiphertext &x, size_t level,
                         ExtendedCiphertext &acc, bool first) {
    const size_t ext = level + 1 + ctx.special_size();
    if (first) {
        acc.c0.reshape(ctx.n(), ext);
        acc.c1.reshape(ctx.n(), ext);
    }
    for_each_prime(ctx, ext, [&](size_t r) {
        // The plaintext's special residues follow its own (possibly higher) level.
        const size_t plain_residue = r <= level ? r : p.level + 1 + (r - level - 1);
        kernels::multiply_accumulate_pair(acc.c0.residues(r), acc.c1.residues(r), p.poly.residues(plain_residue),
                                          nullptr, x.c0.residues(r), x.c1.residues(r), ctx.n(),
                                          ctx.prime(extended_prime(ctx, level, r)), first);
    });
}

/// acc += x over every extended residue.
void add_extended(const Context &ctx, const ExtendedCiphertext &x, size_t level, ExtendedCiphertext &acc) {
    const size_t ext = level + 1 + ctx.special_size();
    for_each_prime(ctx, ext, [&](size_t r) {
        const Modulus &q = ctx.prime(extended_prime(ctx, level, r));
        for (RnsPoly *poly : {&acc.c0, &acc.c1}) {
            const u64 *src = (poly == &acc.c0 ? x.c0 : x.c1).residues(r);
            u64 *y = poly->residues(r);
            for (size_t j = 0; j < ctx.n(); ++j) y[j] = q.add(y[j], src[j]);
        }
    });
}

/// Validates the plaintexts and returns their common correction factor.
mpz_class check_plaintexts(const Ciphertext &a, const std::vector<const EncodedPlaintext *> &plains) {
    const EncodedPlaintext *first = nullptr;
    for (const EncodedPlaintext *p : plains) {
        if (p == nullptr) continue;
        require(p->ctx == a.ctx, HELIB_ERR_CONTEXT_MISMATCH, "a plaintext belongs to a different context");
        require(p->extended, HELIB_ERR_INVALID_ARGUMENT,
                "hoisted linear transforms need plaintexts encoded with the special primes (extended encoding)");
        require(p->level >= a.level, HELIB_ERR_LEVEL_MISMATCH,
                "a plaintext is encoded at level " + std::to_string(p->level) + ", below the ciphertext's level " +
                    std::to_string(a.level));
        if (first == nullptr) first = p;
        require(p->factor == first->factor, HELIB_ERR_FACTOR_MISMATCH,
                "the plaintexts of a linear transform must share one correction factor");
    }
    require(first != nullptr, HELIB_ERR_INVALID_ARGUMENT, "a linear transform needs at least one plaintext");
    return first->factor;
}

}  // namespace

void linear_transform_hoisted(const GaloisKeys &keys, const Ciphertext &a, const std::vector<uint64_t> &baby,
                              uint64_t giant, const std::vector<const EncodedPlaintext *> &plains, Ciphertext &dst) {
    check_galois_input(keys, a);
    const Context &ctx = *a.ctx;
    require(!ctx.digits().empty(), HELIB_ERR_INVALID_ARGUMENT,
            "linear transforms need special primes: the context has none");
    require(!baby.empty() && !plains.empty() && plains.size() % baby.size() == 0, HELIB_ERR_INVALID_ARGUMENT,
            "a linear transform takes (giant steps x baby steps) plaintexts, at least one baby step");
    const size_t babies = baby.size(), giants = plains.size() / babies;
    const mpz_class plain_factor = check_plaintexts(a, plains);
    bool any_key_switch = false;
    for (uint64_t g : baby) {
        check_galois_element(ctx, g);
        if (g != 1) keys.key(g);  // every key must exist before any work is done
        any_key_switch = any_key_switch || g != 1;
    }
    check_galois_element(ctx, giant);
    if (giants > 1 && giant != 1) keys.key(giant);

    // The key-free noise estimate, checked before any work.
    const double switched = key_switch_noise_log2(ctx, a.level);
    constexpr double none = -1e300;  // log2 of an empty sum
    std::vector<double> sum_noise(giants, none);
    for (size_t j = 0; j < giants; ++j) {
        for (size_t i = 0; i < babies; ++i) {
            const EncodedPlaintext *p = plains[j * babies + i];
            if (p == nullptr) continue;
            const double baby_noise = baby[i] == 1 ? a.noise_log2 : noise::add(a.noise_log2, switched);
            sum_noise[j] = noise::add(sum_noise[j], baby_noise + std::max(p->log2_l1, 0.0));
        }
    }
    double result_noise = none;
    for (size_t j = giants; j-- > 0;) {
        const double rotated = result_noise < -1e200 || giant == 1 ? result_noise : noise::add(result_noise, switched);
        result_noise = noise::add(rotated, sum_noise[j]);
    }
    noise::require_budget(ctx, a.level, result_noise, "linear transform");

    // Baby steps: one decomposition, each step's products summed per giant step in Q * P.
    const Decomposition dec = any_key_switch ? decompose(ctx, a.parts[1], a.level) : Decomposition{};
    std::vector<ExtendedCiphertext> sums(giants);
    std::vector<bool> started(giants, false);
    for (size_t i = 0; i < babies; ++i) {
        bool used = false;
        for (size_t j = 0; j < giants; ++j) used = used || plains[j * babies + i] != nullptr;
        if (!used) continue;
        const ExtendedCiphertext step = automorphism_extended(keys, a, dec, baby[i]);
        for (size_t j = 0; j < giants; ++j) {
            const EncodedPlaintext *p = plains[j * babies + i];
            if (p == nullptr) continue;
            multiply_accumulate(ctx, *p, step, a.level, sums[j], !started[j]);
            started[j] = true;
        }
    }

    // Giant steps in Horner form, each rotation fused with the next inner sum.
    Ciphertext acc;
    for (size_t j = giants; j-- > 0;) {
        if (!acc.empty()) {
            const Decomposition acc_dec = giant == 1 ? Decomposition{} : decompose(ctx, acc.parts[1], acc.level);
            ExtendedCiphertext rotated = automorphism_extended(keys, acc, acc_dec, giant);
            if (started[j]) add_extended(ctx, sums[j], a.level, rotated);
            sums[j] = std::move(rotated);
        } else if (!started[j]) {
            continue;  // leading giant steps without terms
        }
        acc.ctx = a.ctx;
        acc.level = a.level;
        acc.parts.resize(2);
        mod_down(ctx, sums[j].c0, a.level, acc.parts[0]);
        mod_down(ctx, sums[j].c1, a.level, acc.parts[1]);
        sums[j] = ExtendedCiphertext{};
    }
    acc.factor = a.factor * plain_factor % ctx.t();
    acc.noise_log2 = result_noise;
    dst = std::move(acc);
}

}  // namespace eval
}  // namespace bgv
