// fuzz_public_key.cpp -- libFuzzer harness for helib_public_key_deserialize
// (against a one-limb t and t = BN254 Fr).
#include "fuzz_common.hpp"

namespace {

std::vector<uint8_t> encoding(helib_context *ctx) {
    helib_secret_key *sk = fuzz::secret_key(ctx);
    helib_public_key *pk = nullptr;
    fuzz::require_ok(helib_public_key_generate(sk, &pk), "public key");
    std::vector<uint8_t> bytes =
        fuzz::serialize([&](uint8_t *b, size_t *l) { return helib_public_key_serialize(pk, b, l); });
    helib_public_key_free(pk);
    helib_secret_key_free(sk);
    return bytes;
}

void try_decode(helib_context *ctx, const uint8_t *data, size_t size) {
    helib_public_key *pk = nullptr;
    if (helib_public_key_deserialize(ctx, data, size, &pk) == HELIB_OK) {
        fuzz::check_round_trip(data, size, fuzz::serialize([&](uint8_t *b, size_t *l) {
                                   return helib_public_key_serialize(pk, b, l);
                               }));
        helib_public_key_free(pk);
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    if (fuzz::write_seeds({encoding(fuzz::small_context()), encoding(fuzz::bn254_context())})) std::exit(0);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    try_decode(fuzz::small_context(), data, size);
    try_decode(fuzz::bn254_context(), data, size);
    return 0;
}
