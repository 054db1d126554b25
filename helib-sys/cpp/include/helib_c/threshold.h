/*
 * helib_c/threshold.h -- N-out-of-N threshold BGV.
 *
 * A part of the C interface: include "helib_c.h", which includes every part
 * and states the conventions all of them follow.
 */
#ifndef HELIB_C_THRESHOLD_H
#define HELIB_C_THRESHOLD_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --------------------------------------------------------------- threshold */
/*
 * N-out-of-N threshold BGV (Mouchet et al., "Multiparty homomorphic encryption
 * from RLWE"). Each party holds an ordinary secret key s_i; the collective
 * secret is s = s_1 + ... + s_N and is never formed. A share is a polynomial
 * as residues in NTT form (standard representation, each below its prime),
 * prime-major: a "chain share" at level l is (l + 1) * N residues modulo
 * q_0..q_l; a "key share" is digits * (L + 1 + K) * N residues, one
 * polynomial modulo every prime (chain, then special) per key-switching digit
 * (helib_threshold_key_share_len). The caller sums the parties' shares
 * residue-wise modulo each prime and passes the sums on. Common reference
 * polynomials are expanded from a 32-byte seed the parties agree on
 * (HELIB_THRESHOLD_SEED_BYTES). Every buffer length is checked exactly, and
 * every input residue must be reduced (HELIB_ERR_INVALID_ARGUMENT otherwise).
 *
 * Smudging: decryption, encryption-to-shares and key-switching shares add
 * t * E with E uniform in [-2^k, 2^k), where 2^k >= 2^lambda * N * ||e|| for
 * the error bound ||e|| the party agreed to (helib_smudging) and the
 * statistical parameter lambda (`security_bits`, e.g. 40). The width never
 * comes from the ciphertext's own noise estimate: that travels in the
 * ciphertext's bytes, and whoever hands a party a ciphertext could forge it
 * low. A ciphertext that is not at the agreed level (HELIB_ERR_LEVEL_MISMATCH),
 * not of size 2 (HELIB_ERR_INVALID_ARGUMENT) or that claims more noise than
 * the agreed bound (HELIB_ERR_NOISE_BUDGET_EXHAUSTED) is refused before any
 * share is released.
 */

/**
 * What a party agrees to smudge for before it sees a ciphertext: the number
 * of parties (in [1, HELIB_MAX_PARTIES]) that each add a smudging term, lambda (in
 * [1, 128]), the level the agreed computation's results are at, and the most
 * noise (log2 of ||m + t e||_inf, bits, at least the engine's noise floor) a
 * result can carry there. helib_threshold_smudging_for_level gives the widest
 * bound a level can hold; a tighter bound (a computation's own, from the
 * noise model) keeps more of the budget for a key-switched result.
 */
typedef struct helib_smudging {
    uint32_t parties;
    uint32_t security_bits;
    size_t level;
    double noise_bits;
} helib_smudging;

/** Bytes of a common reference seed. */
#define HELIB_THRESHOLD_SEED_BYTES 32u

/** The most parties a threshold protocol (smudging, Shamir re-sharing, collective keys) may have. */
#define HELIB_MAX_PARTIES 4096u

/**
 * Bits of budget a level keeps free beyond the smudged noise, so that
 * helib_threshold_decrypt_combine tells a missing or forged share (a phase
 * spread over Z_Q) from honest ones.
 */
#define HELIB_SMUDGING_CHECK_BITS 2u

/**
 * The modulus bits collective decryption (and encryption to shares, key
 * switching) needs at a level beyond an ordinary decryption, for `parties`
 * parties (in [1, HELIB_MAX_PARTIES]) at statistical security
 * `security_bits` (in [1, 128]) on ring degree `ring_degree`: a bound on what
 * the smudging width of helib_threshold_smudging_bits adds, plus
 * HELIB_SMUDGING_CHECK_BITS. For sizing chains before a context exists.
 */
helib_status helib_threshold_smudging_room_bits(size_t ring_degree, uint32_t parties, uint32_t security_bits,
                                                uint32_t *out);

/**
 * A 32-byte digest identifying a ciphertext (level, size, correction factor
 * and a polynomial hash of every residue), to bind shares to the ciphertext
 * they were computed on; out_len must be 32. Not a commitment against a
 * party choosing colliding ciphertexts on purpose.
 */
