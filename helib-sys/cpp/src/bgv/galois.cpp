// galois.cpp -- automorphisms of ciphertexts and rotations of the slot rows.
#include "bgv/galois.hpp"

#include <algorithm>
#include <string>

#include "util/error.hpp"
#include "rlwe/noise.hpp"
#include "bgv/scheme.hpp"

namespace bgv {
namespace {

/// The noise after a key switch with the noisiest key among `elements`.
double noise_after_key_switch(const Ciphertext &a, const GaloisKeys &keys, const std::vector<uint64_t> &elements) {
    double worst = key_switch_noise_log2(*a.ctx, a.level);
    for (uint64_t g : elements) {
        if (g != 1) worst = std::max(worst, key_switch_noise_log2(*a.ctx, a.level, keys.key(g)));
    }
    return noise::add(a.noise_log2, worst);
}

}  // namespace

void check_galois_input(const GaloisKeys &keys, const Ciphertext &a) {
    check_nonempty(a);
    require(keys.context() == a.ctx, Status::ContextMismatch, "Galois keys and ciphertext belong to different contexts");
    require(a.parts.size() == 2, Status::InvalidArgument,
            "automorphisms need a size-2 ciphertext: relinearize first");
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
