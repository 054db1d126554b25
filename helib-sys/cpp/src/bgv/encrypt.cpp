// encrypt.cpp -- public- and secret-key encryption, plaintext encoding.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "util/error.hpp"
#include "rlwe/noise.hpp"
#include "ring/ntt_kernels.hpp"

#include "bgv/scheme.hpp"

namespace bgv {
namespace {

/// Loads the message scaled by the level's canonical correction factor,
/// refusing a level whose modulus cannot hold the fresh noise `noise_log2`.
PlainCoeffs load_for_level(const Context &ctx, const u64 *coeffs, size_t n_coeffs,
                           size_t limbs_per_coeff, size_t level, double noise_log2) {
    ctx.check_level(level);
    const double budget = noise::budget(ctx, level, noise_log2);
    require(budget >= noise::kMinBudgetBits, Status::NoiseBudgetExhausted,
            "level " + std::to_string(level) + " is too low for a fresh encryption (estimated budget " +
                std::to_string(budget) + " bits)");
    const mpz_class &factor = ctx.level(level).canonical_factor;
    return load_plaintext(ctx, coeffs, n_coeffs, limbs_per_coeff, &factor);
}

}  // namespace

Ciphertext encrypt_public(const PublicKey &pk, const u64 *coeffs, size_t n_coeffs,
                          size_t limbs_per_coeff, size_t level) {
    const Context &ctx = *pk.context();
    const PlainCoeffs m = load_for_level(ctx, coeffs, n_coeffs, limbs_per_coeff, level, noise::fresh_public(ctx));
    const LiftedPlaintext lifted = lift_plaintext(ctx, m, level + 1, false);
    Prng prng = Prng::from_os();
    // Ephemeral secrets: anyone who learns u can strip the encryption.
    const WipedVector<int8_t> u = sample_ternary(prng, ctx.n());
    const WipedVector<int32_t> e0 = sample_gaussian(prng, ctx.n());
    const WipedVector<int32_t> e1 = sample_gaussian(prng, ctx.n());

    Ciphertext ct;
    ct.ctx = pk.context();
    ct.level = level;
    ct.factor = ctx.level(level).canonical_factor;
    ct.parts.assign(2, RnsPoly(ctx.n(), level + 1));
    for_each_prime(ctx, level + 1, [&](size_t i) {
        const Modulus &q = ctx.prime(i);
        const NttTables &ntt = ctx.ntt(i);
        WipedVector<u64> u_ntt(ctx.n());
        for (size_t j = 0; j < ctx.n(); ++j) u_ntt[j] = q.from_small(u[j]);
        ntt.forward(u_ntt.data());
        u64 *c0 = ct.parts[0].residues(i);
        u64 *c1 = ct.parts[1].residues(i);
        const u64 *msg = lifted.poly.residues(i);
        // t * e in constant time (a table indexed by e, as here before, leaks e via the cache).
        const u64 t = ctx.t_mod(i), ts = q.shoup(t);
        kernels::scale_small(e0.data(), msg, c0, ctx.n(), t, ts, q);
        kernels::scale_small(e1.data(), nullptr, c1, ctx.n(), t, ts, q);
        ntt.forward(c0);
        ntt.forward(c1);
        kernels::multiply_montgomery(c0, u_ntt.data(), pk.b().residues(i), ctx.n(), q, true);
        kernels::multiply_montgomery(c1, u_ntt.data(), pk.a().residues(i), ctx.n(), q, true);
    });
    ct.noise_log2 = noise::fresh_public(ctx);
    return ct;
}

Ciphertext encrypt_secret(const SecretKey &sk, const u64 *coeffs, size_t n_coeffs,
                          size_t limbs_per_coeff, size_t level) {
    const Context &ctx = *sk.context();
    const PlainCoeffs m = load_for_level(ctx, coeffs, n_coeffs, limbs_per_coeff, level, noise::fresh_secret(ctx));
    const LiftedPlaintext lifted = lift_plaintext(ctx, m, level + 1, false);
    Prng prng = Prng::from_os();
    const WipedVector<int32_t> e = sample_gaussian(prng, ctx.n());

    Ciphertext ct;
    ct.ctx = sk.context();
    ct.level = level;
    ct.factor = ctx.level(level).canonical_factor;
    ct.c1_seed = os_seed();
    ct.parts.resize(2);
    ct.parts[1] = uniform_from_seed(ctx, *ct.c1_seed, level + 1);
    ct.parts[0] = RnsPoly(ctx.n(), level + 1);
    for_each_prime(ctx, level + 1, [&](size_t i) {
        const Modulus &q = ctx.prime(i);
        u64 *c0 = ct.parts[0].residues(i);
        const u64 *msg = lifted.poly.residues(i);
        const u64 t = ctx.t_mod(i);
        kernels::scale_small(e.data(), msg, c0, ctx.n(), t, q.shoup(t), q);
        ctx.ntt(i).forward(c0);
        const u64 *a = ct.parts[1].residues(i), *s = sk.ntt_montgomery().residues(i);
        for (size_t j = 0; j < ctx.n(); ++j) c0[j] = q.sub(c0[j], q.mul_montgomery(a[j], s[j]));
    });
    ct.noise_log2 = noise::fresh_secret(ctx);
    return ct;
}

namespace {

/// The largest power of two s <= N / kMinCompactLength such that every
/// nonzero coefficient of the N at `coeffs` (plain_limbs() limbs each) sits
/// at a multiple of s: the polynomial is one in X^s.
size_t sparsity_stride(const Context &ctx, const u64 *coeffs) {
    const size_t n = ctx.n(), pl = ctx.plain_limbs();
    size_t positions = 0;  // the OR of the indices of the nonzero coefficients
    for (size_t j = 1; j < n; ++j) {
        u64 any = 0;
        for (size_t k = 0; k < pl; ++k) any |= coeffs[j * pl + k];
        positions |= any != 0 ? j : 0;
    }
    const size_t widest = n / std::min(n, kMinCompactLength);
    if (positions == 0) return widest;
    return std::min(widest, positions & (~positions + 1));
}

/// The coefficients at multiples of `stride` of the N at `coeffs`, in a
/// buffer of this thread's (valid until its next call).
const u64 *gathered(const Context &ctx, const u64 *coeffs, size_t stride) {
    thread_local std::vector<u64> buffer;
    const size_t pl = ctx.plain_limbs(), length = ctx.n() / stride;
    buffer.resize(length * pl);
    for (size_t j = 0; j < length; ++j) std::copy_n(coeffs + j * stride * pl, pl, buffer.data() + j * pl);
    return buffer.data();
}

}  // namespace

EncodedPlaintext encode_plaintext(std::shared_ptr<const Context> ctx_ptr, const u64 *coeffs,
                                  size_t n_coeffs, size_t limbs_per_coeff, size_t level,
                                  const mpz_class &factor, bool extended, Visibility visibility) {
    const Context &ctx = *ctx_ptr;
    ctx.check_level(level);
    const mpz_class reduced = factor % ctx.t();
    mpz_class common;
    mpz_gcd(common.get_mpz_t(), reduced.get_mpz_t(), ctx.t().get_mpz_t());
    require(reduced != 0 && common == 1, Status::InvalidArgument,
            "correction factor must be invertible mod t");
    // A full polynomial in the context's own limb width with factor 1 (every
    // diagonal of a linear transform) is lifted from the caller's array once
    // checked; anything else is first zero-padded and scaled by the factor.
    const bool direct = reduced == 1 && n_coeffs == ctx.n() && limbs_per_coeff == ctx.plain_limbs() &&
                        coeffs != nullptr;
    PlainCoeffs m;
    if (direct) {
        check_reduced(ctx, coeffs);
    } else {
        m = load_plaintext(ctx, coeffs, n_coeffs, limbs_per_coeff, &reduced);
    }
    require(!extended || ctx.special_size() > 0, Status::InvalidArgument,
            "an extended encoding needs special primes: the context has none");
    std::vector<size_t> primes;
    for (size_t i = 0; i <= level; ++i) primes.push_back(i);
    for (size_t k = 0; extended && k < ctx.special_size(); ++k) primes.push_back(ctx.special_index(k));
    // A public polynomial in X^s is lifted and kept compact (N / s words a
    // prime). The residues come out in Montgomery form, as the evaluator
    // takes them; the lift may keep this thread's scratch, as an encoding's
    // buffers are public (see Secrecy).
    const u64 *full = direct ? coeffs : m.data();
    const size_t stride = visibility == Visibility::Public ? sparsity_stride(ctx, full) : 1;
    const u64 *lifted_coeffs = stride == 1 ? full : gathered(ctx, full, stride);
    LiftedPlaintext lifted =
        lift_plaintext(ctx, lifted_coeffs, ctx.n() / stride, primes, true, true, ScratchUse::PerThread);
    EncodedPlaintext out;
    out.extended = extended;
    out.ctx = std::move(ctx_ptr);
    out.poly = std::move(lifted.poly);
    out.level = level;
    out.factor = reduced;
    out.log2_linf = lifted.log2_linf;
    out.log2_l1 = lifted.log2_l1;
    return out;
}

size_t encoded_word_count(const EncodedPlaintext &pt) { return pt.poly.n * pt.poly.count; }

size_t encoded_stride(const EncodedPlaintext &pt) { return pt.ctx->n() / pt.poly.n; }

namespace {

/// Whether any of x[0..n) is at or above q.
bool any_at_or_above_scalar(const u64 *x, size_t n, u64 q) {
    u64 bad = 0;
    for (size_t j = 0; j < n; ++j) bad |= static_cast<u64>(x[j] >= q);
    return bad != 0;
}

#ifdef BGV_X86_KERNELS
/// Lanes of the four words at `at` that are at or above q: AVX2 compares
/// signed words, and x >= q exactly when (x ^ 2^63) > ((q - 1) ^ 2^63)
/// (q >= 1); `sign` is 2^63 in each lane, `limit` (q - 1) ^ 2^63.
__attribute__((target("avx2"))) inline __m256i at_or_above_avx2(const u64 *at, __m256i sign, __m256i limit) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(at));
    return _mm256_cmpgt_epi64(_mm256_xor_si256(v, sign), limit);
}

