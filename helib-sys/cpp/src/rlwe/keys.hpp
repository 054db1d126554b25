// keys.hpp -- secret and public keys.
#pragma once

#include <memory>
#include <vector>

#include "util/random.hpp"
#include "ring/rns_poly.hpp"

namespace bgv {

/// A ternary secret s, kept as coefficients and in NTT form modulo every
/// prime (chain and special). Both are wiped when they are released (the
/// residues are a Secrecy::Secret polynomial), also if construction fails.
class SecretKey {
public:
    explicit SecretKey(std::shared_ptr<const Context> ctx);
    /// The key with the given small coefficients (N of them): an exported
    /// key being loaded (its loader checks they are ternary first) or the sum
    /// of threshold secret shares formed in a test. The vector's buffer
    /// becomes the key's and is wiped with it.
    SecretKey(std::shared_ptr<const Context> ctx, WipedVector<int8_t> &&coeffs);
    SecretKey(const SecretKey &) = delete;
    SecretKey &operator=(const SecretKey &) = delete;

    const std::shared_ptr<const Context> &context() const { return ctx_; }
    const std::vector<int8_t> &coefficients() const { return coeffs_; }
    /// s in NTT form modulo all primes, each residue in Montgomery form
    /// (x * 2^64 mod q), ready for Modulus::mul_montgomery.
    const RnsPoly &ntt_montgomery() const { return s_ntt_; }

private:
    std::shared_ptr<const Context> ctx_;
    WipedVector<int8_t> coeffs_;
    RnsPoly s_ntt_;
};

/// (b, a) = (-a*s + t*e, a) modulo the whole chain, in NTT form with
/// residues in Montgomery form (the key is only ever a multiplicand).
class PublicKey {
public:
    explicit PublicKey(const SecretKey &sk);
    /// Rebuilds a key from b (NTT form, Montgomery residues, chain primes) and
    /// the seed of a (deserialization).
    PublicKey(std::shared_ptr<const Context> ctx, RnsPoly b, const Seed &a_seed);

    const std::shared_ptr<const Context> &context() const { return ctx_; }
    const RnsPoly &b() const { return b_; }
    const RnsPoly &a() const { return a_; }
    /// a = uniform_from_seed(a_seed, chain size), then in Montgomery form.
    const Seed &a_seed() const { return a_seed_; }

private:
    std::shared_ptr<const Context> ctx_;
    RnsPoly b_, a_;
    Seed a_seed_{};
};

/// a uniform polynomial in NTT form over primes [0, count), expanded from a
/// seed (prime i uses the seed's stream i, so prefixes agree across levels).
RnsPoly uniform_from_seed(const Context &ctx, const Seed &seed, size_t count);

}  // namespace bgv
