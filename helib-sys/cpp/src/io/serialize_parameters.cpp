// serialize_parameters.cpp -- the encoder and the validating decoder of
// parameter sets, which need no context (the format is specified in
// helib-sys/cpp/SERIALIZATION.md).
#include "io/serialize.hpp"

#include <string>

#include "io/frame.hpp"
#include "util/error.hpp"

namespace bgv {
namespace serial {
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

}  // namespace serial
}  // namespace bgv
