// threshold.cpp -- the key side of N-out-of-N threshold BGV.
#include "rlwe/threshold.hpp"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>

#include "ring/automorphism.hpp"
#include "ring/ntt_kernels.hpp"
#include "util/checked_size.hpp"
#include "util/error.hpp"
#include "util/sha256.hpp"
#include "util/wipe.hpp"

namespace bgv {
namespace threshold {

void check_parties(uint32_t parties) {
    require(parties >= 1 && parties <= kMaxParties, Status::InvalidArgument,
            "the number of parties must be in [1, " + std::to_string(kMaxParties) + "]");
}

size_t share_len(const Context &ctx, size_t count) {
    return checked_mul(ctx.n(), count, Status::InvalidArgument, "share length");
}

size_t key_share_len(const Context &ctx) {
    require(!ctx.digits().empty(), Status::InvalidArgument,
            "collective key switching keys need special primes: the context has none");
    return checked_mul(share_len(ctx, ctx.primes().size()), ctx.digits().size(), Status::InvalidArgument,
                       "key share length");
}

void check_len(size_t given, size_t expected, const char *name) {
    require(given == expected, Status::InvalidArgument,
            std::string(name) + " has " + std::to_string(given) + " residues, expected " + std::to_string(expected));
}

Seed derive_seed(const Seed &seed, const char *tag, uint64_t a, uint64_t b) {
    Sha256 h;
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

RnsPoly load_residues(const Context &ctx, const u64 *buf, size_t primes, const char *name) {
    RnsPoly out(ctx.n(), primes);
    for (size_t i = 0; i < primes; ++i) {
        const u64 q = ctx.prime(i).value();
        const u64 *src = buf + i * ctx.n();
        for (size_t j = 0; j < ctx.n(); ++j) {
            if (src[j] >= q) {
                fail(Status::InvalidArgument, std::string(name) + ": residue " + std::to_string(j) + " of prime " +
                                                  std::to_string(i) + " is not reduced");
            }
        }
        std::copy(src, src + ctx.n(), out.residues(i));
    }
    return out;
}

std::vector<RnsPoly> load_key_share(const Context &ctx, const u64 *buf, size_t len, const char *name) {
    check_len(len, key_share_len(ctx), name);
    const size_t all = ctx.primes().size();
    std::vector<RnsPoly> out;
    for (size_t d = 0; d < ctx.digits().size(); ++d) {
        out.push_back(load_residues(ctx, buf + d * all * ctx.n(), all, name));
    }
    return out;
}

void store(const RnsPoly &p, u64 *out) { std::copy(p.data.begin(), p.data.end(), out); }

void store_digits(const std::vector<RnsPoly> &polys, u64 *out) {
    for (size_t d = 0; d < polys.size(); ++d) store(polys[d], out + d * polys[d].data.size());
}

void add_t_gaussian(const Context &ctx, Prng &prng, RnsPoly &acc, size_t count) {
    const WipedVector<int32_t> e = sample_gaussian(prng, ctx.n());
    const RnsPoly e_ntt = small_to_ntt(ctx, e, count);
    for_each_prime(ctx, count, [&](size_t i) {
        const Modulus &q = ctx.prime(i);
        const u64 t = ctx.t_mod(i), ts = q.shoup(t);
        u64 *a = acc.residues(i);
        const u64 *x = e_ntt.residues(i);
        for (size_t j = 0; j < ctx.n(); ++j) a[j] = q.add(a[j], q.mul_shoup(x[j], t, ts));
    });
}

void add_t_smudging(const Context &ctx, Prng &prng, unsigned bits, RnsPoly &acc, size_t count,
                    const RnsPoly *minus) {
    const size_t n = ctx.n(), limbs = (bits + 1 + 63) / 64;
    const unsigned top_bits = (bits + 1) % 64;
    const u64 top_mask = top_bits == 0 ? ~u64{0} : (u64{1} << top_bits) - 1;
    WipedVector<u64> values(n * limbs);
    for (size_t j = 0; j < n; ++j) {
        for (size_t k = 0; k < limbs; ++k) values[j * limbs + k] = prng.next_u64();
        values[j * limbs + limbs - 1] &= top_mask;
    }
    RnsPoly e(n, count, Secrecy::Secret);
    for_each_prime(ctx, count, [&](size_t i) {
        const Modulus &q = ctx.prime(i);
        // 2^bits mod q, subtracted to centre the value.
        u64 offset = 1 % q.value();
        for (unsigned b = 0; b < bits; ++b) offset = q.add(offset, offset);
        u64 *r = e.residues(i);
        for (size_t j = 0; j < n; ++j) {
            u64 acc_r = 0;
            for (size_t k = limbs; k-- > 0;) {
                const u128 x = (static_cast<u128>(acc_r) << 64) | values[j * limbs + k];
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

RnsPoly times_secret(const Context &ctx, const RnsPoly &c, const RnsPoly &s_ntt, size_t count) {
    RnsPoly out(ctx.n(), count, Secrecy::Secret);
    for_each_prime(ctx, count, [&](size_t i) {
        const Modulus &q = ctx.prime(i);
        const u64 *x = c.residues(i), *s = s_ntt.residues(i);
        u64 *o = out.residues(i);
        for (size_t j = 0; j < ctx.n(); ++j) o[j] = q.mul_montgomery(x[j], s[j]);
    });
    return out;
}

PartySecret party_secret(const SecretKey &sk) { return PartySecret{sk.context(), sk.ntt_montgomery()}; }

PartySecret party_secret(const ResidueSecret &share) {
    require(!share.active().empty(), Status::InvalidArgument,
            "a re-shared key must be activated for an active set before it makes shares");
    return PartySecret{share.context(), share.ntt_montgomery()};
}

void same_context(const std::shared_ptr<const Context> &a, const std::shared_ptr<const Context> &b,
                  const char *what) {
    require(a == b, Status::ContextMismatch, std::string(what) + " belong to different contexts");
}

namespace {

/// The common a_d = uniform(derive_seed(seed, tag, g, d)) of a key share, per digit.
std::vector<RnsPoly> common_polys(const Context &ctx, const Seed &seed, const char *tag, uint64_t g) {
    std::vector<RnsPoly> out;
    for (size_t d = 0; d < ctx.digits().size(); ++d) {
        out.push_back(uniform_from_seed(ctx, derive_seed(seed, tag, g, d), ctx.primes().size()));
    }
    return out;
}

/// The key-switching key share of `sk` for s' (Montgomery residues, all
/// primes) with the common polynomials a_d: -a_d s + t e + P g_d s' per digit.
std::vector<RnsPoly> key_switch_share(const SecretKey &sk, const RnsPoly &s_prime, const std::vector<RnsPoly> &common) {
    const Context &ctx = *sk.context();
    const size_t all = ctx.primes().size();
    std::vector<RnsPoly> out;
    for (size_t d = 0; d < ctx.digits().size(); ++d) {
        const auto [begin, end] = ctx.digits()[d];
        const RnsPoly &a = common[d];
        Prng prng = Prng::from_os();
        const WipedVector<int32_t> e = sample_gaussian(prng, ctx.n());
        RnsPoly b = small_to_ntt(ctx, e, all);
        for_each_prime(ctx, all, [&, begin = begin, end = end](size_t i) {
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

/// A key-switching key from summed shares b_d and common a_d (both standard
/// residues, all primes).
KeySwitchKey assemble_key(const std::shared_ptr<const Context> &ctx_ptr, std::vector<RnsPoly> b,
                          std::vector<RnsPoly> a, std::vector<Seed> seeds) {
    const Context &ctx = *ctx_ptr;
    KeySwitchKey key;
    key.ctx = ctx_ptr;
    for (auto &p : b) to_montgomery(ctx, p);
    for (auto &p : a) to_montgomery(ctx, p);
    key.b = std::move(b);
    key.a = std::move(a);
    key.a_seeds = std::move(seeds);
    return key;
}

}  // namespace

RnsPoly public_key_share(const SecretKey &sk, const Seed &seed) {
    const Context &ctx = *sk.context();
    const size_t count = ctx.chain_size();
    const RnsPoly a = uniform_from_seed(ctx, seed, count);
    RnsPoly b = times_secret(ctx, a, sk.ntt_montgomery(), count);
    poly_negate(ctx, b, b, count);
    Prng prng = Prng::from_os();
    add_t_gaussian(ctx, prng, b, count);
    return b;
}

std::unique_ptr<PublicKey> public_key_assemble(const std::shared_ptr<const Context> &ctx, const Seed &seed,
                                               RnsPoly b) {
    to_montgomery(*ctx, b);
    return std::make_unique<PublicKey>(ctx, std::move(b), seed);
}

std::vector<RnsPoly> galois_key_share(const SecretKey &sk, uint64_t g, const Seed &seed) {
    const Context &ctx = *sk.context();
    check_galois_element(ctx, g);
    key_share_len(ctx);  // refuses a context without special primes
    RnsPoly s_g(Secrecy::Secret);
    permute_slots(ctx, sk.ntt_montgomery(), galois_permutation(ctx.n(), g), s_g, ctx.primes().size());
    return key_switch_share(sk, s_g, common_polys(ctx, seed, "galois", g));
}

void galois_keys_insert(GaloisKeys &keys, uint64_t g, const Seed &seed, uint32_t parties, std::vector<RnsPoly> b) {
    check_parties(parties);
    const auto &c = keys.context();
    check_galois_element(*c, g);
    std::vector<RnsPoly> as = common_polys(*c, seed, "galois", g);
    std::vector<Seed> seeds;
    for (size_t d = 0; d < c->digits().size(); ++d) seeds.push_back(derive_seed(seed, "galois", g, d));
    KeySwitchKey key = assemble_key(c, std::move(b), std::move(as), std::move(seeds));
    mark_collective(key, parties, CollectiveKind::Galois);
    keys.insert(g, std::move(key));
}

namespace {

/// Residues of a key-switching row chunk drawn, scaled and combined at a time:
/// 16 KiB per operand, so a chunk stays in the first-level cache between the
/// draw (or the check) and the product.
constexpr size_t kRowChunk = 2048;

/// Residue row `i` of digit `d` in a key share buffer (all primes per digit).
template <typename T>
T *key_row(const Context &ctx, T *buf, size_t d, size_t i) {
    return buf + (d * ctx.primes().size() + i) * ctx.n();
}

/// Runs `row(d, i)` for every digit d and prime i on the pool; should any
/// task fail, every buffer in `outputs` (each a key share, whose rows hold
/// secret-dependent values until their task ends) is wiped before the error
/// goes on.
template <typename Row>
void key_rows(const Context &ctx, std::initializer_list<u64 *> outputs, const Row &row) {
    const size_t all = ctx.primes().size();
    try {
        for_each_prime(ctx, ctx.digits().size() * all, [&](size_t task) { row(task / all, task % all); });
    } catch (...) {
        for (u64 *out : outputs) secure_wipe(out, key_share_len(ctx) * sizeof(u64));
        throw;
    }
}

/// One Gaussian error per (digit, kind), `kinds` per digit, drawn in parallel
/// from fresh OS-seeded generators; wiped when released.
std::vector<std::unique_ptr<WipedVector<int32_t>>> gaussian_errors(const Context &ctx, size_t kinds) {
    std::vector<std::unique_ptr<WipedVector<int32_t>>> errors(kinds * ctx.digits().size());
    for_each_prime(ctx, errors.size(), [&](size_t k) {
        Prng prng = Prng::from_os();
        errors[k] = std::make_unique<WipedVector<int32_t>>(sample_gaussian(prng, ctx.n()));
    });
    return errors;
}

/// row = NTT(t e) in place (standard residues): the error scaled as it is
/// reduced, then transformed.
void t_error_ntt(const Context &ctx, size_t i, const WipedVector<int32_t> &e, u64 *row) {
    const Modulus &q = ctx.prime(i);
    const u64 t = ctx.t_mod(i);
    kernels::scale_small(e.data(), nullptr, row, ctx.n(), t, q.shoup(t), q);
    ctx.ntt(i).forward(row);
}

/// Throws Status::InvalidArgument naming `name` unless every residue of
/// `values` (residues [first, first + len) of prime i's row) is below q.
void require_reduced(const Modulus &q, const u64 *values, size_t first, size_t len, size_t i, const char *name) {
    u64 unreduced = 0;
    for (size_t j = 0; j < len; ++j) unreduced |= static_cast<u64>(values[j] >= q.value());
    if (unreduced == 0) return;
    size_t j = 0;
    while (values[j] < q.value()) ++j;
    fail(Status::InvalidArgument, std::string(name) + ": residue " + std::to_string(first + j) + " of prime " +
                                      std::to_string(i) + " is not reduced");
}

}  // namespace

void relin_key_round1(const SecretKey &sk, const SecretKey &u, const Seed &seed, u64 *h0, u64 *h1) {
    same_context(sk.context(), u.context(), "the secret share and the ephemeral secret");
    const Context &ctx = *sk.context();
    key_share_len(ctx);  // refuses a context without special primes
    const size_t n = ctx.n(), digits = ctx.digits().size();
    std::vector<Seed> seeds;
    for (size_t d = 0; d < digits; ++d) seeds.push_back(derive_seed(seed, "relin", 0, d));
    // e0_d and e1_d (secret, wiped when released), drawn in parallel.
    const auto errors = gaussian_errors(ctx, 2);
    // One task per (digit, prime) row, in place in the caller's buffers:
    // h0 = NTT(t e0) and h1 = NTT(t e1); then, a chunk at a time while it is
    // in L1, a_d = the seed's stream for this prime (as uniform_from_seed),
    // h0 += -u a_d (+ [in digit] P s) and h1 += s a_d. A row holds NTT(t e),
    // a secret, only inside its task; key_rows wipes both buffers should a
    // task still fail.
    key_rows(ctx, {h0, h1}, [&](size_t d, size_t i) {
        const auto [begin, end] = ctx.digits()[d];
        const Modulus &q = ctx.prime(i);
        u64 *x0 = key_row(ctx, h0, d, i), *x1 = key_row(ctx, h1, d, i);
        t_error_ntt(ctx, i, *errors[2 * d], x0);
        t_error_ntt(ctx, i, *errors[2 * d + 1], x1);
        // s and u in Montgomery form: a * s 2^64 * 2^-64 = a s; P mod q times
        // s 2^64 likewise gives P s.
        const u64 *s = sk.ntt_montgomery().residues(i), *ui = u.ntt_montgomery().residues(i);
        const bool in_digit = i >= begin && i < end;
        const u64 p = in_digit ? ctx.special_modulus_mod(i) : 0;
        Prng prng(seeds[d], i);
        u64 a[kRowChunk];
        for (size_t c = 0; c < n; c += kRowChunk) {
            const size_t len = std::min(kRowChunk, n - c);
            prng.fill_uniform_below(q.value(), a, len);
            for (size_t j = 0; j < len; ++j) {
                u64 v = q.sub(x0[c + j], q.mul_montgomery(a[j], ui[c + j]));
                if (in_digit) v = q.add(v, q.mul_montgomery(s[c + j], p));
                x0[c + j] = v;
                x1[c + j] = q.add(x1[c + j], q.mul_montgomery(a[j], s[c + j]));
            }
        }
    });
}

namespace {

/// Refuses a round-1 sum that no honest run produces: each digit of h0 and h1
/// is a sum containing the uniform terms -u_i a_d and s_i a_d, so its
/// coefficients modulo q_0 spread over Z_q0; a sum with half its coefficients
/// within q_0 / 2^16 of zero (such as h0 = 1, h1 = 0, which would make a
/// round-2 share s_i + t e, the party's secret in the clear) is not one. A
/// second line behind the commitments of round 1, which keep a party that
/// sends last from choosing the sums. Reads the caller's sums: each digit's
/// row modulo q_0, checked reduced, is copied and transformed back to
/// coefficients.
void require_spread(const Context &ctx, const u64 *sums, const char *name) {
    const Modulus &q = ctx.prime(0);
    const u64 near = q.value() >> 16;
    std::vector<u64> coeffs(ctx.n());
    for (size_t d = 0; d < ctx.digits().size(); ++d) {
        const u64 *row = key_row(ctx, sums, d, 0);
        require_reduced(q, row, 0, ctx.n(), 0, name);
        std::copy(row, row + ctx.n(), coeffs.begin());
        ctx.ntt(0).inverse(coeffs.data());
        const size_t small = static_cast<size_t>(
            std::count_if(coeffs.begin(), coeffs.end(), [&](u64 x) { return x <= near || x >= q.value() - near; }));
        require(2 * small < ctx.n(), Status::MalformedInput,
                std::string("malformed input: digit ") + std::to_string(d) + " of " + name + " has " +
                    std::to_string(small) + " of " + std::to_string(ctx.n()) +
                    " coefficients near zero; an honest round-1 sum is spread over Z_q (no share released)");
    }
}

}  // namespace

void relin_key_round2(const SecretKey &sk, const SecretKey &u, const u64 *h0, const u64 *h1, u64 *out) {
    same_context(sk.context(), u.context(), "the secret share and the ephemeral secret");
    const Context &ctx = *sk.context();
    key_share_len(ctx);  // refuses a context without special primes
    require_spread(ctx, h0, "h0_sum");
    require_spread(ctx, h1, "h1_sum");
    const size_t n = ctx.n();
    const auto errors = gaussian_errors(ctx, 1);
    // One task per (digit, prime) row, reading the sums in place and writing
    // the caller's buffer: out = NTT(t e2), then, a chunk at a time, the
    // chunk of each sum checked reduced and out += s h0 + (u - s) h1. A row of
    // out holds secret-dependent values until its task ends; key_rows wipes
    // out should a task fail (an unreduced residue).
    key_rows(ctx, {out}, [&](size_t d, size_t i) {
        const Modulus &q = ctx.prime(i);
        const u64 *x0 = key_row(ctx, h0, d, i), *x1 = key_row(ctx, h1, d, i);
        u64 *o = key_row(ctx, out, d, i);
        t_error_ntt(ctx, i, *errors[d], o);
        const u64 *s = sk.ntt_montgomery().residues(i), *ui = u.ntt_montgomery().residues(i);
        for (size_t c = 0; c < n; c += kRowChunk) {
            const size_t len = std::min(kRowChunk, n - c);
            require_reduced(q, x0 + c, c, len, i, "h0_sum");
            require_reduced(q, x1 + c, c, len, i, "h1_sum");
            for (size_t j = c; j < c + len; ++j) {
                const u64 v = q.add(q.mul_montgomery(x0[j], s[j]), q.mul_montgomery(x1[j], q.sub(ui[j], s[j])));
                o[j] = q.add(o[j], v);
            }
        }
    });
}

KeySwitchKey relin_key_assemble(const std::shared_ptr<const Context> &ctx, uint32_t parties,
                                std::vector<RnsPoly> b, std::vector<RnsPoly> a) {
    check_parties(parties);
    // The a_d are not expanded from seeds, so the key has none: the
    // serializer stores them in full.
    KeySwitchKey key = assemble_key(ctx, std::move(b), std::move(a), {});
    mark_collective(key, parties, CollectiveKind::Relinearization);
    return key;
}

std::unique_ptr<SecretKey> secret_key_sum(const std::vector<const SecretKey *> &shares) {
    require(!shares.empty() && shares.size() <= 127, Status::InvalidArgument,
            "the secret shares to sum must number 1 to 127");
    const auto &c = shares[0]->context();
    WipedVector<int8_t> sum(std::vector<int8_t>(c->n(), 0));
    for (const SecretKey *key : shares) {
        same_context(c, key->context(), "the secret shares");
        // Ternary coefficients, at most 127 of them: the sum fits an int8_t.
        for (size_t j = 0; j < c->n(); ++j) sum[j] = static_cast<int8_t>(sum[j] + key->coefficients()[j]);
    }
    return std::make_unique<SecretKey>(c, std::move(sum));
}

namespace {

/// The sum of `count` chain shares `each` residues apart (standard residues,
/// each checked reduced; `name(k)` names share k in the error), as a
/// residue secret of party `index`.
template <typename Name>
std::unique_ptr<ResidueSecret> residue_secret_of_sum(const std::shared_ptr<const Context> &ctx, uint32_t index,
                                                     uint32_t threshold, uint32_t parties, const u64 *shares,
                                                     uint32_t count, const Name &name) {
    check_shamir_sizes(threshold, parties);
    require(index >= 1 && index <= parties, Status::InvalidArgument,
            "party index " + std::to_string(index) + " is outside [1, " + std::to_string(parties) + "]");
    const Context &c = *ctx;
    const size_t n = c.n(), chain = c.chain_size(), each = share_len(c, chain);
    // S_j, kept only in wiped memory.
    RnsPoly sum(n, chain, Secrecy::Secret);
    std::fill(sum.data.begin(), sum.data.end(), 0);
    for (uint32_t k = 0; k < count; ++k) {
        for (size_t i = 0; i < chain; ++i) {
            const Modulus &q = c.prime(i);
            const u64 *src = shares + k * each + i * n;
            u64 *acc = sum.residues(i);
            for (size_t j = 0; j < n; ++j) {
                // The message is built only on failure (this loop is hot).
                if (src[j] >= q.value()) {
                    fail(Status::InvalidArgument, name(k) + ": residue " + std::to_string(j) + " of prime " +
                                                      std::to_string(i) + " is not reduced");
                }
                acc[j] = q.add(acc[j], src[j]);
            }
        }
    }
    to_montgomery(c, sum);
    return std::make_unique<ResidueSecret>(ctx, std::move(sum), index, threshold, parties);
}

}  // namespace

std::unique_ptr<ResidueSecret> shamir_combine(const std::shared_ptr<const Context> &ctx, uint32_t index,
                                              uint32_t threshold, uint32_t parties, const u64 *dealings) {
    return residue_secret_of_sum(ctx, index, threshold, parties, dealings, parties,
                                 [](uint32_t p) { return "the dealing of party " + std::to_string(p + 1); });
}

std::unique_ptr<ResidueSecret> shamir_share_from_residues(const std::shared_ptr<const Context> &ctx,
                                                          uint32_t index, uint32_t threshold, uint32_t parties,
                                                          const u64 *residues) {
    return residue_secret_of_sum(ctx, index, threshold, parties, residues, 1,
                                 [](uint32_t) { return std::string("the re-shared key"); });
}

}  // namespace threshold
}  // namespace bgv
