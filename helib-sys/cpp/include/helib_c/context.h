/*
 * helib_c/context.h -- contexts (ring, plaintext modulus, prime chain, worker pool) and the
 * security table.
 *
 * A part of the C interface: include "helib_c.h", which includes every part
 * and states the conventions all of them follow.
 */
#ifndef HELIB_C_CONTEXT_H
#define HELIB_C_CONTEXT_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------------------------- context */

/**
 * Context flag: accept parameters below 128-bit security. For tests and
 * benchmarks only; it must come from the caller's own decision, never from
 * data (see HELIB_PARAMETERS_INSECURE).
 */
#define HELIB_CONTEXT_ALLOW_INSECURE 1u

/**
 * The most threads a context's worker pool may have (the calling thread
 * included); also the cap of "one per hardware thread".
 */
#define HELIB_MAX_THREADS 256u

/**
 * Builds a context: ring Z[X]/(X^N+1) with N = ring_degree (a power of two in
 * [2^10, 2^17]), plaintext modulus t (>= 2, coprime to every prime), a chain of
 * `chain_len` NTT-friendly primes whose bit sizes are `chain_bits` (each in
 * [30, 61]; q_0 first) and `special_len` special primes for key switching with
 * bit sizes `special_bits` (may be 0 of them). Primes are generated
 * deterministically: the same arguments give the same primes. `threads` is the
 * size of the worker pool (0 = one per hardware thread): more than
 * HELIB_MAX_THREADS gives HELIB_ERR_INVALID_ARGUMENT, and a worker thread the
 * system cannot start gives HELIB_ERR_OUT_OF_MEMORY (no thread is left behind).
 *
 * The parameters must reach 128-bit security: the sum of all prime sizes (a
 * bound on log2(Q*P)) must not exceed helib_security_max_log_qp(N, 128).
 * Otherwise the call fails with HELIB_ERR_INSECURE_PARAMETERS, unless `flags`
 * is HELIB_CONTEXT_ALLOW_INSECURE. `flags` is 0 or that flag; other bits are
 * HELIB_ERR_INVALID_ARGUMENT.
 */
helib_status helib_context_new(uint64_t ring_degree, const uint64_t *t_limbs, size_t t_nlimbs,
                               const uint32_t *chain_bits, size_t chain_len,
                               const uint32_t *special_bits, size_t special_len, uint32_t threads,
                               uint32_t flags, helib_context **out);
void helib_context_free(helib_context *ctx);
helib_status helib_context_ring_degree(const helib_context *ctx, uint64_t *out);
/** The top level L (number of chain primes minus one). */
helib_status helib_context_max_level(const helib_context *ctx, size_t *out);
/** Limbs needed for one coefficient mod t. */
helib_status helib_context_plain_limbs(const helib_context *ctx, size_t *out);
/** Two-call protocol: with buf == NULL, *len receives the number of chain primes. */
helib_status helib_context_chain_primes(const helib_context *ctx, uint64_t *buf, size_t *len);
/** Two-call protocol: with buf == NULL, *len receives the number of special primes. */
helib_status helib_context_special_primes(const helib_context *ctx, uint64_t *buf, size_t *len);
/** log2 of Q_level. */
helib_status helib_context_log2_modulus(const helib_context *ctx, size_t level, double *out);
/** log2 of the product of the special primes (0 if none). */
helib_status helib_context_log2_special_modulus(const helib_context *ctx, double *out);
/**
 * The canonical correction factor at `level` (the product of q_j^-1 mod t over
 * the dropped primes j > level), written to `out` (out_len >= plain limbs).
 */
helib_status helib_context_correction_factor(const helib_context *ctx, size_t level,
                                             uint64_t *out, size_t out_len);
/** Number of worker threads used for work across RNS primes. */
helib_status helib_context_threads(const helib_context *ctx, uint32_t *out);
/**
 * Resizes the worker pool (0 = one per hardware thread; at most
 * HELIB_MAX_THREADS, else HELIB_ERR_INVALID_ARGUMENT). Waits for a running
 * operation to finish. Thread-safe. When the system cannot start a worker
 * thread, fails with HELIB_ERR_OUT_OF_MEMORY and the pool keeps the threads it
 * had (helib_context_threads reports them, and later resizes work).
 */
helib_status helib_context_set_threads(const helib_context *ctx, uint32_t threads);

/* ---------------------------------------------------------------- security */
/*
 * The engine's security table: for ring degree N, the largest log2(Q*P) (Q the
 * chain, P the special primes) that reaches 128, 192 or 256 bits of security
 * against classical attacks with a ternary secret, after the 2024
 * HomomorphicEncryption.org guidelines and OpenFHE's table (the sources are
 * cited in cpp/src/ring/security.cpp).
 */

/**
 * The largest log2(Q*P) reaching `security_bits` (128, 192 or 256) at ring
 * degree N (a power of two in [2^10, 2^17]); anything else is
 * HELIB_ERR_INVALID_ARGUMENT.
 */
helib_status helib_security_max_log_qp(uint64_t ring_degree, uint32_t security_bits, uint32_t *out);
/**
 * The security level log2(Q*P) = log2_qp reaches at ring degree N: 256, 192 or
 * 128, or 0 below 128 bits (also for a ring degree outside the table and for
 * a NaN).
 */
helib_status helib_security_estimate(uint64_t ring_degree, double log2_qp, uint32_t *out);

#ifdef __cplusplus
}
#endif

#endif /* HELIB_C_CONTEXT_H */
