// smuche_mask.cpp -- INSECURE by design: the "constant-time randomization"
// of the Smuche caching scheme (Zhao 2023), the public-key mask
// (b * xi, a_pk * xi) added to a ciphertext WITHOUT fresh error terms.
//
// It is kept, isolated in this file (with its header, and one entry point in
// capi/c_api_ciphertext.cpp), only so that the he-cache crate can
// implement Smuche faithfully and the he-cache-analysis crate can show how it
// fails: the mask lies in the R_q-span of the public key, so
// c0 * a_pk - c1 * b is unchanged by it. Nothing else in the engine uses it;
// a fresh encryption of zero is the secure re-randomization.
#include "bgv/smuche_mask.hpp"

#include <cmath>
#include <string>

#include "bgv/scheme.hpp"
#include "rlwe/noise.hpp"
#include "util/error.hpp"

namespace bgv {

void add_smuche_mask(const PublicKey &pk, const Ciphertext &a, Ciphertext &dst) {
    check_nonempty(a);
    require(pk.context() == a.ctx, bgv::Status::ContextMismatch,
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

}  // namespace bgv
