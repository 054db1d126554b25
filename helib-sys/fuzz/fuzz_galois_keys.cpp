// fuzz_galois_keys.cpp -- libFuzzer harness for helib_galois_keys_deserialize.
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    helib_context *ctx = fuzz::small_context();
    helib_secret_key *sk = fuzz::secret_key(ctx);
    std::vector<std::vector<uint8_t>> valid;
    helib_galois_keys *keys = nullptr;
    fuzz::require_ok(helib_galois_keys_new(ctx, &keys), "Galois keys");
    auto save = [&] {
        valid.push_back(
            fuzz::serialize([&](uint8_t *b, size_t *l) { return helib_galois_keys_serialize(keys, b, l); }));
    };
    save();  // empty
    fuzz::require_ok(helib_galois_keys_add(keys, sk, 3), "add");
    save();
    fuzz::require_ok(helib_galois_keys_add(keys, sk, 2047), "add");
    save();
    const bool seeds_only = fuzz::write_seeds(valid);
    helib_galois_keys_free(keys);
    helib_secret_key_free(sk);
    if (seeds_only) std::exit(0);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    helib_context *ctx = fuzz::small_context();
    helib_galois_keys *keys = nullptr;
    if (helib_galois_keys_deserialize(ctx, data, size, &keys) == HELIB_OK) {
        fuzz::check_round_trip(data, size, fuzz::serialize([&](uint8_t *b, size_t *l) {
                                   return helib_galois_keys_serialize(keys, b, l);
                               }));
        helib_galois_keys_free(keys);
    }
    return 0;
}
