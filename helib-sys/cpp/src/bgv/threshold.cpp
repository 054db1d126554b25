// threshold.cpp -- the threshold protocols on ciphertexts.
#include "bgv/threshold.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "bgv/plaintext.hpp"
#include "bgv/scheme.hpp"
#include "rlwe/noise.hpp"
#include "util/error.hpp"

namespace bgv {
namespace threshold {
namespace {

/// A party's smudged share c1 * s_i + t * E - w for the step's ciphertext
/// whose second part is `c1` (`minus` is w in coefficient form, or
/// nullptr), in NTT form.
RnsPoly smudged_secret_share(const SmudgedStep &step, const RnsPoly &c1, const PartySecret &key, Prng &prng,
                             const RnsPoly *minus = nullptr) {
    const size_t count = step.ct.count();
    RnsPoly d = times_secret(step.ctx, c1, key.s_ntt, count);
    add_t_smudging(step.ctx, prng, step.width.bits, d, count, minus);
    return d;
}

/// The lift of f * S mod t (S a plaintext polynomial of the caller) modulo
/// q_0..q_level, in NTT form or (with `ntt` false) coefficient form; the
/// intermediate copies of S are wiped.
RnsPoly lift_scaled(const Context &ctx, const u64 *coeffs, size_t n_coeffs, size_t limbs, size_t level,
                    const mpz_class &factor, bool ntt) {
    PlainCoeffs scaled = load_plaintext(ctx, coeffs, n_coeffs, limbs, &factor);
    ScopedWipe wipe_scaled(scaled.data(), scaled.size() * sizeof(u64));
    LiftedPlaintext lifted = lift_plaintext(ctx, scaled, level + 1, ntt);
    RnsPoly out(ctx.n(), level + 1, Secrecy::Secret);
    std::copy(lifted.poly.data.begin(), lifted.poly.data.end(), out.data.begin());
    secure_wipe(lifted.poly.data.data(), lifted.poly.data.size() * sizeof(u64));
    return out;
}

/// A uniform polynomial mod t (N coefficients of plain_limbs() limbs), by rejection.
void sample_mod_t(const Context &ctx, Prng &prng, u64 *out) {
    const size_t pl = ctx.plain_limbs();
    const std::vector<u64> &t = ctx.t_limbs();
    const size_t top = mpz_sizeinbase(ctx.t().get_mpz_t(), 2) - 64 * (pl - 1);
    const u64 mask = top >= 64 ? ~u64{0} : (u64{1} << top) - 1;
    for (size_t j = 0; j < ctx.n(); ++j) {
        u64 *c = out + j * pl;
        for (;;) {
            for (size_t k = 0; k < pl; ++k) c[k] = prng.next_u64();
            c[pl - 1] &= mask;
            bool below = false;
            for (size_t k = pl; k-- > 0;) {
                if (c[k] != t[k]) {
                    below = c[k] < t[k];
                    break;
                }
            }
            if (below) break;
        }
    }
}

/// The encryption-to-shares output for the step's ciphertext whose second
/// part is `c1`: h = c1 s_i + t E - lift(f S_i), so that the combination
/// decodes to m - sum S_i.
E2sShare e2s_share_on(const SmudgedStep &step, const RnsPoly &c1, const PartySecret &key) {
    const Ciphertext &c = step.ct;
    const Context &ctx = step.ctx;
    Prng prng = Prng::from_os();
    E2sShare out{WipedVector<u64>(ctx.n() * ctx.plain_limbs()), RnsPoly(Secrecy::Secret)};
    sample_mod_t(ctx, prng, out.mask.data());
    const RnsPoly lifted = lift_scaled(ctx, out.mask.data(), ctx.n(), ctx.plain_limbs(), c.level, c.factor, false);
    out.share = smudged_secret_share(step, c1, key, prng, &lifted);
    return out;
}

/// The checks every smudged step shares, with `noise_log2` the estimate of
/// the ciphertext the shares decrypt.
SmudgedStep checked_step(const Ciphertext &ct, const smudging::Spec &spec, const PartySecret *share,
                         double noise_log2) {
    if (share != nullptr) same_context(share->ctx, ct.ctx, "secret share and ciphertext");
    const smudging::Width width = smudging::width(*ct.ctx, spec);
    if (ct.level != spec.level) {
        fail_level_mismatch(ct.level, spec.level,
                            "the ciphertext is at level " + std::to_string(ct.level) +
                                ", the agreed computation ends at level " + std::to_string(spec.level));
    }
    require(noise_log2 <= spec.noise_bits, Status::NoiseBudgetExhausted,
            "the ciphertext's noise estimate (" + std::to_string(noise_log2) +
                " bits) exceeds the agreed bound (" + std::to_string(spec.noise_bits) +
                " bits): it is not an output of the agreed computation, and no share is released");
    return SmudgedStep{ct, *ct.ctx, spec, width};
}

}  // namespace

SmudgedStep smudged_step(const Ciphertext &ct, const smudging::Spec &spec, const PartySecret *share) {
    check_nonempty(ct);
    require(ct.parts.size() == 2, Status::InvalidArgument,
            "collective decryption and key switching take a size-2 ciphertext (relinearize first)");
    return checked_step(ct, spec, share, ct.noise_log2);
}

SmudgedStep smudged_product_step(const Ciphertext &product, const RelinKey &rk, const smudging::Spec &spec,
                                 const PartySecret *share) {
    check_nonempty(product);
    same_context(rk.key.ctx, product.ctx, "relinearization key and product");
    require(product.parts.size() == 3, Status::InvalidArgument,
            "encryption to shares of a product takes the size-3 product, before relinearization");
    return checked_step(product, spec, share, eval::relinearized_noise_log2(rk, product));
}

RnsPoly decrypt_share(const SmudgedStep &step, const PartySecret &key) {
    Prng prng = Prng::from_os();
    return smudged_secret_share(step, step.ct.parts[1], key, prng);
}

WipedVector<u64> decrypt_combine(const SmudgedStep &step, const RnsPoly &sum) {
    const Ciphertext &c = step.ct;
    const Context &ctx = step.ctx;
    const double expected = step.width.noise_after;
    RnsPoly v(ctx.n(), c.count(), Secrecy::Secret);
    poly_add(ctx, sum, c.parts[0], v, c.count());
    for_each_prime(ctx, c.count(), [&](size_t i) { ctx.ntt(i).inverse(v.residues(i)); });
    double measured = 0;
    WipedVector<u64> m(decode_decryption(ctx, v, c.level, c.factor, measured));
    // Honest shares leave |v| within the bound the smudging was sized for;
    // a missing, repeated or random share leaves v spread over Z_Q.
    require(measured <= expected + 1.0, Status::MalformedInput,
            "malformed input: the combined shares do not decrypt (measured noise " + std::to_string(measured) +
                " bits, at most " + std::to_string(expected) + " expected): a share is missing, repeated or forged");
    return m;
}

E2sShare e2s_share(const SmudgedStep &step, const PartySecret &key) {
    return e2s_share_on(step, step.ct.parts[1], key);
}

E2sShare e2s_share_of_product(const SmudgedStep &step, const PartySecret &key, const RelinKey &rk,
                              bool adds_public_part) {
    const Ciphertext &product = step.ct;
    const Context &ctx = step.ctx;
    const size_t count = product.count();
    // The relinearization (c0 + k0, c1 + k1) as eval::relinearize forms it;
    // only the party that adds k0 divides its inner product by P.
    RnsPoly u0, u1, c1;
    key_switch_inner_product(rk.key, decompose(ctx, product.parts[2], product.level), nullptr, u0, u1);
    mod_down(ctx, u1, product.level, c1);  // k1
    poly_add(ctx, product.parts[1], c1, c1, count);
    E2sShare out = e2s_share_on(step, c1, key);
    if (adds_public_part) {
        RnsPoly k0;
        mod_down(ctx, u0, product.level, k0);
        poly_add(ctx, out.share, k0, out.share, count);
    }
    return out;
}

RnsPoly s2e_share(const PartySecret &key, const Seed &seed, size_t level, const u64 *coeffs, size_t n_coeffs,
                  size_t limbs) {
    const Context &ctx = *key.ctx;
    ctx.check_level(level);
    const size_t count = level + 1;
    // The lift and t e meet in coefficient form, so that one forward
    // transform per prime serves both; a s_i is subtracted in the same pass.
    RnsPoly h = lift_scaled(ctx, coeffs, n_coeffs, limbs, level, ctx.level(level).canonical_factor, false);
    const RnsPoly a = uniform_from_seed(ctx, derive_seed(seed, "s2e", level, 0), count);
    Prng prng = Prng::from_os();
    const WipedVector<int32_t> e = sample_gaussian(prng, ctx.n());
    for_each_prime(ctx, count, [&](size_t i) {
        const Modulus &q = ctx.prime(i);
        const u64 t = ctx.t_mod(i), ts = q.shoup(t);
        u64 *x = h.residues(i);
        for (size_t j = 0; j < ctx.n(); ++j) x[j] = q.add(x[j], q.mul_shoup(q.from_small(e[j]), t, ts));
        ctx.ntt(i).forward(x);
        const u64 *ai = a.residues(i), *s = key.s_ntt.residues(i);
        for (size_t j = 0; j < ctx.n(); ++j) x[j] = q.sub(x[j], q.mul_montgomery(ai[j], s[j]));
    });
    return h;
}

Ciphertext s2e_assemble(const std::shared_ptr<const Context> &ctx, const Seed &seed, size_t level,
                        uint32_t parties, RnsPoly sum) {
    ctx->check_level(level);
    check_parties(parties);
    Ciphertext ct;
    ct.ctx = ctx;
    ct.level = level;
    ct.factor = ctx->level(level).canonical_factor;
    ct.parts.push_back(std::move(sum));
    ct.parts.push_back(uniform_from_seed(*ctx, derive_seed(seed, "s2e", level, 0), level + 1));
    // Each party contributes a lift below t and t times a Gaussian error.
    ct.noise_log2 = std::log2(static_cast<double>(parties)) + noise::fresh_secret(*ctx) + 1.0;
    noise::require_budget(*ctx, level, ct.noise_log2, "shares to encryption");
    return ct;
}

KeySwitchShare key_switch_share(const SmudgedStep &step, const PartySecret &key, const PublicKey &target) {
    const Ciphertext &c = step.ct;
    const Context &ctx = step.ctx;
    same_context(target.context(), c.ctx, "target public key and ciphertext");
    const size_t count = c.count();
    Prng prng = Prng::from_os();
    const WipedVector<int8_t> u = sample_ternary(prng, ctx.n());
    const RnsPoly u_ntt = small_to_ntt(ctx, u, count);
    // h0 = s_i c1 + u b' + t E (smudging), h1 = u a' + t e1
    KeySwitchShare out{times_secret(ctx, c.parts[1], key.s_ntt, count), RnsPoly(ctx.n(), count, Secrecy::Secret)};
    for_each_prime(ctx, count, [&](size_t i) {
        const Modulus &q = ctx.prime(i);
        const u64 *ui = u_ntt.residues(i), *b = target.b().residues(i), *a = target.a().residues(i);
        u64 *o0 = out.h0.residues(i), *o1 = out.h1.residues(i);
        for (size_t j = 0; j < ctx.n(); ++j) {
            o0[j] = q.add(o0[j], q.mul_montgomery(ui[j], b[j]));
            o1[j] = q.mul_montgomery(ui[j], a[j]);
        }
    });
    add_t_smudging(ctx, prng, step.width.bits, out.h0, count);
    add_t_gaussian(ctx, prng, out.h1, count);
    return out;
}

Ciphertext key_switch_assemble(const SmudgedStep &step, RnsPoly h0_sum, RnsPoly h1_sum) {
    const Ciphertext &c = step.ct;
    const Context &ctx = step.ctx;
    const size_t count = c.count();
    poly_add(ctx, h0_sum, c.parts[0], h0_sum, count);
    Ciphertext result;
    result.ctx = c.ctx;
    result.level = c.level;
    result.factor = c.factor;
    // Beyond the smudging: per party t (u e' + e1 s'), as a public-key encryption.
    result.noise_log2 = noise::add(step.width.noise_after,
                                   std::log2(static_cast<double>(step.spec.parties)) + noise::fresh_public(ctx));
    noise::require_budget(ctx, c.level, result.noise_log2, "collective key switching");
    result.parts.push_back(std::move(h0_sum));
    result.parts.push_back(std::move(h1_sum));
    return result;
}

Digest ciphertext_digest(const Ciphertext &ct) {
    check_nonempty(ct);
    const Context &ctx = *ct.ctx;
    // Per part and prime, the residues as a polynomial evaluated at a fixed
    // point x_i (four interleaved Horner chains): distinct ciphertexts collide
    // with probability about N / q_i per prime.
    const size_t count = ct.count(), parts = ct.parts.size();
    std::vector<u64> evaluations(parts * count);
    for_each_prime(ctx, count, [&](size_t i) {
        const Modulus q = ctx.prime(i);
        const u64 x = q.reduce(0x9e3779b97f4a7c15ull + i), x4 = q.mul(q.mul(x, x), q.mul(x, x));
        const u64 x4_shoup = q.shoup(x4);
        for (size_t k = 0; k < parts; ++k) {
            const u64 *r = ct.parts[k].residues(i);
            // Lazy Shoup steps: each lane stays below 3q (a product in [0, 2q) plus a residue).
            u64 lane[4] = {0, 0, 0, 0};
            for (size_t j = 0; j + 4 <= ctx.n(); j += 4) {
                for (size_t l = 0; l < 4; ++l) lane[l] = q.mul_shoup_lazy(lane[l], x4, x4_shoup) + r[j + l];
            }
            u64 h = 0;
            for (size_t l = 0; l < 4; ++l) h = q.add(q.mul(h, x), q.reduce(lane[l]));
            evaluations[k * count + i] = h;
        }
    });
    Sha256 h;
    const uint8_t tag[] = "he-threshold ciphertext digest";
    h.update(tag, sizeof tag);
    const u64 header[3] = {static_cast<u64>(ct.level), static_cast<u64>(parts), static_cast<u64>(ctx.n())};
    h.update(reinterpret_cast<const uint8_t *>(header), sizeof header);
    const std::string factor = ct.factor.get_str(16);
    h.update(reinterpret_cast<const uint8_t *>(factor.data()), factor.size());
    h.update(reinterpret_cast<const uint8_t *>(evaluations.data()), evaluations.size() * sizeof(u64));
    return h.finish();
}

}  // namespace threshold
}  // namespace bgv
