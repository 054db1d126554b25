/*
 * helib_c/errors.h -- the message and the typed detail of the last failure on a thread.
 *
 * A part of the C interface: include "helib_c.h", which includes every part
 * and states the conventions all of them follow.
 */
#ifndef HELIB_C_ERRORS_H
#define HELIB_C_ERRORS_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ errors */

/** The message of the last failed call on this thread ("" if none). */
const char *helib_last_error_message(void);

/*
 * The typed detail of the last failure, so that callers never parse messages.
 */

/** Which fields of a helib_error_detail are meaningful. */
typedef enum helib_error_detail_kind {
    /** The failure carries no detail beyond its status and message. */
    HELIB_DETAIL_NONE = 0,
    /**
     * HELIB_ERR_MISSING_KEY: the key for Galois element `element` is missing;
     * when `has_step` is nonzero, it is the key rotating the rows by `step`.
     */
    HELIB_DETAIL_MISSING_GALOIS_KEY = 1,
    /** HELIB_ERR_LEVEL_MISMATCH: the operands are at `left` and `right`. */
    HELIB_DETAIL_LEVEL_MISMATCH = 2,
    /** HELIB_ERR_INVALID_LEVEL: `left` was asked for and `right` is the highest allowed there. */
    HELIB_DETAIL_LEVEL_OUT_OF_RANGE = 3,
    /** HELIB_ERR_INVALID_LEVEL: a modulus switch at level 0 (no prime left to drop). */
    HELIB_DETAIL_CHAIN_EXHAUSTED = 4
} helib_error_detail_kind;

/** The typed detail of a failure (fields not named by `kind` are 0). */
typedef struct helib_error_detail {
    helib_status status;
    helib_error_detail_kind kind;
    uint64_t element;
    int64_t step;
    int has_step;
    size_t left;
    size_t right;
} helib_error_detail;

/**
 * The detail of the last failed call on this thread (kind HELIB_DETAIL_NONE
 * and status HELIB_OK if none); thread-local like the message.
 */
helib_status helib_last_error_detail(helib_error_detail *out);

#ifdef __cplusplus
}
#endif

#endif /* HELIB_C_ERRORS_H */
