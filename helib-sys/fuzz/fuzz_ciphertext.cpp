// fuzz_ciphertext.cpp -- libFuzzer harness for helib_ciphertext_deserialize
// (against a one-limb t and t = BN254 Fr, whose correction factors span four limbs).
#include "fuzz_common.hpp"

namespace {

/// Encodings of ciphertexts of the 4 coefficients `m` (`plain_limbs` limbs each)
/// under `ctx` at `top` (its highest level): seeded
/// (secret key), public-key, switched down one level (a new correction factor),
/// and, when `multiply` is set, a size-3 product.
void add_seeds(helib_context *ctx, const std::vector<uint64_t> &m, size_t plain_limbs, size_t top, bool multiply,
               std::vector<std::vector<uint8_t>> &valid) {
    helib_secret_key *sk = fuzz::secret_key(ctx);
    helib_public_key *pk = nullptr;
    fuzz::require_ok(helib_public_key_generate(sk, &pk), "public key");
    helib_ciphertext *ct = nullptr, *other = nullptr;
    fuzz::require_ok(helib_ciphertext_new(ctx, &ct), "ciphertext");
    fuzz::require_ok(helib_ciphertext_new(ctx, &other), "ciphertext");
    auto save = [&](helib_ciphertext *c) {
        valid.push_back(fuzz::serialize([&](uint8_t *b, size_t *l) { return helib_ciphertext_serialize(c, b, l); }));
    };
    fuzz::require_ok(helib_encrypt_secret(sk, m.data(), 4, plain_limbs, top, ct), "encrypt");  // seeded
    save(ct);
    fuzz::require_ok(helib_encrypt_public(pk, m.data(), 4, plain_limbs, top, ct), "encrypt");
    save(ct);
    fuzz::require_ok(helib_ciphertext_mod_switch(ct, other), "mod switch");
    save(other);
    if (multiply) {
        fuzz::require_ok(helib_ciphertext_multiply(ct, ct, other), "multiply");  // size 3
        save(other);
    }
    helib_ciphertext_free(other);
    helib_ciphertext_free(ct);
    helib_public_key_free(pk);
    helib_secret_key_free(sk);
}

void try_decode(helib_context *ctx, const uint8_t *data, size_t size) {
    helib_ciphertext *ct = nullptr;
    fuzz::require_ok(helib_ciphertext_new(ctx, &ct), "ciphertext");
    if (helib_ciphertext_deserialize(ctx, data, size, ct) == HELIB_OK) {
        const auto encode = [](helib_ciphertext *c) {
            return fuzz::serialize([&](uint8_t *b, size_t *l) { return helib_ciphertext_serialize(c, b, l); });
        };
        const std::vector<uint8_t> again = encode(ct);
        // Loading raises a noise estimate below the floor to the floor (one
        // 8-byte field); anything else must come back unchanged, and the
        // normalized encoding must be a fixed point.
        if (again.size() == size && fuzz::differs_in_one_word(data, again.data(), size - 32)) {
            helib_ciphertext *reloaded = nullptr;
            fuzz::require_ok(helib_ciphertext_new(ctx, &reloaded), "ciphertext");
            fuzz::require_ok(helib_ciphertext_deserialize(ctx, again.data(), again.size(), reloaded),
                             "reload the normalized encoding");
            fuzz::check_round_trip(again.data(), again.size(), encode(reloaded));
            helib_ciphertext_free(reloaded);
        } else {
            fuzz::check_round_trip(data, size, again);
        }
    }
    helib_ciphertext_free(ct);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    std::vector<std::vector<uint8_t>> valid;
    add_seeds(fuzz::small_context(), {1, 2, 3, 65536}, 1, 2, true, valid);
    const std::vector<uint64_t> big = {
        0x43e1f593f0000000, 0x2833e84879b97091, 0xb85045b68181585d, 0x30644e72e131a029,  // t - 1
        1, 0, 0, 0,
        0x9e3779b97f4a7c15, 0xf39cc0605cedc834, 0x1082276bf3a27251, 0x0123456789abcdef,
        0, 0, 0, 0};
    // Its 360-bit chain cannot hold a product at t = BN254 (the engine refuses), so
    // size 3 is seeded by the small context only.
    add_seeds(fuzz::bn254_context(), big, 4, 5, false, valid);
    if (fuzz::write_seeds(valid)) std::exit(0);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    try_decode(fuzz::small_context(), data, size);
    try_decode(fuzz::bn254_context(), data, size);
    return 0;
}
