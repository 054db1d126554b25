// serialize_keys.cpp -- encoders and validating decoders of keys: public keys,
// key-switching keys (relinearization keys, Galois key sets) and the explicit
// export of secret keys (the format is specified in
// helib-sys/cpp/SERIALIZATION.md).
#include "io/serialize.hpp"

#include <memory>
#include <string>
#include <vector>

#include "io/frame.hpp"
#include "util/checked_size.hpp"
#include "util/error.hpp"
#include "util/wipe.hpp"

namespace bgv {
namespace serial {
namespace {

/// Whether the key needs format version 2 (a collective key, or uniform
/// halves not expanded from seeds).
bool needs_collective_format(const KeySwitchKey &key) {
    return key.parties != 0 || key.a_seeds.size() != key.b.size();
}

/// Key-switching key flag (version 2): the uniform halves a_j are stored in full.
constexpr u64 kKeyFlagFullA = 1;

/// Version 1: digit count, then per digit b_j and the seed of a_j. Version 2:
/// digit count, number of parties (0 for a single-party key), flags, then per
/// digit b_j and either the seed of a_j or (flag kKeyFlagFullA) a_j itself.
void write_key_switch_key(Writer &w, const Context &ctx, const KeySwitchKey &key, uint16_t version) {
    const bool full_a = key.a_seeds.size() != key.b.size();
    ensure(version == kVersionCollectiveKeys || !needs_collective_format(key),
           "a collective key is written in the collective-key format");
    ensure(!full_a || key.a.size() == key.b.size(), "a key-switching key has one a_j per digit");
    w.uint(key.b.size(), 4);
    if (version == kVersionCollectiveKeys) {
        w.uint(key.parties, 4);
        w.uint(full_a ? kKeyFlagFullA : 0, 1);
    }
    const size_t all = ctx.primes().size();
    for (size_t d = 0; d < key.b.size(); ++d) {
        w.poly(ctx, key.b[d], all, true);
        if (full_a) {
            w.poly(ctx, key.a[d], all, true);
        } else {
            w.bytes(key.a_seeds[d].data(), key.a_seeds[d].size());
        }
    }
}

/// Bytes of a key-switching key of the context after its fixed fields (of
/// version 1, or of version 2 with `full_a` as its flag says).
size_t key_switch_digits_bytes(const Context &ctx, bool full_a) {
    const size_t poly = poly_bytes(ctx, ctx.primes().size());
    return ctx.digits().size() * (poly + (full_a ? poly : sizeof(Seed)));
}

/// Reads a key-switching key of format `version` made by the protocol
/// `kind`, checking the size of its digits before allocating for them.
KeySwitchKey read_key_switch_key(Reader &r, const std::shared_ptr<const Context> &ctx_ptr, uint16_t version,
                                 CollectiveKind kind) {
    const Context &ctx = *ctx_ptr;
    const u64 digits = r.uint(4, "digit count");
    if (digits != ctx.digits().size()) {
        malformed("a key-switching key has " + std::to_string(digits) + " digits; the context uses " +
                  std::to_string(ctx.digits().size()));
    }
    u64 parties = 0, flags = 0;
    if (version == kVersionCollectiveKeys) {
        parties = r.uint(4, "number of parties");
        if (parties > 4096) malformed("a key of " + std::to_string(parties) + " parties (at most 4096)");
        flags = r.uint(1, "key flags");
        if ((flags & ~kKeyFlagFullA) != 0) malformed("unknown key flags " + std::to_string(flags));
    }
    const bool full_a = (flags & kKeyFlagFullA) != 0;
    const size_t need = key_switch_digits_bytes(ctx, full_a);
    if (r.remaining() < need) {
        malformed("a key-switching key needs " + std::to_string(need) + " more bytes, only " +
                  std::to_string(r.remaining()) + " remain");
    }
    KeySwitchKey key;
    key.ctx = ctx_ptr;
    const size_t all = ctx.primes().size();
    for (size_t d = 0; d < digits; ++d) {
        key.b.push_back(r.poly(ctx, all, true, "key-switching key"));
        if (full_a) {
            key.a.push_back(r.poly(ctx, all, true, "key-switching key's uniform half"));
        } else {
            key.a_seeds.push_back(r.seed("key-switching key seed"));
            key.a.push_back(uniform_from_seed(ctx, key.a_seeds.back(), all));
            to_montgomery(ctx, key.a.back());
        }
    }
    if (parties != 0) mark_collective(key, static_cast<uint32_t>(parties), kind);
    return key;
}

void require_key_switching(const Context &ctx, const char *what) {
    if (ctx.digits().empty()) {
        malformed(std::string("the context has no special primes, so it has no ") + what);
    }
}

/// The 2-bit code of a secret coefficient: 0, 1 and -1 are 0, 1 and 2; code 3
/// is not a coefficient.
constexpr unsigned kSecretCodeBits = 2;

/// Bytes of a secret key's payload: N codes of 2 bits (N >= 1024, so whole bytes).
size_t secret_key_bytes(const Context &ctx) { return ctx.n() * kSecretCodeBits / 8; }

}  // namespace

Encoding encode(const PublicKey &pk) {
    const Context &ctx = *pk.context();
    return Encoding(Kind::PublicKey, context_fingerprint(ctx), [&pk, &ctx](Writer &w) {
        w.poly(ctx, pk.b(), ctx.chain_size(), true);
        w.bytes(pk.a_seed().data(), pk.a_seed().size());
    });
}

Encoding encode(const RelinKey &rk) {
    const Context &ctx = *rk.key.ctx;
    const uint16_t version = needs_collective_format(rk.key) ? kVersionCollectiveKeys : kVersion;
    return Encoding(
        Kind::RelinKey, context_fingerprint(ctx),
        [&rk, &ctx, version](Writer &w) { write_key_switch_key(w, ctx, rk.key, version); }, version);
}

Encoding encode(const GaloisKeys &keys) {
    const Context &ctx = *keys.context();
    uint16_t version = kVersion;
    for (uint64_t g : keys.elements()) {
        if (needs_collective_format(keys.key(g))) version = kVersionCollectiveKeys;
    }
    return Encoding(
        Kind::GaloisKeys, context_fingerprint(ctx),
        [&keys, &ctx, version](Writer &w) {
            const std::vector<uint64_t> elements = keys.elements();
            w.uint(elements.size(), 4);
            for (uint64_t g : elements) {
                w.uint(g, 8);
                write_key_switch_key(w, ctx, keys.key(g), version);
            }
        },
        version);
}

Encoding encode_secret_key(const SecretKey &sk) {
    const Context &ctx = *sk.context();
    return Encoding(Kind::SecretKey, context_fingerprint(ctx), [&sk, &ctx](Writer &w) {
        uint8_t *out = w.reserve(secret_key_bytes(ctx));
        if (out == nullptr) return;
        const std::vector<int8_t> &s = sk.coefficients();
        ensure(s.size() == ctx.n(), "a secret key has N coefficients");
        // Packs 4 codes per byte without branching on them; the byte being
        // built is wiped when the loop ends.
        unsigned byte = 0;
        ScopedWipe wipe_byte(&byte, sizeof byte);
        for (size_t j = 0; j < s.size(); ++j) {
            const unsigned code = static_cast<unsigned>(s[j]) & 3u;  // 0 -> 0, 1 -> 1, -1 -> 3
            const unsigned fixed = code ^ (code >> 1);               // -1 -> 2
            byte |= fixed << (kSecretCodeBits * (j % 4));
            if (j % 4 == 3) {
                out[j / 4] = static_cast<uint8_t>(byte);
                byte = 0;
            }
        }
    });
}

std::unique_ptr<PublicKey> decode_public_key(const std::shared_ptr<const Context> &ctx_ptr, const uint8_t *data,
                                             size_t len) {
    const Context &ctx = *ctx_ptr;
    Reader r = open_frame(data, len, Kind::PublicKey, context_fingerprint(ctx));
    r.expect_remaining(poly_bytes(ctx, ctx.chain_size()) + sizeof(Seed), "the public key");
    RnsPoly b = r.poly(ctx, ctx.chain_size(), true, "public key");
    const Seed seed = r.seed("public key seed");
    r.finish();
    return std::make_unique<PublicKey>(ctx_ptr, std::move(b), seed);
}

RelinKey decode_relin_key(const std::shared_ptr<const Context> &ctx_ptr, const uint8_t *data, size_t len) {
    const Context &ctx = *ctx_ptr;
    uint16_t version = 0;
    Reader r = open_frame(data, len, Kind::RelinKey, context_fingerprint(ctx), &version);
    require_key_switching(ctx, "relinearization key");
    if (version == kVersion) {
        r.expect_remaining(4 + key_switch_digits_bytes(ctx, false), "the relinearization key");
    }
    RelinKey rk{read_key_switch_key(r, ctx_ptr, version, CollectiveKind::Relinearization)};
    r.finish();
    if (version == kVersionCollectiveKeys && !needs_collective_format(rk.key)) {
        malformed("a single-party relinearization key in format version 2 (it is written in version 1)");
    }
    return rk;
}

std::unique_ptr<GaloisKeys> decode_galois_keys(const std::shared_ptr<const Context> &ctx_ptr, const uint8_t *data,
                                               size_t len) {
    const Context &ctx = *ctx_ptr;
    uint16_t version = 0;
    Reader r = open_frame(data, len, Kind::GaloisKeys, context_fingerprint(ctx), &version);
    const u64 count = r.uint(4, "key count");
    // There are N odd elements below 2N.
    if (count > ctx.n()) malformed(std::to_string(count) + " Galois keys, but only N elements exist");
    if (count != 0) require_key_switching(ctx, "Galois keys");
    if (version == kVersion) {
        const size_t per_key =
            checked_add(12, key_switch_digits_bytes(ctx, false), Status::MalformedInput, "Galois key size");
        r.expect_remaining(checked_mul(count, per_key, Status::MalformedInput, "Galois keys size"),
                           "the Galois keys");
    }
    // Version 2 keys differ in size; each is checked against what remains before it is read.
    bool any_collective = false;
    auto keys = std::make_unique<GaloisKeys>(ctx_ptr);
    u64 previous = 0;
    for (u64 k = 0; k < count; ++k) {
        const u64 g = r.uint(8, "Galois element");
        if (g % 2 == 0 || g >= 2 * ctx.n()) {
            malformed("Galois element " + std::to_string(g) + " is not odd and below 2N");
        }
        if (k > 0 && g <= previous) malformed("Galois elements are not strictly ascending");
        previous = g;
        KeySwitchKey key = read_key_switch_key(r, ctx_ptr, version, CollectiveKind::Galois);
        any_collective = any_collective || needs_collective_format(key);
        keys->insert(g, std::move(key));
    }
    r.finish();
    if (version == kVersionCollectiveKeys && !any_collective) {
        malformed("Galois keys without a collective key in format version 2 (they are written in version 1)");
    }
    return keys;
}

std::unique_ptr<SecretKey> decode_secret_key(const std::shared_ptr<const Context> &ctx_ptr, const uint8_t *data,
                                             size_t len) {
    const Context &ctx = *ctx_ptr;
    Reader r = open_frame(data, len, Kind::SecretKey, context_fingerprint(ctx));
    r.expect_remaining(secret_key_bytes(ctx), "the secret key's coefficients");
    const uint8_t *in = r.take(secret_key_bytes(ctx), "secret key coefficients");
    r.finish();
    WipedVector<int8_t> coeffs(ctx.n());
    // Every byte is read whole; a code 3 anywhere is noted without an early
    // exit, so the time taken does not depend on where the bad code is.
    unsigned bad = 0;
    for (size_t j = 0; j < ctx.n(); ++j) {
        const unsigned code = (in[j / 4] >> (kSecretCodeBits * (j % 4))) & 3u;
        bad |= code & (code >> 1);
        // 0 -> 0, 1 -> 1, 2 -> -1 (3 is refused below).
        coeffs[j] = static_cast<int8_t>(static_cast<int>(code & 1u) - static_cast<int>(code >> 1));
    }
    if (bad != 0) malformed("a secret key coefficient has the code 3, which is not -1, 0 or 1");
    return std::make_unique<SecretKey>(ctx_ptr, std::move(coeffs));
}

}  // namespace serial
}  // namespace bgv
