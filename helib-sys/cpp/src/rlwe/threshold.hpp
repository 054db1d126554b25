// threshold.hpp -- the key side of N-out-of-N threshold BGV: each party's
// share of the collective public, relinearization and Galois keys, the
// assembly of summed shares into keys, and the per-party primitives the
// protocols on ciphertexts (bgv/threshold.hpp) are built from. Shares are
// residues in NTT form (standard, not Montgomery, representation); their sums
// are taken by the caller, which is what makes the protocols N-out-of-N.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "rlwe/galois_keys.hpp"
#include "rlwe/keys.hpp"
#include "rlwe/keyswitch.hpp"
#include "rlwe/shamir.hpp"
#include "util/random.hpp"

namespace bgv {
namespace threshold {

/// The most parties a protocol may have (smudging, Shamir re-sharing, active
/// sets and collective keys alike); helib_c.h exports it as HELIB_MAX_PARTIES.
constexpr uint32_t kMaxParties = 4096;

/// Throws Status::InvalidArgument unless 1 <= parties <= kMaxParties.
void check_parties(uint32_t parties);

/// Residues of a share over `count` primes (N per prime).
size_t share_len(const Context &ctx, size_t count);

/// Residues of a key-switching share: one polynomial modulo all primes per
/// digit. Throws Status::InvalidArgument for a context without special primes.
size_t key_share_len(const Context &ctx);

/// Throws Status::InvalidArgument naming `name` unless `given == expected`.
void check_len(size_t given, size_t expected, const char *name);

/// The seed of the common polynomial `(a, b)` of a protocol `tag`: SHA-256 of
/// the session's seed, the tag and the indices (so that every key and digit
/// uses an independent common reference polynomial).
Seed derive_seed(const Seed &seed, const char *tag, uint64_t a, uint64_t b);

/// `primes` polynomials of residues modulo primes [0, primes) (standard form)
/// read from `buf`; throws Status::InvalidArgument for a residue not below
/// its prime.
RnsPoly load_residues(const Context &ctx, const u64 *buf, size_t primes, const char *name);

/// The digits of a key-switching share (`len` residues, each validated).
std::vector<RnsPoly> load_key_share(const Context &ctx, const u64 *buf, size_t len, const char *name);

/// Writes a polynomial's residues to `out`.
void store(const RnsPoly &p, u64 *out);

/// Writes one polynomial per digit (all primes each) to a key share buffer.
void store_digits(const std::vector<RnsPoly> &polys, u64 *out);

/// acc += t * e (e Gaussian) in NTT form over `count` primes.
void add_t_gaussian(const Context &ctx, Prng &prng, RnsPoly &acc, size_t count);

/// acc += t * E - w, E uniform in [-2^bits, 2^bits), in NTT form over `count`
/// primes; `minus` is w in coefficient form (or nullptr for w = 0), so that
/// both terms share one forward NTT.
void add_t_smudging(const Context &ctx, Prng &prng, unsigned bits, RnsPoly &acc, size_t count,
                    const RnsPoly *minus = nullptr);

/// c * s over `count` primes (c standard residues, s in NTT form with
/// Montgomery residues over at least `count` primes).
RnsPoly times_secret(const Context &ctx, const RnsPoly &c, const RnsPoly &s_ntt, size_t count);

/// A party's additive secret share in the protocols on a ciphertext, whichever
/// form it comes from: an N-out-of-N secret key s_i, or a re-shared key
/// activated for an active set (lambda_j(T) S_j). Both are in NTT form with
/// Montgomery residues, over at least the chain primes.
struct PartySecret {
    const std::shared_ptr<const Context> &ctx;
    const RnsPoly &s_ntt;
};

PartySecret party_secret(const SecretKey &sk);
/// Throws Status::InvalidArgument for a share not activated for an active set.
PartySecret party_secret(const ResidueSecret &share);

/// Throws Status::ContextMismatch (naming `what`) unless `a == b`.
void same_context(const std::shared_ptr<const Context> &a, const std::shared_ptr<const Context> &b,
                  const char *what);

/// b = -a s + t e over the chain, a = uniform(seed): a party's public key share.
RnsPoly public_key_share(const SecretKey &sk, const Seed &seed);

/// The collective public key of the summed shares `b` (standard residues).
std::unique_ptr<PublicKey> public_key_assemble(const std::shared_ptr<const Context> &ctx, const Seed &seed,
                                               RnsPoly b);

/// A party's share of the Galois key for element `g`, one polynomial per digit.
std::vector<RnsPoly> galois_key_share(const SecretKey &sk, uint64_t g, const Seed &seed);

/// Inserts the collective Galois key for `g` of `parties` parties from the
/// summed shares `b` into `keys`.
void galois_keys_insert(GaloisKeys &keys, uint64_t g, const Seed &seed, uint32_t parties, std::vector<RnsPoly> b);

/// Round 1 of the relinearization key of a party with secret `sk` and
/// ephemeral secret `u`, per digit: h0_d = -u a_d + P g_d s + t e0 and
/// h1_d = s a_d + t e1, written straight into `h0` and `h1` (key_share_len
/// residues each, standard form, not overlapping); both are wiped should the
/// computation fail.
void relin_key_round1(const SecretKey &sk, const SecretKey &u, const Seed &seed, u64 *h0, u64 *h1);

/// Round 2, on the round-1 sums `h0` and `h1` (key_share_len residues each,
/// read in place): s h0_d + (u - s) h1_d + t e2 per digit, written into `out`
/// (key_share_len residues, overlapping neither sum). Refuses sums that no
/// honest run produces (Status::MalformedInput, see require_spread in
/// threshold.cpp) before anything is computed, and a residue not below its
/// prime (Status::InvalidArgument); `out` is wiped on any failure once it has
/// been written.
void relin_key_round2(const SecretKey &sk, const SecretKey &u, const u64 *h0, const u64 *h1, u64 *out);

/// The collective relinearization key (as a key-switching key) of `parties`
/// parties from the round-2 sums `b` and the round-1 sums `h1` (its a_d).
KeySwitchKey relin_key_assemble(const std::shared_ptr<const Context> &ctx, uint32_t parties,
                                std::vector<RnsPoly> b, std::vector<RnsPoly> a);

/// The sum of ternary secret keys (1 to 127 of them, of one context).
std::unique_ptr<SecretKey> secret_key_sum(const std::vector<const SecretKey *> &shares);

/// Party `index`'s re-shared key: the sum of the dealings it received from
/// `parties` dealers (`each` residues apart, standard residues over the
/// chain, each validated).
std::unique_ptr<ResidueSecret> shamir_combine(const std::shared_ptr<const Context> &ctx, uint32_t index,
                                              uint32_t threshold, uint32_t parties, const u64 *dealings);

/// Party `index`'s re-shared key from its residues S_j, a sum of dealings the
/// caller made (one chain share: standard residues, each validated): what
/// shamir_combine returns for dealings summing to S_j, without them.
std::unique_ptr<ResidueSecret> shamir_share_from_residues(const std::shared_ptr<const Context> &ctx,
                                                          uint32_t index, uint32_t threshold, uint32_t parties,
                                                          const u64 *residues);

}  // namespace threshold
}  // namespace bgv
