// shamir.hpp -- Shamir re-sharing of a threshold secret share over the RNS
// residues of the chain, and the Lagrange coefficients that turn a share of
// an active set into an additive share.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "rlwe/keys.hpp"
#include "util/random.hpp"

namespace bgv {

/// A party's secret share given as RNS residues rather than as a ternary key:
/// its re-shared key S_j (the sum of the dealings it received) or, once
/// activated for an active set T, lambda_j(T) * S_j. Residues modulo every
/// chain prime, in NTT form, each in Montgomery form (like
/// SecretKey::ntt_montgomery), in a Secrecy::Secret polynomial, so they are
/// wiped when released.
class ResidueSecret {
public:
    /// The re-shared key of party `index` (1-based) of `parties` with
    /// `threshold`, from `s` (Montgomery residues over the chain).
    ResidueSecret(std::shared_ptr<const Context> ctx, RnsPoly s, uint32_t index, uint32_t threshold,
                  uint32_t parties);
    ResidueSecret(const ResidueSecret &) = delete;
    ResidueSecret &operator=(const ResidueSecret &) = delete;

    const std::shared_ptr<const Context> &context() const { return ctx_; }
    const RnsPoly &ntt_montgomery() const { return s_; }
    uint32_t index() const { return index_; }
    uint32_t threshold() const { return threshold_; }
    uint32_t parties() const { return parties_; }
    /// The active set this share was activated for (sorted), empty for S_j itself.
    const std::vector<uint32_t> &active() const { return active_; }

    /// lambda_index(T) * S_j for the active set `active` (1-based indices, any
    /// order). Throws Status::InvalidArgument when this share is already
    /// activated, an index is outside [1, parties] or repeated, the set has
    /// fewer than `threshold` members or does not contain this party.
    std::unique_ptr<ResidueSecret> activate(const std::vector<uint32_t> &active) const;

private:
    std::shared_ptr<const Context> ctx_;
    RnsPoly s_;
    uint32_t index_, threshold_, parties_;
    std::vector<uint32_t> active_;
};

/// Throws Status::InvalidArgument unless 1 <= threshold <= parties <= threshold::kMaxParties
/// (the evaluation points are the party indices 1..parties).
void check_shamir_sizes(uint32_t threshold, uint32_t parties);

/// The dealing of `sk` for `parties` parties with `threshold`: per chain prime
/// and coefficient of s (NTT form), a polynomial f of degree threshold - 1
/// with f(0) = s and the other coefficients uniform from `prng`. Writes
/// f(p + 1) to outs[p] for every p in [0, parties): a polynomial over the
/// chain (NTT form, standard residues, prime-major), secret, straight into
/// the caller's buffers (chain_size * n residues each, none overlapping).
void shamir_deal(const SecretKey &sk, uint32_t threshold, uint32_t parties, Prng &prng, u64 *const *outs);

/// lambda_index(T) mod q: prod over k in T, k != index, of k / (k - index).
/// Throws Status::InvalidArgument when a difference is not invertible mod q.
u64 lagrange_at_zero(const Modulus &q, uint32_t index, const std::vector<uint32_t> &active);

}  // namespace bgv
