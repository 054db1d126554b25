/*
 * helib_c/evaluate.h -- evaluation without keys: sums, products by plaintexts, scalars and
 * monomials, the tensor product, modulus switching.
 *
 * A part of the C interface: include "helib_c.h", which includes every part
 * and states the conventions all of them follow.
 */
#ifndef HELIB_C_EVALUATE_H
#define HELIB_C_EVALUATE_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --------------------------------------------------------------- evaluator */
/*
 * Every operation that produces a ciphertext (here and in key_switching.h,
 * block_product.h and linear_transform.h) refuses with
 * HELIB_ERR_NOISE_BUDGET_EXHAUSTED, before writing dst, when the key-free
 * estimate says the result would keep less than one bit of budget; so does a modulus switch to a level whose Q_l cannot hold the
 * switching noise (about t * sqrt(N), e.g. a level below t).
 */

helib_status helib_ciphertext_add(const helib_ciphertext *a, const helib_ciphertext *b,
                                  helib_ciphertext *dst);
helib_status helib_ciphertext_sub(const helib_ciphertext *a, const helib_ciphertext *b,
                                  helib_ciphertext *dst);
helib_status helib_ciphertext_negate(const helib_ciphertext *a, helib_ciphertext *dst);
/** Adds an encoded plaintext (level >= the ciphertext's, same correction factor). */
helib_status helib_ciphertext_add_plain(const helib_ciphertext *a,
                                        const helib_encoded_plaintext *p, helib_ciphertext *dst);
helib_status helib_ciphertext_sub_plain(const helib_ciphertext *a,
                                        const helib_encoded_plaintext *p, helib_ciphertext *dst);
/**
 * Multiplies by an encoded plaintext at the ciphertext's level or above (its
 * residues for the primes the ciphertext has are used). Refuses
 * (HELIB_ERR_NOISE_BUDGET_EXHAUSTED) when the estimate says the result would
 * not decrypt. The result's correction factor is the product of both factors.
 */
helib_status helib_ciphertext_mul_plain(const helib_ciphertext *a,
                                        const helib_encoded_plaintext *p, helib_ciphertext *dst);
/**
 * Adds the constant polynomial k (an integer of up to 2^20 limbs, reduced mod t) to the
 * plaintext: the ciphertext's correction factor is applied, so the result
 * decrypts to m + k. One pass over c_0, no encoding. Adds at most t/2 of noise.
 */
helib_status helib_ciphertext_add_scalar(const helib_ciphertext *a, const uint64_t *k_limbs,
                                         size_t k_nlimbs, helib_ciphertext *dst);
/**
 * Multiplies by the integer k mod t (k given as up to 2^20 limbs; reduced mod t,
 * then centred, so the noise grows by at most t/2). Refuses
 * (HELIB_ERR_NOISE_BUDGET_EXHAUSTED) when the estimate says the result would
 * not decrypt.
 */
helib_status helib_ciphertext_mul_scalar(const helib_ciphertext *a, const uint64_t *k_limbs,
                                         size_t k_nlimbs, helib_ciphertext *dst);
/** Drops the last prime of the ciphertext's modulus (level l -> l-1, l >= 1). */
helib_status helib_ciphertext_mod_switch(const helib_ciphertext *a, helib_ciphertext *dst);
/** Drops primes until the ciphertext is at `level` (<= its level). */
helib_status helib_ciphertext_mod_switch_to(const helib_ciphertext *a, size_t level,
                                            helib_ciphertext *dst);
/**
 * Drops primes as long as each switch costs (almost) no noise budget, i.e.
 * while the estimated noise stays well above the modulus-switching floor.
 * The budget is preserved while the ciphertext shrinks and later operations
 * get cheaper; never goes below level 0.
 */
helib_status helib_ciphertext_mod_switch_reduce_noise(const helib_ciphertext *a,
                                                      helib_ciphertext *dst);

/**
 * dst = a + (b * xi, a_pk * xi) for the public key (b, a_pk) and a fresh
 * ternary xi: an encryption of zero WITHOUT fresh error terms added. This is
 * the "constant-time randomization" of the Smuche caching scheme, exposed so
 * that scheme can be implemented faithfully and studied. It is NOT a secure
 * re-randomization: the result stays linearly related to `a` (see the
 * he-cache-analysis crate). Use a fresh encryption of zero instead.
 * Implemented, isolated, in cpp/src/bgv/smuche_mask.cpp.
 */
helib_status helib_ciphertext_add_public_key_mask(const helib_public_key *pk,
                                                  const helib_ciphertext *a,
                                                  helib_ciphertext *dst);

/**
 * Tensor product of two size-2 ciphertexts at the same level (any correction
 * factors; the result's is their product): a size-3 ciphertext. Refuses
 * (HELIB_ERR_NOISE_BUDGET_EXHAUSTED) when the estimate says it would not decrypt.
 */
helib_status helib_ciphertext_multiply(const helib_ciphertext *a, const helib_ciphertext *b,
                                       helib_ciphertext *dst);
/**
 * dst = a * X^k for 0 <= k < 2N (X^N = -1): the plaintext's coefficients are
 * shifted and negated where they wrap; the noise's norm is unchanged and no
 * key is needed.
 */
helib_status helib_ciphertext_mul_monomial(const helib_ciphertext *a, uint64_t k, helib_ciphertext *dst);

#ifdef __cplusplus
}
#endif

#endif /* HELIB_C_EVALUATE_H */
