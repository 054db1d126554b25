// decrypt.cpp -- decryption with exact CRT reconstruction and noise measurement.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "util/error.hpp"
#include "util/wipe.hpp"
#include "rlwe/noise.hpp"
#include "bgv/scheme.hpp"

namespace bgv {
namespace {

/// Why a ciphertext cannot be trusted to decrypt without looking at the key,
/// or an empty string. The exact measurement alone is not enough: it sees
/// only v mod Q_level, and noise that wrapped around Q_level need not look
/// random (t * e mod Q_level is small when t mod Q_level is; 2^k v mod Q is
/// small after k doublings when 2^k mod Q is). The key-free estimate bounds
/// the unreduced noise, so it catches those wraps; the level rule catches
/// levels that no honest estimate fits in.
std::string key_free_refusal(const Ciphertext &ct) {
    const Context &ctx = *ct.ctx;
    if (!noise::level_holds_floor(ctx, ct.level)) {
        return "at level " + std::to_string(ct.level) + ", log2 Q = " +
               std::to_string(ctx.level(ct.level).crt.log2_modulus()) +
               " is not safely above the noise every ciphertext carries (" +
               std::to_string(noise::floor_log2(ctx)) + " bits), so no ciphertext decrypts there";
    }
    const double estimated = noise::budget(ctx, ct.level, ct.noise_log2);
    if (!(estimated >= noise::kMinBudgetBits)) {
        return "the key-free noise estimate leaves " + std::to_string(estimated) +
               " bits of budget: the noise may have wrapped around Q";
    }
    return {};
}

void check_decryptable_input(const SecretKey &sk, const Ciphertext &ct) {
    check_nonempty(ct);
    require(sk.context() == ct.ctx, Status::ContextMismatch,
            "secret key and ciphertext belong to different contexts");
}

/// v = [sum_i c_i s^i]_Q in coefficient form, per prime. With the ciphertext,
/// v gives s away, so it is a secret polynomial (wiped when released).
RnsPoly decryption_residues(const SecretKey &sk, const Ciphertext &ct) {
    const Context &ctx = *ct.ctx;
    const size_t count = ct.count();
    RnsPoly v(ctx.n(), count, Secrecy::Secret);
    for_each_prime(ctx, count, [&](size_t i) {
        const Modulus &q = ctx.prime(i);
        const u64 *s = sk.ntt_montgomery().residues(i);
        u64 *acc = v.residues(i);
        std::copy(ct.parts[0].residues(i), ct.parts[0].residues(i) + ctx.n(), acc);
        // acc = c_0 + c_1 s + c_2 s^2 + ..., powers of s kept in Montgomery form.
        WipedVector<u64> power(s, s + ctx.n());
        for (size_t k = 1; k < ct.parts.size(); ++k) {
            const u64 *c = ct.parts[k].residues(i);
            for (size_t j = 0; j < ctx.n(); ++j) acc[j] = q.add(acc[j], q.mul_montgomery(c[j], power[j]));
            if (k + 1 < ct.parts.size()) {
                for (size_t j = 0; j < ctx.n(); ++j) power[j] = q.mul_montgomery(power[j], s[j]);
            }
        }
        ctx.ntt(i).inverse(acc);
    });
    return v;
}

struct Decoded {
    PlainCoeffs message;
    double log2_max_noise;
};

/// Limb k of a reconstructed value is worth 2^(64 k): the residues
/// 2^(64 k) * scale mod t for k < limbs, pl limbs each (scale = 1 without
/// one), so that |v| * scale mod t is one sum of limb-by-residue products and
/// one short division.
std::vector<mp_limb_t> limb_weights(const Context &ctx, size_t limbs, const std::vector<mp_limb_t> *scale) {
    const size_t pl = ctx.plain_limbs();
    mpz_class weight = 1;
    if (scale != nullptr) mpz_import(weight.get_mpz_t(), pl, -1, sizeof(mp_limb_t), 0, 0, scale->data());
    std::vector<mp_limb_t> out(limbs * pl);
    for (size_t k = 0; k < limbs; ++k) {
        weight %= ctx.t();
        mpz_to_limbs(weight, reinterpret_cast<u64 *>(out.data() + k * pl), pl);
        weight <<= 64;
    }
    return out;
}

/// CRT-reconstructs the centred v, measures max |v| and reduces v mod t.
/// With `scale` (limbs of an integer below t), each message coefficient is
/// multiplied by it mod t on the way out: decryption folds the inverse of the
/// correction factor in here rather than in a second pass over big integers.
Decoded reconstruct(const Context &ctx, const RnsPoly &v, size_t level, bool want_message,
                    const std::vector<mp_limb_t> *scale = nullptr) {
    const CrtBasis &crt = ctx.level(level).crt;
    const size_t n = ctx.n(), nl = crt.limbs(), pl = ctx.plain_limbs();
    const auto *q_limbs = reinterpret_cast<const mp_limb_t *>(crt.modulus_limbs().data());
    const auto *t_limbs = reinterpret_cast<const mp_limb_t *>(ctx.t_limbs().data());
    // Q/2 (floor): values above it are negative.
    std::vector<u64> half_q(nl);
    mpn_rshift(reinterpret_cast<mp_limb_t *>(half_q.data()), q_limbs, static_cast<mp_size_t>(nl), 1);
    const std::vector<mp_limb_t> weights = want_message ? limb_weights(ctx, nl, scale) : std::vector<mp_limb_t>{};

    Decoded out{PlainCoeffs(want_message ? n * pl : 0, 0), -1e300};
    const size_t chunks = std::min<size_t>(n, 64);
    std::vector<double> chunk_max(chunks, -1e300);
    ctx.pool().parallel_for(chunks, [&](size_t chunk) {
        // Scratch holding v (message and noise): wiped when the chunk ends.
        std::array<mp_limb_t, CrtBasis::kMaxLimbs + 1> value{};
        // sum over k of value[k] * weights[k]: below nl 2^64 t, so pl + 2 limbs
        // (nl < 2^64); the quotient of its division by t has at most 3 limbs.
        WipedVector<mp_limb_t> sum(pl + 2), quotient(3);
        // The largest |v| of the chunk; its log2 is taken once, at the end.
        std::array<mp_limb_t, CrtBasis::kMaxLimbs + 1> largest{};
        const ScopedWipe wipe_value(value.data(), sizeof value), wipe_largest(largest.data(), sizeof largest);
        const size_t begin = chunk * n / chunks, end = (chunk + 1) * n / chunks;
        for (size_t j = begin; j < end; ++j) {
            crt.compose(v.data.data() + j, n, reinterpret_cast<u64 *>(value.data()));
            const bool negative = mpn_cmp(value.data(), reinterpret_cast<const mp_limb_t *>(half_q.data()),
                                          static_cast<mp_size_t>(nl)) > 0;
            if (negative) mpn_sub_n(value.data(), q_limbs, value.data(), static_cast<mp_size_t>(nl));
            if (mpn_cmp(value.data(), largest.data(), static_cast<mp_size_t>(nl)) > 0) {
                std::copy(value.begin(), value.begin() + static_cast<std::ptrdiff_t>(nl), largest.begin());
            }
            if (!want_message) continue;
            // |v| * scale mod t
            sum_of_scaled(reinterpret_cast<const u64 *>(value.data()), nl,
                          reinterpret_cast<const u64 *>(weights.data()), pl, reinterpret_cast<u64 *>(sum.data()));
            u64 *m = out.message.data() + j * pl;
            mpn_tdiv_qr(quotient.data(), reinterpret_cast<mp_limb_t *>(m), 0, sum.data(),
                        static_cast<mp_size_t>(pl + 2), t_limbs, static_cast<mp_size_t>(pl));
            const bool zero = std::all_of(m, m + pl, [](u64 x) { return x == 0; });
            if (negative && !zero) {
                mpn_sub_n(reinterpret_cast<mp_limb_t *>(m), t_limbs, reinterpret_cast<const mp_limb_t *>(m),
                          static_cast<mp_size_t>(pl));
            }
        }
        chunk_max[chunk] = log2_limbs(reinterpret_cast<const u64 *>(largest.data()), nl);
    });
    out.log2_max_noise = *std::max_element(chunk_max.begin(), chunk_max.end());
    return out;
}

}  // namespace

void check_nonempty(const Ciphertext &ct) {
    require(!ct.empty(), Status::InvalidArgument, "ciphertext is empty (it was never written)");
}

PlainCoeffs decrypt(const SecretKey &sk, const Ciphertext &ct) {
    check_decryptable_input(sk, ct);
    const std::string refusal = key_free_refusal(ct);
    require(refusal.empty(), Status::NoiseBudgetExhausted,
            "decryption refused, correctness is not guaranteed: " + refusal);
    double log2_noise = 0;
    PlainCoeffs message = decode_decryption(*ct.ctx, decryption_residues(sk, ct), ct.level, ct.factor, log2_noise);
    // Second opinion with the key: noise that wrapped at random leaves
    // coefficients spread over (-Q/2, Q/2], all N of them below Q/4 with
    // probability 2^-N (this also catches a wrong secret key).
    const double budget = noise::budget(*ct.ctx, ct.level, log2_noise);
    require(budget >= noise::kMinBudgetBits, Status::NoiseBudgetExhausted,
            "noise budget exhausted: decryption would return garbage (measured budget " +
                std::to_string(std::max(budget, 0.0)) + " bits)");
    return message;
}

PlainCoeffs decode_decryption(const Context &ctx, const RnsPoly &v, size_t level, const mpz_class &factor,
                              double &log2_noise) {
    ensure(v.n == ctx.n() && v.count == level + 1, "decryption residues span the level");
    std::vector<mp_limb_t> factor_inverse;
    if (factor != 1) {
        mpz_class inverse;
        mpz_invert(inverse.get_mpz_t(), factor.get_mpz_t(), ctx.t().get_mpz_t());
        factor_inverse.resize(ctx.plain_limbs());
        mpz_to_limbs(inverse, reinterpret_cast<u64 *>(factor_inverse.data()), factor_inverse.size());
    }
    Decoded decoded = reconstruct(ctx, v, level, true, factor_inverse.empty() ? nullptr : &factor_inverse);
    log2_noise = decoded.log2_max_noise;
    return std::move(decoded.message);
}

double noise_budget(const SecretKey &sk, const Ciphertext &ct) {
    check_decryptable_input(sk, ct);
    // Where decryption refuses without the key, a measurement of v mod Q says
    // nothing about the unreduced noise.
    if (!key_free_refusal(ct).empty()) return 0.0;
    const Context &ctx = *ct.ctx;
    const Decoded decoded = reconstruct(ctx, decryption_residues(sk, ct), ct.level, false);
    return std::max(0.0, noise::budget(ctx, ct.level, decoded.log2_max_noise));
}

}  // namespace bgv
