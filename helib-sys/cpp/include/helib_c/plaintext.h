/*
 * helib_c/plaintext.h -- encoded plaintexts and their raw residue form.
 *
 * A part of the C interface: include "helib_c.h", which includes every part
 * and states the conventions all of them follow.
 */
#ifndef HELIB_C_PLAINTEXT_H
#define HELIB_C_PLAINTEXT_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --------------------------------------------------------- encoded plaintext */

/**
 * Encodes a plaintext polynomial (n_coeffs <= N coefficients, missing ones are
 * zero) into RNS + NTT form at `level`, scaled by the correction factor
 * `factor` (NULL means 1; otherwise factor_nlimbs limbs, reduced mod t and
 * invertible mod t). Multiplying a ciphertext with correction factor c by it gives
 * factor c * factor; adding it requires the ciphertext's factor to equal it.
 */
helib_status helib_encoded_plaintext_new(const helib_context *ctx, const uint64_t *coeffs,
                                         size_t n_coeffs, size_t limbs_per_coeff, size_t level,
                                         const uint64_t *factor, size_t factor_nlimbs,
                                         helib_encoded_plaintext **out);
/**
 * As helib_encoded_plaintext_new, but the encoding also holds the residues
 * modulo the special primes (about K / (level + 1) more memory): the form
 * helib_ciphertext_linear_transform multiplies by. It works wherever the
 * ordinary encoding does.
 */
helib_status helib_encoded_plaintext_new_extended(const helib_context *ctx, const uint64_t *coeffs,
                                                  size_t n_coeffs, size_t limbs_per_coeff, size_t level,
                                                  const uint64_t *factor, size_t factor_nlimbs,
                                                  helib_encoded_plaintext **out);
/**
 * As helib_encoded_plaintext_new (extended 0) or
 * helib_encoded_plaintext_new_extended (extended 1), for a public plaintext
 * (the evaluator's own constants, a linear transform's diagonals): one that
 * is a polynomial in X^s is kept compact (see helib_encoded_plaintext_stride),
 * s times smaller and cheaper to make, and the time that takes depends on s.
 * A plaintext that may be secret (a message added to an encryption of zero)
 * takes helib_encoded_plaintext_new, which works the same whatever its
 * coefficients. Any other `extended` gives HELIB_ERR_INVALID_ARGUMENT.
 */
helib_status helib_encoded_plaintext_new_public(const helib_context *ctx, const uint64_t *coeffs,
                                                size_t n_coeffs, size_t limbs_per_coeff, size_t level,
                                                const uint64_t *factor, size_t factor_nlimbs, int extended,
                                                helib_encoded_plaintext **out);
void helib_encoded_plaintext_free(helib_encoded_plaintext *pt);
helib_status helib_encoded_plaintext_level(const helib_encoded_plaintext *pt, size_t *out);
/**
 * The fewest words a prime a compact encoded plaintext keeps: strides go up
 * to N / HELIB_MIN_COMPACT_LENGTH.
 */
#define HELIB_MIN_COMPACT_LENGTH 16u
/**
 * The stride s of an encoded plaintext: 1 for a full encoding, or the power
 * of two s > 1 such that the plaintext is a polynomial in X^s, which the
 * engine detects when it encodes a public plaintext
 * (helib_encoded_plaintext_new_public) and keeps compact (N / s words a
 * prime; s at most N / HELIB_MIN_COMPACT_LENGTH). A slot vector that repeats
 * with period P along each row encodes to a polynomial in X^(N / 2P).
 */
helib_status helib_encoded_plaintext_stride(const helib_encoded_plaintext *pt, size_t *out);
/**
 * The raw form of an encoded plaintext, for caches of encodings (such as
 * saved linear-transform plans): its residues exactly as the engine holds
 * them (NTT and Montgomery form, prime by prime: the chain primes 0..=level,
 * then the special primes when extended; N / stride words each, see
 * helib_encoded_plaintext_stride) and the two norms its noise estimates use. `residues_len` must be the encoding's word count
 * (helib_encoded_plaintext_word_count); either norm pointer may be NULL.
 * The layout is the engine's internal one: a cache must record the format
 * it was written with and treat other versions as stale.
 */
helib_status helib_encoded_plaintext_word_count(const helib_encoded_plaintext *pt, size_t *out);
helib_status helib_encoded_plaintext_export_residues(const helib_encoded_plaintext *pt, uint64_t *residues,
                                                     size_t residues_len, double *log2_linf,
                                                     double *log2_l1);
/**
 * An encoded plaintext from the raw form helib_encoded_plaintext_export_residues
 * gives, validated before anything is kept: `level` at most the top level,
 * `extended` (0 or 1) only with special primes, `stride` a power of two from
 * 1 to N / HELIB_MIN_COMPACT_LENGTH, `residues_len` the word count that level, form and stride imply, every residue below its prime, each norm either
 * the zero polynomial's marker (-1e300) or in [0, log2 t + log2 N], and the factor (NULL means 1) reduced and invertible mod t. Bad input
 * gives HELIB_ERR_MALFORMED_INPUT (HELIB_ERR_INVALID_LEVEL for the level).
 */
helib_status helib_encoded_plaintext_import_residues(const helib_context *ctx, size_t level, int extended,
                                                     size_t stride, const uint64_t *factor, size_t factor_nlimbs,
                                                     const uint64_t *residues, size_t residues_len,
                                                     double log2_linf, double log2_l1,
                                                     helib_encoded_plaintext **out);

/**
 * The residues of an encoded plaintext in place (the layout
 * helib_encoded_plaintext_export_residues copies) and its norms, without a
 * copy: `*residues` stays valid, and unchanged, while `pt` is alive. Either
 * norm pointer may be NULL.
 */
helib_status helib_encoded_plaintext_residues(const helib_encoded_plaintext *pt, const uint64_t **residues,
                                              size_t *residues_len, double *log2_linf, double *log2_l1);
/**
 * helib_encoded_plaintext_import_residues without the intermediate copy: the
 * caller writes the residues straight into the buffer of an import, which
 * checks them (every residue below its prime) before an encoded plaintext is
 * made of them.
 *
 * helib_residue_import_begin allocates an import for `level`, `extended` and
 * `stride` (validated as for helib_encoded_plaintext_import_residues) and gives its
 * buffer: `*residues_len` words of unspecified (but initialized) values, the
 * caller's to fill.
 * helib_residue_import_check checks words [0, upto) that were not checked
 * yet (call it on each filled range while the range is in cache; optional).
 * helib_residue_import_finish checks the remaining words, the factor (NULL
 * means 1) and the norms, and on success moves the buffer into a new
 * encoded plaintext; the import is then spent (a second finish gives
 * HELIB_ERR_INVALID_ARGUMENT). Bad residues, factor or norms give
 * HELIB_ERR_MALFORMED_INPUT and no plaintext. The caller frees the import
 * with helib_residue_import_free in every case (after finish too), and must
 * not use the buffer once the import is freed or spent.
 */
helib_status helib_residue_import_begin(const helib_context *ctx, size_t level, int extended, size_t stride,
                                        helib_residue_import **out, uint64_t **residues, size_t *residues_len);
helib_status helib_residue_import_check(helib_residue_import *import, size_t upto);
helib_status helib_residue_import_finish(helib_residue_import *import, const uint64_t *factor,
                                         size_t factor_nlimbs, double log2_linf, double log2_l1,
                                         helib_encoded_plaintext **out);
void helib_residue_import_free(helib_residue_import *import);

#ifdef __cplusplus
}
#endif

#endif /* HELIB_C_PLAINTEXT_H */
