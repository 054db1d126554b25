// fuzz_relin_key.cpp -- libFuzzer harness for helib_relin_key_deserialize
// (against a one-limb t and t = BN254 Fr; seeds of single-party keys, format
// version 1, and of collective keys, version 2).
#include "fuzz_common.hpp"

namespace {

std::vector<uint8_t> encoding(helib_context *ctx) {
    helib_secret_key *sk = fuzz::secret_key(ctx);
    helib_relin_key *rk = nullptr;
    fuzz::require_ok(helib_relin_key_generate(sk, &rk), "relin key");
    std::vector<uint8_t> bytes =
        fuzz::serialize([&](uint8_t *b, size_t *l) { return helib_relin_key_serialize(rk, b, l); });
    helib_relin_key_free(rk);
    helib_secret_key_free(sk);
    return bytes;
}

/// A collective key: format version 2, the a_j in full.
std::vector<uint8_t> collective_encoding(helib_context *ctx) {
    helib_relin_key *rk = fuzz::collective_relin_key(ctx);
    std::vector<uint8_t> bytes =
        fuzz::serialize([&](uint8_t *b, size_t *l) { return helib_relin_key_serialize(rk, b, l); });
    helib_relin_key_free(rk);
    return bytes;
}

void try_decode(helib_context *ctx, const uint8_t *data, size_t size) {
    helib_relin_key *rk = nullptr;
    if (helib_relin_key_deserialize(ctx, data, size, &rk) == HELIB_OK) {
        fuzz::check_round_trip(data, size, fuzz::serialize([&](uint8_t *b, size_t *l) {
                                   return helib_relin_key_serialize(rk, b, l);
                               }));
        helib_relin_key_free(rk);
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    if (fuzz::write_seeds({encoding(fuzz::small_context()), encoding(fuzz::bn254_context()),
                           collective_encoding(fuzz::small_context()), collective_encoding(fuzz::bn254_context())})) {
        std::exit(0);
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    try_decode(fuzz::small_context(), data, size);
    try_decode(fuzz::bn254_context(), data, size);
    return 0;
}
