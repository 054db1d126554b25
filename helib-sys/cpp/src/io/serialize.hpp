// serialize.hpp -- the versioned binary format of parameters, keys,
// ciphertexts and plaintexts (specified in helib-sys/cpp/SERIALIZATION.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "bgv/ciphertext.hpp"
#include "bgv/galois.hpp"
#include "bgv/multiply.hpp"
#include "bgv/plaintext.hpp"
#include "rlwe/keys.hpp"
#include "util/sha256.hpp"

namespace bgv {
namespace serial {

/// "HBGV": the first four bytes of every serialized object.
constexpr uint8_t kMagic[4] = {'H', 'B', 'G', 'V'};
/// The format version of every object but collective key-switching keys.
constexpr uint16_t kVersion = 1;
/// The version of a relinearization key or a Galois key set holding at least
/// one collective key (its number of parties, and its uniform halves in full
/// when they are not expanded from seeds). Objects are written in the lowest
/// version that represents them, so every encoding is canonical.
constexpr uint16_t kVersionCollectiveKeys = 2;
/// Header: magic, version (u16), kind (u8), reserved (u8), fingerprint, payload length (u64).
constexpr size_t kHeaderBytes = 4 + 2 + 1 + 1 + 32 + 8;
/// Trailer: SHA-256 of header and payload.
constexpr size_t kChecksumBytes = 32;
/// Ciphertexts hold 2 or 3 polynomials (3 between a multiply and a relinearization).
constexpr size_t kMaxCiphertextParts = 3;

/// What an encoding holds (byte 6 of the header).
enum class Kind : uint8_t {
    Parameters = 1,
    PublicKey = 2,
    RelinKey = 3,
    GaloisKeys = 4,
    Ciphertext = 5,
    Plaintext = 6,
    /// Written only on an explicit export request (see SERIALIZATION.md).
    SecretKey = 7,
};

using Fingerprint = Digest;

/// SHA-256 over a domain tag, N, t, the chain primes and the special primes:
/// two contexts share it exactly when they compute in the same rings.
Fingerprint context_fingerprint(const Context &ctx);

/// The parameters of a context, serializable without one (the primes are
/// derived from the bit sizes when a context is built).
struct ParameterSet {
    uint64_t ring_degree = 0;
    std::vector<u64> t_limbs;  // little endian, no high zero limbs
    std::vector<uint32_t> chain_bits, special_bits;
    /// Bit 0: parameters below 128-bit security were explicitly allowed.
    uint32_t flags = 0;
};
constexpr uint32_t kParameterFlagInsecure = 1;

class Writer;

/// An object ready to be written: the size is known before anything is
/// written, so callers can allocate (or ask their caller to) first.
class Encoding {
public:
    Encoding(Kind kind, const Fingerprint &fingerprint, std::function<void(Writer &)> payload,
             uint16_t version = kVersion);
    /// Total bytes: header, payload, checksum.
    size_t size() const { return kHeaderBytes + payload_bytes_ + kChecksumBytes; }
    /// Writes exactly size() bytes to `out` (len must equal size()).
    void write(uint8_t *out, size_t len) const;

private:
    Kind kind_;
    uint16_t version_;
    Fingerprint fingerprint_;
    std::function<void(Writer &)> payload_;
    size_t payload_bytes_;
};

// The encoders keep references to their object: use the Encoding at once.
Encoding encode(const Ciphertext &ct);
Encoding encode(const PublicKey &pk);
Encoding encode(const RelinKey &rk);
Encoding encode(const GaloisKeys &keys);
/// N coefficients of plain_limbs() limbs each, all below t (trailing zero
/// coefficients are not stored).
Encoding encode_plaintext(const Context &ctx, const PlainCoeffs &coeffs);
/// Validates the set (shape only: sizes, ranges) and encodes it.
Encoding encode_parameters(const ParameterSet &params);
/// The secret key's ternary coefficients. Callers must only use it when the
/// key's owner asked for an export: the bytes are the key. The checksum is
/// computed with a wiping hasher; the caller owns (and should wipe) the output.
Encoding encode_secret_key(const SecretKey &sk);

// The decoders validate everything before allocating anything sized by the
// input, and throw only bgv::Error: Status::MalformedInput for bytes that
// are not a valid encoding of the asked-for kind, Status::ContextMismatch
// for a valid one made under another context.
Ciphertext decode_ciphertext(const std::shared_ptr<const Context> &ctx, const uint8_t *data, size_t len);
std::unique_ptr<PublicKey> decode_public_key(const std::shared_ptr<const Context> &ctx, const uint8_t *data,
                                             size_t len);
RelinKey decode_relin_key(const std::shared_ptr<const Context> &ctx, const uint8_t *data, size_t len);
std::unique_ptr<GaloisKeys> decode_galois_keys(const std::shared_ptr<const Context> &ctx, const uint8_t *data,
                                               size_t len);
/// N coefficients of plain_limbs() limbs each.
PlainCoeffs decode_plaintext(const Context &ctx, const uint8_t *data, size_t len);
ParameterSet decode_parameters(const uint8_t *data, size_t len);
/// Checks every coefficient (ternary, 2-bit code 3 refused) and the context
/// fingerprint; the coefficients pass only through wiped buffers.
std::unique_ptr<SecretKey> decode_secret_key(const std::shared_ptr<const Context> &ctx, const uint8_t *data,
                                             size_t len);

}  // namespace serial
}  // namespace bgv
