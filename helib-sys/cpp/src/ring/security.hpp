// security.hpp -- the lattice security table (ternary secret, classical
// attacks) and the 128-bit floor every context must reach unless its caller
// explicitly allows less. The one owner of these numbers: the Rust crates ask
// through the C interface.
#pragma once

#include <cstdint>
#include <vector>

namespace bgv {
namespace security {

/// The largest log2(Q·P) (chain and special primes together) that reaches
/// `bits` (128, 192 or 256) of security at ring degree n; 0 when the table has
/// no entry (n not a power of two in [2^10, 2^17], or another `bits`).
unsigned max_log_qp(uint64_t n, unsigned bits);

/// The security level in bits (256, 192 or 128) that log2(Q·P) = `log_qp`
/// reaches at ring degree n, or 0 below 128 bits, for a ring degree outside
/// the table, and for a log_qp that is not a number.
unsigned estimate(uint64_t n, double log_qp);

/// The bound on log2(Q·P) used for the floor: the sum of the prime sizes (a
/// prime of b bits is below 2^b, so log2(Q·P) is at most this).
unsigned log_qp_bound(const std::vector<unsigned> &chain_bits, const std::vector<unsigned> &special_bits);

/// Fails with Status::InsecureParameters unless ring degree n with primes
/// of these sizes reaches 128 bits of security (by log_qp_bound).
void require_floor(uint64_t n, const std::vector<unsigned> &chain_bits, const std::vector<unsigned> &special_bits);

}  // namespace security
}  // namespace bgv
