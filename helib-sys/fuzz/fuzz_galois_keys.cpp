// fuzz_galois_keys.cpp -- libFuzzer harness for helib_galois_keys_deserialize
// (against a one-limb t and t = BN254 Fr).
#include "fuzz_common.hpp"

namespace {

/// Encodings of an empty set of Galois keys, then with one and two keys,
/// then with a collective key added (format version 2).
void add_seeds(helib_context *ctx, std::vector<std::vector<uint8_t>> &valid) {
    helib_secret_key *sk = fuzz::secret_key(ctx);
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
    fuzz::add_collective_galois_key(ctx, keys, 5);  // format version 2 from here
    save();
    helib_galois_keys_free(keys);
    helib_secret_key_free(sk);
}

void try_decode(helib_context *ctx, const uint8_t *data, size_t size) {
    helib_galois_keys *keys = nullptr;
    if (helib_galois_keys_deserialize(ctx, data, size, &keys) == HELIB_OK) {
        fuzz::check_round_trip(data, size, fuzz::serialize([&](uint8_t *b, size_t *l) {
                                   return helib_galois_keys_serialize(keys, b, l);
                               }));
        helib_galois_keys_free(keys);
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    std::vector<std::vector<uint8_t>> valid;
    add_seeds(fuzz::small_context(), valid);
    add_seeds(fuzz::bn254_context(), valid);
    if (fuzz::write_seeds(valid)) std::exit(0);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    try_decode(fuzz::small_context(), data, size);
    try_decode(fuzz::bn254_context(), data, size);
    return 0;
}
