// galois.cpp -- automorphisms in NTT form, Galois keys and rotations.
#include "bgv/galois.hpp"

#include <algorithm>
#include <string>

#include "util/error.hpp"
#include "rlwe/noise.hpp"
#include "bgv/scheme.hpp"

namespace bgv {
namespace {

size_t bit_reverse(size_t x, unsigned bits) {
    size_t r = 0;
    for (unsigned i = 0; i < bits; ++i, x >>= 1) r = (r << 1) | (x & 1);
    return r;
}

/// The noise after a key switch with the noisiest key among `elements`.
double noise_after_key_switch(const Ciphertext &a, const GaloisKeys &keys, const std::vector<uint64_t> &elements) {
    double worst = key_switch_noise_log2(*a.ctx, a.level);
    for (uint64_t g : elements) {
        if (g != 1) worst = std::max(worst, key_switch_noise_log2(*a.ctx, a.level, keys.key(g)));
    }
    return noise::add(a.noise_log2, worst);
}

}  // namespace

void permute_slots(const Context &ctx, const RnsPoly &in, const std::vector<uint32_t> &perm, RnsPoly &out,
                   size_t count) {
    out.reshape(ctx.n(), count);
    for_each_prime(ctx, count, [&](size_t i) {
        const u64 *x = in.residues(i);
        u64 *y = out.residues(i);
        for (size_t j = 0; j < ctx.n(); ++j) y[j] = x[perm[j]];
    });
}

void check_galois_input(const GaloisKeys &keys, const Ciphertext &a) {
    check_nonempty(a);
    require(keys.context() == a.ctx, HELIB_ERR_CONTEXT_MISMATCH, "Galois keys and ciphertext belong to different contexts");
    require(a.parts.size() == 2, HELIB_ERR_INVALID_ARGUMENT,
            "automorphisms need a size-2 ciphertext: relinearize first");
}

std::vector<uint32_t> galois_permutation(size_t n, uint64_t g) {
    unsigned log_n = 0;
    while ((size_t{1} << log_n) < n) ++log_n;
    const uint64_t two_n = 2 * n;
    std::vector<uint32_t> perm(n);
    // NTT slot k holds the evaluation at psi^(2 bitrev(k) + 1); m(X^g) there is m at psi^((2 bitrev(k) + 1) g).
    for (size_t k = 0; k < n; ++k) {
        const uint64_t exponent = (2 * bit_reverse(k, log_n) + 1) * g % two_n;
        perm[k] = static_cast<uint32_t>(bit_reverse((exponent - 1) / 2, log_n));
    }
    return perm;
}

uint64_t galois_element_for_step(size_t n, int64_t step) {
    const int64_t half = static_cast<int64_t>(n / 2);
    int64_t k = step % half;
    if (k < 0) k += half;
    const uint64_t two_n = 2 * n;  // at most 2^18, so products fit 64 bits
    uint64_t g = 1, base = 3;
    for (uint64_t e = static_cast<uint64_t>(k); e != 0; e >>= 1) {
        if (e & 1) g = g * base % two_n;
        base = base * base % two_n;
    }
    return g;
}

std::vector<int64_t> rotation_terms(size_t n, int64_t step) {
    const int64_t half = static_cast<int64_t>(n / 2);
    int64_t k = step % half;
    if (k < 0) k += half;
    // Non-adjacent form: signed powers of two, no two adjacent.
    auto naf = [](int64_t v) {
        std::vector<int64_t> terms;
        for (int64_t bit = 1; v != 0; bit <<= 1, v /= 2) {
            if (v & 1) {
                const int64_t digit = 2 - (((v % 4) + 4) % 4);  // +1 or -1
                terms.push_back(digit * bit);
                v -= digit;
            }
        }
        return terms;
    };
    std::vector<int64_t> terms = naf(k), other = naf(k - half);
    if (other.size() < terms.size()) terms = std::move(other);
    return terms;
}

void check_galois_element(const Context &ctx, uint64_t g) {
    require(g % 2 == 1 && g < 2 * ctx.n(), HELIB_ERR_INVALID_ARGUMENT,
            "Galois element " + std::to_string(g) + " must be odd and below 2N");
}

void GaloisKeys::add(const SecretKey &sk, uint64_t g) {
    require(sk.context() == ctx_, HELIB_ERR_CONTEXT_MISMATCH, "secret key and Galois keys belong to different contexts");
    const Context &ctx = *ctx_;
    check_galois_element(ctx, g);
    // From s(X^g): the slot permutation of s, applied as the key is written.
    const std::vector<uint32_t> perm = galois_permutation(ctx.n(), g);
    KeySwitchKey key = make_key_switch_key(sk, sk.ntt_montgomery(), &perm);
    keys_[g] = std::move(key);
}

const KeySwitchKey &GaloisKeys::key(uint64_t g) const {
    const auto it = keys_.find(g);
    if (it == keys_.end()) fail_missing_galois_key(g, nullptr, "no Galois key for element " + std::to_string(g));
    return it->second;
}

std::vector<uint64_t> GaloisKeys::elements() const {
    std::vector<uint64_t> out;
    for (const auto &entry : keys_) out.push_back(entry.first);
    return out;
}

size_t GaloisKeys::size_bytes() const {
    size_t total = 0;
    for (const auto &entry : keys_) total += entry.second.size_bytes();
    return total;
}

namespace eval {

void apply_galois(const GaloisKeys &keys, const Ciphertext &a, uint64_t g, Ciphertext &dst) {
    std::vector<Ciphertext *> dsts{&dst};
    apply_galois_hoisted(keys, a, {g}, dsts);
}

void apply_galois_hoisted(const GaloisKeys &keys, const Ciphertext &a, const std::vector<uint64_t> &elements,
                          std::vector<Ciphertext *> &dsts) {
    check_galois_input(keys, a);
    ensure(dsts.size() == elements.size(), "one destination per element");
    const Context &ctx = *a.ctx;
    bool any_key_switch = false;
    for (uint64_t g : elements) {
        check_galois_element(ctx, g);
        if (g == 1) continue;  // the identity needs no key
        keys.key(g);           // every key must exist before any work is done
        any_key_switch = true;
    }
    const double switched = any_key_switch ? noise_after_key_switch(a, keys, elements) : a.noise_log2;
    if (any_key_switch) noise::require_budget(ctx, a.level, switched, "automorphism");
    const Decomposition dec = any_key_switch ? decompose(ctx, a.parts[1], a.level) : Decomposition{};
    std::vector<Ciphertext> results(elements.size());
    for (size_t e = 0; e < elements.size(); ++e) {
        const uint64_t g = elements[e];
        Ciphertext &out = results[e];
        out.ctx = a.ctx;
        out.level = a.level;
        out.factor = a.factor;
        out.noise_log2 = switched;
        out.parts.resize(2);
        if (g == 1) {
            out.parts = a.parts;
            out.noise_log2 = a.noise_log2;
            continue;
        }
        const std::vector<uint32_t> perm = galois_permutation(ctx.n(), g);
        RnsPoly k0;
        key_switch(keys.key(g), dec, &perm, k0, out.parts[1]);
        permute_slots(ctx, a.parts[0], perm, out.parts[0], a.count());
        poly_add(ctx, out.parts[0], k0, out.parts[0], a.count());
    }
    for (size_t e = 0; e < elements.size(); ++e) *dsts[e] = std::move(results[e]);
}

void rotate_rows(const GaloisKeys &keys, const Ciphertext &a, int64_t step, bool compose, Ciphertext &dst) {
    check_galois_input(keys, a);
    const Context &ctx = *a.ctx;
    const int64_t half = static_cast<int64_t>(ctx.n() / 2);
    int64_t k = step % half;
    if (k < 0) k += half;
    const uint64_t direct = galois_element_for_step(ctx.n(), k);
    if (keys.contains(direct) || k == 0) {
        apply_galois(keys, a, direct, dst);
        return;
    }
    if (!compose)
        fail_missing_galois_key(direct, &step,
                                "no Galois key for a rotation by " + std::to_string(step) + " (element " +
                                    std::to_string(direct) + ")");
    const std::vector<int64_t> terms = rotation_terms(ctx.n(), k);
    for (int64_t term : terms) {
        const uint64_t g = galois_element_for_step(ctx.n(), term);
        if (!keys.contains(g))
            fail_missing_galois_key(g, &term,
                                    "cannot compose a rotation by " + std::to_string(step) +
                                        ": no Galois key for the step " + std::to_string(term) + " (element " +
                                        std::to_string(g) + ")");
    }
    Ciphertext current = a;
    for (int64_t term : terms) apply_galois(keys, current, galois_element_for_step(ctx.n(), term), current);
    dst = std::move(current);
}

}  // namespace eval
}  // namespace bgv
