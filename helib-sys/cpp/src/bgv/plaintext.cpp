// plaintext.cpp -- plaintext validation and centred lifting.
#include "bgv/plaintext.hpp"

#include <cmath>
#include <string>
#include <type_traits>

#include "ring/ntt_kernels.hpp"
#include "util/bigint.hpp"
#include "util/checked_size.hpp"
#include "util/error.hpp"

namespace bgv {

namespace {

static_assert(std::is_same<u64, mp_limb_t>::value, "the lift hands u64 limbs to GMP's mpn functions");

[[noreturn]] void not_reduced(size_t j) {
    fail(Status::InvalidArgument, "plaintext coefficient " + std::to_string(j) + " is not reduced modulo t");
}

/// The working buffers of lift_plaintext. ScratchUse::PerThread lifts share
/// one set per thread, kept between calls, so that encoding many plaintexts
/// (the diagonals of a linear transform) allocates and zeroes these pages
/// once per thread rather than once each.
struct LiftBuffers {
    std::vector<u64> magnitude, negative;
};
thread_local LiftBuffers thread_lift_buffers;

#ifdef BGV_X86_KERNELS
BGV_AVX512 void negate_where_avx512(u64 *r, const u64 *mask, size_t n, u64 q) {
    const __m512i qv = _mm512_set1_epi64(static_cast<long long>(q));
    for (size_t j = 0; j < n; j += 8) {
        const __m512i x = _mm512_loadu_si512(r + j);
        const __m512i m = _mm512_loadu_si512(mask + j);
        // Lanes to negate: masked and nonzero (-0 = 0 stays 0).
        const __mmask8 lanes = _mm512_test_epi64_mask(m, m) & _mm512_test_epi64_mask(x, x);
        _mm512_storeu_si512(r + j, _mm512_mask_sub_epi64(x, lanes, qv, x));
    }
}
#endif

/// r[j] = -r[j] mod q where mask[j] is all ones (it is 0 or all ones), for
/// residues below q: the sign of a centred lift.
void negate_where(u64 *r, const u64 *mask, size_t n, const Modulus &q) {
#ifdef BGV_X86_KERNELS
    if (kernels::use_avx512() && n % 8 == 0) {
        negate_where_avx512(r, mask, n, q.value());
        return;
    }
#endif
    // Branch-free: the signs are random, so a branch would mispredict.
    for (size_t j = 0; j < n; ++j) r[j] = (r[j] & ~mask[j]) | (q.neg(r[j]) & mask[j]);
}

}  // namespace

void check_reduced(const Context &ctx, const u64 *coeffs) {
    const size_t n = ctx.n(), pl = ctx.plain_limbs();
    const u64 *t = ctx.t_limbs().data();
    for (size_t j = 0; j < n; ++j)
        if (compare_limbs(coeffs + j * pl, pl, t, pl) >= 0) not_reduced(j);
}

PlainCoeffs load_plaintext(const Context &ctx, const u64 *coeffs, size_t n_coeffs,
                           size_t limbs_per_coeff, const mpz_class *factor) {
    require(coeffs != nullptr || n_coeffs == 0, Status::NullPointer, "coefficient array is NULL");
    require(limbs_per_coeff >= 1, Status::InvalidArgument, "limbs_per_coeff must be at least 1");
    require(n_coeffs <= ctx.n(), Status::InvalidArgument,
            "plaintext has " + std::to_string(n_coeffs) + " coefficients but the ring degree is " +
                std::to_string(ctx.n()));
    // The caller's array is n_coeffs * limbs_per_coeff limbs: that size must exist.
    caller_limb_count(n_coeffs, limbs_per_coeff, "n_coeffs * limbs_per_coeff");
    const size_t pl = ctx.plain_limbs();
    const auto &t = ctx.t_limbs();
    PlainCoeffs out(ctx.n() * pl, 0);
    for (size_t j = 0; j < n_coeffs; ++j) {
        const u64 *c = coeffs + j * limbs_per_coeff;
        // The message is built only on failure: this runs once per coefficient.
        if (compare_limbs(c, limbs_per_coeff, t.data(), pl) >= 0) not_reduced(j);
        for (size_t k = 0; k < pl && k < limbs_per_coeff; ++k) out[j * pl + k] = c[k];
    }
    if (factor != nullptr && *factor != 1) {
        mpz_class value;
        for (size_t j = 0; j < n_coeffs; ++j) {
            value = mpz_from_limbs(out.data() + j * pl, pl);
            value = value * *factor % ctx.t();
            mpz_to_limbs(value, out.data() + j * pl, pl);
        }
    }
    return out;
}

LiftedPlaintext lift_plaintext(const Context &ctx, const PlainCoeffs &coeffs, size_t count,
                               bool to_ntt) {
    std::vector<size_t> primes(count);
    for (size_t i = 0; i < count; ++i) primes[i] = i;
    return lift_plaintext(ctx, coeffs, primes, to_ntt);
}

LiftedPlaintext lift_plaintext(const Context &ctx, const PlainCoeffs &coeffs, const std::vector<size_t> &primes,
                               bool to_ntt) {
    // Encryption lifts through these: the plaintext may be secret.
    return lift_plaintext(ctx, coeffs.data(), ctx.n(), primes, to_ntt, false, ScratchUse::CallLocal);
}

LiftedPlaintext lift_plaintext(const Context &ctx, const u64 *coeffs, size_t length,
                               const std::vector<size_t> &primes, bool to_ntt, bool montgomery,
                               ScratchUse scratch_use) {
    ensure(length >= 2 && length <= ctx.n() && ctx.n() % length == 0 && (length & (length - 1)) == 0,
           "a lift's length is a power of two dividing N");
    const size_t n = length, pl = ctx.plain_limbs();
    const auto &t = ctx.t_limbs();
    const auto &half = ctx.half_t_limbs();
    // Coefficients above t/2 are lifted to c - t: store |c - t| and a sign
    // mask. The magnitudes are stored limb-major (limb k of every coefficient
    // in one row), so that each prime's residues are one vector pass of
    // base_convert_row: sum_k limb_k * (2^(64k) mod q). Every entry of both
    // buffers is written below, so reused scratch needs no clearing.
    LiftBuffers local;
    LiftBuffers &scratch = scratch_use == ScratchUse::PerThread ? thread_lift_buffers : local;
    scratch.magnitude.resize(n * pl);
    scratch.negative.resize(n);
    u64 *const magnitude = scratch.magnitude.data();
    u64 *const negative = scratch.negative.data();
    std::vector<u64> magnitude_of_one(pl);
    u64 *m = magnitude_of_one.data();
    long double l1 = 0, linf = 0;
    for (size_t j = 0; j < n; ++j) {
        const u64 *c = coeffs + j * pl;
        if (compare_limbs(c, pl, half.data(), pl) > 0) {
            negative[j] = ~u64{0};
            // |c - t| = t - c, which needs no borrow out since c < t.
            mpn_sub_n(m, t.data(), c, static_cast<mp_size_t>(pl));
        } else {
            negative[j] = 0;
            for (size_t k = 0; k < pl; ++k) m[k] = c[k];
        }
        long double value = 0;
        for (size_t k = pl; k-- > 0;) {
            magnitude[k * n + j] = m[k];
            value = value * 18446744073709551616.0L + static_cast<long double>(m[k]);
        }
        l1 += value;
        if (value > linf) linf = value;
    }
    RnsPoly poly(n, primes.size());
    for_each_prime(ctx, primes.size(), [&, magnitude, negative](size_t r_index) {
        const size_t i = primes[r_index];
        const Modulus &q = ctx.prime(i);
        std::vector<u64> power(pl), power_shoup(pl);
        ctx.limb_powers(i, power.data(), power_shoup.data());
        if (montgomery) {
            // sum_k limb_k * (2^(64k) * 2^64 mod q) = c * 2^64 mod q; negation
            // and the NTT are linear, so the result is the Montgomery form of
            // the plain lift, residue for residue (all reduced below q).
            for (size_t k = 0; k < pl; ++k) {
                power[k] = q.to_montgomery(power[k]);
                power_shoup[k] = q.shoup(power[k]);
            }
        }
        u64 *r = poly.residues(r_index);
        kernels::base_convert_row(r, magnitude, pl, n, n, power.data(), power_shoup.data(), q);
        negate_where(r, negative, n, q);
        if (to_ntt) ctx.ntt(i).forward_length(r, n);
    });
    const double log_l1 = l1 > 0 ? static_cast<double>(log2l(l1)) : -1e300;
    const double log_linf = linf > 0 ? static_cast<double>(log2l(linf)) : -1e300;
    return LiftedPlaintext{std::move(poly), log_linf, log_l1};
}

mpz_class reduce_mod_t(const Context &ctx, const u64 *limbs, size_t count) {
    require(limbs != nullptr || count == 0, Status::NullPointer, "integer limbs are NULL");
    mpz_class value = mpz_from_limbs(limbs, count);
    return value % ctx.t();
}

}  // namespace bgv
