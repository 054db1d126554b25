// fuzz_ciphertext.cpp -- libFuzzer harness for helib_ciphertext_deserialize.
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    helib_context *ctx = fuzz::small_context();
    helib_secret_key *sk = fuzz::secret_key(ctx);
    helib_public_key *pk = nullptr;
    fuzz::require_ok(helib_public_key_generate(sk, &pk), "public key");
    const uint64_t m[] = {1, 2, 3, 65536};
    std::vector<std::vector<uint8_t>> valid;
    helib_ciphertext *ct = nullptr, *product = nullptr;
    fuzz::require_ok(helib_ciphertext_new(ctx, &ct), "ciphertext");
    fuzz::require_ok(helib_ciphertext_new(ctx, &product), "ciphertext");
    auto save = [&](helib_ciphertext *c) {
        valid.push_back(fuzz::serialize([&](uint8_t *b, size_t *l) { return helib_ciphertext_serialize(c, b, l); }));
    };
    fuzz::require_ok(helib_encrypt_secret(sk, m, 4, 1, 2, ct), "encrypt");  // seeded
    save(ct);
    fuzz::require_ok(helib_encrypt_public(pk, m, 4, 1, 0, ct), "encrypt");  // level 0
    save(ct);
    fuzz::require_ok(helib_encrypt_public(pk, m, 4, 1, 1, ct), "encrypt");
    fuzz::require_ok(helib_ciphertext_multiply(ct, ct, product), "multiply");  // size 3
    save(product);
    const bool seeds_only = fuzz::write_seeds(valid);
    helib_ciphertext_free(product);
    helib_ciphertext_free(ct);
    helib_public_key_free(pk);
    helib_secret_key_free(sk);
    if (seeds_only) std::exit(0);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    helib_context *ctx = fuzz::small_context();
    helib_ciphertext *ct = nullptr;
    fuzz::require_ok(helib_ciphertext_new(ctx, &ct), "ciphertext");
    if (helib_ciphertext_deserialize(ctx, data, size, ct) == HELIB_OK) {
        fuzz::check_round_trip(data, size, fuzz::serialize([&](uint8_t *b, size_t *l) {
                                   return helib_ciphertext_serialize(ct, b, l);
                               }));
    }
    helib_ciphertext_free(ct);
    return 0;
}
