// fuzz_secret_key.cpp -- libFuzzer harness for helib_secret_key_import (the
// explicit secret-key export's reader), against a one-limb t and t = BN254 Fr.
// An input that loads must re-export to the same bytes: every 2-bit code it
// held was a coefficient (-1, 0, 1), and nothing else was accepted.
#include "fuzz_common.hpp"

namespace {

std::vector<uint8_t> export_key(const helib_secret_key *sk) {
    return fuzz::serialize([&](uint8_t *b, size_t *l) { return helib_secret_key_export(sk, b, l); });
}

std::vector<uint8_t> encoding(helib_context *ctx) {
    helib_secret_key *sk = fuzz::secret_key(ctx);
    std::vector<uint8_t> bytes = export_key(sk);
    helib_secret_key_free(sk);
    return bytes;
}

void try_decode(helib_context *ctx, const uint8_t *data, size_t size) {
    helib_secret_key *sk = nullptr;
    if (helib_secret_key_import(ctx, data, size, &sk) == HELIB_OK) {
        fuzz::check_round_trip(data, size, export_key(sk));
        helib_secret_key_free(sk);
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
