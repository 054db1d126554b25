// crt.cpp -- CRT reconstruction with GMP's low-level (mpn) routines.
#include "ring/crt.hpp"

#include <array>
#include <cmath>

#include "util/error.hpp"
#include "util/wipe.hpp"

namespace bgv {

CrtBasis::CrtBasis(const std::vector<Modulus> &primes) : primes_(primes), modulus_(1) {
    for (const auto &q : primes_) modulus_ *= static_cast<unsigned long>(q.value());
    limbs_ = limbs_for(modulus_);
    ensure(limbs_ <= kMaxLimbs && primes_.size() <= kMaxLimbs, "modulus fits the CRT buffers");
    q_limbs_.assign(limbs_, 0);
    mpz_to_limbs(modulus_, q_limbs_.data(), limbs_);
    q_hat_limbs_.assign(primes_.size() * limbs_, 0);
    for (size_t i = 0; i < primes_.size(); ++i) {
        const Modulus &q = primes_[i];
        const mpz_class q_hat = modulus_ / static_cast<unsigned long>(q.value());
        mpz_to_limbs(q_hat, q_hat_limbs_.data() + i * limbs_, limbs_);
        const u64 q_hat_mod_q = reduce_limbs(q_hat_limbs_.data() + i * limbs_, limbs_, q);
        q_hat_inv_.push_back(q.inv(q_hat_mod_q));
        q_hat_inv_shoup_.push_back(q.shoup(q_hat_inv_.back()));
    }
    log2_modulus_ = log2_mpz(modulus_);
}

void CrtBasis::compose(const u64 *residues, size_t stride, u64 *out) const {
    // acc = sum_i [r_i * qhat_inv_i]_{q_i} * qhat_i  <  size * Q; k = floor(acc / Q)
    // equals floor(sum_i y_i / q_i), estimated in floating point (off by at most one).
    const size_t n = limbs_;
    // The residues may be a decryption's: the scratch is wiped on the way out.
    std::array<u64, kMaxLimbs> y;  // the first size() entries are written below
    std::array<mp_limb_t, kMaxLimbs + 2> storage;
    const ScopedWipe wipe_y(y.data(), primes_.size() * sizeof(u64));
    const ScopedWipe wipe_storage(storage.data(), (n + 2) * sizeof(mp_limb_t));
    double fraction_sum = 0;
    for (size_t i = 0; i < primes_.size(); ++i) {
        const Modulus &q = primes_[i];
        y[i] = q.mul_shoup(residues[i * stride], q_hat_inv_[i], q_hat_inv_shoup_[i]);
        fraction_sum += static_cast<double>(y[i]) / static_cast<double>(q.value());
    }
    // The sum is below size * Q, so its limb n + 1 is zero.
    mp_limb_t *acc = storage.data();
    sum_of_scaled(y.data(), primes_.size(), q_hat_limbs_.data(), n, reinterpret_cast<u64 *>(acc));
    const auto *q_limbs = reinterpret_cast<const mp_limb_t *>(q_limbs_.data());
    const u64 estimate = static_cast<u64>(std::floor(fraction_sum));
    if (estimate > 0) {
        const mp_limb_t borrow = mpn_submul_1(acc, q_limbs, static_cast<mp_size_t>(n), estimate);
        const mp_limb_t top = acc[n] - borrow;
        const bool negative = borrow > acc[n];
        acc[n] = top;
        if (negative) {
            // Overshot by one multiple of Q: add it back (the carry cancels the wrap).
            acc[n] += mpn_add_n(acc, acc, q_limbs, static_cast<mp_size_t>(n));
        }
    }
    while (acc[n] != 0 || mpn_cmp(acc, q_limbs, static_cast<mp_size_t>(n)) >= 0) {
        acc[n] -= mpn_sub_n(acc, acc, q_limbs, static_cast<mp_size_t>(n));
    }
    for (size_t k = 0; k < n; ++k) out[k] = acc[k];
}

}  // namespace bgv
