// frame.hpp -- what the encoders and decoders of the binary format share
// (internal to io/; the format is specified in helib-sys/cpp/SERIALIZATION.md):
// the frame around a payload (header, payload, checksum), the writer of fields
// and the validating reader of untrusted bytes, and the bit packing of
// residues and coefficients.
//
// Decoders read untrusted bytes. Each one checks the frame (length, magic,
// version, checksum, kind, fingerprint), reads the fixed-size fields,
// computes from them and the context the exact size the rest must have, and
// compares it with what is there before allocating anything; residues are
// checked against their prime while they are unpacked. Everything sized by
// the input is thus bounded by the input's length (keys and seeded
// ciphertexts expand their seeds, at most doubling it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "io/serialize.hpp"
#include "util/error.hpp"

namespace bgv {
namespace serial {

/// Fails with Status::MalformedInput, the message prefixed "malformed input: ".
[[noreturn]] void malformed(const std::string &what);

inline unsigned bit_width(u64 x) {
    unsigned w = 0;
    for (; x != 0; x >>= 1) ++w;
    return w;
}

/// Bytes of the residues of one polynomial modulo prime i: N values of
/// bit_width(q_i) bits (N >= 1024, so a whole number of bytes).
size_t prime_block_bytes(const Context &ctx, size_t i);

/// Bytes of a polynomial's residues modulo primes [0, count).
size_t poly_bytes(const Context &ctx, size_t count);

/// Offsets of each prime's block within a polynomial.
std::vector<size_t> block_offsets(const Context &ctx, size_t count);

/// Bytes of an integer mod t.
size_t plain_bytes(const Context &ctx);

/// Bits of one plaintext coefficient (those of t).
unsigned plain_bits(const Context &ctx);

/// Little-endian bit packing, least significant bit first.
class BitWriter {
public:
    explicit BitWriter(uint8_t *out) : out_(out) {}
    /// Appends the low w bits of v (w <= 64, v < 2^w); whole 64-bit words go
    /// out as soon as they are complete.
    void put(u64 v, unsigned w) {
        acc_ |= static_cast<u128>(v) << bits_;
        bits_ += w;
        if (bits_ >= 64) {
            store_word(static_cast<u64>(acc_));
            acc_ >>= 64;
            bits_ -= 64;
        }
    }
    /// Writes the bits left, the last byte padded with zero bits.
    void flush() {
        for (; bits_ > 0; bits_ = bits_ > 8 ? bits_ - 8 : 0) {
            *out_++ = static_cast<uint8_t>(acc_);
            acc_ >>= 8;
        }
        acc_ = 0;
    }

private:
    void store_word(u64 word) {
        for (size_t k = 0; k < 8; ++k) out_[k] = static_cast<uint8_t>(word >> (8 * k));  // one store
        out_ += 8;
    }

    uint8_t *out_;
    u128 acc_ = 0;
    unsigned bits_ = 0;  // below 64 between calls
};

/// Reads the bit stream of [in, end): a word at a time while 8 bytes are
/// left, then byte by byte, so it never reads past `end` and, once the last
/// value is read, holds only the padding bits of the last byte.
class BitReader {
public:
    BitReader(const uint8_t *in, const uint8_t *end) : in_(in), end_(end) {}
    /// The next w bits (1 <= w <= 64); the caller reads no more bits than
    /// [in, end) holds.
    u64 get(unsigned w) {
        if (bits_ < w && end_ - in_ >= 8) {
            u64 word = 0;
            for (size_t k = 0; k < 8; ++k) word |= static_cast<u64>(in_[k]) << (8 * k);  // one load
            acc_ |= static_cast<u128>(word) << bits_;
            in_ += 8;
            bits_ += 64;
        }
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
    const uint8_t *in_, *end_;
    u128 acc_ = 0;
    unsigned bits_ = 0;
};

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
        const size_t bytes = poly_bytes(ctx, count);
        const uint8_t *in = take(bytes, what);
        const std::vector<size_t> offsets = block_offsets(ctx, count);
        RnsPoly p(ctx.n(), count);
        for_each_prime(ctx, count, [&](size_t i) {
            const Modulus &q = ctx.prime(i);
            const unsigned w = bit_width(q.value());
            u64 *r = p.residues(i);
            BitReader bits(in + offsets[i], in + (i + 1 < count ? offsets[i + 1] : bytes));
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
                  uint16_t *version_out = nullptr);

}  // namespace serial
}  // namespace bgv