/// any_at_or_above_scalar, sixteen words a step.
__attribute__((target("avx2"))) bool any_at_or_above_avx2(const u64 *x, size_t n, u64 q) {
    const __m256i sign = _mm256_set1_epi64x(static_cast<long long>(u64{1} << 63));
    const __m256i limit = _mm256_set1_epi64x(static_cast<long long>((q - 1) ^ (u64{1} << 63)));
    __m256i bad = _mm256_setzero_si256();
    size_t j = 0;
    for (; j + 16 <= n; j += 16) {
        const __m256i a = _mm256_or_si256(at_or_above_avx2(x + j, sign, limit),
                                          at_or_above_avx2(x + j + 4, sign, limit));
        const __m256i b = _mm256_or_si256(at_or_above_avx2(x + j + 8, sign, limit),
                                          at_or_above_avx2(x + j + 12, sign, limit));
        bad = _mm256_or_si256(bad, _mm256_or_si256(a, b));
    }
    return _mm256_testz_si256(bad, bad) == 0 || any_at_or_above_scalar(x + j, n - j, q);
}

BGV_AVX512 bool any_at_or_above_avx512(const u64 *x, size_t n, u64 q) {
    const __m512i qv = _mm512_set1_epi64(static_cast<long long>(q));
    __mmask8 bad = 0;
    size_t j = 0;
    for (; j + 32 <= n; j += 32) {
        bad |= _mm512_cmpge_epu64_mask(_mm512_loadu_si512(x + j), qv);
        bad |= _mm512_cmpge_epu64_mask(_mm512_loadu_si512(x + j + 8), qv);
        bad |= _mm512_cmpge_epu64_mask(_mm512_loadu_si512(x + j + 16), qv);
        bad |= _mm512_cmpge_epu64_mask(_mm512_loadu_si512(x + j + 24), qv);
    }
    return bad != 0 || any_at_or_above_scalar(x + j, n - j, q);
}
#endif

