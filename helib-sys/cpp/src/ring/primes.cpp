// primes.cpp -- primality, NTT-friendly prime generation, roots of unity.
#include "ring/primes.hpp"

#include <algorithm>
#include <string>

#include "util/error.hpp"
#include "util/modarith.hpp"

namespace bgv {

bool is_prime(uint64_t n) {
    if (n < 2) return false;
    static const uint64_t small[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
    for (uint64_t p : small) {
        if (n % p == 0) return n == p;
    }
    uint64_t d = n - 1;
    unsigned s = 0;
    while ((d & 1) == 0) {
        d >>= 1;
        ++s;
    }
    auto mulmod = [n](uint64_t a, uint64_t b) {
        return static_cast<uint64_t>(static_cast<u128>(a) * b % n);
    };
    for (uint64_t a : small) {
        uint64_t x = 1, base = a % n, e = d;
        while (e != 0) {
            if (e & 1) x = mulmod(x, base);
            base = mulmod(base, base);
            e >>= 1;
        }
        if (x == 1 || x == n - 1) continue;
        bool composite = true;
        for (unsigned r = 1; r < s; ++r) {
            x = mulmod(x, x);
            if (x == n - 1) {
                composite = false;
                break;
            }
        }
        if (composite) return false;
    }
    return true;
}

std::vector<uint64_t> ntt_primes(unsigned bits, uint64_t n, size_t count,
                                 const std::vector<uint64_t> &taken) {
    require(bits >= 2 && bits <= 62, Status::InvalidArgument, "prime size out of range");
    const uint64_t step = 2 * n;
    const uint64_t upper = (bits == 64) ? ~0ULL : ((1ULL << bits) - 1);
    const uint64_t lower = 1ULL << (bits - 1);
    std::vector<uint64_t> found;
    uint64_t candidate = (upper - 1) / step * step + 1;
    while (found.size() < count && candidate > lower) {
        if (is_prime(candidate) &&
            std::find(taken.begin(), taken.end(), candidate) == taken.end()) {
            found.push_back(candidate);
        }
        if (candidate < step) break;
        candidate -= step;
    }
    require(found.size() == count, Status::InvalidArgument,
            "not enough " + std::to_string(bits) + "-bit primes congruent to 1 mod " +
                std::to_string(step));
    return found;
}

uint64_t minimal_primitive_root(uint64_t two_n, uint64_t q) {
    const Modulus mod(q);
    const uint64_t cofactor = (q - 1) / two_n;
    uint64_t root = 0;
    for (uint64_t x = 2; x < q && root == 0; ++x) {
        const uint64_t g = mod.pow(x, cofactor);
        if (mod.pow(g, two_n / 2) == q - 1) root = g;
    }
    ensure(root != 0, "a primitive root exists for q = 1 mod 2n");
    // The powers g^k for odd k are all the primitive 2n-th roots; take the smallest.
    uint64_t best = root, power = root;
    const uint64_t g2 = mod.mul(root, root);
    for (uint64_t k = 1; k < two_n; k += 2) {
        best = std::min(best, power);
        power = mod.mul(power, g2);
    }
    return best;
}

}  // namespace bgv
