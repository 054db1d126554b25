// linear_transform.cpp -- baby-step giant-step linear transforms with double hoisting.
#include "bgv/linear_transform.hpp"

#include <algorithm>
#include <string>

#include "util/error.hpp"
#include "rlwe/noise.hpp"
#include "ring/ntt_kernels.hpp"
#include "bgv/scheme.hpp"

namespace bgv {
namespace eval {
namespace {

/// P * (c0, c1) plus a small key-switching term, modulo Q_level * P (extended
/// layout, NTT form): what a key switch holds before its division by P.
struct ExtendedCiphertext {
    RnsPoly c0, c1;
};

/// P * sigma_g(x) in the extended basis, from x's decomposition and
/// perm = galois_permutation(N, g) (both unused for g = 1).
ExtendedCiphertext automorphism_extended(const GaloisKeys &keys, const Ciphertext &x, const Decomposition &dec,
                                         uint64_t g, const std::vector<uint32_t> &perm) {
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
    key_switch_inner_product(keys.key(g), dec, &perm, out.c0, out.c1);
    RnsPoly rotated;
    permute_slots(ctx, x.parts[0], perm, rotated, x.count());
    add_times_special_modulus(ctx, rotated, x.level, out.c0);
    return out;
}

/// The baby steps' share of a transform: for every giant index j with a
/// term, sums[j] = sum_i p_{j,i} * P sigma_{baby[i]}(a) (plus key-switching
/// terms) in the extended basis, `started[j]` telling which sums were written.
///
/// Fused per residue and per block of slots: each baby step's inner product is
/// computed into a small scratch buffer and immediately multiplied into the
/// giant sums, so neither the baby steps nor partial sums go through memory.
class BabyStepSums {
public:
    BabyStepSums(const GaloisKeys &keys, const Ciphertext &a, const std::vector<uint64_t> &baby,
                 const std::vector<const EncodedPlaintext *> &plains)
        : ctx_(*a.ctx), a_(a), baby_(baby), plains_(plains), giants_(plains.size() / baby.size()) {
        for (uint64_t g : baby_) {
            keys_.push_back(g == 1 ? nullptr : &keys.key(g));
            permutations_.push_back(g == 1 ? std::vector<uint32_t>{} : galois_permutation(ctx_.n(), g));
        }
    }

    void compute(std::vector<ExtendedCiphertext> &sums, std::vector<bool> &started) const {
        const size_t level = a_.level, ext = level + 1 + ctx_.special_size(), n = ctx_.n();
        const bool any_key_switch =
            std::any_of(keys_.begin(), keys_.end(), [](const KeySwitchKey *key) { return key != nullptr; });
        const Decomposition dec = any_key_switch ? decompose(ctx_, a_.parts[1], level) : Decomposition{};
        sums.assign(giants_, ExtendedCiphertext{});
        started.assign(giants_, false);
        for (size_t j = 0; j < giants_; ++j) {
            for (size_t i = 0; i < baby_.size(); ++i) started[j] = started[j] || term(j, i) != nullptr;
            if (!started[j]) continue;
            sums[j].c0.reshape(n, ext);
            sums[j].c1.reshape(n, ext);
        }
        for_each_prime(ctx_, ext, [&](size_t r) { residue(dec, r, sums, started); });
    }

private:
    static constexpr size_t kBlock = 512;

    const EncodedPlaintext *term(size_t j, size_t i) const { return plains_[j * baby_.size() + i]; }

    void residue(const Decomposition &dec, size_t r, std::vector<ExtendedCiphertext> &sums,
                 const std::vector<bool> &started) const {
        const size_t level = a_.level, n = ctx_.n(), babies = baby_.size();
        const bool chain = r <= level;
        const size_t prime = extended_prime(ctx_, level, r);
        const Modulus &q = ctx_.prime(prime);
        const u64 p_mod = chain ? ctx_.special_modulus_mod(r) : 0, p_shoup = chain ? q.shoup(p_mod) : 0;
        // An identity baby step is P * a: zero modulo the special primes.
        std::vector<bool> live(babies);
        for (size_t i = 0; i < babies; ++i) live[i] = chain || baby_[i] != 1;
        std::vector<u64> scratch(2 * babies * kBlock);
        // A compact plaintext's words of the block, expanded (see RnsPoly).
        std::vector<u64> plain_scratch(babies * kBlock);
        std::vector<const u64 *> rows[3];
        for (size_t c = 0; c < n; c += kBlock) {
            const size_t len = std::min(kBlock, n - c);
            for (size_t i = 0; i < babies; ++i) {
                if (live[i]) baby_block(dec, r, i, c, len, q, p_mod, p_shoup, scratch.data() + 2 * i * kBlock);
            }
            for (size_t j = 0; j < giants_; ++j) {
                if (!started[j]) continue;
                std::vector<const u64 *> &d_rows = rows[0], &b0_rows = rows[1], &b1_rows = rows[2];
                d_rows.clear();
                b0_rows.clear();
                b1_rows.clear();
                for (size_t i = 0; i < babies; ++i) {
                    const EncodedPlaintext *p = term(j, i);
                    if (p == nullptr || !live[i]) continue;
                    // The plaintext's special residues follow its own (possibly higher) level.
                    const size_t plain_residue = chain ? r : p->level + 1 + (r - level - 1);
                    d_rows.push_back(
                        repeated_block(p->poly, plain_residue, c, len, n, plain_scratch.data() + i * kBlock));
                    b0_rows.push_back(scratch.data() + 2 * i * kBlock);
                    b1_rows.push_back(scratch.data() + (2 * i + 1) * kBlock);
                }
                kernels::dot_product_pair(sums[j].c0.residues(r) + c, sums[j].c1.residues(r) + c, d_rows.data(),
                                          nullptr, b0_rows.data(), b1_rows.data(), d_rows.size(), len, q);
            }
        }
    }

