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

/// The noise estimate (log2) of a block product's outputs at `level`, after
/// checking that they would decrypt (Status::NoiseBudgetExhausted
/// otherwise). For ciphertext operands `noise_a` and `b_log2` are the largest
/// noise estimates of the two operands' blocks and `terms` = min(c_a, c_b);
/// for a plaintext operand (`plain`) `b_log2` is log2 of the sum of its blocks'
/// l1 norms and `terms` is unused. multiply_blocks and multiply_plain_blocks
/// estimate with this; a block product computed elsewhere (residue rows
/// spread over processes) asks it for the same value.
double block_product_noise(const Context &ctx, size_t level, double noise_a, double b_log2, bool plain, size_t terms);

/// One prime's block convolution on rows of residues: for a matrix of `width`
/// slot columns of every block, the same values multiply_blocks computes in
/// those columns at prime `prime`. Every row is `width` words wherever it
/// lives (a caller's buffer, or a ciphertext's own residues): `a` points to
/// a_blocks x a_parts rows (block major, then part; a_parts = 2), `b` to
/// b_blocks x b_parts rows (b_parts 2, or 1 for a plaintext whose residues
/// are in Montgomery form when `b_montgomery`); every residue is checked to
/// be below the prime (Status::MalformedInput otherwise, the output rows then
/// partly written). `out` points to the rows of the out_blocks product
/// blocks from `first` on, each a_parts + b_parts - 1 rows; no output row may
/// overlap another row.
void convolve_rows(const Context &ctx, size_t prime, size_t width, const u64 *const *a, size_t a_blocks,
                   size_t a_parts, const u64 *const *b, size_t b_blocks, size_t b_parts, bool b_montgomery,
                   size_t first, u64 *const *out, size_t out_blocks);

/// dst = a * X^k for 0 <= k < 2N (X^N = -1): a signed permutation of the
/// plaintext's coefficients that leaves the noise's norm unchanged.
void mul_monomial(const Ciphertext &a, uint64_t k, Ciphertext &dst);

}  // namespace eval
}  // namespace bgv
