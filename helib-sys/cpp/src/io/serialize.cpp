// serialize.cpp -- writers and validating readers of the binary format
// (the format is specified in helib-sys/cpp/SERIALIZATION.md).
//
// Decoders read untrusted bytes. Each one checks the frame (length, magic,
// version, checksum, kind, fingerprint), reads the fixed-size fields,
// computes from them and the context the exact size the rest must have, and
// compares it with what is there before allocating anything; residues are
// checked against their prime while they are unpacked. Everything sized by
// the input is thus bounded by the input's length (keys and seeded
// ciphertexts expand their seeds, at most doubling it).
#include "io/serialize.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "util/checked_size.hpp"
#include "util/error.hpp"
#include "util/wipe.hpp"
#include "rlwe/noise.hpp"
#include "bgv/scheme.hpp"

namespace bgv {
namespace serial {
namespace {

[[noreturn]] void malformed(const std::string &what) {
    fail(Status::MalformedInput, "malformed input: " + what);
}

unsigned bit_width(u64 x) {
    unsigned w = 0;
    for (; x != 0; x >>= 1) ++w;
    return w;
}

const char *kind_name(unsigned kind) {
    switch (kind) {
        case 1: return "parameters";
        case 2: return "a public key";
        case 3: return "a relinearization key";
        case 4: return "Galois keys";
        case 5: return "a ciphertext";
        case 6: return "a plaintext";
        case 7: return "a secret key";
        default: return "an unknown kind of object";
    }
}

/// Bytes of the residues of one polynomial modulo prime i: N values of
/// bit_width(q_i) bits (N >= 1024, so a whole number of bytes).
size_t prime_block_bytes(const Context &ctx, size_t i) {
    return ctx.n() * bit_width(ctx.prime(i).value()) / 8;
}

/// Bytes of a polynomial's residues modulo primes [0, count).
size_t poly_bytes(const Context &ctx, size_t count) {
    size_t total = 0;
    for (size_t i = 0; i < count; ++i) total += prime_block_bytes(ctx, i);
    return total;
}

/// Offsets of each prime's block within a polynomial.
std::vector<size_t> block_offsets(const Context &ctx, size_t count) {
    std::vector<size_t> offsets(count);
    size_t at = 0;
    for (size_t i = 0; i < count; ++i) {
        offsets[i] = at;
        at += prime_block_bytes(ctx, i);
    }
    return offsets;
}

/// Bytes of an integer mod t.
size_t plain_bytes(const Context &ctx) { return (mpz_sizeinbase(ctx.t().get_mpz_t(), 2) + 7) / 8; }

/// Bits of one plaintext coefficient (those of t).
unsigned plain_bits(const Context &ctx) { return static_cast<unsigned>(mpz_sizeinbase(ctx.t().get_mpz_t(), 2)); }

/// Little-endian bit packing, least significant bit first.
class BitWriter {
public:
    explicit BitWriter(uint8_t *out) : out_(out) {}
    /// Appends the low w bits of v (w <= 64, v < 2^w).
    void put(u64 v, unsigned w) {
        acc_ |= static_cast<u128>(v) << bits_;
        bits_ += w;
        while (bits_ >= 8) {
            *out_++ = static_cast<uint8_t>(acc_);
            acc_ >>= 8;
            bits_ -= 8;
        }
    }
    /// Pads the last byte with zero bits.
    void flush() {
        if (bits_ != 0) *out_++ = static_cast<uint8_t>(acc_);
        acc_ = 0;
        bits_ = 0;
    }

private:
    uint8_t *out_;
    u128 acc_ = 0;
    unsigned bits_ = 0;
};

class BitReader {
public:
    explicit BitReader(const uint8_t *in) : in_(in) {}
    /// The next w bits (1 <= w <= 64).
    u64 get(unsigned w) {
        while (bits_ < w) {
            acc_ |= static_cast<u128>(*in_++) << bits_;
            bits_ += 8;
        }
        const u64 v = static_cast<u64>(acc_) & (w == 64 ? ~u64{0} : (u64{1} << w) - 1);
        acc_ >>= w;
        bits_ -= w;
        return v;
    }
    /// Whether the bits left in the current byte (padding) are zero.
    bool padding_is_zero() const { return acc_ == 0; }

private:
    const uint8_t *in_;
    u128 acc_ = 0;
    unsigned bits_ = 0;
};

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

/// Writes fields to a buffer, or only counts their bytes (no buffer).
class Writer {
public:
    Writer() = default;
    Writer(uint8_t *out, size_t capacity) : out_(out), capacity_(capacity) {}

