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
 */
#ifndef HELIB_C_H
#define HELIB_C_H

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

/* ------------------------------------------------------------------ errors */

/** The message of the last failed call on this thread ("" if none). */
const char *helib_last_error_message(void);

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

/* -------------------------------------------------------------------- keys */

/** Samples a ternary secret key from the OS CSPRNG. Freed memory is wiped. */
helib_status helib_secret_key_generate(const helib_context *ctx, helib_secret_key **out);
void helib_secret_key_free(helib_secret_key *sk);
/** Derives a public key (b = -a*s + t*e, a) at the top level. */
helib_status helib_public_key_generate(const helib_secret_key *sk, helib_public_key **out);
void helib_public_key_free(helib_public_key *pk);

/* --------------------------------------------------------- encoded plaintext */

/**
 * Encodes a plaintext polynomial (n_coeffs <= N coefficients, missing ones are
 * zero) into RNS + NTT form at `level`, scaled by the correction factor
 * `factor` (NULL means 1; otherwise factor_nlimbs limbs, reduced mod t and
 * invertible mod t). Multiplying a ciphertext with correction factor c by it gives
 * factor c * factor; adding it requires the ciphertext's factor to equal it.
 */
helib_status helib_encoded_plaintext_new(const helib_context *ctx, const uint64_t *coeffs,
                                         size_t n_coeffs, size_t limbs_per_coeff, size_t level,
                                         const uint64_t *factor, size_t factor_nlimbs,
                                         helib_encoded_plaintext **out);
/**
 * As helib_encoded_plaintext_new, but the encoding also holds the residues
 * modulo the special primes (about K / (level + 1) more memory): the form
 * helib_ciphertext_linear_transform multiplies by. It works wherever the
 * ordinary encoding does.
 */
helib_status helib_encoded_plaintext_new_extended(const helib_context *ctx, const uint64_t *coeffs,
                                                  size_t n_coeffs, size_t limbs_per_coeff, size_t level,
                                                  const uint64_t *factor, size_t factor_nlimbs,
                                                  helib_encoded_plaintext **out);
/**
 * As helib_encoded_plaintext_new (extended 0) or
 * helib_encoded_plaintext_new_extended (extended 1), for a public plaintext
 * (the evaluator's own constants, a linear transform's diagonals): one that
 * is a polynomial in X^s is kept compact (see helib_encoded_plaintext_stride),
 * s times smaller and cheaper to make, and the time that takes depends on s.
 * A plaintext that may be secret (a message added to an encryption of zero)
 * takes helib_encoded_plaintext_new, which works the same whatever its
 * coefficients. Any other `extended` gives HELIB_ERR_INVALID_ARGUMENT.
 */
helib_status helib_encoded_plaintext_new_public(const helib_context *ctx, const uint64_t *coeffs,
                                                size_t n_coeffs, size_t limbs_per_coeff, size_t level,
                                                const uint64_t *factor, size_t factor_nlimbs, int extended,
                                                helib_encoded_plaintext **out);
void helib_encoded_plaintext_free(helib_encoded_plaintext *pt);
helib_status helib_encoded_plaintext_level(const helib_encoded_plaintext *pt, size_t *out);
/**
 * The fewest words a prime a compact encoded plaintext keeps: strides go up
 * to N / HELIB_MIN_COMPACT_LENGTH.
 */
#define HELIB_MIN_COMPACT_LENGTH 16u
/**
 * The stride s of an encoded plaintext: 1 for a full encoding, or the power
 * of two s > 1 such that the plaintext is a polynomial in X^s, which the
 * engine detects when it encodes a public plaintext
 * (helib_encoded_plaintext_new_public) and keeps compact (N / s words a
 * prime; s at most N / HELIB_MIN_COMPACT_LENGTH). A slot vector that repeats
 * with period P along each row encodes to a polynomial in X^(N / 2P).
 */
helib_status helib_encoded_plaintext_stride(const helib_encoded_plaintext *pt, size_t *out);
/**
 * The raw form of an encoded plaintext, for caches of encodings (such as
 * saved linear-transform plans): its residues exactly as the engine holds
 * them (NTT and Montgomery form, prime by prime: the chain primes 0..=level,
 * then the special primes when extended; N / stride words each, see
 * helib_encoded_plaintext_stride) and the two norms its noise estimates use. `residues_len` must be the encoding's word count
 * (helib_encoded_plaintext_word_count); either norm pointer may be NULL.
 * The layout is the engine's internal one: a cache must record the format
 * it was written with and treat other versions as stale.
 */
helib_status helib_encoded_plaintext_word_count(const helib_encoded_plaintext *pt, size_t *out);
helib_status helib_encoded_plaintext_export_residues(const helib_encoded_plaintext *pt, uint64_t *residues,
                                                     size_t residues_len, double *log2_linf,
                                                     double *log2_l1);
