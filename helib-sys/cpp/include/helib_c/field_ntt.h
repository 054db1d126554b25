/*
 * helib_c/field_ntt.h -- the NTT over the plaintext field.
 *
 * A part of the C interface: include "helib_c.h", which includes every part
 * and states the conventions all of them follow.
 */
#ifndef HELIB_C_FIELD_NTT_H
#define HELIB_C_FIELD_NTT_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------ NTT over the plaintext field */

/**
 * Precomputed tables of the negacyclic NTT of length n over F_t, for an odd
 * t < 2^255 and a primitive 2n-th root psi (elements: 4 little-endian 64-bit
 * limbs). The forward transform maps the coefficients of m(X) in
 * F_t[X]/(X^n + 1) to m(psi^(2k+1)), k = 0..n in natural order; the inverse
 * maps them back. Safe to use from several threads at once.
 */
typedef struct helib_field_ntt helib_field_ntt;

/** Kernels of helib_field_ntt_forward/inverse. */
/** The one HELIB_CPU allows: AVX-512 IFMA when the CPU has it and n >= 64, else portable. */
#define HELIB_FIELD_NTT_AUTO 0u
/** The portable kernel (4 x 64-bit Montgomery products). */
#define HELIB_FIELD_NTT_SCALAR 1u
/** The AVX-512 IFMA kernel; HELIB_ERR_INVALID_ARGUMENT where it cannot run. */
#define HELIB_FIELD_NTT_IFMA 2u

/**
 * The tables for modulus `t` and root `psi` (4 limbs each) and length `n`.
 * HELIB_ERR_INVALID_ARGUMENT unless t is odd and in (2, 2^255), n is a power
 * of two in [2, 2^17], psi < t, psi^n = -1 and psi^(2n) = 1 (mod t).
 */
helib_status helib_field_ntt_new(const uint64_t *t, uint64_t n, const uint64_t *psi, helib_field_ntt **out);
void helib_field_ntt_free(helib_field_ntt *table);
/** 1 in *out when HELIB_FIELD_NTT_AUTO runs the IFMA kernel, else 0. */
helib_status helib_field_ntt_vectorized(const helib_field_ntt *table, int *out);
/** 1 in *out when HELIB_FIELD_NTT_IFMA can run (whatever HELIB_CPU says), else 0. */
helib_status helib_field_ntt_ifma_available(const helib_field_ntt *table, int *out);
/**
 * The forward transform, in place, of each of the len / (4 n) vectors in
 * `values` (len words; a multiple of 4 n). Every element must be < t
 * (HELIB_ERR_INVALID_ARGUMENT otherwise, with `values` unchanged).
 */
helib_status helib_field_ntt_forward(const helib_field_ntt *table, uint64_t *values, size_t len, uint32_t kernel);
/** The inverse transform; as helib_field_ntt_forward. */
helib_status helib_field_ntt_inverse(const helib_field_ntt *table, uint64_t *values, size_t len, uint32_t kernel);

#ifdef __cplusplus
}
#endif

#endif /* HELIB_C_FIELD_NTT_H */
