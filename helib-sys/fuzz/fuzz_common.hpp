// fuzz_common.hpp -- shared setup of the libFuzzer harnesses (one per decoder):
// fixed small contexts, seed-corpus writing, and the round-trip oracle.
//
// Each harness feeds the fuzzer's bytes to one helib_*_deserialize function.
// The bytes must give a status code (never a crash, leak, sanitizer report or
// an allocation above -malloc_limit_mb); when they decode, serializing the
// result must give the same bytes back (the format is canonical), except for
// the checksum, which fuzzing builds do not verify (HELIB_FUZZING_NO_CHECKSUM).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "helib_c.h"

namespace fuzz {

inline void require_ok(helib_status s, const char *what) {
    if (s != HELIB_OK) {
        std::fprintf(stderr, "%s failed: %d %s\n", what, static_cast<int>(s), helib_last_error_message());
        std::abort();
    }
}

/// N = 1024, t = 65537, three 50-bit chain primes, one 60-bit special prime.
inline helib_context *small_context() {
    static helib_context *ctx = [] {
        const uint64_t t = 65537;
        const uint32_t chain[] = {50, 50, 50}, special[] = {60};
        helib_context *c = nullptr;
        require_ok(helib_context_new(1024, &t, 1, chain, 3, special, 1, 1, HELIB_CONTEXT_ALLOW_INSECURE, &c), "context");
        return c;
    }();
    return ctx;
}

/// N = 1024, t = the BN254 scalar field prime (4 limbs), six 60-bit primes.
inline helib_context *bn254_context() {
    static helib_context *ctx = [] {
        const uint64_t t[] = {0x43e1f593f0000001, 0x2833e84879b97091, 0xb85045b68181585d, 0x30644e72e131a029};
        const uint32_t chain[] = {60, 60, 60, 60, 60, 60}, special[] = {60};
        helib_context *c = nullptr;
        require_ok(helib_context_new(1024, t, 4, chain, 6, special, 1, 1, HELIB_CONTEXT_ALLOW_INSECURE, &c), "context");
        return c;
    }();
    return ctx;
}

inline helib_secret_key *secret_key(helib_context *ctx) {
    helib_secret_key *sk = nullptr;
    require_ok(helib_secret_key_generate(ctx, &sk), "secret key");
    return sk;
}

/// The residue-wise sum of key shares (acc += share): per digit, one block of
/// N residues per prime, chain primes then special primes.
inline void add_key_share(helib_context *ctx, std::vector<uint64_t> &acc, const std::vector<uint64_t> &share) {
    size_t chain = 0, special = 0;
    require_ok(helib_context_chain_primes(ctx, nullptr, &chain), "chain primes");
    require_ok(helib_context_special_primes(ctx, nullptr, &special), "special primes");
    std::vector<uint64_t> primes(chain + special);
    require_ok(helib_context_chain_primes(ctx, primes.data(), &chain), "chain primes");
    require_ok(helib_context_special_primes(ctx, primes.data() + chain, &special), "special primes");
    const size_t n = 1024;
    for (size_t k = 0; k < acc.size(); ++k) {
        const uint64_t q = primes[(k / n) % primes.size()];
        const uint64_t v = acc[k] + share[k];  // both below q < 2^62
        acc[k] = v >= q ? v - q : v;
    }
}

/// A collective relinearization key of two parties (written in format
/// version 2, with its a_j in full).
inline helib_relin_key *collective_relin_key(helib_context *ctx) {
    size_t len = 0;
    require_ok(helib_threshold_key_share_len(ctx, &len), "key share length");
    uint8_t seed[HELIB_THRESHOLD_SEED_BYTES] = {1};
    helib_secret_key *sk[2] = {secret_key(ctx), secret_key(ctx)}, *u[2] = {secret_key(ctx), secret_key(ctx)};
    std::vector<uint64_t> h0(len, 0), h1(len, 0), b(len, 0), x(len), y(len);
    for (int i = 0; i < 2; ++i) {
        require_ok(helib_threshold_relin_key_round1(sk[i], u[i], seed, x.data(), y.data(), len), "round 1");
        add_key_share(ctx, h0, x);
        add_key_share(ctx, h1, y);
    }
    for (int i = 0; i < 2; ++i) {
        require_ok(helib_threshold_relin_key_round2(sk[i], u[i], h0.data(), h1.data(), len, x.data(), len),
                   "round 2");
        add_key_share(ctx, b, x);
    }
    helib_relin_key *rk = nullptr;
    require_ok(helib_threshold_relin_key_assemble(ctx, 2, b.data(), h1.data(), len, &rk), "assemble");
    for (int i = 0; i < 2; ++i) {
        helib_secret_key_free(sk[i]);
        helib_secret_key_free(u[i]);
    }
    return rk;
}

/// Inserts the collective Galois key for g of two fresh parties into `keys`.
inline void add_collective_galois_key(helib_context *ctx, helib_galois_keys *keys, uint64_t g) {
    size_t len = 0;
    require_ok(helib_threshold_key_share_len(ctx, &len), "key share length");
    uint8_t seed[HELIB_THRESHOLD_SEED_BYTES] = {2};
    std::vector<uint64_t> sum(len, 0), share(len);
    for (int i = 0; i < 2; ++i) {
        helib_secret_key *sk = secret_key(ctx);
        require_ok(helib_threshold_galois_key_share(sk, g, seed, share.data(), len), "Galois key share");
        add_key_share(ctx, sum, share);
        helib_secret_key_free(sk);
    }
    require_ok(helib_threshold_galois_keys_insert(keys, g, seed, 2, sum.data(), len), "insert");
}

/// Runs a serializer with the two-call protocol.
template <typename F>
std::vector<uint8_t> serialize(F f) {
    size_t len = 0;
    require_ok(f(nullptr, &len), "serialize (size)");
    std::vector<uint8_t> out(len);
    require_ok(f(out.data(), &len), "serialize");
    return out;
}

/// The oracle for inputs that decoded: re-encoding gives the input back
/// (all but the checksum).
inline void check_round_trip(const uint8_t *data, size_t size, const std::vector<uint8_t> &again) {
    if (again.size() != size || std::memcmp(again.data(), data, size - 32) != 0) {
        std::fprintf(stderr, "round trip changed the encoding (%zu -> %zu bytes)\n", size, again.size());
        std::abort();
    }
}

/// Whether a and b (of `size` bytes) differ, and only inside one 8-byte
/// window (a single normalized field).
inline bool differs_in_one_word(const uint8_t *a, const uint8_t *b, size_t size) {
    size_t first = size, last = 0;
    for (size_t i = 0; i < size; ++i) {
        if (a[i] != b[i]) {
            first = std::min(first, i);
            last = i;
        }
    }
    return first < size && last - first < 8;
}

/// Writes seeds for the corpus when HELIB_FUZZ_WRITE_SEEDS names a directory:
/// each valid encoding, some prefixes of it, and a few tweaked copies.
inline bool write_seeds(const std::vector<std::vector<uint8_t>> &valid) {
    const char *dir = std::getenv("HELIB_FUZZ_WRITE_SEEDS");
    if (dir == nullptr) return false;
    int counter = 0;
    auto put = [&](const std::vector<uint8_t> &bytes) {
        const std::string path = std::string(dir) + "/seed-" + std::to_string(counter++);
        FILE *f = std::fopen(path.c_str(), "wb");
        if (f == nullptr) std::abort();
        if (!bytes.empty()) std::fwrite(bytes.data(), 1, bytes.size(), f);
        std::fclose(f);
    };
    for (const auto &bytes : valid) {
        put(bytes);
        for (size_t cut : {size_t{0}, size_t{7}, size_t{48}, size_t{60}, bytes.size() / 2, bytes.size() - 1}) {
            if (cut < bytes.size()) put(std::vector<uint8_t>(bytes.begin(), bytes.begin() + cut));
        }
        std::vector<uint8_t> tweaked = bytes;
        tweaked[48] ^= 0xFF;  // first payload byte
        put(tweaked);
        tweaked = bytes;
        tweaked[tweaked.size() - 40] ^= 0x01;  // near the end of the payload
        put(tweaked);
    }
    return true;
}

}  // namespace fuzz
