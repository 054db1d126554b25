/*
 * helib_c/serialization.h -- the versioned binary format of parameters, keys, ciphertexts and
 * plaintexts.
 *
 * A part of the C interface: include "helib_c.h", which includes every part
 * and states the conventions all of them follow.
 */
#ifndef HELIB_C_SERIALIZATION_H
#define HELIB_C_SERIALIZATION_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------- serialization */
/*
 * A versioned, compact binary format, specified in helib-sys/cpp/SERIALIZATION.md:
 * a 48-byte header (magic "HBGV", format version 1, the object's kind, the
 * 32-byte fingerprint of the context's parameters, the payload length), the
 * payload, and a SHA-256 checksum of header and payload (it detects
 * corruption; it is not a MAC and gives no authenticity). Residues are stored
 * in canonical form, packed at their prime's bit width; the uniform halves of
 * public keys, key-switching keys and secret-key ciphertexts are stored as
 * 32-byte seeds. Secret keys are written only by helib_secret_key_export,
 * an explicit request of the key's owner.
 *
 * Serializers use the two-call protocol in bytes: with buf == NULL, *len
 * receives the size; otherwise *len is the capacity of buf going in and the
 * size written coming out.
 *
 * Deserializers read exactly `len` bytes. They fail with
 * HELIB_ERR_MALFORMED_INPUT for anything that is not a valid encoding of the
 * object asked for (truncated, corrupted, another kind, another format
 * version, unreduced residues, out-of-range fields, trailing bytes) and with
 * HELIB_ERR_CONTEXT_MISMATCH for a valid encoding made under a context with
 * another fingerprint. They check every size before allocating: the memory
 * they use is bounded by a small multiple of `len` plus the context's tables.
 */

/** Bytes of a context fingerprint. */
#define HELIB_FINGERPRINT_BYTES 32
/**
 * Parameter flag: whoever serialized the parameters had allowed them to be
 * below 128-bit security. It is a record, not consent: bytes can come from
 * anyone, so a reader must not pass it on as HELIB_CONTEXT_ALLOW_INSECURE.
 */
#define HELIB_PARAMETERS_INSECURE 1u

/**
 * The SHA-256 fingerprint of the context's ring degree, plaintext modulus,
 * chain primes and special primes (out_len >= HELIB_FINGERPRINT_BYTES).
 */
helib_status helib_context_fingerprint(const helib_context *ctx, uint8_t *out, size_t out_len);

/**
 * Serializes parameters (no context needed; the fingerprint field is zero):
 * the arguments of helib_context_new except the thread count, plus `flags`
 * (0 or HELIB_PARAMETERS_INSECURE). Only their shape is checked (N a power of
 * two in [2^10, 2^17], t >= 2 in at most 64 limbs, 1 to 64 primes of 30 to 61 bits).
 */
helib_status helib_parameters_serialize(uint64_t ring_degree, const uint64_t *t_limbs, size_t t_nlimbs,
                                        const uint32_t *chain_bits, size_t chain_len,
                                        const uint32_t *special_bits, size_t special_len, uint32_t flags,
                                        uint8_t *buf, size_t *len);
/**
 * Reads serialized parameters. Each array comes with its capacity in `*..._len`,
 * which receives the count; 64 entries always suffice for each array. `*flags`
 * receives the stored flags, which are information only: building a context
 * from the parameters goes through helib_context_new and its security floor,
 * which only the caller's own HELIB_CONTEXT_ALLOW_INSECURE lifts.
 */
helib_status helib_parameters_deserialize(const uint8_t *buf, size_t len, uint64_t *ring_degree,
                                          uint64_t *t_limbs, size_t *t_nlimbs, uint32_t *chain_bits,
                                          size_t *chain_len, uint32_t *special_bits, size_t *special_len,
                                          uint32_t *flags);

/** Serializes a public key: b and the seed of a. */
helib_status helib_public_key_serialize(const helib_public_key *pk, uint8_t *buf, size_t *len);
helib_status helib_public_key_deserialize(const helib_context *ctx, const uint8_t *buf, size_t len,
                                          helib_public_key **out);

/** Serializes a relinearization key: per digit, b_j and the seed of a_j. */
helib_status helib_relin_key_serialize(const helib_relin_key *rk, uint8_t *buf, size_t *len);
helib_status helib_relin_key_deserialize(const helib_context *ctx, const uint8_t *buf, size_t len,
                                         helib_relin_key **out);

/** Serializes a set of Galois keys (elements ascending, each key as for the relinearization key). */
helib_status helib_galois_keys_serialize(const helib_galois_keys *keys, uint8_t *buf, size_t *len);
helib_status helib_galois_keys_deserialize(const helib_context *ctx, const uint8_t *buf, size_t len,
                                           helib_galois_keys **out);

/**
 * Serializes a ciphertext: level, size, correction factor, noise estimate and
 * polynomials. A fresh secret-key encryption stores c_1 as its seed (about
 * half the size); operations that change c_1 drop the seed.
 */
helib_status helib_ciphertext_serialize(const helib_ciphertext *ct, uint8_t *buf, size_t *len);
/**
 * Reads a ciphertext of `ctx` into `dst` (which must belong to `ctx`). A
 * stored noise estimate below the noise floor every ciphertext carries is
 * raised to it; a larger one is kept on trust (see SERIALIZATION.md).
 */
helib_status helib_ciphertext_deserialize(const helib_context *ctx, const uint8_t *buf, size_t len,
                                          helib_ciphertext *dst);

/**
 * Serializes a plaintext polynomial (n_coeffs <= N coefficients of
 * limbs_per_coeff limbs, each below t): coefficients packed at the bit size
 * of t, trailing zero coefficients omitted.
 */
helib_status helib_plaintext_serialize(const helib_context *ctx, const uint64_t *coeffs, size_t n_coeffs,
                                       size_t limbs_per_coeff, uint8_t *buf, size_t *len);
/**
 * Reads a plaintext polynomial into `coeffs` (N coefficients of
 * limbs_per_coeff >= plain limbs each; coeffs_len >= N * limbs_per_coeff).
 */
helib_status helib_plaintext_deserialize(const helib_context *ctx, const uint8_t *buf, size_t len,
                                         uint64_t *coeffs, size_t coeffs_len, size_t limbs_per_coeff);

/**
 * Exports a secret key: its N ternary coefficients, 2 bits each. THE BYTES
 * ARE THE KEY: whoever reads them can decrypt everything encrypted under it.
 * Call this only when the key's owner asked for an export (e.g. to store the
 * key in an encrypted keystore), keep the bytes secret and wipe them after
 * use. Two-call protocol as for the other serializers; the engine's own
 * temporaries are wiped.
 */
helib_status helib_secret_key_export(const helib_secret_key *sk, uint8_t *buf, size_t *len);
/**
 * Loads a key written by helib_secret_key_export under `ctx` (checked: frame,
 * fingerprint, every coefficient -1, 0 or 1). The engine copies the
 * coefficients only into memory it wipes; the caller wipes `buf`.
 */
helib_status helib_secret_key_import(const helib_context *ctx, const uint8_t *buf, size_t len,
                                     helib_secret_key **out);

#ifdef __cplusplus
}
#endif

#endif /* HELIB_C_SERIALIZATION_H */
