/*
 * c_api_test_api.h -- test-only C entry points of the BGV engine, outside the
 * public interface (helib_c.h). They exist only in a library built with the
 * `test-api` feature of helib-sys (HELIB_TEST_API defined); the Rust
 * declarations are in helib_sys::test_api, under the same feature.
 */
#ifndef HELIB_C_TEST_API_H
#define HELIB_C_TEST_API_H

#include "helib_c.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------- ring */
/*
 * Direct access to the ring layer, for testing against independent
 * references. Residue arrays are prime-major: residues[i * N + j] is
 * coefficient j modulo q_i, for the `level + 1` chain primes q_0..q_level.
 */

/** Reduces N unsigned big integers (each < Q_level) to residues (coefficient form). */
helib_status helib_ring_to_rns(const helib_context *ctx, size_t level, const uint64_t *coeffs,
                               size_t limbs_per_coeff, uint64_t *residues, size_t residues_len);
/**
 * Exact CRT reconstruction of N coefficients from residues into unsigned
 * values in [0, Q_level), limbs_per_coeff limbs each (enough for Q_level).
 */
helib_status helib_ring_from_rns(const helib_context *ctx, size_t level, const uint64_t *residues,
                                 size_t residues_len, uint64_t *coeffs, size_t limbs_per_coeff);
/** Negacyclic product of two polynomials modulo chain prime q_i via the NTT. */
helib_status helib_ring_multiply_mod_prime(const helib_context *ctx, size_t prime_index,
                                           const uint64_t *a, const uint64_t *b, uint64_t *out);

/* ------------------------------------------------------------ CPU kernels */

/**
 * `len` bytes of the engine's ChaCha20 keystream computed with the kernels of
 * `path`: key `key` (32 bytes), blocks from `counter` on, with the engine's
 * layout (64-bit block counter in state words 12-13, 64-bit nonce `stream` in
 * words 14-15; RFC 8439's 32-bit counter and 96-bit nonce are the same words
 * with its first nonce word as the counter's high half). For checking every
 * path against published test vectors. HELIB_ERR_INVALID_ARGUMENT if this CPU
 * cannot run `path`.
 */
helib_status helib_chacha20_keystream(uint32_t path, const uint8_t *key, uint64_t stream, uint64_t counter,
                                      uint8_t *out, size_t len);

/**
 * The SHA-256 digest (32 bytes into `out`) of `len` bytes, hashed with the
 * compression of `path` (the SHA extensions on the AVX2 and AVX-512 paths
 * when this CPU has them) and fed to the hasher `chunk` bytes at a time
 * (0: all at once), so that every split of the input across blocks is
 * exercised. HELIB_ERR_INVALID_ARGUMENT if this CPU cannot run `path`.
 */
helib_status helib_sha256(uint32_t path, const uint8_t *data, size_t len, size_t chunk, uint8_t *out);

/**
 * `n` discrete Gaussian samples (the engine's error distribution) drawn with
 * the kernels of `path` from the keystream of key `key` (32 bytes) and nonce
 * `stream`: the same key gives the same samples on every path.
 * HELIB_ERR_INVALID_ARGUMENT if this CPU cannot run `path`.
 */
helib_status helib_gaussian_samples(uint32_t path, const uint8_t *key, uint64_t stream, int32_t *out, size_t n);

/**
 * The negacyclic NTT of length `n` modulo the prime `prime` (q = 1 mod 2n,
 * q < 2^62) computed with the kernels of `path`, in place on the `n` values of
 * `values`: forward (`inverse` = 0; inputs below 4q) or inverse (`inverse` = 1;
 * inputs below 2q, scaled by n^-1), outputs below q, with the engine's tables
 * and output order (NttTables). The transform is applied `repeats` times in a
 * row (at least 1) with the tables built once, and `*nanoseconds`, when not
 * NULL, receives the wall time of the transforms alone, for benchmarks.
 * HELIB_ERR_INVALID_ARGUMENT for a bad length, modulus or input, or if this CPU
 * cannot run `path`.
 */
helib_status helib_ntt_transform(uint32_t path, uint64_t prime, size_t n, int inverse, uint64_t *values,
                                 size_t repeats, uint64_t *nanoseconds);

/* Kernels of helib_row_kernel. */
#define HELIB_ROW_SCALE 0u
#define HELIB_ROW_REDUCE_FROM_4Q 1u
#define HELIB_ROW_SUBTRACT_MULTIPLE_THEN_SCALE 2u
#define HELIB_ROW_ADD_THEN_SCALE 3u
#define HELIB_ROW_BASE_CONVERT 4u

/**
 * One row kernel of `path`, in place on the `n` words of `values`, modulo
 * `prime` (a prime below 2^62), for checking every path against the scalar
 * one at any length. With w = constants[0] and v = constants[1]:
 * - HELIB_ROW_SCALE: values[j] w mod q (any values; one constant);
 * - HELIB_ROW_REDUCE_FROM_4Q: values[j] mod q (values below 4q; none);
 * - HELIB_ROW_SUBTRACT_MULTIPLE_THEN_SCALE: (values[j] - other[j] w) v mod q
 *   (values below q, any other; two constants);
 * - HELIB_ROW_ADD_THEN_SCALE: (other[j] + values[j]) w mod q (both below q;
 *   one constant);
 * - HELIB_ROW_BASE_CONVERT: sum over s of other[s n + j] constants[s] mod q
 *   (any other, `constants_len` sources of n words each).
 * Constants are below q. HELIB_ERR_INVALID_ARGUMENT for another kernel, a bad
 * prime, length or input, or if this CPU cannot run `path`.
 */
helib_status helib_row_kernel(uint32_t path, uint32_t kernel, uint64_t prime, const uint64_t *constants,
                              size_t constants_len, const uint64_t *other, size_t other_len, uint64_t *values,
                              size_t n);

#ifdef __cplusplus
}
#endif

#endif /* HELIB_C_TEST_API_H */