/**
 * An encoded plaintext from the raw form helib_encoded_plaintext_export_residues
 * gives, validated before anything is kept: `level` at most the top level,
 * `extended` (0 or 1) only with special primes, `stride` a power of two from
 * 1 to N / HELIB_MIN_COMPACT_LENGTH, `residues_len` the word count that level, form and stride imply, every residue below its prime, each norm either
 * the zero polynomial's marker (-1e300) or in [0, log2 t + log2 N], and the factor (NULL means 1) reduced and invertible mod t. Bad input
 * gives HELIB_ERR_MALFORMED_INPUT (HELIB_ERR_INVALID_LEVEL for the level).
 */
helib_status helib_encoded_plaintext_import_residues(const helib_context *ctx, size_t level, int extended,
                                                     size_t stride, const uint64_t *factor, size_t factor_nlimbs,
                                                     const uint64_t *residues, size_t residues_len,
                                                     double log2_linf, double log2_l1,
                                                     helib_encoded_plaintext **out);

/**
 * The residues of an encoded plaintext in place (the layout
 * helib_encoded_plaintext_export_residues copies) and its norms, without a
 * copy: `*residues` stays valid, and unchanged, while `pt` is alive. Either
 * norm pointer may be NULL.
 */
helib_status helib_encoded_plaintext_residues(const helib_encoded_plaintext *pt, const uint64_t **residues,
                                              size_t *residues_len, double *log2_linf, double *log2_l1);
/**
 * helib_encoded_plaintext_import_residues without the intermediate copy: the
 * caller writes the residues straight into the buffer of an import, which
 * checks them (every residue below its prime) before an encoded plaintext is
 * made of them.
 *
 * helib_residue_import_begin allocates an import for `level`, `extended` and
 * `stride` (validated as for helib_encoded_plaintext_import_residues) and gives its
 * buffer: `*residues_len` words of unspecified (but initialized) values, the
 * caller's to fill.
 * helib_residue_import_check checks words [0, upto) that were not checked
 * yet (call it on each filled range while the range is in cache; optional).
 * helib_residue_import_finish checks the remaining words, the factor (NULL
 * means 1) and the norms, and on success moves the buffer into a new
 * encoded plaintext; the import is then spent (a second finish gives
 * HELIB_ERR_INVALID_ARGUMENT). Bad residues, factor or norms give
 * HELIB_ERR_MALFORMED_INPUT and no plaintext. The caller frees the import
 * with helib_residue_import_free in every case (after finish too), and must
 * not use the buffer once the import is freed or spent.
 */
helib_status helib_residue_import_begin(const helib_context *ctx, size_t level, int extended, size_t stride,
                                        helib_residue_import **out, uint64_t **residues, size_t *residues_len);
helib_status helib_residue_import_check(helib_residue_import *import, size_t upto);
helib_status helib_residue_import_finish(helib_residue_import *import, const uint64_t *factor,
                                         size_t factor_nlimbs, double log2_linf, double log2_l1,
                                         helib_encoded_plaintext **out);
void helib_residue_import_free(helib_residue_import *import);

/* -------------------------------------------------------------- ciphertext */

/** An empty ciphertext (a valid `dst`; not usable as an input until written). */
helib_status helib_ciphertext_new(const helib_context *ctx, helib_ciphertext **out);
void helib_ciphertext_free(helib_ciphertext *ct);
helib_status helib_ciphertext_copy(const helib_ciphertext *src, helib_ciphertext *dst);
helib_status helib_ciphertext_level(const helib_ciphertext *ct, size_t *out);
/** Number of polynomials (2 for a fresh ciphertext). */
helib_status helib_ciphertext_size(const helib_ciphertext *ct, size_t *out);
/** The tracked correction factor, out_len >= plain limbs. */
helib_status helib_ciphertext_correction_factor(const helib_ciphertext *ct, uint64_t *out,
                                                size_t out_len);
/** Conservative estimate of log2 of the noise infinity norm, tracked without the key. */
helib_status helib_ciphertext_noise_estimate(const helib_ciphertext *ct, double *out);
/** Estimated remaining budget in bits: log2(Q_l / 2) - noise estimate. */
helib_status helib_ciphertext_estimated_budget(const helib_ciphertext *ct, double *out);

/* ===================================================== structured results
 * One call for everything the engine tracks about a ciphertext, and the
 * typed detail of the last failure, so that callers never parse messages.
 */

/** What the engine tracks about a written ciphertext (see helib_ciphertext_info). */
typedef struct helib_ciphertext_info {
    /** The level l. */
    size_t level;
    /** The number of polynomials. */
    size_t size;
    /** As helib_ciphertext_noise_estimate. */
    double noise_estimate_bits;
    /** As helib_ciphertext_estimated_budget. */
    double estimated_budget_bits;
} helib_ciphertext_info;

