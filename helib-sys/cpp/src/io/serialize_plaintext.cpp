// serialize_plaintext.cpp -- the encoder and the validating decoder of
// plaintext polynomials (the format is specified in
// helib-sys/cpp/SERIALIZATION.md).
#include "io/serialize.hpp"

#include <algorithm>
#include <string>

#include "io/frame.hpp"
#include "util/checked_size.hpp"
#include "util/error.hpp"

namespace bgv {
namespace serial {

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
    const uint8_t *packed = r.take(bytes, "coefficients");
    BitReader unpacker(packed, packed + bytes);
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

}  // namespace serial
}  // namespace bgv