helib_status helib_threshold_ciphertext_digest(const helib_ciphertext *ct, uint8_t *out, size_t out_len);
/** The residues of one key share of `ctx` (fails without special primes). */
helib_status helib_threshold_key_share_len(const helib_context *ctx, size_t *out);
/** A chain share (top level) of the public key: -a s_i + t e_i, a from `seed`. */
helib_status helib_threshold_public_key_share(const helib_secret_key *sk, const uint8_t *seed, uint64_t *out,
                                              size_t out_len);
/** The collective public key (sum of the shares, a from `seed`). */
helib_status helib_threshold_public_key_assemble(const helib_context *ctx, const uint8_t *seed, const uint64_t *b,
                                                 size_t len, helib_public_key **out);
/** A key share of the Galois key for element g: -a_d s_i + t e + P g_d s_i(X^g) per digit d. */
helib_status helib_threshold_galois_key_share(const helib_secret_key *sk, uint64_t g, const uint8_t *seed,
                                              uint64_t *out, size_t out_len);
/**
 * Inserts the collective Galois key for g (sum of the shares of `parties`
 * parties, in [1, HELIB_MAX_PARTIES]; its noise estimate accounts for them) into `keys`.
 */
helib_status helib_threshold_galois_keys_insert(helib_galois_keys *keys, uint64_t g, const uint8_t *seed,
                                                uint32_t parties, const uint64_t *b, size_t len);
/**
 * Round 1 of the relinearization key: with a fresh ephemeral secret u_i (a
 * secret key the party keeps until round 2), h0 = -u_i a_d + P g_d s_i + t e,
 * h1 = s_i a_d + t e' (two key shares of `len` residues, written in place:
 * h0 and h1 must not overlap; both are wiped on failure).
 */
helib_status helib_threshold_relin_key_round1(const helib_secret_key *sk, const helib_secret_key *ephemeral,
                                              const uint8_t *seed, uint64_t *h0, uint64_t *h1, size_t len);
/**
 * Round 2: s_i h0 + (u_i - s_i) h1 + t e for the round-1 sums (key shares),
 * read in place and written to `out`, which must overlap neither sum.
 * Refuses (HELIB_ERR_MALFORMED_INPUT, nothing released) sums that no honest
 * round 1 produces: a digit of h0 or h1 with half its coefficients modulo q_0
 * near zero (e.g. h0 = 1, h1 = 0, which would reveal s_i). The callers'
 * protocol must also keep a party from choosing its round-1 share after
 * seeing the others' (commit, then open), which this check cannot see. An
 * unreduced residue gives HELIB_ERR_INVALID_ARGUMENT, with `out` wiped.
 */
helib_status helib_threshold_relin_key_round2(const helib_secret_key *sk, const helib_secret_key *ephemeral,
                                              const uint64_t *h0_sum, const uint64_t *h1_sum, size_t len,
                                              uint64_t *out, size_t out_len);
/**
 * The collective relinearization key of `parties` parties (in [1, HELIB_MAX_PARTIES]; its
 * noise estimate accounts for them): b = sum of round-2 shares, a = h1_sum.
 * Its a is not expanded from a seed, so it is serialized in full.
 */
helib_status helib_threshold_relin_key_assemble(const helib_context *ctx, uint32_t parties, const uint64_t *b_sum,
                                                const uint64_t *h1_sum, size_t len, helib_relin_key **out);
/**
 * The collective secret s = sum of `count` (1 to 127) secret shares, as a
 * secret key: for tests and audits that measure the noise of collective keys
 * directly. Forming it defeats the threshold, so no protocol step calls it.
 */
helib_status helib_threshold_secret_key_sum(const helib_secret_key *const *shares, size_t count,
                                           helib_secret_key **out);
/**
 * The smudging spec at `level` whose noise bound is the most a ciphertext at
 * that level may carry and still be decrypted collectively (with a margin
 * that lets helib_threshold_decrypt_combine catch a missing or forged share).
 * HELIB_ERR_NOISE_BUDGET_EXHAUSTED when the level cannot hold the smudging
 * even for the least noise a ciphertext carries.
 */
helib_status helib_threshold_smudging_for_level(const helib_context *ctx, uint32_t parties, uint32_t security_bits,
                                                size_t level, helib_smudging *out);
/**
 * The smudging width k of `smudging`; HELIB_ERR_NOISE_BUDGET_EXHAUSTED when
 * the smudged noise does not fit its level, HELIB_ERR_INVALID_ARGUMENT /
 * HELIB_ERR_INVALID_LEVEL for fields out of range.
 */