    /// Slots [c, c + len) of baby step i at residue r into out (c0) and out + kBlock (c1).
    void baby_block(const Decomposition &dec, size_t r, size_t i, size_t c, size_t len, const Modulus &q, u64 p_mod,
                    u64 p_shoup, u64 *out) const {
        u64 *b0 = out, *b1 = out + kBlock;
        const bool chain = r <= a_.level;
        if (keys_[i] == nullptr) {  // identity: P * a
            const u64 *a0 = a_.parts[0].residues(r) + c, *a1 = a_.parts[1].residues(r) + c;
            for (size_t k = 0; k < len; ++k) {
                b0[k] = q.mul_shoup(a0[k], p_mod, p_shoup);
                b1[k] = q.mul_shoup(a1[k], p_mod, p_shoup);
            }
            return;
        }
        const uint32_t *perm = permutations_[i].data();
        key_switch_inner_product_block(*keys_[i], dec, r, perm, c, len, b0, b1);
        if (chain) {  // + P * sigma(a_0)
            const u64 *a0 = a_.parts[0].residues(r);
            for (size_t k = 0; k < len; ++k) b0[k] = q.add(b0[k], q.mul_shoup(a0[perm[c + k]], p_mod, p_shoup));
        }
    }

    const Context &ctx_;
    const Ciphertext &a_;
    const std::vector<uint64_t> &baby_;
    const std::vector<const EncodedPlaintext *> &plains_;
    size_t giants_;
    std::vector<const KeySwitchKey *> keys_;
    std::vector<std::vector<uint32_t>> permutations_;
};

/// acc += x over every extended residue.
void add_extended(const Context &ctx, const ExtendedCiphertext &x, size_t level, ExtendedCiphertext &acc) {
    const size_t ext = level + 1 + ctx.special_size();
    for_each_prime(ctx, ext, [&](size_t r) {
        const Modulus &q = ctx.prime(extended_prime(ctx, level, r));
        u64 *y0 = acc.c0.residues(r), *y1 = acc.c1.residues(r);
        const u64 *x0 = x.c0.residues(r), *x1 = x.c1.residues(r);
        for (size_t j = 0; j < ctx.n(); ++j) {
            y0[j] = q.add(y0[j], x0[j]);
            y1[j] = q.add(y1[j], x1[j]);
        }
    });
}

/// Validates the plaintexts and returns their common correction factor.
mpz_class check_plaintexts(const Ciphertext &a, const std::vector<const EncodedPlaintext *> &plains) {
    const EncodedPlaintext *first = nullptr;
    for (const EncodedPlaintext *p : plains) {
        if (p == nullptr) continue;
        require(p->ctx == a.ctx, Status::ContextMismatch, "a plaintext belongs to a different context");
        require(p->extended, Status::InvalidArgument,
                "hoisted linear transforms need plaintexts encoded with the special primes (extended encoding)");
        if (p->level < a.level)
            fail_level_mismatch(a.level, p->level,
                                "a plaintext is encoded at level " + std::to_string(p->level) +
                                    ", below the ciphertext's level " + std::to_string(a.level));
        if (first == nullptr) first = p;
        require(p->factor == first->factor, Status::FactorMismatch,
                "the plaintexts of a linear transform must share one correction factor");
    }
    require(first != nullptr, Status::InvalidArgument, "a linear transform needs at least one plaintext");
    return first->factor;
}

}  // namespace

void linear_transform_hoisted(const GaloisKeys &keys, const Ciphertext &a, const std::vector<uint64_t> &baby,
                              uint64_t giant, const std::vector<const EncodedPlaintext *> &plains, Ciphertext &dst) {
    check_galois_input(keys, a);
    const Context &ctx = *a.ctx;
    require(!ctx.digits().empty(), Status::InvalidArgument,
            "linear transforms need special primes: the context has none");
    require(!baby.empty() && !plains.empty() && plains.size() % baby.size() == 0, Status::InvalidArgument,
            "a linear transform takes (giant steps x baby steps) plaintexts, at least one baby step");
    const size_t babies = baby.size(), giants = plains.size() / babies;
    const mpz_class plain_factor = check_plaintexts(a, plains);
    for (uint64_t g : baby) {
        check_galois_element(ctx, g);
        if (g != 1) keys.key(g);  // every key must exist before any work is done
    }
    check_galois_element(ctx, giant);
    if (giants > 1 && giant != 1) keys.key(giant);

    // The noise estimate (the noisiest key used), checked before any work.
    double switched = key_switch_noise_log2(ctx, a.level);
    for (uint64_t g : baby) {
        if (g != 1) switched = std::max(switched, key_switch_noise_log2(ctx, a.level, keys.key(g)));
    }
    if (giants > 1 && giant != 1) switched = std::max(switched, key_switch_noise_log2(ctx, a.level, keys.key(giant)));
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
    std::vector<ExtendedCiphertext> sums;
    std::vector<bool> started;
    BabyStepSums(keys, a, baby, plains).compute(sums, started);

    // Giant steps in Horner form, each rotation fused with the next inner sum.
    const std::vector<uint32_t> giant_perm =
        giants > 1 && giant != 1 ? galois_permutation(ctx.n(), giant) : std::vector<uint32_t>{};
    Ciphertext acc;
    for (size_t j = giants; j-- > 0;) {
        if (!acc.empty()) {
            const Decomposition acc_dec = giant == 1 ? Decomposition{} : decompose(ctx, acc.parts[1], acc.level);
            ExtendedCiphertext rotated = automorphism_extended(keys, acc, acc_dec, giant, giant_perm);
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
