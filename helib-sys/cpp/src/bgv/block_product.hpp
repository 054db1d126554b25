// block_product.hpp -- products of polynomials spread over several ciphertexts.
//
// A polynomial of degree >= N does not fit one plaintext; it is held as blocks
// P = sum_k P_k X^(k*s), one ciphertext per block P_k, for a stride s. The
// product of two such polynomials is the convolution of their block sequences:
// D_k = sum_{i+j=k} A_i * B_j (ring products). It is computed exactly modulo
// every ciphertext prime by a negacyclic NTT of length L >= c_a + c_b - 1
// across the blocks (the same butterflies as the ring NTT, each applied to a
// whole row of evaluation slots), L pointwise tensor products and the inverse
// NTT. Being exact mod Q, the result is the very ciphertext the schoolbook
// sum of c_a * c_b products would give, with its noise, at the cost of
// L products.
#pragma once

#include <vector>

#include "bgv/ciphertext.hpp"

namespace bgv {
namespace eval {

/// dst[k - first] = sum_{i+j=k} a[i] (x) b[j] for k in [first, first + dst.size()):
/// size-3 ciphertexts decrypting with (1, s, s^2). The blocks of `a` (and of
/// `b`) are size-2 ciphertexts of one context sharing a level and a correction
/// factor; dst may not alias an input.
void multiply_blocks(const std::vector<const Ciphertext *> &a, const std::vector<const Ciphertext *> &b,
                     size_t first, const std::vector<Ciphertext *> &dst);

/// As multiply_blocks with plaintext blocks `b` (encoded at or above a's level,
/// sharing one correction factor): size-2 results.
void multiply_plain_blocks(const std::vector<const Ciphertext *> &a, const std::vector<const EncodedPlaintext *> &b,
                           size_t first, const std::vector<Ciphertext *> &dst);

/// dst = a * X^k for 0 <= k < 2N (X^N = -1): a signed permutation of the
/// plaintext's coefficients that leaves the noise's norm unchanged.
void mul_monomial(const Ciphertext &a, uint64_t k, Ciphertext &dst);

}  // namespace eval
}  // namespace bgv