helib_status helib_threshold_smudging_bits(const helib_context *ctx, const helib_smudging *smudging,
                                           uint32_t *out);
/** A decryption share c_1 s_i + t E (chain share at ct's level). */
helib_status helib_threshold_decrypt_share(const helib_secret_key *sk, const helib_ciphertext *ct,
                                           const helib_smudging *smudging, uint64_t *out, size_t out_len);
/**
 * An encryption-to-shares share: samples the party's additive share S_i
 * uniform mod t into `mask` (N * plain_limbs limbs, secret) and writes
 * c_1 s_i + t E - f S_i into `out` (chain share at ct's level).
 */
helib_status helib_threshold_e2s_share(const helib_secret_key *sk, const helib_ciphertext *ct,
                                       const helib_smudging *smudging, uint64_t *mask, size_t mask_len, uint64_t *out,
                                       size_t out_len);
/**
 * Decodes c_0 + `sum` into N coefficients of plain_limbs limbs: the plaintext
 * for decryption shares, m - sum S_i for encryption-to-shares shares. Fails
 * with HELIB_ERR_MALFORMED_INPUT when the combined noise exceeds what
 * honest shares made for `smudging` can leave (a share missing, repeated or
 * random); refuses `ct` as the share-making calls do.
 */
helib_status helib_threshold_decrypt_combine(const helib_ciphertext *ct, const helib_smudging *smudging,
                                             const uint64_t *sum, size_t len, uint64_t *out, size_t out_len);
/**
 * helib_threshold_e2s_share for the relinearization by `rk` of a size-3
 * `product`, which the party computes itself; `smudging`'s noise bound
 * applies to the relinearization's estimate. Exactly one participant passes
 * a non-zero `adds_public_part` and adds the public part k_0 of the
 * relinearized c_0 to its share, so that
 * helib_threshold_decrypt_combine_product decodes m - sum S_i on the
 * product's own c_0: whoever combines never relinearizes.
 */
helib_status helib_threshold_e2s_share_product(const helib_secret_key *sk, const helib_ciphertext *product,
                                               const helib_relin_key *rk, const helib_smudging *smudging,
                                               int adds_public_part, uint64_t *mask, size_t mask_len, uint64_t *out,
                                               size_t out_len);
/**
 * helib_threshold_decrypt_combine for shares of
 * helib_threshold_e2s_share_product: decodes c_0 + `sum` with the product's
 * c_0, checked as those shares check the product.
 */
helib_status helib_threshold_decrypt_combine_product(const helib_ciphertext *product, const helib_relin_key *rk,
                                                     const helib_smudging *smudging, const uint64_t *sum, size_t len,
                                                     uint64_t *out, size_t out_len);
/** A shares-to-encryption share of the party's additive share (a plaintext): -a s_i + t e + f S_i. */
helib_status helib_threshold_s2e_share(const helib_secret_key *sk, const uint8_t *seed, size_t level,
                                       const uint64_t *share, size_t n_coeffs, size_t limbs_per_coeff,
                                       uint64_t *out, size_t out_len);
/** The ciphertext (sum, a) of the sum of the parties' shares at `level`. */
helib_status helib_threshold_s2e_assemble(const helib_context *ctx, const uint8_t *seed, size_t level,
                                          uint32_t parties, const uint64_t *sum, size_t len, helib_ciphertext *dst);
/**
 * A collective key-switching share towards `target` = (b', a'): with fresh
 * ternary u_i, h0 = s_i c_1 + u_i b' + t E, h1 = u_i a' + t e (chain shares).
 */
helib_status helib_threshold_key_switch_share(const helib_secret_key *sk, const helib_ciphertext *ct,
                                              const helib_public_key *target, const helib_smudging *smudging,
                                              uint64_t *h0, uint64_t *h1, size_t len);
/**
 * The ciphertext (c_0 + h0_sum, h1_sum) under the target key, into `dst`,
 * which must be of ct's context (HELIB_ERR_CONTEXT_MISMATCH otherwise, dst
 * left as it was).
 */
helib_status helib_threshold_key_switch_assemble(const helib_ciphertext *ct, const helib_smudging *smudging,
                                                 const uint64_t *h0_sum, const uint64_t *h1_sum, size_t len,
                                                 helib_ciphertext *dst);

#ifdef __cplusplus
}
#endif

#endif /* HELIB_C_THRESHOLD_H */