/**
 * Fills `*out` and writes the correction factor to `factor` (factor_len >=
 * plain limbs, zero-padded) in one call: the same values as the five getters
 * above.
 */
helib_status helib_ciphertext_get_info(const helib_ciphertext *ct, helib_ciphertext_info *out,
                                       uint64_t *factor, size_t factor_len);

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

/**
 * The steps a rotation by `step` is composed of under
 * helib_ciphertext_rotate_rows with `compose` when its own key is missing:
 * signed powers of two, the non-adjacent form of k = step mod N/2 or of
 * k - N/2, whichever has fewer terms (k's on a tie); none for k = 0.
 * Two-call protocol.
 */
helib_status helib_rotation_terms(const helib_context *ctx, int64_t step, int64_t *buf, size_t *len);

/**
 * The residues of polynomial `part` (below the ciphertext's size) modulo chain
 * prime `prime` (at most its level), in the engine's evaluation form: N values
 * in [0, q), value j being the polynomial at psi^(2 bitrev(j) + 1) mod q for
 * the engine's primitive 2N-th root of unity psi mod q, so that ring products
 * are value by value. Written to `out` (out_len >= N). A prime above the level
 * is HELIB_ERR_INVALID_LEVEL (detail HELIB_DETAIL_LEVEL_OUT_OF_RANGE), a part
 * beyond the size HELIB_ERR_INVALID_ARGUMENT.
 */
helib_status helib_ciphertext_residues(const helib_ciphertext *ct, size_t part, size_t prime, uint64_t *out,
                                       size_t out_len);

/* ================================================= end structured results */

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

/* --------------------------------------------------------------- evaluator */
/*
 * Every operation that produces a ciphertext (here and under key switching
 * below) refuses with HELIB_ERR_NOISE_BUDGET_EXHAUSTED, before writing dst,
 * when the key-free estimate says the result would keep less than one bit of
 * budget; so does a modulus switch to a level whose Q_l cannot hold the
 * switching noise (about t * sqrt(N), e.g. a level below t).
 */

helib_status helib_ciphertext_add(const helib_ciphertext *a, const helib_ciphertext *b,
                                  helib_ciphertext *dst);
helib_status helib_ciphertext_sub(const helib_ciphertext *a, const helib_ciphertext *b,
                                  helib_ciphertext *dst);
helib_status helib_ciphertext_negate(const helib_ciphertext *a, helib_ciphertext *dst);
/** Adds an encoded plaintext (level >= the ciphertext's, same correction factor). */
helib_status helib_ciphertext_add_plain(const helib_ciphertext *a,
                                        const helib_encoded_plaintext *p, helib_ciphertext *dst);
helib_status helib_ciphertext_sub_plain(const helib_ciphertext *a,
                                        const helib_encoded_plaintext *p, helib_ciphertext *dst);
/**
 * Multiplies by an encoded plaintext at the ciphertext's level or above (its
 * residues for the primes the ciphertext has are used). Refuses
 * (HELIB_ERR_NOISE_BUDGET_EXHAUSTED) when the estimate says the result would
 * not decrypt. The result's correction factor is the product of both factors.
 */
helib_status helib_ciphertext_mul_plain(const helib_ciphertext *a,
                                        const helib_encoded_plaintext *p, helib_ciphertext *dst);
/**
 * Adds the constant polynomial k (an integer of up to 2^20 limbs, reduced mod t) to the
 * plaintext: the ciphertext's correction factor is applied, so the result
 * decrypts to m + k. One pass over c_0, no encoding. Adds at most t/2 of noise.
 */
helib_status helib_ciphertext_add_scalar(const helib_ciphertext *a, const uint64_t *k_limbs,
                                         size_t k_nlimbs, helib_ciphertext *dst);
/**
 * Multiplies by the integer k mod t (k given as up to 2^20 limbs; reduced mod t,
 * then centred, so the noise grows by at most t/2). Refuses
 * (HELIB_ERR_NOISE_BUDGET_EXHAUSTED) when the estimate says the result would
 * not decrypt.
 */
helib_status helib_ciphertext_mul_scalar(const helib_ciphertext *a, const uint64_t *k_limbs,
                                         size_t k_nlimbs, helib_ciphertext *dst);
/** Drops the last prime of the ciphertext's modulus (level l -> l-1, l >= 1). */
helib_status helib_ciphertext_mod_switch(const helib_ciphertext *a, helib_ciphertext *dst);
/** Drops primes until the ciphertext is at `level` (<= its level). */
helib_status helib_ciphertext_mod_switch_to(const helib_ciphertext *a, size_t level,
                                            helib_ciphertext *dst);