    size_t size() const { return pos_; }

    /// Room for k bytes: a pointer to fill them, or nullptr when counting.
    uint8_t *reserve(size_t k) {
        if (out_ == nullptr) {
            pos_ += k;
            return nullptr;
        }
        ensure(k <= capacity_ - pos_, "the writer stays within its buffer");
        uint8_t *p = out_ + pos_;
        pos_ += k;
        return p;
    }
    void bytes(const uint8_t *data, size_t k) {
        if (uint8_t *p = reserve(k)) std::memcpy(p, data, k);
    }
    /// An unsigned integer in k little-endian bytes.
    void uint(u64 v, size_t k) {
        if (uint8_t *p = reserve(k)) {
            for (size_t i = 0; i < k; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
        }
    }
    void f64(double x) {
        u64 bits;
        std::memcpy(&bits, &x, sizeof bits);
        uint(bits, 8);
    }
    /// A nonnegative integer in exactly k little-endian bytes (it must fit).
    void integer(const mpz_class &x, size_t k) {
        uint8_t *p = reserve(k);
        if (p == nullptr) return;
        ensure(x >= 0 && mpz_sizeinbase(x.get_mpz_t(), 256) <= k, "the integer fits its field");
        std::memset(p, 0, k);
        size_t written = 0;
        mpz_export(p, &written, -1, 1, 0, 0, x.get_mpz_t());
    }
    /// The residues of primes [0, count) of p, each prime's block packed at
    /// its bit width; `montgomery` residues are converted to canonical form.
    void poly(const Context &ctx, const RnsPoly &p, size_t count, bool montgomery) {
        uint8_t *out = reserve(poly_bytes(ctx, count));
        if (out == nullptr) return;
        ensure(p.n == ctx.n() && p.count >= count, "the polynomial covers the primes written");
        const std::vector<size_t> offsets = block_offsets(ctx, count);
        for_each_prime(ctx, count, [&](size_t i) {
            const Modulus &q = ctx.prime(i);
            const unsigned w = bit_width(q.value());
            const u64 *r = p.residues(i);
            BitWriter bits(out + offsets[i]);
            for (size_t j = 0; j < ctx.n(); ++j) bits.put(montgomery ? q.mul_montgomery(r[j], 1) : r[j], w);
            bits.flush();
        });
    }

private:
    uint8_t *out_ = nullptr;
    size_t capacity_ = 0;
    size_t pos_ = 0;
};

namespace {

/// Reads fields from untrusted bytes; every shortfall is Status::MalformedInput.
class Reader {
public:
    Reader(const uint8_t *data, size_t len) : data_(data), len_(len) {}

    size_t remaining() const { return len_ - pos_; }

    const uint8_t *take(size_t k, const char *what) {
        if (k > remaining()) {
            malformed(std::string(what) + " needs " + std::to_string(k) + " bytes, only " +
                      std::to_string(remaining()) + " remain");
        }
        const uint8_t *p = data_ + pos_;
        pos_ += k;
        return p;
    }
    u64 uint(size_t k, const char *what) {
        const uint8_t *p = take(k, what);
        u64 v = 0;
        for (size_t i = 0; i < k; ++i) v |= static_cast<u64>(p[i]) << (8 * i);
        return v;
    }
    double f64(const char *what) {
        const u64 bits = uint(8, what);
        double x;
        std::memcpy(&x, &bits, sizeof x);
        return x;
    }
    mpz_class integer(size_t k, const char *what) {
        const uint8_t *p = take(k, what);
        mpz_class x;
        mpz_import(x.get_mpz_t(), k, -1, 1, 0, 0, p);
        return x;
    }
    Seed seed(const char *what) {
        Seed s;
        std::memcpy(s.data(), take(s.size(), what), s.size());
        return s;
    }
    /// Requires exactly `k` bytes to remain: checked before allocating for them.
    void expect_remaining(size_t k, const char *what) {
        if (remaining() != k) {
            malformed(std::string(what) + " should take " + std::to_string(k) + " more bytes, but " +
                      std::to_string(remaining()) + " remain");
        }
    }
    void finish() {
        if (remaining() != 0) malformed(std::to_string(remaining()) + " unexpected bytes after the object");
    }

