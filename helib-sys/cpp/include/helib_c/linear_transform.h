/*
 * helib_c/linear_transform.h -- baby-step giant-step linear transforms with double hoisting.
 *
 * A part of the C interface: include "helib_c.h", which includes every part
 * and states the conventions all of them follow.
 */
#ifndef HELIB_C_LINEAR_TRANSFORM_H
#define HELIB_C_LINEAR_TRANSFORM_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A baby-step giant-step linear transform with double hoisting:
 *   dst = sum_{j < G} sigma_giant^j( sum_{i < B} p[j * B + i] * sigma_{baby[i]}(a) )
 * with B = baby_count and G = plain_count / B (plain_count a nonzero multiple
 * of B; NULL entries are zero terms). c_1 of `a` is decomposed once; the baby
 * steps stay in the key-switching basis, where the products are summed, so
 * each giant step costs one division by P; the giant sum runs in Horner form
 * with the single key for `giant` (needed when G > 1). Element 1 is the
 * identity and needs no key. The plaintexts must come from
 * helib_encoded_plaintext_new_extended at a level >= a's, with one common
 * correction factor. Refused (HELIB_ERR_NOISE_BUDGET_EXHAUSTED) before any
 * work when the estimate says the result would not decrypt.
 */
helib_status helib_ciphertext_linear_transform(const helib_galois_keys *keys, const helib_ciphertext *a,
                                               const uint64_t *baby, size_t baby_count, uint64_t giant,
                                               const helib_encoded_plaintext *const *plains,
                                               size_t plain_count, helib_ciphertext *dst);

#ifdef __cplusplus
}
#endif

#endif /* HELIB_C_LINEAR_TRANSFORM_H */
