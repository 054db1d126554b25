// c_api_threshold.cpp -- the C shim of the threshold protocols: pointer and
// length checks, conversion of the caller's buffers, and calls into the
// engine's protocol code (rlwe/threshold.hpp for the keys, bgv/threshold.hpp
// for the steps on ciphertexts, rlwe/shamir.hpp for re-sharing). Shares cross
// the interface as residues in NTT form (standard, not Montgomery,
// representation); their sums are taken by the caller.
#include <algorithm>
#include <cstring>
#include <string>

#include "bgv/threshold.hpp"
#include "capi/c_api_internal.hpp"
#include "rlwe/shamir.hpp"
#include "rlwe/smudging.hpp"
#include "rlwe/threshold.hpp"
#include "util/checked_size.hpp"

using namespace helib_shim;

/// A party's secret share as RNS residues (its re-shared key, or that key
/// activated for an active set); the residues are wiped when it is freed.
struct helib_secret_share {
    std::unique_ptr<bgv::ResidueSecret> share;
};

static_assert(HELIB_MAX_PARTIES == bgv::threshold::kMaxParties, "helib_c.h and the engine disagree");
static_assert(HELIB_SMUDGING_CHECK_BITS == bgv::smudging::kCheckBits, "helib_c.h and the engine disagree");
static_assert(HELIB_THRESHOLD_SEED_BYTES == sizeof(bgv::Seed), "helib_c.h and the engine disagree");

