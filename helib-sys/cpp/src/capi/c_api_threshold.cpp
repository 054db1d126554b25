// c_api_threshold.cpp -- the C shim of N-out-of-N threshold BGV: each party's
// share of the collective public, relinearization and Galois keys, decryption
// shares with smudging noise, encryption to additive shares and back, and
// collective key switching to another public key. Shares cross the interface
// as residues in NTT form (standard, not Montgomery, representation); their
// sums are taken by the caller, which is what makes the protocols N-out-of-N.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "capi/c_api_internal.hpp"
#include "util/checked_size.hpp"
#include "rlwe/noise.hpp"
#include "rlwe/shamir.hpp"
#include "rlwe/smudging.hpp"
#include "bgv/plaintext.hpp"
#include "util/sha256.hpp"

using namespace helib_shim;

/// A party's secret share as RNS residues (its re-shared key, or that key
/// activated for an active set); the residues are wiped when it is freed.
struct helib_secret_share {
    std::unique_ptr<bgv::ResidueSecret> share;
};

namespace {

using bgv::Context;
using bgv::Modulus;
using bgv::RnsPoly;
using bgv::Secrecy;
using bgv::Seed;
using bgv::u64;

/// Residue counts of a share over `count` primes.
size_t share_len(const Context &ctx, size_t count) {
    return bgv::checked_mul(ctx.n(), count, bgv::Status::InvalidArgument, "share length");
}

/// Residues of a key-switching share: one polynomial modulo all primes per digit.
size_t key_share_len(const Context &ctx) {
    bgv::require(!ctx.digits().empty(), bgv::Status::InvalidArgument,
                 "collective key switching keys need special primes: the context has none");
    return bgv::checked_mul(share_len(ctx, ctx.primes().size()), ctx.digits().size(), bgv::Status::InvalidArgument,
                            "key share length");
}

void check_len(size_t given, size_t expected, const char *name) {
    bgv::require(given == expected, bgv::Status::InvalidArgument,
                 std::string(name) + " has " + std::to_string(given) + " residues, expected " +
                     std::to_string(expected));
}

Seed load_seed(const uint8_t *seed) {
    require_out(seed, "seed");
    Seed out;
    std::memcpy(out.data(), seed, out.size());
    return out;
}

/// The seed of the common polynomial `index` of a protocol `tag`: SHA-256 of
/// the session's seed, the tag and the index (so that every key and digit
/// uses an independent common reference polynomial).
Seed derive_seed(const Seed &seed, const char *tag, uint64_t a, uint64_t b) {
    bgv::Sha256 h;
    h.update(seed.data(), seed.size());
    h.update(reinterpret_cast<const uint8_t *>(tag), std::strlen(tag));
    uint8_t words[16];
    for (int k = 0; k < 8; ++k) {
        words[k] = static_cast<uint8_t>(a >> (8 * k));
        words[8 + k] = static_cast<uint8_t>(b >> (8 * k));
    }
    h.update(words, sizeof words);
    return h.finish();
}

/// Reads `count` polynomials of residues modulo primes [0, primes) (standard
/// form), refusing any residue not below its prime.
RnsPoly load_residues(const Context &ctx, const uint64_t *buf, size_t primes, const char *name) {
    require_out(buf, name);
    RnsPoly out(ctx.n(), primes);
    for (size_t i = 0; i < primes; ++i) {
        const u64 q = ctx.prime(i).value();
        const uint64_t *src = buf + i * ctx.n();
        for (size_t j = 0; j < ctx.n(); ++j) {
            if (src[j] >= q) {
                bgv::fail(bgv::Status::InvalidArgument, std::string(name) + ": residue " + std::to_string(j) +
                                                          " of prime " + std::to_string(i) + " is not reduced");
            }
        }
        std::copy(src, src + ctx.n(), out.residues(i));
    }
    return out;
}

void store(const RnsPoly &p, uint64_t *out) { std::copy(p.data.begin(), p.data.end(), out); }

/// Gaussian error times t in NTT form over `count` primes, added to `acc`.
void add_t_gaussian(const Context &ctx, bgv::Prng &prng, RnsPoly &acc, size_t count) {
    const bgv::WipedVector<int32_t> e = bgv::sample_gaussian(prng, ctx.n());
    const RnsPoly e_ntt = bgv::small_to_ntt(ctx, e, count);
    bgv::for_each_prime(ctx, count, [&](size_t i) {
        const Modulus &q = ctx.prime(i);
        const u64 t = ctx.t_mod(i), ts = q.shoup(t);
        u64 *a = acc.residues(i);
        const u64 *x = e_ntt.residues(i);
        for (size_t j = 0; j < ctx.n(); ++j) a[j] = q.add(a[j], q.mul_shoup(x[j], t, ts));
    });
}

/// Refuses a number of parties outside [1, 4096].
void check_parties(uint32_t parties) {
    bgv::require(parties >= 1 && parties <= bgv::smudging::kMaxParties, bgv::Status::InvalidArgument,
                 "the number of parties must be in [1, 4096]");
}

/// The caller's smudging spec (never the ciphertext's own noise estimate).
bgv::smudging::Spec load_spec(const helib_smudging *spec) {
    require_out(spec, "smudging");
    return bgv::smudging::Spec{spec->parties, spec->security_bits, spec->level, spec->noise_bits};
}

/// acc += t * E - w, E uniform in [-2^bits, 2^bits), in NTT form over `count`
/// primes; `minus` is w in coefficient form (or nullptr for w = 0), so that
/// both terms share one forward NTT.
void add_t_smudging(const Context &ctx, bgv::Prng &prng, unsigned bits, RnsPoly &acc, size_t count,
                    const RnsPoly *minus = nullptr) {
    const size_t n = ctx.n(), limbs = (bits + 1 + 63) / 64;
    const unsigned top_bits = (bits + 1) % 64;
    const u64 top_mask = top_bits == 0 ? ~u64{0} : (u64{1} << top_bits) - 1;
    bgv::WipedVector<u64> values(n * limbs);
    for (size_t j = 0; j < n; ++j) {
        for (size_t k = 0; k < limbs; ++k) values[j * limbs + k] = prng.next_u64();
        values[j * limbs + limbs - 1] &= top_mask;
    }
    RnsPoly e(n, count, Secrecy::Secret);
    bgv::for_each_prime(ctx, count, [&](size_t i) {
        const Modulus &q = ctx.prime(i);
        // 2^bits mod q, subtracted to centre the value.
        u64 offset = 1 % q.value();
        for (unsigned b = 0; b < bits; ++b) offset = q.add(offset, offset);
        u64 *r = e.residues(i);
        for (size_t j = 0; j < n; ++j) {
            u64 acc_r = 0;
            for (size_t k = limbs; k-- > 0;) {
                const bgv::u128 x = (static_cast<bgv::u128>(acc_r) << 64) | values[j * limbs + k];
                acc_r = q.reduce128(x);
            }
            r[j] = q.sub(acc_r, offset);
        }
        const u64 t = ctx.t_mod(i), ts = q.shoup(t);
        for (size_t j = 0; j < n; ++j) r[j] = q.mul_shoup(r[j], t, ts);
        if (minus != nullptr) {
            const u64 *w = minus->residues(i);
            for (size_t j = 0; j < n; ++j) r[j] = q.sub(r[j], w[j]);
        }
        ctx.ntt(i).forward(r);
        u64 *a = acc.residues(i);
        for (size_t j = 0; j < n; ++j) a[j] = q.add(a[j], r[j]);
    });
}

/// out = c * s over `count` primes (c standard residues, s in NTT form with
/// Montgomery residues over at least `count` primes).
RnsPoly times_secret(const Context &ctx, const RnsPoly &c, const RnsPoly &s_ntt, size_t count) {
    RnsPoly out(ctx.n(), count, Secrecy::Secret);
    bgv::for_each_prime(ctx, count, [&](size_t i) {
        const Modulus &q = ctx.prime(i);
        const u64 *x = c.residues(i), *s = s_ntt.residues(i);
        u64 *o = out.residues(i);
        for (size_t j = 0; j < ctx.n(); ++j) o[j] = q.mul_montgomery(x[j], s[j]);
    });
    return out;
}

RnsPoly times_secret(const Context &ctx, const RnsPoly &c, const bgv::SecretKey &sk, size_t count) {
    return times_secret(ctx, c, sk.ntt_montgomery(), count);
}

const bgv::SecretKey &secret(const helib_secret_key *sk, const char *name) { return *deref(sk, name).key; }

/// A party's additive secret share in the protocols on a ciphertext, whichever
/// form it comes from: an N-out-of-N secret key s_i, or a re-shared key
/// activated for an active set (lambda_j(T) S_j). Both are in NTT form with
/// Montgomery residues, over at least the chain primes.
struct PartySecret {
    const std::shared_ptr<const Context> &ctx;
    const RnsPoly &s_ntt;
};

PartySecret party_secret(const helib_secret_key *sk) {
    const bgv::SecretKey &key = secret(sk, "sk");
    return PartySecret{key.context(), key.ntt_montgomery()};
}

PartySecret party_secret(const helib_secret_share *share) {
    const bgv::ResidueSecret &s = *deref(share, "share").share;
    bgv::require(!s.active().empty(), bgv::Status::InvalidArgument,
                 "a re-shared key must be activated for an active set before it makes shares");
    return PartySecret{s.context(), s.ntt_montgomery()};
}

void same_context(const std::shared_ptr<const Context> &a, const std::shared_ptr<const Context> &b,
                  const char *what) {
    bgv::require(a == b, bgv::Status::ContextMismatch, std::string(what) + " belong to different contexts");
}

/// What a step of a smudged protocol (collective decryption, encryption to
/// shares, collective key switching) checks first: `ct` is a written
/// ciphertext, of the context of the party's secret share `share` when one is
/// given, of size 2, at the level of the agreed spec and claiming no more
/// noise than the spec allows; the smudging width comes from the spec alone.
struct SmudgedStep {
    const bgv::Ciphertext &ct;
    const Context &ctx;
    /// The smudging width per party and the noise once every party's is in.
    bgv::smudging::Width width;
};

SmudgedStep smudged_step(const helib_ciphertext *ct, const helib_smudging *smudging, const PartySecret *share) {
    const bgv::Ciphertext &c = input(ct, "ct");
    if (share != nullptr) same_context(share->ctx, c.ctx, "secret share and ciphertext");
    const bgv::smudging::Spec spec = load_spec(smudging);
    const bgv::smudging::Width width = bgv::smudging::width(*c.ctx, spec);
    bgv::require(c.parts.size() == 2, bgv::Status::InvalidArgument,
                 "collective decryption and key switching take a size-2 ciphertext (relinearize first)");
    if (c.level != spec.level) {
        bgv::fail_level_mismatch(c.level, spec.level,
                                 "the ciphertext is at level " + std::to_string(c.level) +
                                     ", the agreed computation ends at level " + std::to_string(spec.level));
    }
    bgv::require(c.noise_log2 <= spec.noise_bits, bgv::Status::NoiseBudgetExhausted,
                 "the ciphertext's noise estimate (" + std::to_string(c.noise_log2) +
                     " bits) exceeds the agreed bound (" + std::to_string(spec.noise_bits) +
                     " bits): it is not an output of the agreed computation, and no share is released");
    return SmudgedStep{c, *c.ctx, width};
}

/// A party's smudged share of the step's ciphertext: c1 * s_i + t * E - w
/// (`minus` is w in coefficient form, or nullptr), in NTT form.
RnsPoly smudged_secret_share(const SmudgedStep &step, const PartySecret &key, bgv::Prng &prng,
                             const RnsPoly *minus = nullptr) {
    const bgv::Ciphertext &c = step.ct;
    RnsPoly d = times_secret(step.ctx, c.parts[1], key.s_ntt, c.count());
    add_t_smudging(step.ctx, prng, step.width.bits, d, c.count(), minus);
    return d;
}

/// The lift of f * S mod t (S a plaintext polynomial of the caller) modulo
/// q_0..q_level, in NTT form or (with `ntt` false) coefficient form; the
/// intermediate copies of S are wiped.
RnsPoly lift_scaled(const Context &ctx, const uint64_t *coeffs, size_t n_coeffs, size_t limbs, size_t level,
                    const mpz_class &factor, bool ntt) {
    bgv::PlainCoeffs scaled = bgv::load_plaintext(ctx, coeffs, n_coeffs, limbs, &factor);
    bgv::ScopedWipe wipe_scaled(scaled.data(), scaled.size() * sizeof(u64));
    bgv::LiftedPlaintext lifted = bgv::lift_plaintext(ctx, scaled, level + 1, ntt);
    RnsPoly out(ctx.n(), level + 1, Secrecy::Secret);
    std::copy(lifted.poly.data.begin(), lifted.poly.data.end(), out.data.begin());
    bgv::secure_wipe(lifted.poly.data.data(), lifted.poly.data.size() * sizeof(u64));
    return out;
}

/// A uniform polynomial mod t (N coefficients of plain_limbs() limbs), by rejection.
void sample_mod_t(const Context &ctx, bgv::Prng &prng, u64 *out) {
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

/// The common a_d = uniform(derive_seed(seed, tag, g, d)) of a key share, per digit.
std::vector<RnsPoly> common_polys(const Context &ctx, const Seed &seed, const char *tag, uint64_t g) {
    std::vector<RnsPoly> out;
    for (size_t d = 0; d < ctx.digits().size(); ++d) {
        out.push_back(bgv::uniform_from_seed(ctx, derive_seed(seed, tag, g, d), ctx.primes().size()));
    }
    return out;
}

/// The key-switching key share of `sk` for s' (Montgomery residues, all
/// primes) with the common polynomials a_d: -a_d s + t e + P g_d s' per digit.
std::vector<RnsPoly> key_switch_share(const bgv::SecretKey &sk, const RnsPoly &s_prime,
                                      const std::vector<RnsPoly> &common) {
    const Context &ctx = *sk.context();
    const size_t all = ctx.primes().size();
    std::vector<RnsPoly> out;
    for (size_t d = 0; d < ctx.digits().size(); ++d) {
        const auto [begin, end] = ctx.digits()[d];
        const RnsPoly &a = common[d];
        bgv::Prng prng = bgv::Prng::from_os();
        const bgv::WipedVector<int32_t> e = bgv::sample_gaussian(prng, ctx.n());
        RnsPoly b = bgv::small_to_ntt(ctx, e, all);
        bgv::for_each_prime(ctx, all, [&, begin = begin, end = end](size_t i) {
            const Modulus &q = ctx.prime(i);
            const u64 t = ctx.t_mod(i), ts = q.shoup(t);
            const bool in_digit = i >= begin && i < end;
            const u64 gadget = in_digit ? ctx.special_modulus_mod(i) : 0;
            u64 *bi = b.residues(i);
            const u64 *ai = a.residues(i), *s = sk.ntt_montgomery().residues(i), *sp = s_prime.residues(i);
            for (size_t j = 0; j < ctx.n(); ++j) {
                u64 v = q.sub(q.mul_shoup(bi[j], t, ts), q.mul_montgomery(ai[j], s[j]));
                if (in_digit) v = q.add(v, q.mul_montgomery(sp[j], gadget));
                bi[j] = v;
            }
        });
        out.push_back(std::move(b));
    }
    return out;
}

/// Writes one polynomial per digit (all primes each) to a key share buffer,
/// once everything is computed (a call that fails leaves its output untouched).
void store_digits(const std::vector<RnsPoly> &polys, uint64_t *out) {
    for (size_t d = 0; d < polys.size(); ++d) store(polys[d], out + d * polys[d].data.size());
}

/// Builds a key-switching key from summed shares b_d and common a_d (both
/// standard residues, all primes).
bgv::KeySwitchKey assemble_key(const std::shared_ptr<const Context> &ctx_ptr, std::vector<RnsPoly> b,
                               std::vector<RnsPoly> a, std::vector<Seed> seeds) {
    const Context &ctx = *ctx_ptr;
    bgv::KeySwitchKey key;
    key.ctx = ctx_ptr;
    for (auto &p : b) bgv::to_montgomery(ctx, p);
    for (auto &p : a) bgv::to_montgomery(ctx, p);
    key.b = std::move(b);
    key.a = std::move(a);
    key.a_seeds = std::move(seeds);
    return key;
}

/// Splits a key-switching share buffer into its digits (each validated).
std::vector<RnsPoly> load_key_share(const Context &ctx, const uint64_t *buf, size_t len, const char *name) {
    check_len(len, key_share_len(ctx), name);
    require_out(buf, name);
    const size_t all = ctx.primes().size();
    std::vector<RnsPoly> out;
    for (size_t d = 0; d < ctx.digits().size(); ++d) {
        out.push_back(load_residues(ctx, buf + d * all * ctx.n(), all, name));
    }
    return out;
}

/// Refuses a round-1 sum that no honest run produces: each digit of h0 and h1
/// is a sum containing the uniform terms -u_i a_d and s_i a_d, so its
/// coefficients modulo q_0 spread over Z_q0; a sum with half its coefficients
/// within q_0 / 2^16 of zero (such as h0 = 1, h1 = 0, which would make a
/// round-2 share s_i + t e, the party's secret in the clear) is not one. A
/// second line behind the commitments of round 1, which keep a party that
/// sends last from choosing the sums.
void require_spread(const Context &ctx, const std::vector<RnsPoly> &sums, const char *name) {
    const Modulus &q = ctx.prime(0);
    const u64 near = q.value() >> 16;
    for (size_t d = 0; d < sums.size(); ++d) {
        std::vector<u64> coeffs(sums[d].residues(0), sums[d].residues(0) + ctx.n());
        ctx.ntt(0).inverse(coeffs.data());
        const size_t small = static_cast<size_t>(std::count_if(coeffs.begin(), coeffs.end(), [&](u64 x) {
            return x <= near || x >= q.value() - near;
        }));
        bgv::require(2 * small < ctx.n(), bgv::Status::MalformedInput,
                     std::string("malformed input: digit ") + std::to_string(d) + " of " + name + " has " +
                         std::to_string(small) + " of " + std::to_string(ctx.n()) +
                         " coefficients near zero; an honest round-1 sum is spread over Z_q (no share released)");
    }
}

/// The bodies of the share-producing entry points, for either form of the
/// party's secret (PartySecret).
void decrypt_share_of(const PartySecret &key, const helib_ciphertext *ct, const helib_smudging *smudging,
                      uint64_t *out, size_t out_len) {
    const SmudgedStep step = smudged_step(ct, smudging, &key);
    require_out(out, "out");
    check_len(out_len, share_len(step.ctx, step.ct.count()), "out");
    bgv::Prng prng = bgv::Prng::from_os();
    store(smudged_secret_share(step, key, prng), out);
}

/// h = -a s_i + t e + lift(f S_i): a party's shares-to-encryption share of
/// its additive share S_i at `level`, for the common a of `seed`.
void s2e_share_of(const PartySecret &key, const uint8_t *seed, size_t level, const uint64_t *share,
                  size_t n_coeffs, size_t limbs_per_coeff, uint64_t *out, size_t out_len) {
    const Context &ctx = *key.ctx;
    const Seed s = load_seed(seed);
    ctx.check_level(level);
    require_out(share, "share");
    require_out(out, "out");
    bgv::require(limbs_per_coeff >= 1, bgv::Status::InvalidArgument, "limbs_per_coeff must be at least 1");
    bgv::caller_limb_count(n_coeffs, limbs_per_coeff, "share");
    check_len(out_len, share_len(ctx, level + 1), "out");
    const RnsPoly lifted =
        lift_scaled(ctx, share, n_coeffs, limbs_per_coeff, level, ctx.level(level).canonical_factor, true);
    const RnsPoly a = bgv::uniform_from_seed(ctx, derive_seed(s, "s2e", level, 0), level + 1);
    RnsPoly h = times_secret(ctx, a, key.s_ntt, level + 1);
    bgv::poly_sub(ctx, lifted, h, h, level + 1);
    bgv::Prng prng = bgv::Prng::from_os();
    add_t_gaussian(ctx, prng, h, level + 1);
    store(h, out);
}

void e2s_share_of(const PartySecret &key, const helib_ciphertext *ct, const helib_smudging *smudging,
                  uint64_t *mask, size_t mask_len, uint64_t *out, size_t out_len) {
    const SmudgedStep step = smudged_step(ct, smudging, &key);
    const bgv::Ciphertext &c = step.ct;
    const Context &ctx = step.ctx;
    require_out(mask, "mask");
    require_out(out, "out");
    check_len(mask_len, bgv::caller_limb_count(ctx.n(), ctx.plain_limbs(), "mask"), "mask");
    check_len(out_len, share_len(ctx, c.count()), "out");
    bgv::Prng prng = bgv::Prng::from_os();
    bgv::WipedVector<u64> s_mask(mask_len);
    sample_mod_t(ctx, prng, s_mask.data());
    const RnsPoly lifted =
        lift_scaled(ctx, s_mask.data(), ctx.n(), ctx.plain_limbs(), c.level, c.factor, false);
    // h = c1 s_i + t E - lift(f S_i): the combination decodes to m - sum S_i.
    store(smudged_secret_share(step, key, prng, &lifted), out);
    std::copy(s_mask.begin(), s_mask.end(), mask);
}

void key_switch_share_of(const PartySecret &key, const helib_ciphertext *ct, const helib_public_key *target,
                         const helib_smudging *smudging, uint64_t *h0, uint64_t *h1, size_t len) {
    const SmudgedStep step = smudged_step(ct, smudging, &key);
    const bgv::Ciphertext &c = step.ct;
    const Context &ctx = step.ctx;
    const unsigned bits = step.width.bits;
    const bgv::PublicKey &pk = *deref(target, "target").key;
    same_context(pk.context(), c.ctx, "target public key and ciphertext");
    const size_t count = c.count();
    require_out(h0, "h0");
    require_out(h1, "h1");
    check_len(len, share_len(ctx, count), "h0 and h1");
    bgv::Prng prng = bgv::Prng::from_os();
    const bgv::WipedVector<int8_t> u = bgv::sample_ternary(prng, ctx.n());
    const RnsPoly u_ntt = bgv::small_to_ntt(ctx, u, count);
    // h0 = s_i c1 + u b' + t E (smudging), h1 = u a' + t e1
    RnsPoly x0 = times_secret(ctx, c.parts[1], key.s_ntt, count);
    RnsPoly x1(ctx.n(), count, Secrecy::Secret);
    bgv::for_each_prime(ctx, count, [&](size_t i) {
        const Modulus &q = ctx.prime(i);
        const u64 *ui = u_ntt.residues(i), *b = pk.b().residues(i), *a = pk.a().residues(i);
        u64 *o0 = x0.residues(i), *o1 = x1.residues(i);
        for (size_t j = 0; j < ctx.n(); ++j) {
            o0[j] = q.add(o0[j], q.mul_montgomery(ui[j], b[j]));
            o1[j] = q.mul_montgomery(ui[j], a[j]);
        }
    });
    add_t_smudging(ctx, prng, bits, x0, count);
    add_t_gaussian(ctx, prng, x1, count);
    store(x0, h0);
    store(x1, h1);
}

}  // namespace

extern "C" {

helib_status helib_threshold_key_share_len(const helib_context *ctx, size_t *out) {
    return guarded([&] {
        require_out(out, "out");
        *out = key_share_len(*deref(ctx, "ctx").ctx);
    });
}

helib_status helib_threshold_ciphertext_digest(const helib_ciphertext *ct, uint8_t *out, size_t out_len) {
    return guarded([&] {
        const bgv::Ciphertext &c = input(ct, "ct");
        require_out(out, "out");
        check_len(out_len, 32, "out");
        const Context &ctx = *c.ctx;
        // Per part and prime, the residues as a polynomial evaluated at a
        // fixed point x_i (four interleaved Horner chains): distinct
        // ciphertexts collide with probability about N / q_i per prime.
        const size_t count = c.count(), parts = c.parts.size();
        std::vector<u64> evaluations(parts * count);
        bgv::for_each_prime(ctx, count, [&](size_t i) {
            const Modulus &q = ctx.prime(i);
            const u64 x = q.reduce(0x9e3779b97f4a7c15ull + i), x4 = q.mul(q.mul(x, x), q.mul(x, x));
            for (size_t k = 0; k < parts; ++k) {
                const u64 *r = c.parts[k].residues(i);
                u64 lane[4] = {0, 0, 0, 0};
                for (size_t j = 0; j + 4 <= ctx.n(); j += 4) {
                    for (size_t l = 0; l < 4; ++l) lane[l] = q.add(q.mul(lane[l], x4), r[j + l]);
                }
                u64 h = 0;
                for (size_t l = 0; l < 4; ++l) h = q.add(q.mul(h, x), lane[l]);
                evaluations[k * count + i] = h;
            }
        });
        bgv::Sha256 h;
        const uint8_t tag[] = "he-threshold ciphertext digest";
        h.update(tag, sizeof tag);
        const u64 header[3] = {static_cast<u64>(c.level), static_cast<u64>(parts), static_cast<u64>(ctx.n())};
        h.update(reinterpret_cast<const uint8_t *>(header), sizeof header);
        const std::string factor = c.factor.get_str(16);
        h.update(reinterpret_cast<const uint8_t *>(factor.data()), factor.size());
        h.update(reinterpret_cast<const uint8_t *>(evaluations.data()), evaluations.size() * sizeof(u64));
        const bgv::Digest d = h.finish();
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
        check_len(out_len, share_len(ctx, ctx.chain_size()), "out");
        const size_t count = ctx.chain_size();
        const RnsPoly a = bgv::uniform_from_seed(ctx, a_seed, count);
        RnsPoly b = times_secret(ctx, a, key, count);
        bgv::poly_negate(ctx, b, b, count);
        bgv::Prng prng = bgv::Prng::from_os();
        add_t_gaussian(ctx, prng, b, count);
        store(b, out);
    });
}

helib_status helib_threshold_public_key_assemble(const helib_context *ctx, const uint8_t *seed, const uint64_t *b,
                                                 size_t len, helib_public_key **out) {
    return guarded([&] {
        require_out(out, "out");
        const auto &c = deref(ctx, "ctx").ctx;
        const Seed a_seed = load_seed(seed);
        check_len(len, share_len(*c, c->chain_size()), "b");
        RnsPoly poly = load_residues(*c, b, c->chain_size(), "b");
        bgv::to_montgomery(*c, poly);
        auto key = std::make_unique<bgv::PublicKey>(c, std::move(poly), a_seed);
        *out = new helib_public_key{std::move(key)};
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
        check_len(out_len, key_share_len(ctx), "out");
        RnsPoly s_g(Secrecy::Secret);
        bgv::permute_slots(ctx, key.ntt_montgomery(), bgv::galois_permutation(ctx.n(), g), s_g, ctx.primes().size());
        store_digits(key_switch_share(key, s_g, common_polys(ctx, s, "galois", g)), out);
    });
}

helib_status helib_threshold_galois_keys_insert(helib_galois_keys *keys, uint64_t g, const uint8_t *seed,
                                                uint32_t parties, const uint64_t *b, size_t len) {
    return guarded([&] {
        check_parties(parties);
        bgv::GaloisKeys &set = *deref_mut(keys, "keys").keys;
        const auto &c = set.context();
        const Seed s = load_seed(seed);
        bgv::check_galois_element(*c, g);
        std::vector<RnsPoly> bs = load_key_share(*c, b, len, "b");
        std::vector<RnsPoly> as = common_polys(*c, s, "galois", g);
        std::vector<Seed> seeds;
        for (size_t d = 0; d < c->digits().size(); ++d) seeds.push_back(derive_seed(s, "galois", g, d));
        bgv::KeySwitchKey key = assemble_key(c, std::move(bs), std::move(as), std::move(seeds));
        bgv::mark_collective(key, parties, bgv::CollectiveKind::Galois);
        set.insert(g, std::move(key));
    });
}

helib_status helib_threshold_relin_key_round1(const helib_secret_key *sk, const helib_secret_key *ephemeral,
                                              const uint8_t *seed, uint64_t *h0, uint64_t *h1, size_t len) {
    return guarded([&] {
        const bgv::SecretKey &key = secret(sk, "sk");
        const bgv::SecretKey &u = secret(ephemeral, "ephemeral");
        same_context(key.context(), u.context(), "the secret share and the ephemeral secret");
        const Context &ctx = *key.context();
        const Seed s = load_seed(seed);
        require_out(h0, "h0");
        require_out(h1, "h1");
        check_len(len, key_share_len(ctx), "h0 and h1");
        // h0_d = -u a_d + P g_d s + t e0: a key-switching share from s under u.
        const std::vector<RnsPoly> common = common_polys(ctx, s, "relin", 0);
        const std::vector<RnsPoly> first = key_switch_share(u, key.ntt_montgomery(), common);
        // h1_d = s a_d + t e1.
        const size_t all = ctx.primes().size();
        std::vector<RnsPoly> second;
        for (size_t d = 0; d < ctx.digits().size(); ++d) {
            RnsPoly v = times_secret(ctx, common[d], key, all);
            bgv::Prng prng = bgv::Prng::from_os();
            add_t_gaussian(ctx, prng, v, all);
            second.push_back(std::move(v));
        }
        store_digits(first, h0);
        store_digits(second, h1);
    });
}

helib_status helib_threshold_relin_key_round2(const helib_secret_key *sk, const helib_secret_key *ephemeral,
                                              const uint64_t *h0_sum, const uint64_t *h1_sum, size_t len,
                                              uint64_t *out, size_t out_len) {
    return guarded([&] {
        const bgv::SecretKey &key = secret(sk, "sk");
        const bgv::SecretKey &u = secret(ephemeral, "ephemeral");
        same_context(key.context(), u.context(), "the secret share and the ephemeral secret");
        const Context &ctx = *key.context();
        const std::vector<RnsPoly> h0 = load_key_share(ctx, h0_sum, len, "h0_sum");
        const std::vector<RnsPoly> h1 = load_key_share(ctx, h1_sum, len, "h1_sum");
        require_spread(ctx, h0, "h0_sum");
        require_spread(ctx, h1, "h1_sum");
        require_out(out, "out");
        check_len(out_len, len, "out");
        const size_t all = ctx.primes().size();
        std::vector<RnsPoly> shares;
        for (size_t d = 0; d < h0.size(); ++d) {
            // s h0_d + (u - s) h1_d + t e2
            RnsPoly v(ctx.n(), all, Secrecy::Secret);
            bgv::for_each_prime(ctx, all, [&](size_t i) {
                const Modulus &q = ctx.prime(i);
                const u64 *s = key.ntt_montgomery().residues(i), *ui = u.ntt_montgomery().residues(i);
                const u64 *x0 = h0[d].residues(i), *x1 = h1[d].residues(i);
                u64 *o = v.residues(i);
                for (size_t j = 0; j < ctx.n(); ++j) {
                    o[j] = q.add(q.mul_montgomery(x0[j], s[j]), q.mul_montgomery(x1[j], q.sub(ui[j], s[j])));
                }
            });
            bgv::Prng prng = bgv::Prng::from_os();
            add_t_gaussian(ctx, prng, v, all);
            shares.push_back(std::move(v));
        }
        store_digits(shares, out);
    });
}

helib_status helib_threshold_relin_key_assemble(const helib_context *ctx, uint32_t parties, const uint64_t *b_sum,
                                                const uint64_t *h1_sum, size_t len, helib_relin_key **out) {
    return guarded([&] {
        require_out(out, "out");
        check_parties(parties);
        const auto &c = deref(ctx, "ctx").ctx;
        std::vector<RnsPoly> b = load_key_share(*c, b_sum, len, "b_sum");
        std::vector<RnsPoly> a = load_key_share(*c, h1_sum, len, "h1_sum");
        // The a_d are not expanded from seeds, so the key has none: the
        // serializer stores them in full.
        bgv::RelinKey rk{assemble_key(c, std::move(b), std::move(a), {})};
        bgv::mark_collective(rk.key, parties, bgv::CollectiveKind::Relinearization);
        *out = new helib_relin_key{std::move(rk)};
    });
}

helib_status helib_threshold_secret_key_sum(const helib_secret_key *const *shares, size_t count,
                                           helib_secret_key **out) {
    return guarded([&] {
        require_out(out, "out");
        require_out(shares, "shares");
        bgv::require(count >= 1 && count <= 127, bgv::Status::InvalidArgument,
                     "the secret shares to sum must number 1 to 127");
        const auto &c = secret(shares[0], "shares[0]").context();
        bgv::WipedVector<int8_t> sum(std::vector<int8_t>(c->n(), 0));
        for (size_t k = 0; k < count; ++k) {
            const bgv::SecretKey &key = secret(shares[k], "a secret share");
            same_context(c, key.context(), "the secret shares");
            // Ternary coefficients, at most 127 of them: the sum fits an int8_t.
            for (size_t j = 0; j < c->n(); ++j) {
                sum[j] = static_cast<int8_t>(sum[j] + key.coefficients()[j]);
            }
        }
        auto key = std::make_unique<bgv::SecretKey>(c, std::move(sum));
        *out = new helib_secret_key{std::move(key)};
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
    return guarded(
        [&] { e2s_share_of(party_secret(sk), ct, smudging, mask, mask_len, out, out_len); });
}

helib_status helib_threshold_decrypt_combine(const helib_ciphertext *ct, const helib_smudging *smudging,
                                             const uint64_t *sum, size_t len, uint64_t *out, size_t out_len) {
    return guarded([&] {
        const SmudgedStep step = smudged_step(ct, smudging, nullptr);
        const bgv::Ciphertext &c = step.ct;
        const Context &ctx = step.ctx;
        const double expected = step.width.noise_after;
        check_len(len, share_len(ctx, c.count()), "sum");
        require_out(out, "out");
        check_len(out_len, bgv::caller_limb_count(ctx.n(), ctx.plain_limbs(), "out"), "out");
        RnsPoly v = load_residues(ctx, sum, c.count(), "sum");
        bgv::poly_add(ctx, v, c.parts[0], v, c.count());
        bgv::for_each_prime(ctx, c.count(), [&](size_t i) { ctx.ntt(i).inverse(v.residues(i)); });
        double measured = 0;
        bgv::PlainCoeffs m = bgv::decode_decryption(ctx, v, c.level, c.factor, measured);
        bgv::ScopedWipe wipe_m(m.data(), m.size() * sizeof(u64));
        // Honest shares leave |v| within the bound the smudging was sized for;
        // a missing, repeated or random share leaves v spread over Z_Q.
        bgv::require(measured <= expected + 1.0, bgv::Status::MalformedInput,
                     "malformed input: the combined shares do not decrypt (measured noise " +
                         std::to_string(measured) + " bits, at most " + std::to_string(expected) +
                         " expected): a share is missing, repeated or forged");
        std::copy(m.begin(), m.end(), out);
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
        bgv::require(parties >= 1 && parties <= 4096, bgv::Status::InvalidArgument,
                     "the number of parties must be in [1, 4096]");
        check_len(len, share_len(*c, level + 1), "sum");
        bgv::Ciphertext ct;
        ct.ctx = c;
        ct.level = level;
        ct.factor = c->level(level).canonical_factor;
        ct.parts.push_back(load_residues(*c, sum, level + 1, "sum"));
        ct.parts.push_back(bgv::uniform_from_seed(*c, derive_seed(s, "s2e", level, 0), level + 1));
        // Each party contributes a lift below t and t times a Gaussian error.
        ct.noise_log2 = std::log2(static_cast<double>(parties)) + bgv::noise::fresh_secret(*c) + 1.0;
        bgv::noise::require_budget(*c, level, ct.noise_log2, "shares to encryption");
        out.ct = std::move(ct);
    });
}

helib_status helib_threshold_key_switch_share(const helib_secret_key *sk, const helib_ciphertext *ct,
                                              const helib_public_key *target, const helib_smudging *smudging,
                                              uint64_t *h0, uint64_t *h1, size_t len) {
    return guarded(
        [&] { key_switch_share_of(party_secret(sk), ct, target, smudging, h0, h1, len); });
}

helib_status helib_threshold_key_switch_assemble(const helib_ciphertext *ct, const helib_smudging *smudging,
                                                 const uint64_t *h0_sum,
                                                 const uint64_t *h1_sum, size_t len, helib_ciphertext *dst) {
    return guarded([&] {
        const SmudgedStep step = smudged_step(ct, smudging, nullptr);
        const bgv::Ciphertext &c = step.ct;
        const Context &ctx = step.ctx;
        const double smudged = step.width.noise_after;
        helib_ciphertext &out = deref_mut(dst, "dst");
        // As s2e_assemble: the result is of ct's context, so is dst.
        bgv::require(out.ct.ctx == c.ctx, bgv::Status::ContextMismatch,
                     "destination ciphertext belongs to a different context");
        const size_t count = c.count();
        check_len(len, share_len(ctx, count), "h0_sum and h1_sum");
        RnsPoly c0 = load_residues(ctx, h0_sum, count, "h0_sum");
        RnsPoly c1 = load_residues(ctx, h1_sum, count, "h1_sum");
        bgv::poly_add(ctx, c0, c.parts[0], c0, count);
        bgv::Ciphertext result;
        result.ctx = c.ctx;
        result.level = c.level;
        result.factor = c.factor;
        // Beyond the smudging: per party t (u e' + e1 s'), as a public-key encryption.
        result.noise_log2 = bgv::noise::add(
            smudged, std::log2(static_cast<double>(smudging->parties)) + bgv::noise::fresh_public(ctx));
        bgv::noise::require_budget(ctx, c.level, result.noise_log2, "collective key switching");
        result.parts.push_back(std::move(c0));
        result.parts.push_back(std::move(c1));
        out.ct = std::move(result);
    });
}

void helib_secret_share_free(helib_secret_share *share) { delete share; }

helib_status helib_shamir_deal(const helib_secret_key *sk, uint32_t threshold, uint32_t parties, uint64_t *out,
                               size_t out_len) {
    return guarded([&] {
        const bgv::SecretKey &key = secret(sk, "sk");
        const Context &ctx = *key.context();
        bgv::check_shamir_sizes(threshold, parties);
        require_out(out, "out");
        const size_t each = share_len(ctx, ctx.chain_size());
        check_len(out_len, bgv::checked_mul(each, parties, bgv::Status::InvalidArgument, "dealing length"), "out");
        bgv::Prng prng = bgv::Prng::from_os();
        const std::vector<RnsPoly> dealing = bgv::shamir_deal(key, threshold, parties, prng);
        for (uint32_t p = 0; p < parties; ++p) store(dealing[p], out + p * each);
    });
}

helib_status helib_shamir_combine(const helib_context *ctx, uint32_t index, uint32_t threshold, uint32_t parties,
                                  const uint64_t *dealings, size_t len, helib_secret_share **out) {
    return guarded([&] {
        require_out(out, "out");
        const auto &c = deref(ctx, "ctx").ctx;
        bgv::check_shamir_sizes(threshold, parties);
        bgv::require(index >= 1 && index <= parties, bgv::Status::InvalidArgument,
                     "party index " + std::to_string(index) + " is outside [1, " + std::to_string(parties) + "]");
        require_out(dealings, "dealings");
        const size_t n = c->n(), chain = c->chain_size(), each = share_len(*c, chain);
        check_len(len, bgv::checked_mul(each, parties, bgv::Status::InvalidArgument, "dealings length"), "dealings");
        // S_j = sum over the dealers of f_i(j), kept only in wiped memory.
        RnsPoly sum(n, chain, Secrecy::Secret);
        std::fill(sum.data.begin(), sum.data.end(), 0);
        for (uint32_t p = 0; p < parties; ++p) {
            for (size_t i = 0; i < chain; ++i) {
                const Modulus &q = c->prime(i);
                const uint64_t *src = dealings + p * each + i * n;
                u64 *acc = sum.residues(i);
                for (size_t j = 0; j < n; ++j) {
                    bgv::require(src[j] < q.value(), bgv::Status::InvalidArgument,
                                 "the dealing of party " + std::to_string(p + 1) + ": residue " + std::to_string(j) +
                                     " of prime " + std::to_string(i) + " is not reduced");
                    acc[j] = q.add(acc[j], src[j]);
                }
            }
        }
        bgv::to_montgomery(*c, sum);
        auto share = std::make_unique<bgv::ResidueSecret>(c, std::move(sum), index, threshold, parties);
        *out = new helib_secret_share{std::move(share)};
    });
}

helib_status helib_shamir_activate(const helib_secret_share *share, const uint32_t *active, size_t count,
                                   helib_secret_share **out) {
    return guarded([&] {
        require_out(out, "out");
        const bgv::ResidueSecret &s = *deref(share, "share").share;
        bgv::require(count <= bgv::kMaxShamirParties, bgv::Status::InvalidArgument,
                     "an active set has at most 4096 parties");
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

helib_status helib_threshold_decrypt_share_residues(const helib_secret_share *share, const helib_ciphertext *ct,
                                                    const helib_smudging *smudging, uint64_t *out, size_t out_len) {
    return guarded([&] { decrypt_share_of(party_secret(share), ct, smudging, out, out_len); });
}

helib_status helib_threshold_e2s_share_residues(const helib_secret_share *share, const helib_ciphertext *ct,
                                                const helib_smudging *smudging, uint64_t *mask, size_t mask_len,
                                                uint64_t *out, size_t out_len) {
    return guarded(
        [&] { e2s_share_of(party_secret(share), ct, smudging, mask, mask_len, out, out_len); });
}

helib_status helib_threshold_key_switch_share_residues(const helib_secret_share *share, const helib_ciphertext *ct,
                                                       const helib_public_key *target, const helib_smudging *smudging,
                                                       uint64_t *h0, uint64_t *h1, size_t len) {
    return guarded(
        [&] { key_switch_share_of(party_secret(share), ct, target, smudging, h0, h1, len); });
}

helib_status helib_threshold_s2e_share_residues(const helib_secret_share *share, const uint8_t *seed, size_t level,
                                                const uint64_t *plain, size_t n_coeffs, size_t limbs_per_coeff,
                                                uint64_t *out, size_t out_len) {
    return guarded([&] {
        s2e_share_of(party_secret(share), seed, level, plain, n_coeffs, limbs_per_coeff, out, out_len);
    });
}

}  // extern "C"
