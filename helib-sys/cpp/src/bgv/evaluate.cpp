// evaluate.cpp -- homomorphic addition, plaintext and scalar products, modulus switching.
#include <algorithm>
#include <cmath>
#include <string>

#include "util/error.hpp"
#include "rlwe/keyswitch.hpp"
#include "rlwe/noise.hpp"
#include "bgv/scheme.hpp"

namespace bgv {
namespace eval {
namespace {

void check_same_context(const std::shared_ptr<const Context> &a, const std::shared_ptr<const Context> &b) {
    require(a == b, Status::ContextMismatch, "operands belong to different contexts");
}

void check_binary(const Ciphertext &a, const Ciphertext &b) {
    check_nonempty(a);
    check_nonempty(b);
    check_same_context(a.ctx, b.ctx);
    if (a.level != b.level)
        fail_level_mismatch(a.level, b.level,
                            "operands are at different levels (" + std::to_string(a.level) + " and " +
                                std::to_string(b.level) + "); switch the higher one down first");
    require(a.factor == b.factor, Status::FactorMismatch,
            "operands carry different plaintext correction factors");
}

void check_plain(const Ciphertext &a, const EncodedPlaintext &p) {
    check_nonempty(a);
    check_same_context(a.ctx, p.ctx);
    if (p.level < a.level)
        fail_level_mismatch(a.level, p.level,
                            "plaintext is encoded at level " + std::to_string(p.level) +
                                ", below the ciphertext's level " + std::to_string(a.level));
}

/// BGV modulus switching from a.level down to `level` in one exact division
/// by the product D of the dropped primes: the message gains D^-1 mod t,
/// tracked in the correction factor. Refused before any work when the result
/// would not keep the budget (in particular at a level whose Q_l is not above
/// the switching floor, such as one below t).
void switch_down(const Ciphertext &a, size_t level, Ciphertext &dst) {
    const Context &ctx = *a.ctx;
    std::vector<size_t> dropped;
    Ciphertext out;
    out.ctx = a.ctx;
    out.level = level;
    out.factor = a.factor;
    double log2_dropped = 0;
    for (size_t i = level + 1; i <= a.level; ++i) {
        dropped.push_back(i);
        out.factor = out.factor * ctx.level(i).last_prime_inverse_mod_t % ctx.t();
        log2_dropped += std::log2(static_cast<double>(ctx.prime(i).value()));
    }
    out.noise_log2 = noise::after_mod_switch(ctx, a.noise_log2, log2_dropped, a.parts.size());
    noise::require_budget(ctx, level, out.noise_log2, "modulus switch to level " + std::to_string(level));
    out.parts.resize(a.parts.size());
    for (size_t k = 0; k < a.parts.size(); ++k) divide_by_primes(ctx, a.parts[k], level, dropped, out.parts[k]);
    dst = std::move(out);
}

void require_budget(const Ciphertext &ct, double noise_after, const char *operation) {
    noise::require_budget(*ct.ctx, ct.level, noise_after, operation);
}

/// Points dst at the shape of a result (dst may alias an input: the buffers
/// it already has are reused and overwritten by the caller).
void prepare(Ciphertext &dst, const Ciphertext &like, size_t parts, const mpz_class &factor, double noise) {
    dst.ctx = like.ctx;
    dst.level = like.level;
    if (&dst.factor != &factor) dst.factor = factor;
    dst.noise_log2 = noise;
    dst.c1_seed.reset();
    dst.parts.resize(parts);
}

template <typename PolyOp>
void add_like(const Ciphertext &a, const Ciphertext &b, Ciphertext &dst, PolyOp op, bool negate_b) {
    check_binary(a, b);
    const Context &ctx = *a.ctx;
    const size_t size_a = a.parts.size(), size_b = b.parts.size();
    const size_t parts = std::max(size_a, size_b), count = a.count();
    const double noise = noise::add(a.noise_log2, b.noise_log2);
    require_budget(a, noise, negate_b ? "subtraction" : "addition");
    // Parts only one operand has are copied first, before dst (maybe a or b) is resized.
    std::vector<RnsPoly> extra;
    for (size_t k = std::min(size_a, size_b); k < parts; ++k) {
        if (k < size_a) {
            extra.push_back(a.parts[k]);
        } else {
            extra.emplace_back();
            if (negate_b) {
                poly_negate(ctx, b.parts[k], extra.back(), count);
            } else {
                extra.back() = b.parts[k];
            }
        }
    }
    for (size_t k = 0; k < std::min(size_a, size_b); ++k) {
        RnsPoly &out = dst.parts.size() > k ? dst.parts[k] : (dst.parts.resize(k + 1), dst.parts[k]);
        op(ctx, a.parts[k], b.parts[k], out, count);
    }
    prepare(dst, a, parts, a.factor, noise);
    for (size_t k = std::min(size_a, size_b); k < parts; ++k) dst.parts[k] = std::move(extra[k - std::min(size_a, size_b)]);
}

}  // namespace

void add(const Ciphertext &a, const Ciphertext &b, Ciphertext &dst) { add_like(a, b, dst, poly_add, false); }

void sub(const Ciphertext &a, const Ciphertext &b, Ciphertext &dst) { add_like(a, b, dst, poly_sub, true); }

void negate(const Ciphertext &a, Ciphertext &dst) {
    check_nonempty(a);
    const size_t parts = a.parts.size();
    prepare(dst, a, parts, a.factor, a.noise_log2);
    for (size_t k = 0; k < parts; ++k) poly_negate(*a.ctx, a.parts[k], dst.parts[k], a.count());
}

namespace {

void add_plain_like(const Ciphertext &a, const EncodedPlaintext &p, Ciphertext &dst, bool subtract) {
    check_plain(a, p);
    require(a.factor == p.factor, Status::FactorMismatch,
            "plaintext was encoded with a correction factor different from the ciphertext's; "
            "encode it for addition to this ciphertext");
    const double noise = noise::add(a.noise_log2, p.log2_linf);
    require_budget(a, noise, subtract ? "plaintext subtraction" : "plaintext addition");
    if (&dst != &a) dst = a;
    prepare(dst, a, a.parts.size(), a.factor, noise);
    if (subtract) {
        poly_sub_montgomery(*a.ctx, dst.parts[0], p.poly, dst.parts[0], a.count());
    } else {
        poly_add_montgomery(*a.ctx, dst.parts[0], p.poly, dst.parts[0], a.count());
    }
}

}  // namespace

void add_plain(const Ciphertext &a, const EncodedPlaintext &p, Ciphertext &dst) { add_plain_like(a, p, dst, false); }

void sub_plain(const Ciphertext &a, const EncodedPlaintext &p, Ciphertext &dst) { add_plain_like(a, p, dst, true); }

void mul_plain(const Ciphertext &a, const EncodedPlaintext &p, Ciphertext &dst) {
    check_plain(a, p);
    // ||v * p||_inf <= ||v||_inf * ||p||_1.
    const double noise_after = a.noise_log2 + std::max(p.log2_l1, 0.0);
    require_budget(a, noise_after, "plaintext multiplication");
    const mpz_class factor = a.factor * p.factor % a.ctx->t();
    const size_t parts = a.parts.size();
    prepare(dst, a, parts, factor, noise_after);
    for (size_t k = 0; k < parts; ++k) poly_mul_montgomery(*a.ctx, a.parts[k], p.poly, dst.parts[k], a.count());
}

void mul_scalar(const Ciphertext &a, const mpz_class &k, Ciphertext &dst) {
    check_nonempty(a);
    const Context &ctx = *a.ctx;
    // Centred representative of k mod t: |k'| <= t/2.
    mpz_class centred = k % ctx.t();
    if (centred < 0) centred += ctx.t();
    if (centred > ctx.t() / 2) centred -= ctx.t();
    const mpz_class magnitude = abs(centred);
    // A product by 0 is the all-zero ciphertext; it keeps the floor estimate,
    // below which no estimate goes (see noise::floor_log2).
    const double noise_after =
        sgn(centred) == 0 ? noise::floor_log2(ctx) : a.noise_log2 + std::max(log2_mpz(magnitude), 0.0);
    require_budget(a, noise_after, "scalar multiplication");
    std::vector<u64> limbs(limbs_for(magnitude));
    mpz_to_limbs(magnitude, limbs.data(), limbs.size());
    std::vector<u64> residues(a.count());
    for (size_t i = 0; i < a.count(); ++i) {
        const u64 r = reduce_limbs(limbs.data(), limbs.size(), ctx.prime(i));
        residues[i] = centred < 0 ? ctx.prime(i).neg(r) : r;
    }
    const size_t parts = a.parts.size();
    prepare(dst, a, parts, a.factor, noise_after);
    for (size_t p = 0; p < parts; ++p) poly_mul_scalar(ctx, a.parts[p], residues, dst.parts[p], a.count());
}

void add_scalar(const Ciphertext &a, const mpz_class &k, Ciphertext &dst) {
    check_nonempty(a);
    const Context &ctx = *a.ctx;
    // The plaintext carries the factor: add [k * factor]_t, centred (|k'| <= t/2).
    mpz_class centred = k * a.factor % ctx.t();
    if (centred < 0) centred += ctx.t();
    if (centred > ctx.t() / 2) centred -= ctx.t();
    const mpz_class magnitude = abs(centred);
    std::vector<u64> limbs(limbs_for(magnitude));
    mpz_to_limbs(magnitude, limbs.data(), limbs.size());
    const double noise = noise::add(a.noise_log2, sgn(centred) == 0 ? -1e300 : log2_mpz(magnitude));
    require_budget(a, noise, "scalar addition");
    if (&dst != &a) dst = a;
    dst.c1_seed.reset();
    dst.noise_log2 = noise;
    // A constant polynomial's NTT is that constant in every slot.
    for_each_prime(ctx, a.count(), [&](size_t i) {
        const Modulus &q = ctx.prime(i);
        const u64 r = reduce_limbs(limbs.data(), limbs.size(), q);
        const u64 v = centred < 0 ? q.neg(r) : r;
        u64 *c0 = dst.parts[0].residues(i);
        for (size_t j = 0; j < ctx.n(); ++j) c0[j] = q.add(c0[j], v);
    });
}

void mod_switch(const Ciphertext &a, Ciphertext &dst) {
    check_nonempty(a);
    if (a.level == 0) {
        fail_chain_exhausted("cannot switch modulus below level 0");
    }
    switch_down(a, a.level - 1, dst);
}

void mod_switch_to(const Ciphertext &a, size_t level, Ciphertext &dst) {
    check_nonempty(a);
    if (level > a.level)
        fail_level_out_of_range(level, a.level,
                                "target level " + std::to_string(level) + " is above the ciphertext's level " +
                                    std::to_string(a.level));
    if (level == a.level) {
        if (&dst != &a) dst = a;
        return;
    }
    switch_down(a, level, dst);
}

void mod_switch_reduce_noise(const Ciphertext &a, Ciphertext &dst) {
    check_nonempty(a);
    const Context &ctx = *a.ctx;
    // Switch while the noise stays well above the floor afterwards: each such
    // switch costs at most ~0.3 bits of budget and shrinks the ciphertext. The
    // estimate alone decides, so the level is found first and the primes above
    // it are dropped in one switch.
    size_t level = a.level;
    double noise_log2 = a.noise_log2;
    while (level > 0) {
        const double log2_q = std::log2(static_cast<double>(ctx.prime(level).value()));
        if (noise_log2 - log2_q < ctx.mod_switch_floor_log2() + 2.0) break;
        noise_log2 = noise::after_mod_switch(ctx, noise_log2, log2_q, a.parts.size());
        --level;
    }
    mod_switch_to(a, level, dst);
}

}  // namespace eval
}  // namespace bgv
