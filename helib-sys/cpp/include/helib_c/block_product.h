/*
 * helib_c/block_product.h -- products of polynomials held as blocks of ciphertexts, and the
 * convolution of one prime's residue rows.
 *
 * A part of the C interface: include "helib_c.h", which includes every part
 * and states the conventions all of them follow.
 */
#ifndef HELIB_C_BLOCK_PRODUCT_H
#define HELIB_C_BLOCK_PRODUCT_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Block product of two polynomials held as blocks A = sum_i A_i X^(i s) and
 * B = sum_j B_j X^(j s), one size-2 ciphertext per block (the blocks of one
 * operand share a level and a correction factor; both operands one level):
 * dsts[k] receives D_(first + k) = sum_(i + j = first + k) A_i * B_j, a size-3
 * ciphertext, for k < dst_count. Computed exactly by an NTT across the blocks
 * (a_count + b_count - 1 <= N). dsts must not alias an input. Refuses
 * (HELIB_ERR_NOISE_BUDGET_EXHAUSTED) before any work when the estimate says a
 * result would not decrypt.
 */
helib_status helib_ciphertext_multiply_blocks(const helib_ciphertext *const *a, size_t a_count,
                                              const helib_ciphertext *const *b, size_t b_count, size_t first,
                                              helib_ciphertext *const *dsts, size_t dst_count);
/**
 * As helib_ciphertext_multiply_blocks with encoded plaintext blocks b (encoded
 * at or above the ciphertexts' level, one correction factor): size-2 results.
 */
helib_status helib_ciphertext_multiply_plain_blocks(const helib_ciphertext *const *a, size_t a_count,
                                                    const helib_encoded_plaintext *const *b, size_t b_count,
                                                    size_t first, helib_ciphertext *const *dsts, size_t dst_count);
/**
 * The noise estimate (log2, into *out) of the outputs of a block product at
 * `level`, refusing (HELIB_ERR_NOISE_BUDGET_EXHAUSTED) when they would not
 * decrypt: the estimate helib_ciphertext_multiply_blocks (plain = 0) and
 * helib_ciphertext_multiply_plain_blocks (plain = 1) use. For ciphertext
 * operands noise_a and b_log2 are the largest noise estimates of the blocks of
 * a and of b and terms = min(a_count, b_count); with plain = 1 b_log2 is log2
 * of the sum of the plaintext blocks' l1 norms and terms is unused. For a
 * block product computed from residue rows (helib_context_convolve_rows).
 */
helib_status helib_block_product_noise(const helib_context *ctx, size_t level, double noise_a, double b_log2,
                                       int plain, size_t terms, double *out);
/**
 * One chain prime's block convolution on rows of residues (engine form):
 * for `width` slot columns of every block, the values
 * helib_ciphertext_multiply_blocks computes in those columns modulo prime
 * `prime`. Every row is `width` words, wherever it lives (a caller's
 * buffer, or a ciphertext's own residues from helib_ciphertext_residue_row):
 * `a` points to a_blocks x a_parts rows (block major, then part; a_parts =
 * 2), `b` to b_blocks x b_parts rows (b_parts = 2, or 1 for an encoded
 * plaintext's rows, which are in Montgomery form: b_montgomery = 1). `out`
 * points to the rows of out_blocks product blocks from block `first` on,
 * each a_parts + b_parts - 1 rows, none overlapping another row; width,
 * a_blocks and b_blocks are at most N (HELIB_ERR_INVALID_ARGUMENT
 * otherwise, before any row is read), a NULL row is HELIB_ERR_NULL_POINTER.
 * Residues not below the prime give HELIB_ERR_MALFORMED_INPUT (the output
 * rows are then left partly written). Columns are independent, so processes
 * holding different columns of the same blocks together compute a whole
 * block product.
 */
helib_status helib_context_convolve_rows(const helib_context *ctx, size_t prime, size_t width,
                                         const uint64_t *const *a, size_t a_blocks, size_t a_parts,
                                         const uint64_t *const *b, size_t b_blocks, size_t b_parts, int b_montgomery,
                                         size_t first, uint64_t *const *out, size_t out_blocks);

#ifdef __cplusplus
}
#endif

#endif /* HELIB_C_BLOCK_PRODUCT_H */
