// c_api_internal.hpp -- what the C shim's source files share: the
// definitions of the opaque handles and the guard that turns exceptions into
// status codes and the thread-local error message. The engine's own
// status type (util/error.hpp) becomes helib_status here and nowhere else.
#pragma once

#include <memory>
#include <new>
#include <string>

#include "util/checked_size.hpp"
#include "util/cpu.hpp"
#include "util/error.hpp"
#include "bgv/galois.hpp"
#include "helib_c.h"
#include "util/thread_pool.hpp"
#include "bgv/multiply.hpp"
#include "bgv/scheme.hpp"

struct helib_context {
    std::shared_ptr<const bgv::Context> ctx;
};
struct helib_secret_key {
    std::unique_ptr<bgv::SecretKey> key;
};
struct helib_public_key {
    std::unique_ptr<bgv::PublicKey> key;
};
struct helib_encoded_plaintext {
    bgv::EncodedPlaintext pt;
};
struct helib_residue_import {
    bgv::ResidueImport import;
    /// Set once finish has moved the buffer out.
    bool spent = false;
};
struct helib_ciphertext {
    bgv::Ciphertext ct;
};
struct helib_relin_key {
    bgv::RelinKey key;
};
struct helib_galois_keys {
    std::unique_ptr<bgv::GaloisKeys> keys;
};

