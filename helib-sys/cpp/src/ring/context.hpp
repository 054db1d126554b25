// context.hpp -- ring, plaintext modulus, modulus chain and precomputed tables.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "util/bigint.hpp"
#include "ring/crt.hpp"
#include "ring/ntt.hpp"
#include "util/thread_pool.hpp"

namespace bgv {

/// Tables for one level l (chain primes q_0..q_l).
struct LevelData {
    CrtBasis crt;
    /// Canonical correction factor: prod over dropped primes j > l of q_j^-1 mod t.
    mpz_class canonical_factor;
    /// q_l^-1 mod q_i for i < l (used when switching from l to l-1).
    std::vector<u64> last_prime_inverse;
    /// q_l^-1 mod t: the factor a switch from l to l-1 multiplies the plaintext by.
    mpz_class last_prime_inverse_mod_t;
};

/// Everything fixed by the parameters: immutable after construction (the
/// thread pool is internally synchronized), so one context may be shared by
/// any number of threads.
class Context {
public:
    /// Limits checked on construction.
    static constexpr size_t kMinLogN = 10, kMaxLogN = 17, kMaxPrimes = 64;
    static constexpr unsigned kMinPrimeBits = 30, kMaxPrimeBits = 61;

    /// Fails with Status::InsecureParameters when the parameters are below
    /// 128-bit security (see security.hpp) and `allow_insecure` is false.
    Context(uint64_t ring_degree, const mpz_class &t, const std::vector<unsigned> &chain_bits,
            const std::vector<unsigned> &special_bits, unsigned threads, bool allow_insecure);

    size_t n() const { return n_; }
    const mpz_class &t() const { return t_; }
    /// Limbs of one coefficient mod t.
    size_t plain_limbs() const { return t_limbs_.size(); }
    const std::vector<u64> &t_limbs() const { return t_limbs_; }
    /// floor(t / 2), for centred lifts.
    const std::vector<u64> &half_t_limbs() const { return half_t_limbs_; }
    double log2_t() const { return log2_t_; }

    size_t chain_size() const { return chain_size_; }
    size_t special_size() const { return primes_.size() - chain_size_; }
    size_t max_level() const { return chain_size_ - 1; }
    /// All primes: chain q_0..q_L, then the special primes.
    const std::vector<Modulus> &primes() const { return primes_; }
    const Modulus &prime(size_t i) const { return primes_[i]; }
    const NttTables &ntt(size_t i) const { return *ntt_[i]; }
    /// A coefficient of plain_limbs() limbs reduced modulo prime i: the sum of
    /// limb_k * (2^(64k) mod q) with lazy Shoup products, reduced at the end.
    u64 reduce_plain(const u64 *coeff, size_t i) const {
        const Modulus &q = primes_[i];
        const size_t pl = plain_limbs();
        const u64 *powers = limb_powers_.data() + i * 2 * pl;
        u64 acc = 0;
        for (size_t k = 0; k < pl; ++k) {
            // Each lazy product is below 2q; keep the running sum below 2q too.
            acc += q.mul_shoup_lazy(coeff[k], powers[2 * k], powers[2 * k + 1]);
            acc = acc >= 2 * q.value() ? acc - 2 * q.value() : acc;
        }
        return acc >= q.value() ? acc - q.value() : acc;
    }
    /// 2^(64k) mod prime i for the limbs k of a plaintext coefficient, and
    /// their Shoup factors (plain_limbs() values each).
    void limb_powers(size_t i, u64 *powers, u64 *shoup) const {
        const size_t pl = plain_limbs();
        for (size_t k = 0; k < pl; ++k) {
            powers[k] = limb_powers_[(i * pl + k) * 2];
            shoup[k] = limb_powers_[(i * pl + k) * 2 + 1];
        }
    }
    /// t mod prime i.
    u64 t_mod(size_t i) const { return t_mod_q_[i]; }
    /// t^-1 mod prime i.
    u64 t_inv_mod(size_t i) const { return t_inv_mod_q_[i]; }
    const LevelData &level(size_t l) const { return levels_[l]; }
    double log2_special_modulus() const { return log2_special_; }
    /// P mod chain prime i (P the product of the special primes; 1 without them).
    u64 special_modulus_mod(size_t i) const { return special_mod_q_[i]; }

    /// Key-switching digits: consecutive chain primes [begin, end) grouped so
    /// that each digit's modulus is at most 2P, P the special modulus (which keeps
    /// the key-switching noise near the modulus-switching floor). Empty when
    /// the context has no special primes.
    const std::vector<std::pair<size_t, size_t>> &digits() const { return digits_; }
    /// Index in primes() of the k-th special prime.
    size_t special_index(size_t k) const { return chain_size_ + k; }

    /// log2 of the noise left by a modulus switch (the BGV noise floor).
    double mod_switch_floor_log2() const { return floor_log2_; }

    ThreadPool &pool() const { return *pool_; }

    /// Throws Status::InvalidLevel unless l <= max_level().
    void check_level(size_t l) const;

private:
    size_t n_;
    mpz_class t_;
    std::vector<u64> t_limbs_, half_t_limbs_;
    double log2_t_;
    size_t chain_size_;
    std::vector<Modulus> primes_;
    std::vector<std::unique_ptr<NttTables>> ntt_;
    std::vector<u64> t_mod_q_, t_inv_mod_q_;
    std::vector<u64> limb_powers_;  // (2^(64k) mod q_i, its Shoup factor), prime-major
    std::vector<LevelData> levels_;
    double log2_special_;
    std::vector<u64> special_mod_q_;
    std::vector<std::pair<size_t, size_t>> digits_;
    double floor_log2_;
    std::unique_ptr<ThreadPool> pool_;
};

}  // namespace bgv
