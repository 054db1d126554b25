// c_api_test_api.cpp -- test-only C entry points (declared in
// c_api_test_api.h, not in the public helib_c.h): direct access to the ring
// layer, for checks against independent big-integer references, and the
// ChaCha20 keystream of each kernel path, for checks against published
// vectors. Compiled only with the `test-api` feature of helib-sys
// (HELIB_TEST_API defined), which the crate's own tests enable.
#ifdef HELIB_TEST_API

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "capi/c_api_internal.hpp"
#include "capi/c_api_test_api.h"
#include "ring/ntt.hpp"
#include "ring/ntt_kernels.hpp"
#include "ring/primes.hpp"
#include "util/checked_size.hpp"
#include "util/cpu.hpp"
#include "util/random.hpp"
#include "util/sha256.hpp"

using namespace helib_shim;

extern "C" {

/* ------------------------------------------------------------------- ring */

helib_status helib_ring_to_rns(const helib_context *ctx, size_t level, const uint64_t *coeffs,
                               size_t limbs_per_coeff, uint64_t *residues, size_t residues_len) {
    return guarded([&] {
        const auto &c = *deref(ctx, "ctx").ctx;
        require_out(coeffs, "coeffs");
        require_out(residues, "residues");
        c.check_level(level);
        bgv::require(limbs_per_coeff >= 1, bgv::Status::InvalidArgument, "limbs_per_coeff must be at least 1");
        bgv::caller_limb_count(c.n(), limbs_per_coeff, "N * limbs_per_coeff");
        bgv::caller_array_count(residues_len, sizeof(uint64_t), "residues_len");
        bgv::require(residues_len >= c.n() * (level + 1), bgv::Status::BufferTooSmall,
                     "residue buffer needs N * (level + 1) entries");
        const auto &crt = c.level(level).crt;
        for (size_t j = 0; j < c.n(); ++j) {
            bgv::require(bgv::compare_limbs(coeffs + j * limbs_per_coeff, limbs_per_coeff,
                                            crt.modulus_limbs().data(), crt.limbs()) < 0,
                         bgv::Status::InvalidArgument, "coefficient " + std::to_string(j) + " is not below Q_level");
        }
        for (size_t i = 0; i <= level; ++i) {
            for (size_t j = 0; j < c.n(); ++j) {
                residues[i * c.n() + j] = bgv::reduce_limbs(coeffs + j * limbs_per_coeff, limbs_per_coeff, c.prime(i));
            }
        }
    });
}

helib_status helib_ring_from_rns(const helib_context *ctx, size_t level, const uint64_t *residues,
                                 size_t residues_len, uint64_t *coeffs, size_t limbs_per_coeff) {
    return guarded([&] {
        const auto &c = *deref(ctx, "ctx").ctx;
        require_out(residues, "residues");
        require_out(coeffs, "coeffs");
        c.check_level(level);
        bgv::caller_array_count(residues_len, sizeof(uint64_t), "residues_len");
        bgv::require(residues_len >= c.n() * (level + 1), bgv::Status::InvalidArgument,
                     "residue array needs N * (level + 1) entries");
        const auto &crt = c.level(level).crt;
        bgv::require(limbs_per_coeff >= crt.limbs(), bgv::Status::BufferTooSmall,
                     "limbs_per_coeff must be at least " + std::to_string(crt.limbs()));
        bgv::caller_limb_count(c.n(), limbs_per_coeff, "N * limbs_per_coeff");
        for (size_t i = 0; i <= level; ++i) {
            for (size_t j = 0; j < c.n(); ++j) {
                bgv::require(residues[i * c.n() + j] < c.prime(i).value(), bgv::Status::InvalidArgument,
                             "residue is not reduced modulo its prime");
            }
        }
        std::vector<uint64_t> value(crt.limbs());
        for (size_t j = 0; j < c.n(); ++j) {
            crt.compose(residues + j, c.n(), value.data());
            for (size_t k = 0; k < limbs_per_coeff; ++k) coeffs[j * limbs_per_coeff + k] = k < crt.limbs() ? value[k] : 0;
        }
    });
}

helib_status helib_ring_multiply_mod_prime(const helib_context *ctx, size_t prime_index, const uint64_t *a,
                                           const uint64_t *b, uint64_t *out) {
    return guarded([&] {
        const auto &c = *deref(ctx, "ctx").ctx;
        require_out(a, "a");
        require_out(b, "b");
        require_out(out, "out");
        bgv::require(prime_index < c.chain_size(), bgv::Status::InvalidArgument, "prime index out of range");
        const bgv::Modulus &q = c.prime(prime_index);
        std::vector<uint64_t> x(a, a + c.n()), y(b, b + c.n());
        for (size_t j = 0; j < c.n(); ++j) {
            bgv::require(x[j] < q.value() && y[j] < q.value(), bgv::Status::InvalidArgument,
                         "inputs must be reduced modulo the prime");
        }
        c.ntt(prime_index).forward(x.data());
        c.ntt(prime_index).forward(y.data());
        for (size_t j = 0; j < c.n(); ++j) x[j] = q.mul(x[j], y[j]);
        c.ntt(prime_index).inverse(x.data());
        std::memcpy(out, x.data(), c.n() * sizeof(uint64_t));
    });
}

/* ------------------------------------------------------------ CPU kernels */

helib_status helib_chacha20_keystream(uint32_t path, const uint8_t *key, uint64_t stream, uint64_t counter,
                                      uint8_t *out, size_t len) {
    return guarded([&] {
        require_out(key, "key");
        if (len != 0) require_out(out, "out");
        bgv::caller_array_count(len, 1, "len");
        const bgv::CpuPath p = path_from_c(path);
        bgv::require(bgv::cpu_supports(p), bgv::Status::InvalidArgument,
                     std::string("this CPU cannot run the ") + bgv::cpu_path_name(p) + " kernels");
        bgv::Seed seed;
        std::memcpy(seed.data(), key, seed.size());
        bgv::chacha20_keystream(p, seed, stream, counter, out, len);
    });
}

helib_status helib_sha256(uint32_t path, const uint8_t *data, size_t len, size_t chunk, uint8_t *out) {
    return guarded([&] {
        if (len != 0) require_out(data, "data");
        require_out(out, "out");
        bgv::caller_array_count(len, 1, "len");
        const bgv::CpuPath p = path_from_c(path);
        bgv::require(bgv::cpu_supports(p), bgv::Status::InvalidArgument,
                     std::string("this CPU cannot run the ") + bgv::cpu_path_name(p) + " kernels");
        bgv::Sha256 hasher(false, p);
        const size_t step = chunk == 0 ? len : chunk;
        for (size_t at = 0; at < len; at += step) hasher.update(data + at, std::min(step, len - at));
        const bgv::Digest digest = hasher.finish();
        std::memcpy(out, digest.data(), digest.size());
    });
}

helib_status helib_gaussian_samples(uint32_t path, const uint8_t *key, uint64_t stream, int32_t *out, size_t n) {
    return guarded([&] {
        require_out(key, "key");
        if (n != 0) require_out(out, "out");
        bgv::caller_array_count(n, sizeof(int32_t), "n");
        const bgv::CpuPath p = path_from_c(path);
        bgv::require(bgv::cpu_supports(p), bgv::Status::InvalidArgument,
                     std::string("this CPU cannot run the ") + bgv::cpu_path_name(p) + " kernels");
        bgv::Seed seed;
        std::memcpy(seed.data(), key, seed.size());
        bgv::Prng prng(seed, stream);
        const std::vector<int32_t> samples = bgv::sample_gaussian(p, prng, n);
        std::memcpy(out, samples.data(), n * sizeof(int32_t));
    });
}

helib_status helib_ntt_transform(uint32_t path, uint64_t prime, size_t n, int inverse, uint64_t *values,
                                 size_t repeats, uint64_t *nanoseconds) {
    return guarded([&] {
        require_out(values, "values");
        const bgv::CpuPath p = path_from_c(path);
        bgv::require(bgv::cpu_supports(p), bgv::Status::InvalidArgument,
                     std::string("this CPU cannot run the ") + bgv::cpu_path_name(p) + " kernels");
        bgv::require(n >= 2 && n <= (size_t{1} << 20) && (n & (n - 1)) == 0, bgv::Status::InvalidArgument,
                     "n must be a power of two from 2 to 2^20");
        bgv::require(prime < (uint64_t{1} << 62) && prime % (2 * n) == 1 && bgv::is_prime(prime),
                     bgv::Status::InvalidArgument, "prime must be a prime below 2^62 that is 1 mod 2n");
        bgv::require(inverse == 0 || inverse == 1, bgv::Status::InvalidArgument, "inverse must be 0 or 1");
        bgv::require(repeats >= 1, bgv::Status::InvalidArgument, "repeats must be at least 1");
        const uint64_t bound = (inverse != 0 ? 2 : 4) * prime;
        for (size_t j = 0; j < n; ++j) {
            bgv::require(values[j] < bound, bgv::Status::InvalidArgument,
                         std::string("inputs must be below ") + (inverse != 0 ? "2q" : "4q"));
        }
        const bgv::NttTables tables(n, bgv::Modulus(prime));
        const auto start = std::chrono::steady_clock::now();
        for (size_t r = 0; r < repeats; ++r) {
            if (inverse != 0) {
                tables.inverse(values, p);
            } else {
                tables.forward(values, p);
            }
        }
        const auto elapsed = std::chrono::steady_clock::now() - start;
        if (nanoseconds != nullptr) {
            *nanoseconds = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count());
        }
    });
}

