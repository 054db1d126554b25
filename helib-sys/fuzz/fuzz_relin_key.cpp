// fuzz_relin_key.cpp -- libFuzzer harness for helib_relin_key_deserialize.
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    helib_context *ctx = fuzz::small_context();
    helib_secret_key *sk = fuzz::secret_key(ctx);
    helib_relin_key *rk = nullptr;
    fuzz::require_ok(helib_relin_key_generate(sk, &rk), "relin key");
    const bool seeds_only = fuzz::write_seeds(
        {fuzz::serialize([&](uint8_t *b, size_t *l) { return helib_relin_key_serialize(rk, b, l); })});
    helib_relin_key_free(rk);
    helib_secret_key_free(sk);
    if (seeds_only) std::exit(0);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    helib_context *ctx = fuzz::small_context();
    helib_relin_key *rk = nullptr;
    if (helib_relin_key_deserialize(ctx, data, size, &rk) == HELIB_OK) {
        fuzz::check_round_trip(data, size, fuzz::serialize([&](uint8_t *b, size_t *l) {
                                   return helib_relin_key_serialize(rk, b, l);
                               }));
        helib_relin_key_free(rk);
    }
    return 0;
}