namespace {

namespace th = bgv::threshold;
using bgv::Context;
using bgv::RnsPoly;
using bgv::Seed;

Seed load_seed(const uint8_t *seed) {
    require_out(seed, "seed");
    Seed out;
    std::memcpy(out.data(), seed, out.size());
    return out;
}

/// The caller's `primes` polynomials of residues (checked by the engine).
RnsPoly load_residues(const Context &ctx, const uint64_t *buf, size_t primes, const char *name) {
    require_out(buf, name);
    return th::load_residues(ctx, buf, primes, name);
}

std::vector<RnsPoly> load_key_share(const Context &ctx, const uint64_t *buf, size_t len, const char *name) {
    th::check_len(len, th::key_share_len(ctx), name);
    require_out(buf, name);
    return th::load_key_share(ctx, buf, len, name);
}

/// Throws HELIB_ERR_INVALID_ARGUMENT naming `what` when the buffers of `len`
/// residues at `a` and `b` overlap (an output the engine writes in place
/// while it reads the other).
void require_disjoint(const uint64_t *a, const uint64_t *b, size_t len, const char *what) {
    const auto lo = [](const uint64_t *p) { return reinterpret_cast<std::uintptr_t>(p); };
    const std::uintptr_t bytes = static_cast<std::uintptr_t>(len) * sizeof(uint64_t);
    const bool overlap = lo(a) < lo(b) + bytes && lo(b) < lo(a) + bytes;
    bgv::require(!overlap, bgv::Status::InvalidArgument, std::string(what) + " overlap");
}

/// The caller's smudging spec (never the ciphertext's own noise estimate).
bgv::smudging::Spec load_spec(const helib_smudging *spec) {
    require_out(spec, "smudging");
    return bgv::smudging::Spec{spec->parties, spec->security_bits, spec->level, spec->noise_bits};
}

const bgv::SecretKey &secret(const helib_secret_key *sk, const char *name) { return *deref(sk, name).key; }

th::PartySecret party_secret(const helib_secret_key *sk) { return th::party_secret(secret(sk, "sk")); }

th::PartySecret party_secret(const helib_secret_share *share) {
    return th::party_secret(*deref(share, "share").share);
}

th::SmudgedStep smudged_step(const helib_ciphertext *ct, const helib_smudging *smudging,
                             const th::PartySecret *share) {
    const bgv::Ciphertext &c = input(ct, "ct");
    return th::smudged_step(c, load_spec(smudging), share);
}

/// The bodies of the share-producing entry points, for either form of the
/// party's secret.
void decrypt_share_of(const th::PartySecret &key, const helib_ciphertext *ct, const helib_smudging *smudging,
                      uint64_t *out, size_t out_len) {
    const th::SmudgedStep step = smudged_step(ct, smudging, &key);
    require_out(out, "out");
    th::check_len(out_len, th::share_len(step.ctx, step.ct.count()), "out");
    th::store(th::decrypt_share(step, key), out);
}

void s2e_share_of(const th::PartySecret &key, const uint8_t *seed, size_t level, const uint64_t *share,
                  size_t n_coeffs, size_t limbs_per_coeff, uint64_t *out, size_t out_len) {
    const Context &ctx = *key.ctx;
    const Seed s = load_seed(seed);
    ctx.check_level(level);
    require_out(share, "share");
    require_out(out, "out");
    bgv::require(limbs_per_coeff >= 1, bgv::Status::InvalidArgument, "limbs_per_coeff must be at least 1");
    bgv::caller_limb_count(n_coeffs, limbs_per_coeff, "share");
    th::check_len(out_len, th::share_len(ctx, level + 1), "out");
    th::store(th::s2e_share(key, s, level, share, n_coeffs, limbs_per_coeff), out);
}

void e2s_share_of(const th::PartySecret &key, const helib_ciphertext *ct, const helib_smudging *smudging,
                  uint64_t *mask, size_t mask_len, uint64_t *out, size_t out_len) {
    const th::SmudgedStep step = smudged_step(ct, smudging, &key);
    const Context &ctx = step.ctx;
    require_out(mask, "mask");
    require_out(out, "out");
    th::check_len(mask_len, bgv::caller_limb_count(ctx.n(), ctx.plain_limbs(), "mask"), "mask");
    th::check_len(out_len, th::share_len(ctx, step.ct.count()), "out");
    const th::E2sShare share = th::e2s_share(step, key);
    th::store(share.share, out);
    std::copy(share.mask.begin(), share.mask.end(), mask);
}

void e2s_share_of_product_of(const th::PartySecret &key, const helib_ciphertext *product, const helib_relin_key *rk,
                             const helib_smudging *smudging, int adds_public_part, uint64_t *mask, size_t mask_len,
                             uint64_t *out, size_t out_len) {
    const bgv::RelinKey &relin = deref(rk, "rk").key;
    const th::SmudgedStep step = th::smudged_product_step(input(product, "product"), relin, load_spec(smudging), &key);
    const Context &ctx = step.ctx;
    require_out(mask, "mask");
    require_out(out, "out");
    th::check_len(mask_len, bgv::caller_limb_count(ctx.n(), ctx.plain_limbs(), "mask"), "mask");
    th::check_len(out_len, th::share_len(ctx, step.ct.count()), "out");
    const th::E2sShare share = th::e2s_share_of_product(step, key, relin, adds_public_part != 0);
    th::store(share.share, out);
    std::copy(share.mask.begin(), share.mask.end(), mask);
}

/// Decodes c_0 + `sum` for a checked step into `out`.
void combine_of(const th::SmudgedStep &step, const uint64_t *sum, size_t len, uint64_t *out, size_t out_len) {
    const Context &ctx = step.ctx;
    th::check_len(len, th::share_len(ctx, step.ct.count()), "sum");
    require_out(out, "out");
    th::check_len(out_len, bgv::caller_limb_count(ctx.n(), ctx.plain_limbs(), "out"), "out");
    const RnsPoly v = load_residues(ctx, sum, step.ct.count(), "sum");
    const bgv::WipedVector<uint64_t> m = th::decrypt_combine(step, v);
    std::copy(m.begin(), m.end(), out);
}

void key_switch_share_of(const th::PartySecret &key, const helib_ciphertext *ct, const helib_public_key *target,
                         const helib_smudging *smudging, uint64_t *h0, uint64_t *h1, size_t len) {
    const th::SmudgedStep step = smudged_step(ct, smudging, &key);
    const bgv::PublicKey &pk = *deref(target, "target").key;
    th::same_context(pk.context(), step.ct.ctx, "target public key and ciphertext");
    require_out(h0, "h0");
    require_out(h1, "h1");
    th::check_len(len, th::share_len(step.ctx, step.ct.count()), "h0 and h1");
    const th::KeySwitchShare share = th::key_switch_share(step, key, pk);
    th::store(share.h0, h0);
    th::store(share.h1, h1);
}

}  // namespace

