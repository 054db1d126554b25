// context.cpp -- prime generation and table precomputation.
#include "ring/context.hpp"

#include <cmath>
#include <map>
#include <string>

#include "util/cpu.hpp"
#include "util/error.hpp"
#include "ring/primes.hpp"
#include "ring/security.hpp"

namespace bgv {
namespace {

/// Primes for the requested bit sizes, in the requested order: for each size
/// the largest suitable primes first, never repeating a prime.
std::vector<u64> generate_primes(const std::vector<unsigned> &bits, uint64_t n) {
    std::map<unsigned, size_t> per_size;
    for (unsigned b : bits) ++per_size[b];
    std::map<unsigned, std::vector<u64>> pools;
    std::vector<u64> taken;
    for (const auto &[b, count] : per_size) {
        pools[b] = ntt_primes(b, n, count, taken);
        taken.insert(taken.end(), pools[b].begin(), pools[b].end());
    }
    std::map<unsigned, size_t> used;
    std::vector<u64> out;
    for (unsigned b : bits) out.push_back(pools[b][used[b]++]);
    return out;
}

}  // namespace

Context::Context(uint64_t ring_degree, const mpz_class &t, const std::vector<unsigned> &chain_bits,
                 const std::vector<unsigned> &special_bits, unsigned threads, bool allow_insecure)
    : n_(static_cast<size_t>(ring_degree)), t_(t), chain_size_(chain_bits.size()) {
    require(cpu_choice().error.empty(), Status::InvalidArgument, cpu_choice().error);
    require(ring_degree >= (1ULL << kMinLogN) && ring_degree <= (1ULL << kMaxLogN) &&
                (ring_degree & (ring_degree - 1)) == 0,
            Status::InvalidArgument,
            "ring degree must be a power of two in [2^10, 2^17], got " + std::to_string(ring_degree));
    require(t_ >= 2, Status::InvalidArgument, "plaintext modulus t must be at least 2");
    require(!chain_bits.empty(), Status::InvalidArgument, "the modulus chain needs at least one prime");
    require(chain_bits.size() + special_bits.size() <= kMaxPrimes, Status::InvalidArgument,
            "at most " + std::to_string(kMaxPrimes) + " primes in chain and special primes together");
    std::vector<unsigned> all_bits = chain_bits;
    all_bits.insert(all_bits.end(), special_bits.begin(), special_bits.end());
    for (unsigned b : all_bits) {
        require(b >= kMinPrimeBits && b <= kMaxPrimeBits, Status::InvalidArgument,
                "prime bit sizes must be in [30, 61], got " + std::to_string(b));
    }
    if (!allow_insecure) security::require_floor(ring_degree, chain_bits, special_bits);

    t_limbs_.assign(limbs_for(t_), 0);
    mpz_to_limbs(t_, t_limbs_.data(), t_limbs_.size());
    const mpz_class half = t_ / 2;
    half_t_limbs_.assign(t_limbs_.size(), 0);
    mpz_to_limbs(half, half_t_limbs_.data(), half_t_limbs_.size());
    log2_t_ = log2_mpz(t_);

    for (u64 p : generate_primes(all_bits, n_)) primes_.emplace_back(p);
    for (const auto &q : primes_) {
        const u64 t_mod = reduce_limbs(t_limbs_.data(), t_limbs_.size(), q);
        require(t_mod != 0, Status::InvalidArgument,
                "plaintext modulus t must be coprime to the prime " + std::to_string(q.value()));
        t_mod_q_.push_back(t_mod);
        t_inv_mod_q_.push_back(q.inv(t_mod));
        const u64 two64 = q.reduce128(static_cast<u128>(1) << 64);
        u64 power = 1;
        for (size_t k = 0; k < t_limbs_.size(); ++k) {
            limb_powers_.push_back(power);
            limb_powers_.push_back(q.shoup(power));
            power = q.mul(power, two64);
        }
        ntt_.push_back(std::make_unique<NttTables>(n_, q));
    }

    mpz_class factor = 1;
    std::vector<LevelData> reversed;
    for (size_t l = chain_size_; l-- > 0;) {
        std::vector<Modulus> level_primes(primes_.begin(), primes_.begin() + static_cast<long>(l) + 1);
        LevelData data{CrtBasis(level_primes), factor, {}, 0};
        const Modulus &last = primes_[l];
        for (size_t i = 0; i < l; ++i) {
            data.last_prime_inverse.push_back(primes_[i].inv(primes_[i].reduce(last.value())));
        }
        mpz_class q_last = static_cast<unsigned long>(last.value());
        mpz_class inverse;
        require(mpz_invert(inverse.get_mpz_t(), q_last.get_mpz_t(), t_.get_mpz_t()) != 0,
                Status::InvalidArgument, "plaintext modulus t must be coprime to every prime");
        data.last_prime_inverse_mod_t = inverse;
        factor = factor * inverse % t_;
        reversed.push_back(std::move(data));
    }
    levels_.assign(std::make_move_iterator(reversed.rbegin()), std::make_move_iterator(reversed.rend()));

    log2_special_ = 0;
    for (size_t i = chain_size_; i < primes_.size(); ++i) log2_special_ += std::log2(static_cast<double>(primes_[i].value()));
    special_mod_q_.assign(chain_size_, 1);
    for (size_t i = 0; i < chain_size_; ++i) {
        for (size_t k = chain_size_; k < primes_.size(); ++k) {
            special_mod_q_[i] = primes_[i].mul(special_mod_q_[i], primes_[i].reduce(primes_[k].value()));
        }
    }
    if (special_size() > 0) {
        // Greedy: extend a digit while its modulus stays within 2P (every digit
        // gets at least one prime, even if that prime alone exceeds P).
        size_t begin = 0;
        double bits = 0;
        for (size_t i = 0; i < chain_size_; ++i) {
            const double b = std::log2(static_cast<double>(primes_[i].value()));
            if (i > begin && bits + b > log2_special_ + 1.0) {
                digits_.emplace_back(begin, i);
                begin = i;
                bits = 0;
            }
            bits += b;
        }
        digits_.emplace_back(begin, chain_size_);
    }
    // A switch adds t * (w0 + w1 * s) with w uniform in [-1/2, 1/2]: each coefficient
    // of w1 * s has variance N * (2/3) / 12; bounded at 8 standard deviations.
    floor_log2_ = log2_t_ + std::log2(0.5 + 8.0 * std::sqrt(static_cast<double>(n_) / 18.0));
    pool_ = std::make_unique<ThreadPool>(threads);
}

void Context::check_level(size_t l) const {
    if (l > max_level())
        fail_level_out_of_range(l, max_level(),
                                "level " + std::to_string(l) + " is above the top level " +
                                    std::to_string(max_level()));
}

}  // namespace bgv
