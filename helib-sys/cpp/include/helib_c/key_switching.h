/*
 * helib_c/key_switching.h -- key-switching keys (relinearization, Galois) and the operations that
 * use them.
 *
 * A part of the C interface: include "helib_c.h", which includes every part
 * and states the conventions all of them follow.
 */
#ifndef HELIB_C_KEY_SWITCHING_H
#define HELIB_C_KEY_SWITCHING_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------- key switching */
/*
 * Hybrid key switching: the chain is split into digits (consecutive primes
 * whose product is at most twice the special modulus P, see
 * helib_context_key_switching_digits); a key holds one pair of polynomials
 * modulo Q*P per digit. All of this needs a context with special primes.
 */

/** Number of key-switching digits (0 when the context has no special primes). */
helib_status helib_context_key_switching_digits(const helib_context *ctx, size_t *out);

/** The relinearization key (key switching from s^2 to s). */
helib_status helib_relin_key_generate(const helib_secret_key *sk, helib_relin_key **out);
void helib_relin_key_free(helib_relin_key *rk);
/** Bytes the key occupies in memory. */
helib_status helib_relin_key_size_bytes(const helib_relin_key *rk, size_t *out);

/** An empty set of Galois keys. */
helib_status helib_galois_keys_new(const helib_context *ctx, helib_galois_keys **out);
void helib_galois_keys_free(helib_galois_keys *keys);
/** Generates (or replaces) the key for the Galois element g (odd, below 2N). */
helib_status helib_galois_keys_add(helib_galois_keys *keys, const helib_secret_key *sk, uint64_t g);
/** Generates (or replaces) the keys for the `count` elements `gs` (each odd, below 2N; all checked
 *  first), several at once when the context has threads enough; the keys completed before a failure
 *  stay in the set. `gs` may be NULL only when `count` is 0. */
helib_status helib_galois_keys_add_many(helib_galois_keys *keys, const helib_secret_key *sk, const uint64_t *gs,
                                        size_t count);
/** *out = 1 if the set holds a key for g, else 0. */
helib_status helib_galois_keys_contains(const helib_galois_keys *keys, uint64_t g, int *out);
/** Two-call protocol: the Galois elements present, ascending. */
helib_status helib_galois_keys_elements(const helib_galois_keys *keys, uint64_t *buf, size_t *len);
/** Bytes the keys occupy in memory. */
helib_status helib_galois_keys_size_bytes(const helib_galois_keys *keys, size_t *out);

/** The Galois element 3^step mod 2N rotating both slot rows left by step (right if negative). */
helib_status helib_galois_element_for_step(const helib_context *ctx, int64_t step, uint64_t *out);
/** The Galois element 2N - 1 swapping the two slot rows. */
helib_status helib_galois_element_row_swap(const helib_context *ctx, uint64_t *out);

/**
 * The steps a rotation by `step` is composed of under
 * helib_ciphertext_rotate_rows with `compose` when its own key is missing:
 * signed powers of two, the non-adjacent form of k = step mod N/2 or of
 * k - N/2, whichever has fewer terms (k's on a tie); none for k = 0.
 * Two-call protocol.
 */
helib_status helib_rotation_terms(const helib_context *ctx, int64_t step, int64_t *buf, size_t *len);

/** Size 3 -> size 2 with the relinearization key (a size-2 input is copied). */
helib_status helib_ciphertext_relinearize(const helib_relin_key *rk, const helib_ciphertext *a,
                                          helib_ciphertext *dst);
/** The encryption of m(X^g) for a size-2 ciphertext, with the key for g. */
helib_status helib_ciphertext_apply_galois(const helib_galois_keys *keys, const helib_ciphertext *a,
                                           uint64_t g, helib_ciphertext *dst);
/**
 * Rotates both slot rows left by `step` (right if negative). When the key for
 * the step is missing and `compose` is nonzero, the rotation is composed from
 * rotations by signed powers of two (non-adjacent form) whose keys are
 * present; otherwise HELIB_ERR_MISSING_KEY names the missing key.
 */
helib_status helib_ciphertext_rotate_rows(const helib_galois_keys *keys, const helib_ciphertext *a,
                                          int64_t step, int compose, helib_ciphertext *dst);
/**
 * Hoisted automorphisms: c_1 is decomposed once and `count` automorphisms
 * (elements[i], each key present) are produced into dsts[i] (distinct
 * handles, none aliasing `a`).
 */
helib_status helib_ciphertext_apply_galois_hoisted(const helib_galois_keys *keys,
                                                   const helib_ciphertext *a,
                                                   const uint64_t *elements, size_t count,
                                                   helib_ciphertext *const *dsts);

#ifdef __cplusplus
}
#endif

#endif /* HELIB_C_KEY_SWITCHING_H */
