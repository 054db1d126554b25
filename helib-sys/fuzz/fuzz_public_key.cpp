// fuzz_public_key.cpp -- libFuzzer harness for helib_public_key_deserialize.
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    helib_context *ctx = fuzz::small_context();
    helib_secret_key *sk = fuzz::secret_key(ctx);
    helib_public_key *pk = nullptr;
    fuzz::require_ok(helib_public_key_generate(sk, &pk), "public key");
    const bool seeds_only = fuzz::write_seeds(
        {fuzz::serialize([&](uint8_t *b, size_t *l) { return helib_public_key_serialize(pk, b, l); })});
    helib_public_key_free(pk);
    helib_secret_key_free(sk);
    if (seeds_only) std::exit(0);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    helib_context *ctx = fuzz::small_context();
    helib_public_key *pk = nullptr;
    if (helib_public_key_deserialize(ctx, data, size, &pk) == HELIB_OK) {
        fuzz::check_round_trip(data, size, fuzz::serialize([&](uint8_t *b, size_t *l) {
                                   return helib_public_key_serialize(pk, b, l);
                               }));
        helib_public_key_free(pk);
    }
    return 0;
}
