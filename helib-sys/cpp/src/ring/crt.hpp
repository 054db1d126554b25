// crt.hpp -- exact Chinese remaindering for the modulus of one level.
#pragma once

#include <cstddef>
#include <vector>

#include "util/bigint.hpp"

namespace bgv {

/// CRT data for Q = q_0 * ... * q_l: reconstructs an integer in [0, Q) from
/// its residues with Q-hat_i = Q / q_i and (Q-hat_i)^-1 mod q_i.
class CrtBasis {
public:
    /// Largest modulus supported, in limbs (64 primes of 61 bits fit).
    static constexpr size_t kMaxLimbs = 64;

    explicit CrtBasis(const std::vector<Modulus> &primes);

    size_t size() const { return primes_.size(); }
    /// Limbs of Q; reconstruction buffers need limbs() + 1 limbs.
    size_t limbs() const { return limbs_; }
    const mpz_class &modulus() const { return modulus_; }
    const std::vector<u64> &modulus_limbs() const { return q_limbs_; }
    double log2_modulus() const { return log2_modulus_; }

    /// Reconstructs the coefficient whose residue modulo prime i is
    /// residues[i * stride]; writes limbs() limbs holding a value in [0, Q).
    void compose(const u64 *residues, size_t stride, u64 *out) const;

private:
    std::vector<Modulus> primes_;
    mpz_class modulus_;
    size_t limbs_;
    std::vector<u64> q_limbs_;
    std::vector<u64> q_hat_limbs_;  // prime-major, limbs_ limbs each
    std::vector<u64> q_hat_inv_, q_hat_inv_shoup_;
    double log2_modulus_;
};

}  // namespace bgv
