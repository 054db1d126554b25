// fuzz_plaintext.cpp -- libFuzzer harness for helib_plaintext_deserialize
// (against a one-limb and a four-limb plaintext modulus).
#include "fuzz_common.hpp"

namespace {

std::vector<uint8_t> encode(helib_context *ctx, const std::vector<uint64_t> &coeffs, size_t n, size_t lpc) {
    return fuzz::serialize(
        [&](uint8_t *b, size_t *l) { return helib_plaintext_serialize(ctx, coeffs.data(), n, lpc, b, l); });
}

void try_decode(helib_context *ctx, const uint8_t *data, size_t size) {
    size_t pl = 0;
    fuzz::require_ok(helib_context_plain_limbs(ctx, &pl), "plain limbs");
    std::vector<uint64_t> out(1024 * pl);
    if (helib_plaintext_deserialize(ctx, data, size, out.data(), out.size(), pl) == HELIB_OK) {
        fuzz::check_round_trip(data, size, encode(ctx, out, 1024, pl));
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    std::vector<std::vector<uint8_t>> valid;
    std::vector<uint64_t> small(1024);
    for (size_t j = 0; j < small.size(); ++j) small[j] = (j * 7919) % 65537;
    valid.push_back(encode(fuzz::small_context(), small, 1024, 1));
    valid.push_back(encode(fuzz::small_context(), small, 5, 1));
    std::vector<uint64_t> big(1024 * 4);
    for (size_t j = 0; j < big.size(); ++j) big[j] = (j % 4 == 3) ? j % 0x30644e72e131a029 : j * 0x9e3779b97f4a7c15;
    valid.push_back(encode(fuzz::bn254_context(), big, 1024, 4));
    valid.push_back(encode(fuzz::bn254_context(), big, 3, 4));
    if (fuzz::write_seeds(valid)) std::exit(0);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    try_decode(fuzz::small_context(), data, size);
    try_decode(fuzz::bn254_context(), data, size);
    return 0;
}
