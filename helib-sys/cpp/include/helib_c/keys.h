/*
 * helib_c/keys.h -- secret and public keys.
 *
 * A part of the C interface: include "helib_c.h", which includes every part
 * and states the conventions all of them follow.
 */
#ifndef HELIB_C_KEYS_H
#define HELIB_C_KEYS_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -------------------------------------------------------------------- keys */

/** Samples a ternary secret key from the OS CSPRNG. Freed memory is wiped. */
helib_status helib_secret_key_generate(const helib_context *ctx, helib_secret_key **out);
void helib_secret_key_free(helib_secret_key *sk);
/** Derives a public key (b = -a*s + t*e, a) at the top level. */
helib_status helib_public_key_generate(const helib_secret_key *sk, helib_public_key **out);
void helib_public_key_free(helib_public_key *pk);

#ifdef __cplusplus
}
#endif

#endif /* HELIB_C_KEYS_H */