namespace helib_shim {

/// The message of the last failed call on this thread.
inline thread_local std::string last_error;
/// The typed detail of the last failed call on this thread.
inline thread_local helib_error_detail last_detail{};

/// The C status of an engine status: the one place the engine's codes meet
/// the interface's.
constexpr helib_status to_c(bgv::Status status) noexcept {
    switch (status) {
        case bgv::Status::NullPointer: return HELIB_ERR_NULL_POINTER;
        case bgv::Status::InvalidArgument: return HELIB_ERR_INVALID_ARGUMENT;
        case bgv::Status::InvalidLevel: return HELIB_ERR_INVALID_LEVEL;
        case bgv::Status::ContextMismatch: return HELIB_ERR_CONTEXT_MISMATCH;
        case bgv::Status::LevelMismatch: return HELIB_ERR_LEVEL_MISMATCH;
        case bgv::Status::FactorMismatch: return HELIB_ERR_FACTOR_MISMATCH;
        case bgv::Status::NoiseBudgetExhausted: return HELIB_ERR_NOISE_BUDGET_EXHAUSTED;
        case bgv::Status::BufferTooSmall: return HELIB_ERR_BUFFER_TOO_SMALL;
        case bgv::Status::Randomness: return HELIB_ERR_RANDOMNESS;
        case bgv::Status::OutOfMemory: return HELIB_ERR_OUT_OF_MEMORY;
        case bgv::Status::Internal: return HELIB_ERR_INTERNAL;
        case bgv::Status::MissingKey: return HELIB_ERR_MISSING_KEY;
        case bgv::Status::MalformedInput: return HELIB_ERR_MALFORMED_INPUT;
        case bgv::Status::InsecureParameters: return HELIB_ERR_INSECURE_PARAMETERS;
    }
    return HELIB_ERR_INTERNAL;
}

constexpr helib_error_detail_kind to_c(bgv::DetailKind kind) noexcept {
    switch (kind) {
        case bgv::DetailKind::None: return HELIB_DETAIL_NONE;
        case bgv::DetailKind::MissingGaloisKey: return HELIB_DETAIL_MISSING_GALOIS_KEY;
        case bgv::DetailKind::LevelMismatch: return HELIB_DETAIL_LEVEL_MISMATCH;
        case bgv::DetailKind::LevelOutOfRange: return HELIB_DETAIL_LEVEL_OUT_OF_RANGE;
        case bgv::DetailKind::ChainExhausted: return HELIB_DETAIL_CHAIN_EXHAUSTED;
    }
    return HELIB_DETAIL_NONE;
}

inline helib_error_detail to_c(const bgv::ErrorDetail &d) noexcept {
    helib_error_detail out{};
    out.status = to_c(d.status);
    out.kind = to_c(d.kind);
    out.element = d.element;
    out.step = d.step;
    out.has_step = d.has_step ? 1 : 0;
    out.left = d.left;
    out.right = d.right;
    return out;
}

// The interface's constants are the engine's.
static_assert(HELIB_MAX_THREADS == bgv::ThreadPool::kMaxThreads, "helib_c.h and the thread pool disagree");
static_assert(HELIB_MIN_COMPACT_LENGTH == bgv::kMinCompactLength, "helib_c.h and the encoder disagree");

/// Records a failure without typed detail.
inline void record_plain_failure(helib_status status) noexcept {
    last_detail = helib_error_detail{};
    last_detail.status = status;
}

/// Runs `body`, mapping every exception to a status code and a message.
template <typename Body>
inline helib_status guarded(Body &&body) noexcept {
    try {
        body();
        return HELIB_OK;
    } catch (const bgv::Error &e) {
        try { last_error = e.what(); } catch (...) {}
        last_detail = to_c(e.detail());
        return last_detail.status;
    } catch (const std::bad_alloc &) {
        try { last_error = "out of memory"; } catch (...) {}
        record_plain_failure(HELIB_ERR_OUT_OF_MEMORY);
        return HELIB_ERR_OUT_OF_MEMORY;
    } catch (const std::exception &e) {
        try { last_error = std::string("internal error: ") + e.what(); } catch (...) {}
        record_plain_failure(HELIB_ERR_INTERNAL);
        return HELIB_ERR_INTERNAL;
    } catch (...) {
        try { last_error = "internal error: unknown exception"; } catch (...) {}
        record_plain_failure(HELIB_ERR_INTERNAL);
        return HELIB_ERR_INTERNAL;
    }
}

template <typename T>
inline const T &deref(const T *p, const char *name) {
    bgv::require(p != nullptr, bgv::Status::NullPointer, std::string(name) + " is NULL");
    return *p;
}

template <typename T>
inline T &deref_mut(T *p, const char *name) {
    bgv::require(p != nullptr, bgv::Status::NullPointer, std::string(name) + " is NULL");
    return *p;
}

inline void require_out(const void *p, const char *name) {
    bgv::require(p != nullptr, bgv::Status::NullPointer, std::string(name) + " is NULL");
}

/// The capacity `*len` of a caller's output array of `entry_bytes`-byte
/// entries (two-call protocol, the array given): at most PTRDIFF_MAX bytes,
/// like every array a caller passes.
inline size_t output_capacity(const size_t *len, size_t entry_bytes, const char *name) {
    require_out(len, name);
    return bgv::caller_array_count(*len, entry_bytes, name);
}

/// Writes `value` into the caller's `out_len` limbs, of which `needed` suffice
/// (the rest are zeroed, so `out_len` must be the length of an array that can exist).
inline void write_limbs(const mpz_class &value, uint64_t *out, size_t out_len, size_t needed) {
    require_out(out, "out");
    bgv::caller_array_count(out_len, sizeof(uint64_t), "out_len");
    bgv::require(out_len >= needed, bgv::Status::BufferTooSmall,
                 "output buffer has " + std::to_string(out_len) + " limbs, " + std::to_string(needed) +
                     " are needed");
    bgv::mpz_to_limbs(value, out, out_len);
}

/// A written ciphertext given as an input.
/// The pointer and size checks shared by every function taking raw parameters.
inline void check_parameter_arguments(const uint64_t *t_limbs, size_t t_nlimbs, const uint32_t *chain_bits,
                                      size_t chain_len, const uint32_t *special_bits, size_t special_len) {
    require_out(t_limbs, "t_limbs");
    require_out(chain_bits, "chain_bits");
    bgv::require(special_len == 0 || special_bits != nullptr, bgv::Status::NullPointer, "special_bits is NULL");
    bgv::require(t_nlimbs >= 1 && t_nlimbs <= 64, bgv::Status::InvalidArgument,
                 "plaintext modulus must have between 1 and 64 limbs");
    bgv::require(chain_len <= bgv::Context::kMaxPrimes && special_len <= bgv::Context::kMaxPrimes,
                 bgv::Status::InvalidArgument, "too many primes");
}

inline const bgv::Ciphertext &input(const helib_ciphertext *ct, const char *name) {
    const bgv::Ciphertext &c = deref(ct, name).ct;
    bgv::check_nonempty(c);
    return c;
}

/// A caller's kernel path number (HELIB_CPU_*) as the engine's enum.
inline bgv::CpuPath path_from_c(uint32_t path) {
    bgv::require(path <= HELIB_CPU_AVX512, bgv::Status::InvalidArgument,
                 "unknown kernel path " + std::to_string(path) + " (HELIB_CPU_SCALAR, HELIB_CPU_AVX2, HELIB_CPU_AVX512)");
    return static_cast<bgv::CpuPath>(path);
}

}  // namespace helib_shim
