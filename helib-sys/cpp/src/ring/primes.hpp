// primes.hpp -- number theory for word-size NTT-friendly primes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace bgv {

/// Deterministic Miller-Rabin primality test, exact for all 64-bit inputs.
bool is_prime(uint64_t n);

/// The largest primes below 2^bits that are 1 mod 2n, excluding `taken`, in
/// decreasing order; deterministic. Throws if fewer than `count` exist with
/// exactly `bits` bits.
std::vector<uint64_t> ntt_primes(unsigned bits, uint64_t n, size_t count,
                                 const std::vector<uint64_t> &taken);

/// The smallest primitive 2n-th root of unity modulo the prime q (2n | q-1).
uint64_t minimal_primitive_root(uint64_t two_n, uint64_t q);

}  // namespace bgv
