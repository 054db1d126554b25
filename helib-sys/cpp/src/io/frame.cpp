// frame.cpp -- the frame of every serialized object (header, payload,
// checksum; the format is specified in helib-sys/cpp/SERIALIZATION.md), the
// context fingerprint it carries, and the sizes of packed residues.
#include "io/frame.hpp"

#include <cstring>
#include <string>

#include "util/error.hpp"

namespace bgv {
namespace serial {
namespace {

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

}  // namespace

void malformed(const std::string &what) { fail(Status::MalformedInput, "malformed input: " + what); }

size_t prime_block_bytes(const Context &ctx, size_t i) { return ctx.n() * bit_width(ctx.prime(i).value()) / 8; }

size_t poly_bytes(const Context &ctx, size_t count) {
    size_t total = 0;
    for (size_t i = 0; i < count; ++i) total += prime_block_bytes(ctx, i);
    return total;
}

std::vector<size_t> block_offsets(const Context &ctx, size_t count) {
    std::vector<size_t> offsets(count);
    size_t at = 0;
    for (size_t i = 0; i < count; ++i) {
        offsets[i] = at;
        at += prime_block_bytes(ctx, i);
    }
    return offsets;
}

size_t plain_bytes(const Context &ctx) { return (mpz_sizeinbase(ctx.t().get_mpz_t(), 2) + 7) / 8; }

unsigned plain_bits(const Context &ctx) { return static_cast<unsigned>(mpz_sizeinbase(ctx.t().get_mpz_t(), 2)); }

Reader open_frame(const uint8_t *data, size_t len, Kind kind, const Fingerprint &expected, uint16_t *version_out) {
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

}  // namespace serial
}  // namespace bgv
