// keyswitch.hpp -- hybrid key switching (digits of the chain, special modulus P):
// keys, ModUp, ModDown, the switch and its noise bound.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "rlwe/keys.hpp"

namespace bgv {

/// A key-switching key from s' to s: for each digit j of the chain, a pair
/// (b_j, a_j) modulo Q*P in NTT form (Montgomery residues) with
///   b_j = -a_j s + t e_j + P g_j s',  g_j = 1 mod the digit's primes, 0 mod the others.
/// The a_j are expanded from stored seeds, so a serialized key needs only b_j.
struct KeySwitchKey {
    std::shared_ptr<const Context> ctx;
    std::vector<RnsPoly> b, a;
    std::vector<Seed> a_seeds;
    /// 0 for a key made by one holder of the whole secret; for a collective
    /// key, the number of parties whose (ternary) secret shares sum to s.
    uint32_t parties = 0;
    /// The standard deviation of the key's error e_j over a single key's
    /// (1 for a single-party key; see mark_collective).
    double error_scale = 1.0;

    /// Bytes held in memory.
    size_t size_bytes() const;
};

/// Generates the key switching from `s_prime` (NTT form, Montgomery residues,
/// all primes) to the secret key; with `permutation`, from the slot
/// permutation of s_prime (slot j taken from slot perm[j]: s(X^g) for a
/// Galois key, without a permuted copy of the secret).
KeySwitchKey make_key_switch_key(const SecretKey &sk, const RnsPoly &s_prime,
                                 const std::vector<uint32_t> *permutation = nullptr);

/// A polynomial's digits, each extended to the basis Q_level * P and in NTT
/// form: the expensive part of a key switch, shareable by hoisted automorphisms.
/// Residue r of an extended polynomial is modulo q_r for r <= level and modulo
/// the special prime r - level - 1 beyond.
struct Decomposition {
    size_t level = 0;
    std::vector<RnsPoly> digits;
};

/// Decomposes `d` (NTT form modulo Q_level).
Decomposition decompose(const Context &ctx, const RnsPoly &d, size_t level);

/// The inner products (u0, u1) = sum_j digit_j * (b_j, a_j) modulo Q_level * P
/// (extended layout, NTT form): u0 + u1 s = P d s' + t e. With `permutation`,
/// the digits are first permuted slot-wise (out[k] = in[perm[k]]).
void key_switch_inner_product(const KeySwitchKey &key, const Decomposition &dec,
                              const std::vector<uint32_t> *permutation, RnsPoly &u0, RnsPoly &u1);
/// Slots [begin, begin + len) of extended residue r of those inner products,
/// written to u0 and u1 (len values each); `permutation` is the whole slot
/// permutation or nullptr. len % 8 == 0.
void key_switch_inner_product_block(const KeySwitchKey &key, const Decomposition &dec, size_t r,
                                    const uint32_t *permutation, size_t begin, size_t len, u64 *u0, u64 *u1);

/// u += P * x on the chain residues r <= level of an extended polynomial u
/// (x modulo Q_level, NTT form): lifts x to the extended basis, where it
/// vanishes modulo P.
void add_times_special_modulus(const Context &ctx, const RnsPoly &x, size_t level, RnsPoly &u);

/// The division by P of an extended polynomial u (NTT form) into `out` modulo
/// Q_level: (u + delta) / P with delta = 0 mod t and delta = -u mod P, so a
/// message m carried as P * m stays m (and its correction factor unchanged).
void mod_down(const Context &ctx, const RnsPoly &u, size_t level, RnsPoly &out);

/// The same exact division by D, the product of `divisors` (prime indices;
/// residue level + 1 + k of u is modulo divisors[k]): out = (u + delta) / D
/// modulo Q_level with delta = 0 mod t and delta = -u mod D, in NTT form. With
/// the top primes of the chain as divisors this is a BGV modulus switch
/// dropping all of them at once (the message gains the factor D^-1 mod t).
void divide_by_primes(const Context &ctx, const RnsPoly &u, size_t level, const std::vector<size_t> &divisors,
                      RnsPoly &out);

/// Computes (k0, k1) modulo Q_level, NTT form, with k0 + k1 s = d s' + t e for
/// the key from s' to s: the inner products followed by the division by P.
/// With `permutation`, a hoisted automorphism (see key_switch_inner_product).
void key_switch(const KeySwitchKey &key, const Decomposition &dec, const std::vector<uint32_t> *permutation,
                RnsPoly &k0, RnsPoly &k1);

/// Conservative log2 bound on the noise one key switch adds at `level`
/// with a single-party key.
double key_switch_noise_log2(const Context &ctx, size_t level);
/// The same bound for `key` (its error scale and number of parties).
double key_switch_noise_log2(const Context &ctx, size_t level, const KeySwitchKey &key);

/// Which collective protocol made a key (their errors differ).
enum class CollectiveKind { Galois, Relinearization };

/// Records that `key` was assembled by `parties` >= 1 parties: a Galois key
/// (sum of the parties' shares) has the error sum_i e_i, a relinearization key
/// (two rounds, ephemeral secrets u_i) s e0 + u e1 + e2 with s, u sums of
/// `parties` ternary secrets and e0, e1, e2 sums of `parties` Gaussians.
void mark_collective(KeySwitchKey &key, uint32_t parties, CollectiveKind kind);

/// The prime index (in Context::primes()) of residue r of an extended polynomial.
inline size_t extended_prime(const Context &ctx, size_t level, size_t r) {
    return r <= level ? r : ctx.special_index(r - level - 1);
}

}  // namespace bgv