helib_status helib_row_kernel(uint32_t path, uint32_t kernel, uint64_t prime, const uint64_t *constants,
                              size_t constants_len, const uint64_t *other, size_t other_len, uint64_t *values,
                              size_t n) {
    return guarded([&] {
        if (n != 0) require_out(values, "values");
        const bgv::CpuPath p = path_from_c(path);
        bgv::require(bgv::cpu_supports(p), bgv::Status::InvalidArgument,
                     std::string("this CPU cannot run the ") + bgv::cpu_path_name(p) + " kernels");
        bgv::require(prime >= 2 && prime < (uint64_t{1} << 62) && bgv::is_prime(prime), bgv::Status::InvalidArgument,
                     "prime must be a prime below 2^62");
        bgv::require(kernel <= HELIB_ROW_BASE_CONVERT, bgv::Status::InvalidArgument, "no such row kernel");
        const bgv::Modulus q(prime);
        const size_t wanted_constants = kernel == HELIB_ROW_BASE_CONVERT                 ? constants_len
                                        : kernel == HELIB_ROW_REDUCE_FROM_4Q             ? 0
                                        : kernel == HELIB_ROW_SUBTRACT_MULTIPLE_THEN_SCALE ? 2
                                                                                         : 1;
        bgv::require(constants_len == wanted_constants, bgv::Status::InvalidArgument,
                     "wrong number of constants for this kernel");
        if (constants_len != 0) require_out(constants, "constants");
        for (size_t k = 0; k < constants_len; ++k) {
            bgv::require(constants[k] < prime, bgv::Status::InvalidArgument, "constants must be below q");
        }
        const bool reads_other = kernel == HELIB_ROW_SUBTRACT_MULTIPLE_THEN_SCALE ||
                                 kernel == HELIB_ROW_ADD_THEN_SCALE || kernel == HELIB_ROW_BASE_CONVERT;
        const size_t other_words = !reads_other ? 0 : kernel == HELIB_ROW_BASE_CONVERT ? constants_len * n : n;
        bgv::require(other_len == other_words, bgv::Status::InvalidArgument, "other has the wrong length");
        if (other_words != 0) require_out(other, "other");
        const uint64_t largest = kernel == HELIB_ROW_REDUCE_FROM_4Q ? 4 * prime - 1
                               : kernel == HELIB_ROW_SCALE || kernel == HELIB_ROW_BASE_CONVERT ? ~uint64_t{0}
                                                                                               : prime - 1;
        for (size_t j = 0; j < n; ++j) {
            bgv::require(values[j] <= largest, bgv::Status::InvalidArgument, "values out of the kernel's range");
            if (kernel == HELIB_ROW_ADD_THEN_SCALE) {
                bgv::require(other[j] < prime, bgv::Status::InvalidArgument, "other must be below q");
            }
        }
        std::vector<uint64_t> shoup(constants_len);
        for (size_t k = 0; k < constants_len; ++k) shoup[k] = q.shoup(constants[k]);
        switch (kernel) {
        case HELIB_ROW_SCALE:
            BGV_KERNEL_ON(p, scale, values, n, constants[0], shoup[0], q);
            break;
        case HELIB_ROW_REDUCE_FROM_4Q:
            BGV_KERNEL_ON(p, reduce_from_4q, values, n, q);
            break;
        case HELIB_ROW_SUBTRACT_MULTIPLE_THEN_SCALE:
            BGV_KERNEL_ON(p, subtract_multiple_then_scale, values, other, constants[0], shoup[0], constants[1],
                          shoup[1], n, q);
            break;
        case HELIB_ROW_ADD_THEN_SCALE:
            BGV_KERNEL_ON(p, add_then_scale, values, other, constants[0], shoup[0], n, q);
            break;
        default:
            BGV_KERNEL_ON(p, base_convert_row, values, other, constants_len, n, n, constants, shoup.data(), q);
            break;
        }
    });
}

}  // extern "C"

#endif  // HELIB_TEST_API
