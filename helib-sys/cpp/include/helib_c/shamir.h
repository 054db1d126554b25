/*
 * helib_c/shamir.h -- t-out-of-N threshold by Shamir re-sharing of the N-out-of-N shares.
 *
 * A part of the C interface: include "helib_c.h", which includes every part
 * and states the conventions all of them follow.
 */
#ifndef HELIB_C_SHAMIR_H
#define HELIB_C_SHAMIR_H

#include "types.h"
#include "threshold.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * t-out-of-N by Shamir re-sharing of the N-out-of-N secret shares (party
 * indices 1..N are the evaluation points; `threshold` is a number of
 * parties). Party i deals its s_i: per chain prime and NTT coefficient, a
 * random polynomial f_i of degree threshold - 1 (OS randomness) with
 * f_i(0) = s_i, evaluated at 1..N. Party j sums the N evaluations f_i(j) it
 * receives into its re-shared key S_j (helib_shamir_combine), and for an
 * active set T of at least `threshold` parties uses lambda_j(T) S_j
 * (helib_shamir_activate) as its additive share of s in the *_residues
 * variants of the decryption, encryption-to-shares and key-switching shares.
 * Dealings and S_j are secret: a dealing must travel over a private channel,
 * and the caller wipes its buffers. Dealings are not verifiable.
 */

/** Frees a residue secret share (its residues are wiped first). */
void helib_secret_share_free(helib_secret_share *share);
/**
 * The dealing of `sk` to `parties` parties (threshold in [1, parties],
 * parties in [1, HELIB_MAX_PARTIES]): `parties` chain shares at the top level
 * (each_len = chain_size * N residues each, NTT form, standard residues), the
 * one for party j (1-based) written to outs[j - 1], so each can travel from
 * where it was written. `outs` holds `parties` non-NULL buffers that do not
 * overlap. Secret.
 */
helib_status helib_shamir_deal(const helib_secret_key *sk, uint32_t threshold, uint32_t parties,
                               uint64_t *const *outs, size_t each_len);
/**
 * Party `index`'s re-shared key S_j from the `parties` dealings it received
 * (concatenated, dealer 1 first; every residue reduced).
 */
helib_status helib_shamir_combine(const helib_context *ctx, uint32_t index, uint32_t threshold, uint32_t parties,
                                  const uint64_t *dealings, size_t len, helib_secret_share **out);
/**
 * Party `index`'s re-shared key from its residues S_j (`len` = chain_size * N,
 * standard residues, each reduced): the share helib_shamir_combine returns
 * for dealings that sum to S_j, for a caller that summed them itself or
 * stored S_j (a restored export).
 */
helib_status helib_shamir_share_from_residues(const helib_context *ctx, uint32_t index, uint32_t threshold,
                                              uint32_t parties, const uint64_t *residues, size_t len,
                                              helib_secret_share **out);
/**
 * lambda_j(T) S_j for the active set `active` (`count` 1-based indices):
 * HELIB_ERR_INVALID_ARGUMENT for a share already activated, an index outside
 * [1, parties], a repeated index, fewer than `threshold` members, a set
 * without this party, or an index difference not invertible mod a prime.
 */
helib_status helib_shamir_activate(const helib_secret_share *share, const uint32_t *active, size_t count,
                                   helib_secret_share **out);
/** The party index, threshold, number of parties and active-set size (0 if not activated) of a share. */
helib_status helib_shamir_share_info(const helib_secret_share *share, uint32_t *index, uint32_t *threshold,
                                     uint32_t *parties, size_t *active_count);
/** helib_threshold_decrypt_share with an activated residue share in place of s_i. */
helib_status helib_threshold_decrypt_share_residues(const helib_secret_share *share, const helib_ciphertext *ct,
                                                    const helib_smudging *smudging, uint64_t *out, size_t out_len);
/** helib_threshold_e2s_share with an activated residue share in place of s_i. */
helib_status helib_threshold_e2s_share_residues(const helib_secret_share *share, const helib_ciphertext *ct,
                                                const helib_smudging *smudging, uint64_t *mask, size_t mask_len,
                                                uint64_t *out, size_t out_len);
/** helib_threshold_e2s_share_product with an activated residue share in place of s_i. */
helib_status helib_threshold_e2s_share_product_residues(const helib_secret_share *share,
                                                        const helib_ciphertext *product, const helib_relin_key *rk,
                                                        const helib_smudging *smudging, int adds_public_part,
                                                        uint64_t *mask, size_t mask_len, uint64_t *out,
                                                        size_t out_len);
/**
 * The collective key switching share with a residue secret share (an
 * activated re-shared key, see helib_shamir_activate) in place of s_i.
 */
helib_status helib_threshold_key_switch_share_residues(const helib_secret_share *share, const helib_ciphertext *ct,
                                                       const helib_public_key *target, const helib_smudging *smudging,
                                                       uint64_t *h0, uint64_t *h1, size_t len);
/**
 * helib_threshold_s2e_share with an activated residue share in place of s_i
 * (`plain` is the party's additive share of the plaintext): the shares of an
 * active set sum to a fresh encryption under the collective key.
 */
helib_status helib_threshold_s2e_share_residues(const helib_secret_share *share, const uint8_t *seed, size_t level,
                                                const uint64_t *plain, size_t n_coeffs, size_t limbs_per_coeff,
                                                uint64_t *out, size_t out_len);

#ifdef __cplusplus
}
#endif

#endif /* HELIB_C_SHAMIR_H */