    /// Residues modulo primes [0, count), each checked to be below its prime;
    /// to Montgomery form when asked. The size must have been checked.
    RnsPoly poly(const Context &ctx, size_t count, bool montgomery, const char *what) {
        const uint8_t *in = take(poly_bytes(ctx, count), what);
        const std::vector<size_t> offsets = block_offsets(ctx, count);
        RnsPoly p(ctx.n(), count);
        for_each_prime(ctx, count, [&](size_t i) {
            const Modulus &q = ctx.prime(i);
            const unsigned w = bit_width(q.value());
            u64 *r = p.residues(i);
            BitReader bits(in + offsets[i]);
            for (size_t j = 0; j < ctx.n(); ++j) {
                const u64 v = bits.get(w);
                if (v >= q.value()) {
                    malformed(std::string(what) + ": residue " + std::to_string(j) + " modulo prime " +
                              std::to_string(i) + " is not below the prime");
                }
                r[j] = montgomery ? q.to_montgomery(v) : v;
            }
            if (!bits.padding_is_zero()) malformed(std::string(what) + ": nonzero padding bits");
        });
        return p;
    }

private:
    const uint8_t *data_;
    size_t len_;
    size_t pos_ = 0;
};

/// Checks the frame around a payload and returns a reader of the payload.
/// `expected` is the fingerprint the object must carry (all zero for parameters).
Reader open_frame(const uint8_t *data, size_t len, Kind kind, const Fingerprint &expected,
                  uint16_t *version_out = nullptr) {
    if (len < kHeaderBytes + kChecksumBytes) {
        malformed(std::to_string(len) + " bytes are too few for a header and a checksum");
    }
    Reader header(data, kHeaderBytes);
    if (std::memcmp(header.take(4, "magic"), kMagic, 4) != 0) malformed("not a serialized object (bad magic)");
    const u64 version = header.uint(2, "version");
    const unsigned found = static_cast<unsigned>(header.uint(1, "kind"));
    const bool key_kind = found == static_cast<unsigned>(Kind::RelinKey) ||
                          found == static_cast<unsigned>(Kind::GaloisKeys);
    if (version != kVersion && !(version == kVersionCollectiveKeys && key_kind)) {
        malformed("format version " + std::to_string(version) + " is not supported for " + kind_name(found) +
                  " (this library reads version " + std::to_string(kVersion) + ", and version " +
                  std::to_string(kVersionCollectiveKeys) + " for key-switching keys)");
    }
    if (version_out != nullptr) *version_out = static_cast<uint16_t>(version);
    const u64 reserved = header.uint(1, "reserved byte");
    Fingerprint fingerprint;
    std::memcpy(fingerprint.data(), header.take(32, "fingerprint"), 32);
    const u64 payload = header.uint(8, "payload length");
    // Before the checksum reads all `len` bytes: a length that is not the
    // frame's (the caller's buffer may be shorter) is refused unread.
    if (payload != len - kHeaderBytes - kChecksumBytes) {
        malformed("the header gives a payload of " + std::to_string(payload) + " bytes, but there are " +
                  std::to_string(len - kHeaderBytes - kChecksumBytes));
    }
#ifndef HELIB_FUZZING_NO_CHECKSUM
    // Fuzzing builds skip this so that the fuzzer reaches the decoders proper.
    const Digest sum = sha256(data, len - kChecksumBytes, kind == Kind::SecretKey);
    if (std::memcmp(sum.data(), data + len - kChecksumBytes, kChecksumBytes) != 0) {
        malformed("checksum mismatch: the bytes are corrupted or truncated");
    }
#endif
    if (found != static_cast<unsigned>(kind)) {
        malformed(std::string("the bytes hold ") + kind_name(found) + ", not " +
                  kind_name(static_cast<unsigned>(kind)));
    }
    if (reserved != 0) malformed("reserved header byte is not zero");
    if (fingerprint != expected) {
        if (kind == Kind::Parameters) malformed("parameters carry a nonzero fingerprint field");
        fail(Status::ContextMismatch, std::string("the bytes hold ") + kind_name(found) +
                                             " made under different parameters (its fingerprint is not "
                                             "this context's)");
    }
    return Reader(data + kHeaderBytes, len - kHeaderBytes - kChecksumBytes);
}

// ------------------------------------------------------------------ pieces

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

}  // namespace

// ------------------------------------------------------------- fingerprint

Fingerprint context_fingerprint(const Context &ctx) {
    Sha256 h;
    auto put = [&](u64 v, size_t k) {
        uint8_t b[8];
        for (size_t i = 0; i < k; ++i) b[i] = static_cast<uint8_t>(v >> (8 * i));
        h.update(b, k);
    };
    static const char kTag[] = "HBGV context fingerprint v1";
    h.update(reinterpret_cast<const uint8_t *>(kTag), sizeof kTag - 1);
    put(ctx.n(), 8);
    const size_t t_len = mpz_sizeinbase(ctx.t().get_mpz_t(), 256);
    std::vector<uint8_t> t_bytes(t_len);
    size_t written = 0;
    mpz_export(t_bytes.data(), &written, -1, 1, 0, 0, ctx.t().get_mpz_t());
    put(t_len, 4);
    h.update(t_bytes.data(), t_len);
    put(ctx.chain_size(), 4);
    for (size_t i = 0; i < ctx.chain_size(); ++i) put(ctx.prime(i).value(), 8);
    put(ctx.special_size(), 4);
    for (size_t k = 0; k < ctx.special_size(); ++k) put(ctx.prime(ctx.special_index(k)).value(), 8);
    return h.finish();
}

// ---------------------------------------------------------------- Encoding

Encoding::Encoding(Kind kind, const Fingerprint &fingerprint, std::function<void(Writer &)> payload,
                   uint16_t version)
    : kind_(kind), version_(version), fingerprint_(fingerprint), payload_(std::move(payload)), payload_bytes_(0) {
    Writer counter;
    payload_(counter);
    payload_bytes_ = counter.size();
}

void Encoding::write(uint8_t *out, size_t len) const {
    ensure(len == size(), "the output has the encoding's size");
    Writer w(out, len);
    w.bytes(kMagic, sizeof kMagic);
    w.uint(version_, 2);
    w.uint(static_cast<u64>(kind_), 1);
    w.uint(0, 1);
    w.bytes(fingerprint_.data(), fingerprint_.size());
    w.uint(payload_bytes_, 8);
    payload_(w);
    ensure(w.size() == kHeaderBytes + payload_bytes_, "the payload has the size counted");
    const Digest sum = sha256(out, w.size(), kind_ == Kind::SecretKey);
    w.bytes(sum.data(), sum.size());
}

// ---------------------------------------------------------------- encoders

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

Encoding encode_plaintext(const Context &ctx, const PlainCoeffs &coeffs) {
    const size_t pl = ctx.plain_limbs();
    ensure(coeffs.size() == ctx.n() * pl, "a plaintext has N coefficients");
    size_t count = ctx.n();
    while (count > 0 && std::all_of(coeffs.begin() + (count - 1) * pl, coeffs.begin() + count * pl,
                                    [](u64 limb) { return limb == 0; })) {
        --count;
    }
    return Encoding(Kind::Plaintext, context_fingerprint(ctx), [&ctx, &coeffs, count, pl](Writer &w) {
        w.uint(count, 4);
        const unsigned bits = plain_bits(ctx);
        uint8_t *out = w.reserve((count * bits + 7) / 8);
        if (out == nullptr) return;
        BitWriter packer(out);
        for (size_t j = 0; j < count; ++j) {
            for (unsigned done = 0, k = 0; done < bits; done += 64, ++k) {
                packer.put(coeffs[j * pl + k], std::min(64u, bits - done));
            }
        }
        packer.flush();
    });
}

namespace {

/// The 2-bit code of a secret coefficient: 0, 1 and -1 are 0, 1 and 2; code 3
/// is not a coefficient.
constexpr unsigned kSecretCodeBits = 2;

/// Bytes of a secret key's payload: N codes of 2 bits (N >= 1024, so whole bytes).
size_t secret_key_bytes(const Context &ctx) { return ctx.n() * kSecretCodeBits / 8; }

}  // namespace

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

namespace {

/// Shape checks shared by the parameter encoder and decoder.
void check_parameters(const ParameterSet &p, Status status) {
    const std::string prefix = status == Status::MalformedInput ? "malformed input: " : "";
    auto check = [&](bool ok, const std::string &what) {
        if (!ok) fail(status, prefix + what);
    };
    const uint64_t n = p.ring_degree;
    check(n >= (uint64_t{1} << Context::kMinLogN) && n <= (uint64_t{1} << Context::kMaxLogN) && (n & (n - 1)) == 0,
          "ring degree " + std::to_string(n) + " is not a power of two in [2^10, 2^17]");
    check(!p.t_limbs.empty() && p.t_limbs.size() <= 64, "the plaintext modulus must have 1 to 64 limbs");
    check(p.t_limbs.back() != 0, "the plaintext modulus has a high zero limb");
    check(p.t_limbs.size() > 1 || p.t_limbs[0] >= 2, "the plaintext modulus is below 2");
    check(!p.chain_bits.empty(), "the chain has no prime");
    check(p.chain_bits.size() + p.special_bits.size() <= Context::kMaxPrimes,
          "more than " + std::to_string(Context::kMaxPrimes) + " primes");
    for (const auto *list : {&p.chain_bits, &p.special_bits}) {
        for (uint32_t b : *list) {
            check(b >= Context::kMinPrimeBits && b <= Context::kMaxPrimeBits,
                  "prime size " + std::to_string(b) + " is not in [30, 61] bits");
        }
    }
    check((p.flags & ~kParameterFlagInsecure) == 0, "unknown parameter flags");
}

}  // namespace

Encoding encode_parameters(const ParameterSet &params) {
    ParameterSet p = params;
    while (p.t_limbs.size() > 1 && p.t_limbs.back() == 0) p.t_limbs.pop_back();
    check_parameters(p, Status::InvalidArgument);
    const mpz_class t = mpz_from_limbs(p.t_limbs.data(), p.t_limbs.size());
    return Encoding(Kind::Parameters, Fingerprint{}, [p, t](Writer &w) {
        w.uint(p.ring_degree, 8);
        const size_t t_len = mpz_sizeinbase(t.get_mpz_t(), 256);
        w.uint(t_len, 2);
        w.integer(t, t_len);
        w.uint(p.chain_bits.size(), 1);
        for (uint32_t b : p.chain_bits) w.uint(b, 1);
        w.uint(p.special_bits.size(), 1);
        for (uint32_t b : p.special_bits) w.uint(b, 1);
        w.uint(p.flags, 1);
    });
}

// ---------------------------------------------------------------- decoders

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

PlainCoeffs decode_plaintext(const Context &ctx, const uint8_t *data, size_t len) {
    Reader r = open_frame(data, len, Kind::Plaintext, context_fingerprint(ctx));
    const u64 count = r.uint(4, "coefficient count");
    if (count > ctx.n()) malformed(std::to_string(count) + " coefficients, more than N");
    const unsigned bits = plain_bits(ctx);
    const size_t bytes =
        checked_add(checked_mul(count, bits, Status::MalformedInput, "plaintext size"), 7, Status::MalformedInput,
                    "plaintext size") / 8;
    r.expect_remaining(bytes, "the plaintext's coefficients");
    const size_t pl = ctx.plain_limbs();
    PlainCoeffs out(ctx.n() * pl, 0);
    BitReader unpacker(r.take(bytes, "coefficients"));
    for (size_t j = 0; j < count; ++j) {
        u64 *c = out.data() + j * pl;
        for (unsigned done = 0, k = 0; done < bits; done += 64, ++k) c[k] = unpacker.get(std::min(64u, bits - done));
        if (compare_limbs(c, pl, ctx.t_limbs().data(), pl) >= 0) {
            malformed("coefficient " + std::to_string(j) + " is not below t");
        }
    }
    if (!unpacker.padding_is_zero()) malformed("nonzero padding bits after the coefficients");
    if (count != 0 && std::all_of(out.begin() + (count - 1) * pl, out.begin() + count * pl,
                                  [](u64 limb) { return limb == 0; })) {
        malformed("the last stored coefficient is zero (trailing zeros are not stored)");
    }
    r.finish();
    return out;
}

ParameterSet decode_parameters(const uint8_t *data, size_t len) {
    Reader r = open_frame(data, len, Kind::Parameters, Fingerprint{});
    ParameterSet p;
    p.ring_degree = r.uint(8, "ring degree");
    const u64 t_len = r.uint(2, "plaintext modulus length");
    if (t_len == 0 || t_len > 64 * 8) malformed("the plaintext modulus must have 1 to 512 bytes");
    const uint8_t *t_bytes = r.take(t_len, "plaintext modulus");
    if (t_bytes[t_len - 1] == 0) malformed("the plaintext modulus has a high zero byte");
    p.t_limbs.assign((t_len + 7) / 8, 0);
    for (size_t i = 0; i < t_len; ++i) p.t_limbs[i / 8] |= static_cast<u64>(t_bytes[i]) << (8 * (i % 8));
    for (auto *list : {&p.chain_bits, &p.special_bits}) {
        const u64 count = r.uint(1, "prime count");
        if (count > Context::kMaxPrimes) malformed("more than " + std::to_string(Context::kMaxPrimes) + " primes");
        const uint8_t *bits = r.take(count, "prime sizes");
        list->assign(bits, bits + count);
    }
    p.flags = static_cast<uint32_t>(r.uint(1, "flags"));
    r.finish();
    check_parameters(p, Status::MalformedInput);
    return p;
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
