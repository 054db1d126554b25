/*
 * helib_c/encryption.h -- encryption, decryption and the noise model.
 *
 * A part of the C interface: include "helib_c.h", which includes every part
 * and states the conventions all of them follow.
 */
#ifndef HELIB_C_ENCRYPTION_H
#define HELIB_C_ENCRYPTION_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Public-key encryption of a plaintext polynomial at `level`. Below the top
 * level the message is scaled so that the ciphertext carries the level's
 * canonical correction factor (as if it had been switched down from the top),
 * which makes it addable to ciphertexts switched down to that level.
 */
helib_status helib_encrypt_public(const helib_public_key *pk, const uint64_t *coeffs,
                                  size_t n_coeffs, size_t limbs_per_coeff, size_t level,
                                  helib_ciphertext *dst);
/**
 * Secret-key encryption (same levels and factors as helib_encrypt_public); the
 * uniform half comes from a stored 32-byte seed.
 */
helib_status helib_encrypt_secret(const helib_secret_key *sk, const uint64_t *coeffs,
                                  size_t n_coeffs, size_t limbs_per_coeff, size_t level,
                                  helib_ciphertext *dst);
/**
 * Decrypts into `out` (N * limbs_per_coeff limbs; limbs_per_coeff >= plain
 * limbs). Fails with HELIB_ERR_NOISE_BUDGET_EXHAUSTED instead of returning
 * garbage unless all three hold: Q_l / 2 is above the noise every ciphertext
 * carries (t times a fresh or modulus-switching error) with a bit to spare,
 * the key-free estimate (helib_ciphertext_estimated_budget) leaves at least
 * one bit, and so does the measured budget (helib_noise_budget). The
 * measurement alone sees only v mod Q_l, which a structured wrap (t mod Q_l
 * or 2^k mod Q small) can make look small.
 */
helib_status helib_decrypt(const helib_secret_key *sk, const helib_ciphertext *ct, uint64_t *out,
                           size_t out_len, size_t limbs_per_coeff);
/**
 * Exact remaining noise budget in bits, measured with the secret key (>= 0);
 * 0 whenever helib_decrypt refuses without looking at the key.
 */
helib_status helib_noise_budget(const helib_secret_key *sk, const helib_ciphertext *ct,
                                double *out);

/* ------------------------------------------------------------ noise model */

/** Standard deviation of the discrete Gaussian error of every key and encryption. */
#define HELIB_ERROR_STD_DEV 3.2
/**
 * The tail bound of the key-free noise model, in standard deviations: every
 * sum of random terms is bounded by HELIB_NOISE_TAIL times its standard
 * deviation. Such a sum exceeds it with probability about 2^-49.5 per
 * coefficient, so all N <= 2^17 coefficients of a ciphertext stay below it
 * except with probability 2^-32.5 (6 standard deviations would leave 2^-12).
 */
#define HELIB_NOISE_TAIL 8.0

/**
 * log2 of the noise bound the engine gives a fresh public-key encryption at
 * ring degree `ring_degree` and plaintext modulus of log2 `log2_t` bits: the
 * estimate a fresh ciphertext carries (helib_ciphertext_get_info), without a
 * context, for parameter searches. HELIB_ERR_INVALID_ARGUMENT unless
 * `ring_degree` is at least 1 and `log2_t` is finite.
 */
helib_status helib_noise_fresh_bits(size_t ring_degree, double log2_t, double *out);

/**
 * log2 of the noise a modulus switch of a size-3 ciphertext (a product not
 * yet relinearized) adds over that of a size-2 one, at ring degree
 * `ring_degree` and plaintext modulus of log2 `log2_t` bits: the rounding of
 * its third part meets s^2. Switching before relinearizing is cheaper (the
 * key switch then runs over the lower level's primes) and costs this much
 * noise. HELIB_ERR_INVALID_ARGUMENT unless `ring_degree` is at least 1 and
 * `log2_t` is finite.
 */
helib_status helib_noise_squared_secret_rounding_bits(size_t ring_degree, double log2_t, double *out);

#ifdef __cplusplus
}
#endif

#endif /* HELIB_C_ENCRYPTION_H */
