/*
 * helib_c/types.h -- the status codes and the opaque handle types every part uses.
 *
 * A part of the C interface: include "helib_c.h", which includes every part
 * and states the conventions all of them follow.
 */
#ifndef HELIB_C_TYPES_H
#define HELIB_C_TYPES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Status codes returned by every function. */
typedef enum helib_status {
    HELIB_OK = 0,
    /** A required pointer argument was NULL. */
    HELIB_ERR_NULL_POINTER = 1,
    /** An argument is out of range or malformed (see the message). */
    HELIB_ERR_INVALID_ARGUMENT = 2,
    /** A level argument or a ciphertext level is not acceptable. */
    HELIB_ERR_INVALID_LEVEL = 3,
    /** Objects from different contexts were combined. */
    HELIB_ERR_CONTEXT_MISMATCH = 4,
    /** Operands are at different levels. */
    HELIB_ERR_LEVEL_MISMATCH = 5,
    /** Operands carry different plaintext correction factors. */
    HELIB_ERR_FACTOR_MISMATCH = 6,
    /** The noise budget is (or would be) exhausted. */
    HELIB_ERR_NOISE_BUDGET_EXHAUSTED = 7,
    /** A caller-given buffer is too small (the needed size is reported). */
    HELIB_ERR_BUFFER_TOO_SMALL = 8,
    /** The operating system's random source failed. */
    HELIB_ERR_RANDOMNESS = 9,
    /** Memory allocation failed (or the system could not start a worker thread). */
    HELIB_ERR_OUT_OF_MEMORY = 10,
    /** An internal invariant failed (a bug: please report it). */
    HELIB_ERR_INTERNAL = 11,
    /** A needed key (e.g. a Galois key for some element) is not in the key set. */
    HELIB_ERR_MISSING_KEY = 12,
    /** Bytes given to a decoder are not a valid encoding of the object asked for. */
    HELIB_ERR_MALFORMED_INPUT = 13,
    /**
     * The parameters are below 128-bit security and the caller did not pass
     * HELIB_CONTEXT_ALLOW_INSECURE.
     */
    HELIB_ERR_INSECURE_PARAMETERS = 14
} helib_status;

typedef struct helib_context helib_context;
typedef struct helib_secret_key helib_secret_key;
typedef struct helib_public_key helib_public_key;
typedef struct helib_encoded_plaintext helib_encoded_plaintext;
typedef struct helib_residue_import helib_residue_import;
typedef struct helib_ciphertext helib_ciphertext;
typedef struct helib_relin_key helib_relin_key;
typedef struct helib_galois_keys helib_galois_keys;
typedef struct helib_secret_share helib_secret_share;

#ifdef __cplusplus
}
#endif

#endif /* HELIB_C_TYPES_H */