/**
 * Drops primes as long as each switch costs (almost) no noise budget, i.e.
 * while the estimated noise stays well above the modulus-switching floor.
 * The budget is preserved while the ciphertext shrinks and later operations
 * get cheaper; never goes below level 0.
 */
helib_status helib_ciphertext_mod_switch_reduce_noise(const helib_ciphertext *a,
                                                      helib_ciphertext *dst);

/**
 * dst = a + (b * xi, a_pk * xi) for the public key (b, a_pk) and a fresh
 * ternary xi: an encryption of zero WITHOUT fresh error terms added. This is
 * the "constant-time randomization" of the Smuche caching scheme, exposed so
 * that scheme can be implemented faithfully and studied. It is NOT a secure
 * re-randomization: the result stays linearly related to `a` (see the
 * he-cache-analysis crate). Use a fresh encryption of zero instead.
 * Implemented, isolated, in cpp/src/bgv/smuche_mask.cpp.
 */
helib_status helib_ciphertext_add_public_key_mask(const helib_public_key *pk,
                                                  const helib_ciphertext *a,
                                                  helib_ciphertext *dst);

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
 * Tensor product of two size-2 ciphertexts at the same level (any correction
 * factors; the result's is their product): a size-3 ciphertext. Refuses
 * (HELIB_ERR_NOISE_BUDGET_EXHAUSTED) when the estimate says it would not decrypt.
 */
helib_status helib_ciphertext_multiply(const helib_ciphertext *a, const helib_ciphertext *b,
                                       helib_ciphertext *dst);
/**
 * Block product of two polynomials held as blocks A = sum_i A_i X^(i s) and
 * B = sum_j B_j X^(j s), one size-2 ciphertext per block (the blocks of one
 * operand share a level and a correction factor; both operands one level):
 * dsts[k] receives D_(first + k) = sum_(i + j = first + k) A_i * B_j, a size-3
 * ciphertext, for k < dst_count. Computed exactly by an NTT across the blocks
 * (a_count + b_count - 1 <= N). dsts must not alias an input. Refuses
 * (HELIB_ERR_NOISE_BUDGET_EXHAUSTED) before any work when the estimate says a
 * result would not decrypt.
 */
helib_status helib_ciphertext_multiply_blocks(const helib_ciphertext *const *a, size_t a_count,
                                              const helib_ciphertext *const *b, size_t b_count, size_t first,
                                              helib_ciphertext *const *dsts, size_t dst_count);
/**
 * As helib_ciphertext_multiply_blocks with encoded plaintext blocks b (encoded
 * at or above the ciphertexts' level, one correction factor): size-2 results.
 */
helib_status helib_ciphertext_multiply_plain_blocks(const helib_ciphertext *const *a, size_t a_count,
                                                    const helib_encoded_plaintext *const *b, size_t b_count,
                                                    size_t first, helib_ciphertext *const *dsts, size_t dst_count);
/**
 * The noise estimate (log2, into *out) of the outputs of a block product at
 * `level`, refusing (HELIB_ERR_NOISE_BUDGET_EXHAUSTED) when they would not
 * decrypt: the estimate helib_ciphertext_multiply_blocks (plain = 0) and
 * helib_ciphertext_multiply_plain_blocks (plain = 1) use. For ciphertext
 * operands noise_a and b_log2 are the largest noise estimates of the blocks of
 * a and of b and terms = min(a_count, b_count); with plain = 1 b_log2 is log2
 * of the sum of the plaintext blocks' l1 norms and terms is unused. For a
 * block product computed from residue rows (helib_context_convolve_rows).
 */
helib_status helib_block_product_noise(const helib_context *ctx, size_t level, double noise_a, double b_log2,
                                       int plain, size_t terms, double *out);
/**
 * One chain prime's block convolution on rows of residues (engine form):
 * for `width` slot columns of every block, the values
 * helib_ciphertext_multiply_blocks computes in those columns modulo prime
 * `prime`. `a` holds a_blocks x a_parts rows of `width` words (block major,
 * then part; a_parts = 2); `b` b_blocks x b_parts rows (b_parts = 2, or 1 for
 * an encoded plaintext's rows, which are in Montgomery form: b_montgomery =
 * 1). `out` receives out_blocks product blocks from block `first` on, each
 * a_parts + b_parts - 1 rows; width, a_blocks and b_blocks are at most N
 * (HELIB_ERR_INVALID_ARGUMENT otherwise, before any array is read). Residues
 * not below the prime give HELIB_ERR_MALFORMED_INPUT. Columns are
 * independent, so processes holding different columns of the same blocks
 * together compute a whole block product.
 */
helib_status helib_context_convolve_rows(const helib_context *ctx, size_t prime, size_t width, const uint64_t *a,
                                         size_t a_blocks, size_t a_parts, const uint64_t *b, size_t b_blocks,
                                         size_t b_parts, int b_montgomery, size_t first, uint64_t *out,
                                         size_t out_blocks);
/**
 * dst = the ciphertext of `parts` (2 or 3) polynomials at `level` with these
 * residues (engine form, part major then prime: parts x (level + 1) x N
 * words, as helib_ciphertext_residues reads them), correction factor `factor`
 * (factor_nlimbs limbs) and noise estimate `noise_log2`. A residue not below
 * its prime, a factor not invertible mod t, a non-finite estimate or a wrong
 * length give HELIB_ERR_MALFORMED_INPUT (HELIB_ERR_INVALID_LEVEL for the
 * level); an estimate below the floor is raised to it, as on deserialization.
 */
helib_status helib_ciphertext_import_residues(const helib_context *ctx, size_t level, size_t parts,
                                              const uint64_t *factor, size_t factor_nlimbs, double noise_log2,
                                              const uint64_t *residues, size_t residues_len, helib_ciphertext *dst);
/**
 * dst = a * X^k for 0 <= k < 2N (X^N = -1): the plaintext's coefficients are
 * shifted and negated where they wrap; the noise's norm is unchanged and no
 * key is needed.
 */
helib_status helib_ciphertext_mul_monomial(const helib_ciphertext *a, uint64_t k, helib_ciphertext *dst);
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
/**
 * A baby-step giant-step linear transform with double hoisting:
 *   dst = sum_{j < G} sigma_giant^j( sum_{i < B} p[j * B + i] * sigma_{baby[i]}(a) )
 * with B = baby_count and G = plain_count / B (plain_count a nonzero multiple
 * of B; NULL entries are zero terms). c_1 of `a` is decomposed once; the baby
 * steps stay in the key-switching basis, where the products are summed, so
 * each giant step costs one division by P; the giant sum runs in Horner form
 * with the single key for `giant` (needed when G > 1). Element 1 is the
 * identity and needs no key. The plaintexts must come from
 * helib_encoded_plaintext_new_extended at a level >= a's, with one common
 * correction factor. Refused (HELIB_ERR_NOISE_BUDGET_EXHAUSTED) before any
 * work when the estimate says the result would not decrypt.
 */
helib_status helib_ciphertext_linear_transform(const helib_galois_keys *keys, const helib_ciphertext *a,
                                               const uint64_t *baby, size_t baby_count, uint64_t giant,
                                               const helib_encoded_plaintext *const *plains,
                                               size_t plain_count, helib_ciphertext *dst);

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

/* --------------------------------------------------------------- threshold */
/*
 * N-out-of-N threshold BGV (Mouchet et al., "Multiparty homomorphic encryption
 * from RLWE"). Each party holds an ordinary secret key s_i; the collective
 * secret is s = s_1 + ... + s_N and is never formed. A share is a polynomial
 * as residues in NTT form (standard representation, each below its prime),
 * prime-major: a "chain share" at level l is (l + 1) * N residues modulo
 * q_0..q_l; a "key share" is digits * (L + 1 + K) * N residues, one
 * polynomial modulo every prime (chain, then special) per key-switching digit
 * (helib_threshold_key_share_len). The caller sums the parties' shares
 * residue-wise modulo each prime and passes the sums on. Common reference
 * polynomials are expanded from a 32-byte seed the parties agree on
 * (HELIB_THRESHOLD_SEED_BYTES). Every buffer length is checked exactly, and
 * every input residue must be reduced (HELIB_ERR_INVALID_ARGUMENT otherwise).
 *
 * Smudging: decryption, encryption-to-shares and key-switching shares add
 * t * E with E uniform in [-2^k, 2^k), where 2^k >= 2^lambda * N * ||e|| for
 * the error bound ||e|| the party agreed to (helib_smudging) and the
 * statistical parameter lambda (`security_bits`, e.g. 40). The width never
 * comes from the ciphertext's own noise estimate: that travels in the
 * ciphertext's bytes, and whoever hands a party a ciphertext could forge it
 * low. A ciphertext that is not at the agreed level (HELIB_ERR_LEVEL_MISMATCH),
 * not of size 2 (HELIB_ERR_INVALID_ARGUMENT) or that claims more noise than
 * the agreed bound (HELIB_ERR_NOISE_BUDGET_EXHAUSTED) is refused before any
 * share is released.
 */

/**
 * What a party agrees to smudge for before it sees a ciphertext: the number
 * of parties (in [1, HELIB_MAX_PARTIES]) that each add a smudging term, lambda (in
 * [1, 128]), the level the agreed computation's results are at, and the most
 * noise (log2 of ||m + t e||_inf, bits, at least the engine's noise floor) a
 * result can carry there. helib_threshold_smudging_for_level gives the widest
 * bound a level can hold; a tighter bound (a computation's own, from the
 * noise model) keeps more of the budget for a key-switched result.
 */
typedef struct helib_smudging {
    uint32_t parties;
    uint32_t security_bits;
    size_t level;
    double noise_bits;
} helib_smudging;

/** Bytes of a common reference seed. */
#define HELIB_THRESHOLD_SEED_BYTES 32u

/** The most parties a threshold protocol (smudging, Shamir re-sharing, collective keys) may have. */
#define HELIB_MAX_PARTIES 4096u

/**
 * Bits of budget a level keeps free beyond the smudged noise, so that
 * helib_threshold_decrypt_combine tells a missing or forged share (a phase
 * spread over Z_Q) from honest ones.
 */
#define HELIB_SMUDGING_CHECK_BITS 2u

/**
 * The modulus bits collective decryption (and encryption to shares, key
 * switching) needs at a level beyond an ordinary decryption, for `parties`
 * parties (in [1, HELIB_MAX_PARTIES]) at statistical security
 * `security_bits` (in [1, 128]) on ring degree `ring_degree`: a bound on what
 * the smudging width of helib_threshold_smudging_bits adds, plus
 * HELIB_SMUDGING_CHECK_BITS. For sizing chains before a context exists.
 */
helib_status helib_threshold_smudging_room_bits(size_t ring_degree, uint32_t parties, uint32_t security_bits,
                                                uint32_t *out);

/**
 * A 32-byte digest identifying a ciphertext (level, size, correction factor
 * and a polynomial hash of every residue), to bind shares to the ciphertext
 * they were computed on; out_len must be 32. Not a commitment against a
 * party choosing colliding ciphertexts on purpose.
 */
helib_status helib_threshold_ciphertext_digest(const helib_ciphertext *ct, uint8_t *out, size_t out_len);
/** The residues of one key share of `ctx` (fails without special primes). */
helib_status helib_threshold_key_share_len(const helib_context *ctx, size_t *out);
/** A chain share (top level) of the public key: -a s_i + t e_i, a from `seed`. */
helib_status helib_threshold_public_key_share(const helib_secret_key *sk, const uint8_t *seed, uint64_t *out,
                                              size_t out_len);
/** The collective public key (sum of the shares, a from `seed`). */
helib_status helib_threshold_public_key_assemble(const helib_context *ctx, const uint8_t *seed, const uint64_t *b,
                                                 size_t len, helib_public_key **out);
/** A key share of the Galois key for element g: -a_d s_i + t e + P g_d s_i(X^g) per digit d. */
helib_status helib_threshold_galois_key_share(const helib_secret_key *sk, uint64_t g, const uint8_t *seed,
                                              uint64_t *out, size_t out_len);
/**
 * Inserts the collective Galois key for g (sum of the shares of `parties`
 * parties, in [1, HELIB_MAX_PARTIES]; its noise estimate accounts for them) into `keys`.
 */
helib_status helib_threshold_galois_keys_insert(helib_galois_keys *keys, uint64_t g, const uint8_t *seed,
                                                uint32_t parties, const uint64_t *b, size_t len);
/**
 * Round 1 of the relinearization key: with a fresh ephemeral secret u_i (a
 * secret key the party keeps until round 2), h0 = -u_i a_d + P g_d s_i + t e,
 * h1 = s_i a_d + t e' (two key shares of `len` residues, written in place:
 * h0 and h1 must not overlap; both are wiped on failure).
 */
helib_status helib_threshold_relin_key_round1(const helib_secret_key *sk, const helib_secret_key *ephemeral,
                                              const uint8_t *seed, uint64_t *h0, uint64_t *h1, size_t len);
/**
 * Round 2: s_i h0 + (u_i - s_i) h1 + t e for the round-1 sums (key shares),
 * read in place and written to `out`, which must overlap neither sum.
 * Refuses (HELIB_ERR_MALFORMED_INPUT, nothing released) sums that no honest
 * round 1 produces: a digit of h0 or h1 with half its coefficients modulo q_0
 * near zero (e.g. h0 = 1, h1 = 0, which would reveal s_i). The callers'
 * protocol must also keep a party from choosing its round-1 share after
 * seeing the others' (commit, then open), which this check cannot see. An
 * unreduced residue gives HELIB_ERR_INVALID_ARGUMENT, with `out` wiped.
 */
helib_status helib_threshold_relin_key_round2(const helib_secret_key *sk, const helib_secret_key *ephemeral,
                                              const uint64_t *h0_sum, const uint64_t *h1_sum, size_t len,
                                              uint64_t *out, size_t out_len);
/**
 * The collective relinearization key of `parties` parties (in [1, HELIB_MAX_PARTIES]; its
 * noise estimate accounts for them): b = sum of round-2 shares, a = h1_sum.
 * Its a is not expanded from a seed, so it is serialized in full.
 */
helib_status helib_threshold_relin_key_assemble(const helib_context *ctx, uint32_t parties, const uint64_t *b_sum,
                                                const uint64_t *h1_sum, size_t len, helib_relin_key **out);
/**
 * The collective secret s = sum of `count` (1 to 127) secret shares, as a
 * secret key: for tests and audits that measure the noise of collective keys
 * directly. Forming it defeats the threshold, so no protocol step calls it.
 */
helib_status helib_threshold_secret_key_sum(const helib_secret_key *const *shares, size_t count,
                                           helib_secret_key **out);
/**
 * The smudging spec at `level` whose noise bound is the most a ciphertext at
 * that level may carry and still be decrypted collectively (with a margin
 * that lets helib_threshold_decrypt_combine catch a missing or forged share).
 * HELIB_ERR_NOISE_BUDGET_EXHAUSTED when the level cannot hold the smudging
 * even for the least noise a ciphertext carries.
 */
helib_status helib_threshold_smudging_for_level(const helib_context *ctx, uint32_t parties, uint32_t security_bits,
                                                size_t level, helib_smudging *out);
/**
 * The smudging width k of `smudging`; HELIB_ERR_NOISE_BUDGET_EXHAUSTED when
 * the smudged noise does not fit its level, HELIB_ERR_INVALID_ARGUMENT /
 * HELIB_ERR_INVALID_LEVEL for fields out of range.
 */
helib_status helib_threshold_smudging_bits(const helib_context *ctx, const helib_smudging *smudging,
                                           uint32_t *out);
/** A decryption share c_1 s_i + t E (chain share at ct's level). */
helib_status helib_threshold_decrypt_share(const helib_secret_key *sk, const helib_ciphertext *ct,
                                           const helib_smudging *smudging, uint64_t *out, size_t out_len);
/**
 * An encryption-to-shares share: samples the party's additive share S_i
 * uniform mod t into `mask` (N * plain_limbs limbs, secret) and writes
 * c_1 s_i + t E - f S_i into `out` (chain share at ct's level).
 */
helib_status helib_threshold_e2s_share(const helib_secret_key *sk, const helib_ciphertext *ct,
                                       const helib_smudging *smudging, uint64_t *mask, size_t mask_len, uint64_t *out,
                                       size_t out_len);
/**
 * Decodes c_0 + `sum` into N coefficients of plain_limbs limbs: the plaintext
 * for decryption shares, m - sum S_i for encryption-to-shares shares. Fails
 * with HELIB_ERR_MALFORMED_INPUT when the combined noise exceeds what
 * honest shares made for `smudging` can leave (a share missing, repeated or
 * random); refuses `ct` as the share-making calls do.
 */
helib_status helib_threshold_decrypt_combine(const helib_ciphertext *ct, const helib_smudging *smudging,
                                             const uint64_t *sum, size_t len, uint64_t *out, size_t out_len);
/** A shares-to-encryption share of the party's additive share (a plaintext): -a s_i + t e + f S_i. */
helib_status helib_threshold_s2e_share(const helib_secret_key *sk, const uint8_t *seed, size_t level,
                                       const uint64_t *share, size_t n_coeffs, size_t limbs_per_coeff,
                                       uint64_t *out, size_t out_len);
/** The ciphertext (sum, a) of the sum of the parties' shares at `level`. */
helib_status helib_threshold_s2e_assemble(const helib_context *ctx, const uint8_t *seed, size_t level,
                                          uint32_t parties, const uint64_t *sum, size_t len, helib_ciphertext *dst);
/**
 * A collective key-switching share towards `target` = (b', a'): with fresh
 * ternary u_i, h0 = s_i c_1 + u_i b' + t E, h1 = u_i a' + t e (chain shares).
 */
helib_status helib_threshold_key_switch_share(const helib_secret_key *sk, const helib_ciphertext *ct,
                                              const helib_public_key *target, const helib_smudging *smudging,
                                              uint64_t *h0, uint64_t *h1, size_t len);
/**
 * The ciphertext (c_0 + h0_sum, h1_sum) under the target key, into `dst`,
 * which must be of ct's context (HELIB_ERR_CONTEXT_MISMATCH otherwise, dst
 * left as it was).
 */
helib_status helib_threshold_key_switch_assemble(const helib_ciphertext *ct, const helib_smudging *smudging,
                                                 const uint64_t *h0_sum, const uint64_t *h1_sum, size_t len,
                                                 helib_ciphertext *dst);

/*
 * t-out-of-N by Shamir re-sharing of the N-out-of-N secret shares (party
 * indices 1..N are the evaluation points; `threshold` is a number of
 * parties). Party i deals its s_i: per chain prime and NTT coefficient, a
 * random polynomial f_i of degree threshold - 1 (OS randomness) with
 * f_i(0) = s_i, evaluated at 1..N. Party j sums the N evaluations f_i(j) it
 * receives into its re-shared key S_j (helib_shamir_combine), and for an
 * active set T of at least `threshold` parties uses lambda_j(T) S_j
 * (helib_shamir_activate) as its additive share of s in the *_residues
 * variants of the decryption, encryption-to-shares and key-switching shares.
 * Dealings and S_j are secret: a dealing must travel over a private channel,
 * and the caller wipes its buffers. Dealings are not verifiable.
 */

/** Frees a residue secret share (its residues are wiped first). */
void helib_secret_share_free(helib_secret_share *share);
/**
 * The dealing of `sk` to `parties` parties (threshold in [1, parties],
 * parties in [1, HELIB_MAX_PARTIES]): `parties` chain shares at the top level
 * (chain_size * N residues each, NTT form, standard residues), the one for
 * party j (1-based) at block j - 1. Secret.
 */
helib_status helib_shamir_deal(const helib_secret_key *sk, uint32_t threshold, uint32_t parties, uint64_t *out,
                               size_t out_len);
/**
 * Party `index`'s re-shared key S_j from the `parties` dealings it received
 * (concatenated, dealer 1 first; every residue reduced).
 */
helib_status helib_shamir_combine(const helib_context *ctx, uint32_t index, uint32_t threshold, uint32_t parties,
                                  const uint64_t *dealings, size_t len, helib_secret_share **out);
/**
 * lambda_j(T) S_j for the active set `active` (`count` 1-based indices):
 * HELIB_ERR_INVALID_ARGUMENT for a share already activated, an index outside
 * [1, parties], a repeated index, fewer than `threshold` members, a set
 * without this party, or an index difference not invertible mod a prime.
 */
helib_status helib_shamir_activate(const helib_secret_share *share, const uint32_t *active, size_t count,
                                   helib_secret_share **out);
/** The party index, threshold, number of parties and active-set size (0 if not activated) of a share. */
helib_status helib_shamir_share_info(const helib_secret_share *share, uint32_t *index, uint32_t *threshold,
                                     uint32_t *parties, size_t *active_count);
/** helib_threshold_decrypt_share with an activated residue share in place of s_i. */
helib_status helib_threshold_decrypt_share_residues(const helib_secret_share *share, const helib_ciphertext *ct,
                                                    const helib_smudging *smudging, uint64_t *out, size_t out_len);
/** helib_threshold_e2s_share with an activated residue share in place of s_i. */
helib_status helib_threshold_e2s_share_residues(const helib_secret_share *share, const helib_ciphertext *ct,
                                                const helib_smudging *smudging, uint64_t *mask, size_t mask_len,
                                                uint64_t *out, size_t out_len);
/**
 * The collective key switching share with a residue secret share (an
 * activated re-shared key, see helib_shamir_activate) in place of s_i.
 */
helib_status helib_threshold_key_switch_share_residues(const helib_secret_share *share, const helib_ciphertext *ct,
                                                       const helib_public_key *target, const helib_smudging *smudging,
                                                       uint64_t *h0, uint64_t *h1, size_t len);
/**
 * helib_threshold_s2e_share with an activated residue share in place of s_i
 * (`plain` is the party's additive share of the plaintext): the shares of an
 * active set sum to a fresh encryption under the collective key.
 */
helib_status helib_threshold_s2e_share_residues(const helib_secret_share *share, const uint8_t *seed, size_t level,
                                                const uint64_t *plain, size_t n_coeffs, size_t limbs_per_coeff,
                                                uint64_t *out, size_t out_len);

/* ------------------------------------------------------------ CPU kernels */

/** Instruction-set paths of the vector kernels (helib_cpu_path). */
#define HELIB_CPU_SCALAR 0u
#define HELIB_CPU_AVX2 1u
#define HELIB_CPU_AVX512 2u

/**
 * The kernel path in use: the widest this CPU supports, unless the
 * environment variable HELIB_CPU (scalar, avx2, avx512 or auto; read once, at
 * the first use) forces one. A HELIB_CPU value that names no path, or a path
 * this CPU lacks, gives HELIB_ERR_INVALID_ARGUMENT here and from every
 * helib_context_new, with a message saying why.
 */
helib_status helib_cpu_path(uint32_t *out);
/**
 * Whether this CPU can run kernel path `path` (1 or 0 in *out);
 * HELIB_ERR_INVALID_ARGUMENT for an unknown path.
 */
helib_status helib_cpu_supports(uint32_t path, int *out);

/* ------------------------------------------------------------ engine memory */

/**
 * The most bytes of freed residue buffers the engine keeps for reuse
 * (process-wide, in *out): memory a computation may hold beyond its live
 * objects, for memory estimates to count.
 */
helib_status helib_buffer_pool_limit(uint64_t *out);

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

#endif /* HELIB_C_H */