extern "C" {

helib_status helib_threshold_key_share_len(const helib_context *ctx, size_t *out) {
    return guarded([&] {
        require_out(out, "out");
        *out = th::key_share_len(*deref(ctx, "ctx").ctx);
    });
}

helib_status helib_threshold_ciphertext_digest(const helib_ciphertext *ct, uint8_t *out, size_t out_len) {
    return guarded([&] {
        const bgv::Ciphertext &c = input(ct, "ct");
        require_out(out, "out");
        th::check_len(out_len, 32, "out");
        const bgv::Digest d = th::ciphertext_digest(c);
        std::copy(d.begin(), d.end(), out);
    });
}

helib_status helib_threshold_public_key_share(const helib_secret_key *sk, const uint8_t *seed, uint64_t *out,
                                              size_t out_len) {
    return guarded([&] {
        const bgv::SecretKey &key = secret(sk, "sk");
        const Context &ctx = *key.context();
        const Seed a_seed = load_seed(seed);
        require_out(out, "out");
        th::check_len(out_len, th::share_len(ctx, ctx.chain_size()), "out");
        th::store(th::public_key_share(key, a_seed), out);
    });
}

helib_status helib_threshold_public_key_assemble(const helib_context *ctx, const uint8_t *seed, const uint64_t *b,
                                                 size_t len, helib_public_key **out) {
    return guarded([&] {
        require_out(out, "out");
        const auto &c = deref(ctx, "ctx").ctx;
        const Seed a_seed = load_seed(seed);
        th::check_len(len, th::share_len(*c, c->chain_size()), "b");
        RnsPoly poly = load_residues(*c, b, c->chain_size(), "b");
        *out = new helib_public_key{th::public_key_assemble(c, a_seed, std::move(poly))};
    });
}

helib_status helib_threshold_galois_key_share(const helib_secret_key *sk, uint64_t g, const uint8_t *seed,
                                              uint64_t *out, size_t out_len) {
    return guarded([&] {
        const bgv::SecretKey &key = secret(sk, "sk");
        const Context &ctx = *key.context();
        const Seed s = load_seed(seed);
        bgv::check_galois_element(ctx, g);
        require_out(out, "out");
        th::check_len(out_len, th::key_share_len(ctx), "out");
        th::store_digits(th::galois_key_share(key, g, s), out);
    });
}

helib_status helib_threshold_galois_keys_insert(helib_galois_keys *keys, uint64_t g, const uint8_t *seed,
                                                uint32_t parties, const uint64_t *b, size_t len) {
    return guarded([&] {
        th::check_parties(parties);
        bgv::GaloisKeys &set = *deref_mut(keys, "keys").keys;
        const auto &c = set.context();
        const Seed s = load_seed(seed);
        bgv::check_galois_element(*c, g);
        th::galois_keys_insert(set, g, s, parties, load_key_share(*c, b, len, "b"));
    });
}

helib_status helib_threshold_relin_key_round1(const helib_secret_key *sk, const helib_secret_key *ephemeral,
                                              const uint8_t *seed, uint64_t *h0, uint64_t *h1, size_t len) {
    return guarded([&] {
        const bgv::SecretKey &key = secret(sk, "sk");
        const bgv::SecretKey &u = secret(ephemeral, "ephemeral");
        th::same_context(key.context(), u.context(), "the secret share and the ephemeral secret");
        const Context &ctx = *key.context();
        const Seed s = load_seed(seed);
        require_out(h0, "h0");
        require_out(h1, "h1");
        th::check_len(len, th::key_share_len(ctx), "h0 and h1");
        require_disjoint(h0, h1, len, "h0 and h1");
        th::relin_key_round1(key, u, s, h0, h1);
    });
}

helib_status helib_threshold_relin_key_round2(const helib_secret_key *sk, const helib_secret_key *ephemeral,
                                              const uint64_t *h0_sum, const uint64_t *h1_sum, size_t len,
                                              uint64_t *out, size_t out_len) {
    return guarded([&] {
        const bgv::SecretKey &key = secret(sk, "sk");
        const bgv::SecretKey &u = secret(ephemeral, "ephemeral");
        th::same_context(key.context(), u.context(), "the secret share and the ephemeral secret");
        const Context &ctx = *key.context();
        th::check_len(len, th::key_share_len(ctx), "h0_sum");
        require_out(h0_sum, "h0_sum");
        require_out(h1_sum, "h1_sum");
        require_out(out, "out");
        th::check_len(out_len, len, "out");
        require_disjoint(out, h0_sum, len, "out and h0_sum");
        require_disjoint(out, h1_sum, len, "out and h1_sum");
        // The sums are read in place, checked as they are used.
        th::relin_key_round2(key, u, h0_sum, h1_sum, out);
    });
}

helib_status helib_threshold_relin_key_assemble(const helib_context *ctx, uint32_t parties, const uint64_t *b_sum,
                                                const uint64_t *h1_sum, size_t len, helib_relin_key **out) {
    return guarded([&] {
        require_out(out, "out");
        th::check_parties(parties);
        const auto &c = deref(ctx, "ctx").ctx;
        std::vector<RnsPoly> b = load_key_share(*c, b_sum, len, "b_sum");
        std::vector<RnsPoly> a = load_key_share(*c, h1_sum, len, "h1_sum");
        *out = new helib_relin_key{bgv::RelinKey{th::relin_key_assemble(c, parties, std::move(b), std::move(a))}};
    });
}

helib_status helib_threshold_secret_key_sum(const helib_secret_key *const *shares, size_t count,
                                           helib_secret_key **out) {
    return guarded([&] {
        require_out(out, "out");
        require_out(shares, "shares");
        bgv::require(count >= 1 && count <= 127, bgv::Status::InvalidArgument,
                     "the secret shares to sum must number 1 to 127");
        std::vector<const bgv::SecretKey *> keys;
        for (size_t k = 0; k < count; ++k) keys.push_back(&secret(shares[k], k == 0 ? "shares[0]" : "a secret share"));
        *out = new helib_secret_key{th::secret_key_sum(keys)};
    });
}

helib_status helib_threshold_smudging_for_level(const helib_context *ctx, uint32_t parties, uint32_t security_bits,
                                                size_t level, helib_smudging *out) {
    return guarded([&] {
        require_out(out, "out");
        const Context &c = *deref(ctx, "ctx").ctx;
        const double bound = bgv::smudging::level_bound(c, parties, security_bits, level);
        *out = helib_smudging{parties, security_bits, level, bound};
    });
}

helib_status helib_threshold_smudging_room_bits(size_t ring_degree, uint32_t parties, uint32_t security_bits,
                                                uint32_t *out) {
    return guarded([&] {
        require_out(out, "out");
        *out = bgv::smudging::room_bits(ring_degree, parties, security_bits);
    });
}

helib_status helib_threshold_smudging_bits(const helib_context *ctx, const helib_smudging *smudging,
                                           uint32_t *out) {
    return guarded([&] {
        require_out(out, "out");
        *out = bgv::smudging::width(*deref(ctx, "ctx").ctx, load_spec(smudging)).bits;
    });
}

helib_status helib_threshold_decrypt_share(const helib_secret_key *sk, const helib_ciphertext *ct,
                                           const helib_smudging *smudging, uint64_t *out, size_t out_len) {
    return guarded([&] { decrypt_share_of(party_secret(sk), ct, smudging, out, out_len); });
}

helib_status helib_threshold_e2s_share(const helib_secret_key *sk, const helib_ciphertext *ct,
                                       const helib_smudging *smudging, uint64_t *mask, size_t mask_len, uint64_t *out,
                                       size_t out_len) {
    return guarded([&] { e2s_share_of(party_secret(sk), ct, smudging, mask, mask_len, out, out_len); });
}

helib_status helib_threshold_e2s_share_product(const helib_secret_key *sk, const helib_ciphertext *product,
                                               const helib_relin_key *rk, const helib_smudging *smudging,
                                               int adds_public_part, uint64_t *mask, size_t mask_len, uint64_t *out,
                                               size_t out_len) {
    return guarded([&] {
        e2s_share_of_product_of(party_secret(sk), product, rk, smudging, adds_public_part, mask, mask_len, out,
                                out_len);
    });
}

helib_status helib_threshold_decrypt_combine(const helib_ciphertext *ct, const helib_smudging *smudging,
                                             const uint64_t *sum, size_t len, uint64_t *out, size_t out_len) {
    return guarded([&] { combine_of(smudged_step(ct, smudging, nullptr), sum, len, out, out_len); });
}

helib_status helib_threshold_decrypt_combine_product(const helib_ciphertext *product, const helib_relin_key *rk,
                                                     const helib_smudging *smudging, const uint64_t *sum, size_t len,
                                                     uint64_t *out, size_t out_len) {
    return guarded([&] {
        const th::SmudgedStep step =
            th::smudged_product_step(input(product, "product"), deref(rk, "rk").key, load_spec(smudging), nullptr);
        combine_of(step, sum, len, out, out_len);
    });
}

helib_status helib_threshold_s2e_share(const helib_secret_key *sk, const uint8_t *seed, size_t level,
                                       const uint64_t *share, size_t n_coeffs, size_t limbs_per_coeff,
                                       uint64_t *out, size_t out_len) {
    return guarded([&] {
        s2e_share_of(party_secret(sk), seed, level, share, n_coeffs, limbs_per_coeff, out, out_len);
    });
}

helib_status helib_threshold_s2e_assemble(const helib_context *ctx, const uint8_t *seed, size_t level,
                                          uint32_t parties, const uint64_t *sum, size_t len, helib_ciphertext *dst) {
    return guarded([&] {
        const auto &c = deref(ctx, "ctx").ctx;
        helib_ciphertext &out = deref_mut(dst, "dst");
        // As encryption and deserialization: the result is of `ctx`, so is dst.
        bgv::require(out.ct.ctx == c, bgv::Status::ContextMismatch,
                     "destination ciphertext belongs to a different context");
        const Seed s = load_seed(seed);
        c->check_level(level);
        th::check_parties(parties);
        th::check_len(len, th::share_len(*c, level + 1), "sum");
        out.ct = th::s2e_assemble(c, s, level, parties, load_residues(*c, sum, level + 1, "sum"));
    });
}

helib_status helib_threshold_key_switch_share(const helib_secret_key *sk, const helib_ciphertext *ct,
                                              const helib_public_key *target, const helib_smudging *smudging,
                                              uint64_t *h0, uint64_t *h1, size_t len) {
    return guarded([&] { key_switch_share_of(party_secret(sk), ct, target, smudging, h0, h1, len); });
}

helib_status helib_threshold_key_switch_assemble(const helib_ciphertext *ct, const helib_smudging *smudging,
                                                 const uint64_t *h0_sum, const uint64_t *h1_sum, size_t len,
                                                 helib_ciphertext *dst) {
    return guarded([&] {
        const th::SmudgedStep step = smudged_step(ct, smudging, nullptr);
        helib_ciphertext &out = deref_mut(dst, "dst");
        // As s2e_assemble: the result is of ct's context, so is dst.
        bgv::require(out.ct.ctx == step.ct.ctx, bgv::Status::ContextMismatch,
                     "destination ciphertext belongs to a different context");
        const size_t count = step.ct.count();
        th::check_len(len, th::share_len(step.ctx, count), "h0_sum and h1_sum");
        RnsPoly c0 = load_residues(step.ctx, h0_sum, count, "h0_sum");
        RnsPoly c1 = load_residues(step.ctx, h1_sum, count, "h1_sum");
        out.ct = th::key_switch_assemble(step, std::move(c0), std::move(c1));
    });
}

void helib_secret_share_free(helib_secret_share *share) { delete share; }

helib_status helib_shamir_deal(const helib_secret_key *sk, uint32_t threshold, uint32_t parties,
                               uint64_t *const *outs, size_t each_len) {
    return guarded([&] {
        const bgv::SecretKey &key = secret(sk, "sk");
        const Context &ctx = *key.context();
        bgv::check_shamir_sizes(threshold, parties);
        require_out(outs, "outs");
        for (uint32_t p = 0; p < parties; ++p) require_out(outs[p], "an entry of outs");
        th::check_len(each_len, th::share_len(ctx, ctx.chain_size()), "each dealing");
        bgv::Prng prng = bgv::Prng::from_os();
        bgv::shamir_deal(key, threshold, parties, prng, outs);
    });
}

helib_status helib_shamir_combine(const helib_context *ctx, uint32_t index, uint32_t threshold, uint32_t parties,
                                  const uint64_t *dealings, size_t len, helib_secret_share **out) {
    return guarded([&] {
        require_out(out, "out");
        const auto &c = deref(ctx, "ctx").ctx;
        bgv::check_shamir_sizes(threshold, parties);
        require_out(dealings, "dealings");
        const size_t each = th::share_len(*c, c->chain_size());
        th::check_len(len, bgv::checked_mul(each, parties, bgv::Status::InvalidArgument, "dealings length"),
                      "dealings");
        *out = new helib_secret_share{th::shamir_combine(c, index, threshold, parties, dealings)};
    });
}

helib_status helib_shamir_share_from_residues(const helib_context *ctx, uint32_t index, uint32_t threshold,
                                              uint32_t parties, const uint64_t *residues, size_t len,
                                              helib_secret_share **out) {
    return guarded([&] {
        require_out(out, "out");
        const auto &c = deref(ctx, "ctx").ctx;
        bgv::check_shamir_sizes(threshold, parties);
        require_out(residues, "residues");
        th::check_len(len, th::share_len(*c, c->chain_size()), "residues");
        *out = new helib_secret_share{th::shamir_share_from_residues(c, index, threshold, parties, residues)};
    });
}

helib_status helib_shamir_activate(const helib_secret_share *share, const uint32_t *active, size_t count,
                                   helib_secret_share **out) {
    return guarded([&] {
        require_out(out, "out");
        const bgv::ResidueSecret &s = *deref(share, "share").share;
        bgv::require(count <= th::kMaxParties, bgv::Status::InvalidArgument,
                     "an active set has at most " + std::to_string(th::kMaxParties) + " parties");
        if (count > 0) require_out(active, "active");
        const std::vector<uint32_t> set(active, active + count);
        *out = new helib_secret_share{s.activate(set)};
    });
}

helib_status helib_shamir_share_info(const helib_secret_share *share, uint32_t *index, uint32_t *threshold,
                                     uint32_t *parties, size_t *active_count) {
    return guarded([&] {
        const bgv::ResidueSecret &s = *deref(share, "share").share;
        require_out(index, "index");
        require_out(threshold, "threshold");
        require_out(parties, "parties");
        require_out(active_count, "active_count");
        *index = s.index();
        *threshold = s.threshold();
        *parties = s.parties();
        *active_count = s.active().size();
    });
}

helib_status helib_threshold_e2s_share_product_residues(const helib_secret_share *share,
                                                        const helib_ciphertext *product, const helib_relin_key *rk,
                                                        const helib_smudging *smudging, int adds_public_part,
                                                        uint64_t *mask, size_t mask_len, uint64_t *out,
                                                        size_t out_len) {
    return guarded([&] {
        e2s_share_of_product_of(party_secret(share), product, rk, smudging, adds_public_part, mask, mask_len, out,
                                out_len);
    });
}

helib_status helib_threshold_decrypt_share_residues(const helib_secret_share *share, const helib_ciphertext *ct,
                                                    const helib_smudging *smudging, uint64_t *out, size_t out_len) {
    return guarded([&] { decrypt_share_of(party_secret(share), ct, smudging, out, out_len); });
}

helib_status helib_threshold_e2s_share_residues(const helib_secret_share *share, const helib_ciphertext *ct,
                                                const helib_smudging *smudging, uint64_t *mask, size_t mask_len,
                                                uint64_t *out, size_t out_len) {
    return guarded([&] { e2s_share_of(party_secret(share), ct, smudging, mask, mask_len, out, out_len); });
}

helib_status helib_threshold_key_switch_share_residues(const helib_secret_share *share, const helib_ciphertext *ct,
                                                       const helib_public_key *target, const helib_smudging *smudging,
                                                       uint64_t *h0, uint64_t *h1, size_t len) {
    return guarded([&] { key_switch_share_of(party_secret(share), ct, target, smudging, h0, h1, len); });
}

helib_status helib_threshold_s2e_share_residues(const helib_secret_share *share, const uint8_t *seed, size_t level,
                                                const uint64_t *plain, size_t n_coeffs, size_t limbs_per_coeff,
                                                uint64_t *out, size_t out_len) {
    return guarded([&] {
        s2e_share_of(party_secret(share), seed, level, plain, n_coeffs, limbs_per_coeff, out, out_len);
    });
}

}  // extern "C"
