/*
 * helib_c.h -- the C interface of the big-plaintext-modulus BGV engine.
 *
 * Conventions
 *  - Every object is a typed opaque handle. Objects made by `*_new`/`*_generate`
 *    are released with the matching `*_free` (which accepts NULL).
 *  - Every function except the `*_free` functions returns a `helib_status`.
 *    On failure, `helib_last_error_message()` describes the problem; the
 *    message is thread-local and valid until the next call on that thread.
 *  - No C++ exception, abort or exit ever crosses this interface.
 *  - Every handle keeps the context it was made in alive, so handles may be
 *    freed in any order.
 *  - Big integers (plaintext coefficients, scalars, the plaintext modulus)
 *    cross the interface as little-endian arrays of 64-bit limbs. A plaintext
 *    polynomial is `n_coeffs * limbs_per_coeff` limbs, coefficient-major;
 *    `limbs_per_coeff` is whatever the caller uses (at least one), and every
 *    coefficient must be below t.
 *  - Sizes: every array a caller passes, input or output, is one that can
 *    exist (at most PTRDIFF_MAX bytes): its count, an output's capacity
 *    (out_len, or *len going in under the two-call protocol) and a count
 *    times a width (n_coeffs * limbs_per_coeff, N * limbs_per_coeff, which
 *    must not overflow size_t) alike; an integer given as limbs has at most
 *    2^20 limbs. Larger values fail with HELIB_ERR_INVALID_ARGUMENT before
 *    anything is read or written, unless the function documents another
 *    status for a length it checks exactly.
 *  - Levels: a context has chain primes q_0..q_L; a ciphertext at level l is
 *    defined modulo Q_l = q_0 * ... * q_l. Modulus switching drops q_l.
 *  - Operations writing to a `dst` handle allow `dst` to alias an input. A
 *    call that fails leaves `dst` (and every other argument) unchanged.
 *  - Two-call protocol for arrays: with buf == NULL, *len receives the count;
 *    otherwise *len is the capacity of buf going in and the count coming out.
 *  - Limb outputs longer than needed are zero-padded.
 *  - Handles are not internally locked: concurrent use of one handle is safe
 *    only for functions taking it as `const`. A context may be shared freely.
 *
 * The declarations are in the parts under helib_c/, one a concept, included
 * below in the order they build on each other; C users include this header.
 */
#ifndef HELIB_C_H
#define HELIB_C_H

#include "helib_c/types.h"
#include "helib_c/errors.h"
#include "helib_c/context.h"
#include "helib_c/keys.h"
#include "helib_c/plaintext.h"
#include "helib_c/ciphertext.h"
#include "helib_c/encryption.h"
#include "helib_c/evaluate.h"
#include "helib_c/key_switching.h"
#include "helib_c/block_product.h"
#include "helib_c/linear_transform.h"
#include "helib_c/serialization.h"
#include "helib_c/threshold.h"
#include "helib_c/shamir.h"
#include "helib_c/runtime.h"
#include "helib_c/field_ntt.h"

#endif /* HELIB_C_H */