bool any_at_or_above(const u64 *x, size_t n, u64 q) {
#ifdef BGV_X86_KERNELS
    if (cpu_path() == CpuPath::Avx512) return any_at_or_above_avx512(x, n, q);
    if (cpu_path() == CpuPath::Avx2) return any_at_or_above_avx2(x, n, q);
#endif
    return any_at_or_above_scalar(x, n, q);
}

}  // namespace

ResidueImport residue_import_begin(std::shared_ptr<const Context> ctx_ptr, size_t level, bool extended,
                                   size_t stride) {
    const Context &ctx = *ctx_ptr;
    ctx.check_level(level);
    require(!extended || ctx.special_size() > 0, Status::MalformedInput,
            "an extended encoding needs special primes: the context has none");
    require(stride >= 1 && (stride & (stride - 1)) == 0 && stride <= ctx.n() / kMinCompactLength,
            Status::MalformedInput,
            "an encoding's stride is a power of two from 1 to N / " + std::to_string(kMinCompactLength));
    const size_t count = level + 1 + (extended ? ctx.special_size() : 0);
    ResidueImport import;
    import.poly = RnsPoly(ctx.n() / stride, count);
    // The caller's language may require the words it writes into to hold
    // values already. Large buffers do: fresh ones are mapped zero pages and
    // recycled ones were written before; small ones (and, under
    // AddressSanitizer, all) come from the heap uninitialized and are zeroed.
    const size_t bytes = import.poly.data.size() * sizeof(u64);
#if defined(__SANITIZE_ADDRESS__)
    const bool zero = true;
#else
    const bool zero = bytes < buffer_pool::kMinBytes;
#endif
    if (zero && bytes > 0) std::memset(import.poly.data.data(), 0, bytes);
    import.ctx = std::move(ctx_ptr);
    import.level = level;
    import.extended = extended;
    return import;
}

