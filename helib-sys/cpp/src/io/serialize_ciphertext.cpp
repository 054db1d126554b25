// serialize_ciphertext.cpp -- the encoder and the validating decoder of
// ciphertexts (the format is specified in helib-sys/cpp/SERIALIZATION.md).
#include "io/serialize.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "io/frame.hpp"
#include "util/checked_size.hpp"
#include "util/error.hpp"
#include "rlwe/noise.hpp"
#include "bgv/scheme.hpp"

namespace bgv {
namespace serial {
namespace {

/// Whether the stored seed still generates c_1 (operations reset the seed
/// when they change c_1; this spot check of the first residues of every
/// prime guards the encoder against a stale one all the same).
bool seed_matches(const Ciphertext &ct) {
    const Context &ctx = *ct.ctx;
    for (size_t i = 0; i < ct.count(); ++i) {
        Prng prng(*ct.c1_seed, i);
        const u64 q = ctx.prime(i).value();
        const u64 *c1 = ct.parts[1].residues(i);
        for (size_t j = 0; j < 4; ++j) {
            if (prng.uniform_below(q) != c1[j]) return false;
        }
    }
    return true;
}

}  // namespace

Encoding encode(const Ciphertext &ct) {
    check_nonempty(ct);
    const Context &ctx = *ct.ctx;
    const bool seeded = ct.c1_seed.has_value() && ct.parts.size() == 2 && seed_matches(ct);
    return Encoding(Kind::Ciphertext, context_fingerprint(ctx), [&ct, &ctx, seeded](Writer &w) {
        w.uint(ct.level, 4);
        w.uint(ct.parts.size(), 1);
        w.uint(seeded ? 1 : 0, 1);
        w.integer(ct.factor, plain_bytes(ctx));
        w.f64(ct.noise_log2);
        w.poly(ctx, ct.parts[0], ct.count(), false);
        if (seeded) {
            w.bytes(ct.c1_seed->data(), ct.c1_seed->size());
        } else {
            for (size_t k = 1; k < ct.parts.size(); ++k) w.poly(ctx, ct.parts[k], ct.count(), false);
        }
    });
}

Ciphertext decode_ciphertext(const std::shared_ptr<const Context> &ctx_ptr, const uint8_t *data, size_t len) {
    const Context &ctx = *ctx_ptr;
    Reader r = open_frame(data, len, Kind::Ciphertext, context_fingerprint(ctx));
    const u64 level = r.uint(4, "level");
    if (level > ctx.max_level()) {
        malformed("level " + std::to_string(level) + " is above the context's top level " +
                  std::to_string(ctx.max_level()));
    }
    const u64 parts = r.uint(1, "polynomial count");
    if (parts < 2 || parts > kMaxCiphertextParts) {
        malformed("a ciphertext has 2 or 3 polynomials, not " + std::to_string(parts));
    }
    const u64 flags = r.uint(1, "flags");
    if (flags > 1) malformed("unknown ciphertext flags");
    const bool seeded = flags == 1;
    if (seeded && parts != 2) malformed("only a 2-polynomial ciphertext can have a seeded c_1");
    Ciphertext ct;
    ct.ctx = ctx_ptr;
    ct.level = level;
    ct.factor = r.integer(plain_bytes(ctx), "correction factor");
    mpz_class common;
    mpz_gcd(common.get_mpz_t(), ct.factor.get_mpz_t(), ctx.t().get_mpz_t());
    if (ct.factor == 0 || ct.factor >= ctx.t() || common != 1) {
        malformed("the correction factor is not an invertible residue mod t");
    }
    ct.noise_log2 = r.f64("noise estimate");
    if (!std::isfinite(ct.noise_log2)) malformed("the noise estimate is not a finite number");
    // The checksum is not a MAC: anyone can write any estimate. One below the
    // floor that every ciphertext carries is raised to it, so a forged tiny
    // estimate cannot pass budget checks by orders of magnitude; an estimate
    // that understates real noise above the floor cannot be detected without
    // the key (decryption's exact measurement still applies).
    ct.noise_log2 = std::max(ct.noise_log2, noise::floor_log2(ctx));
    const size_t count = level + 1, one = poly_bytes(ctx, count);
    r.expect_remaining(seeded ? checked_add(one, sizeof(Seed), Status::MalformedInput, "ciphertext size")
                              : checked_mul(parts, one, Status::MalformedInput, "ciphertext size"),
                       "the ciphertext's polynomials");
    ct.parts.push_back(r.poly(ctx, count, false, "ciphertext"));
    if (seeded) {
        ct.c1_seed = r.seed("seed of c_1");
        ct.parts.push_back(uniform_from_seed(ctx, *ct.c1_seed, count));
    } else {
        for (size_t k = 1; k < parts; ++k) ct.parts.push_back(r.poly(ctx, count, false, "ciphertext"));
    }
    r.finish();
    return ct;
}

}  // namespace serial
}  // namespace bgv
