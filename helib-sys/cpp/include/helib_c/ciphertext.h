/*
 * helib_c/ciphertext.h -- ciphertexts: creation, what the engine tracks about them (one call
 * for all of it), their residues.
 *
 * A part of the C interface: include "helib_c.h", which includes every part
 * and states the conventions all of them follow.
 */
#ifndef HELIB_C_CIPHERTEXT_H
#define HELIB_C_CIPHERTEXT_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -------------------------------------------------------------- ciphertext */

/** An empty ciphertext (a valid `dst`; not usable as an input until written). */
helib_status helib_ciphertext_new(const helib_context *ctx, helib_ciphertext **out);
void helib_ciphertext_free(helib_ciphertext *ct);
helib_status helib_ciphertext_copy(const helib_ciphertext *src, helib_ciphertext *dst);
helib_status helib_ciphertext_level(const helib_ciphertext *ct, size_t *out);
/** Number of polynomials (2 for a fresh ciphertext). */
helib_status helib_ciphertext_size(const helib_ciphertext *ct, size_t *out);
/** The tracked correction factor, out_len >= plain limbs. */
helib_status helib_ciphertext_correction_factor(const helib_ciphertext *ct, uint64_t *out,
                                                size_t out_len);
/** Conservative estimate of log2 of the noise infinity norm, tracked without the key. */
helib_status helib_ciphertext_noise_estimate(const helib_ciphertext *ct, double *out);
/** Estimated remaining budget in bits: log2(Q_l / 2) - noise estimate. */
helib_status helib_ciphertext_estimated_budget(const helib_ciphertext *ct, double *out);

/** What the engine tracks about a written ciphertext (see helib_ciphertext_info). */
typedef struct helib_ciphertext_info {
    /** The level l. */
    size_t level;
    /** The number of polynomials. */
    size_t size;
    /** As helib_ciphertext_noise_estimate. */
    double noise_estimate_bits;
    /** As helib_ciphertext_estimated_budget. */
    double estimated_budget_bits;
} helib_ciphertext_info;

/**
 * Fills `*out` and writes the correction factor to `factor` (factor_len >=
 * plain limbs, zero-padded) in one call: the same values as the five getters
 * above.
 */
helib_status helib_ciphertext_get_info(const helib_ciphertext *ct, helib_ciphertext_info *out,
                                       uint64_t *factor, size_t factor_len);

/**
 * The residues of polynomial `part` (below the ciphertext's size) modulo chain
 * prime `prime` (at most its level), in the engine's evaluation form: N values
 * in [0, q), value j being the polynomial at psi^(2 bitrev(j) + 1) mod q for
 * the engine's primitive 2N-th root of unity psi mod q, so that ring products
 * are value by value. Written to `out` (out_len >= N). A prime above the level
 * is HELIB_ERR_INVALID_LEVEL (detail HELIB_DETAIL_LEVEL_OUT_OF_RANGE), a part
 * beyond the size HELIB_ERR_INVALID_ARGUMENT.
 */
helib_status helib_ciphertext_residues(const helib_ciphertext *ct, size_t part, size_t prime, uint64_t *out,
                                       size_t out_len);

/**
 * Columns [first, first + count) of the residues helib_ciphertext_residues
 * reads, written to `out` (count values): for copying pieces of many rows
 * into one buffer. Columns beyond N are HELIB_ERR_INVALID_ARGUMENT; part and
 * prime as for helib_ciphertext_residues.
 */
helib_status helib_ciphertext_residue_columns(const helib_ciphertext *ct, size_t part, size_t prime, size_t first,
                                              uint64_t *out, size_t count);

/**
 * The address, in *row, of the N residues helib_ciphertext_residues copies
 * out, in the ciphertext's own memory (no copy): valid until `ct` is next
 * written to or freed, and only to be read. Part and prime as for
 * helib_ciphertext_residues.
 */
helib_status helib_ciphertext_residue_row(const helib_ciphertext *ct, size_t part, size_t prime,
                                         const uint64_t **row);

/**
 * As helib_ciphertext_residue_row, for writing in place (the output rows of
 * helib_context_convolve_rows): the ciphertext drops any c_1 seed, which
 * the new residues would no longer match. The caller writes only residues
 * below the prime and answers for them, as for
 * helib_ciphertext_write_residue_columns.
 */
helib_status helib_ciphertext_residue_row_mut(helib_ciphertext *ct, size_t part, size_t prime, uint64_t **row);

/**
 * dst = the ciphertext of `parts` (2 or 3) polynomials at `level` with these
 * residues (engine form, part major then prime: parts x (level + 1) x N
 * words, as helib_ciphertext_residues reads them), correction factor `factor`
 * (factor_nlimbs limbs) and noise estimate `noise_log2`. A residue not below
 * its prime, a factor not invertible mod t, a non-finite estimate or a wrong
 * length give HELIB_ERR_MALFORMED_INPUT (HELIB_ERR_INVALID_LEVEL for the
 * level); an estimate below the floor is raised to it, as on deserialization.
 */
helib_status helib_ciphertext_import_residues(const helib_context *ctx, size_t level, size_t parts,
                                              const uint64_t *factor, size_t factor_nlimbs, double noise_log2,
                                              const uint64_t *residues, size_t residues_len, helib_ciphertext *dst);

/**
 * dst = helib_ciphertext_import_residues's ciphertext with every residue zero
 * (same checks of level, parts, factor and estimate): the frame that
 * helib_ciphertext_write_residue_columns fills when the residues arrive in
 * pieces, so that they need not be staged whole first.
 */
helib_status helib_ciphertext_zeros(const helib_context *ctx, size_t level, size_t parts, const uint64_t *factor,
                                    size_t factor_nlimbs, double noise_log2, helib_ciphertext *dst);

/**
 * As helib_ciphertext_zeros, but the residues are left unwritten (not even
 * zeroed): for a caller that writes every residue before anything reads one
 * (helib-rs's CiphertextAssembly tracks which columns are written and hands
 * the ciphertext out only when all are). Until then the residues are
 * indeterminate; every other call on the ciphertext is the caller's error.
 */
helib_status helib_ciphertext_unwritten(const helib_context *ctx, size_t level, size_t parts,
                                        const uint64_t *factor, size_t factor_nlimbs, double noise_log2,
                                        helib_ciphertext *dst);

/**
 * Writes `count` residues into columns [first, first + count) of polynomial
 * `part` modulo chain prime `prime` of `ct` (the layout
 * helib_ciphertext_residue_columns reads). A residue not below the prime is
 * HELIB_ERR_MALFORMED_INPUT and nothing is written; part, prime and columns
 * as for helib_ciphertext_residue_columns. The ciphertext keeps its factor and
 * noise estimate: the caller answers for the residues it writes.
 */
helib_status helib_ciphertext_write_residue_columns(helib_ciphertext *ct, size_t part, size_t prime, size_t first,
                                                    const uint64_t *words, size_t count);

#ifdef __cplusplus
}
#endif

#endif /* HELIB_C_CIPHERTEXT_H */