void residue_import_check(ResidueImport &import, size_t upto) {
    const Context &ctx = *import.ctx;
    const size_t n = import.poly.n;
    require(upto <= import.poly.data.size(), Status::MalformedInput,
            "the checked range ends past the residues of the encoding");
    while (import.checked < upto) {
        const size_t r = import.checked / n;
        const size_t end = std::min(upto, (r + 1) * n);
        const u64 q = ctx.prime(r <= import.level ? r : ctx.special_index(r - import.level - 1)).value();
        require(!any_at_or_above(import.poly.data.data() + import.checked, end - import.checked, q),
                Status::MalformedInput, "a residue of the encoding is not below its prime");
        import.checked = end;
    }
}

EncodedPlaintext residue_import_finish(ResidueImport &&import, const mpz_class &factor, double log2_linf,
                                       double log2_l1) {
    const Context &ctx = *import.ctx;
    require(factor > 0 && factor < ctx.t(), Status::MalformedInput, "the correction factor is not in [1, t)");
    mpz_class common;
    mpz_gcd(common.get_mpz_t(), factor.get_mpz_t(), ctx.t().get_mpz_t());
    require(common == 1, Status::MalformedInput, "the correction factor is not invertible mod t");
    // A zero polynomial's norms are the marker -1e300; any other lies in
    // [0, log2 t] (sup norm) or [0, log2 t + log2 N] (l1 norm), as the
    // coefficients are centered residues mod t.
    const double log2_n = std::log2(static_cast<double>(ctx.n()));
    const auto norm_ok = [](double x, double max) { return x == -1e300 || (x >= 0 && x <= max); };
    require(norm_ok(log2_linf, ctx.log2_t() + 1e-9) && norm_ok(log2_l1, ctx.log2_t() + log2_n + 1e-9),
            Status::MalformedInput, "the norms of the encoding are out of range");
    residue_import_check(import, import.poly.data.size());
    EncodedPlaintext out;
    out.ctx = std::move(import.ctx);
    out.poly = std::move(import.poly);
    out.level = import.level;
    out.extended = import.extended;
    out.factor = factor;
    out.log2_linf = log2_linf;
    out.log2_l1 = log2_l1;
    return out;
}

EncodedPlaintext encoded_plaintext_from_residues(std::shared_ptr<const Context> ctx_ptr, size_t level,
                                                 bool extended, size_t stride, const mpz_class &factor,
                                                 const u64 *residues, size_t residues_len,
                                                 double log2_linf, double log2_l1) {
    ResidueImport import = residue_import_begin(std::move(ctx_ptr), level, extended, stride);
    const size_t words = import.poly.data.size();
    require(residues_len == words, Status::MalformedInput,
            "the residue count does not match the level and form of the encoding");
    require(residues_len == 0 || residues != nullptr, Status::NullPointer, "residues is NULL");
    if (words > 0) std::memcpy(import.poly.data.data(), residues, words * sizeof(u64));
    return residue_import_finish(std::move(import), factor, log2_linf, log2_l1);
}

}  // namespace bgv
