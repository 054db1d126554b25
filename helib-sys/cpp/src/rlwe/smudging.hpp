// smudging.hpp -- the smudging rule of the threshold protocols: how wide the
// noise t * E that a party adds to a share on a ciphertext must be, and how
// much noise a ciphertext may carry for that width to hide it.
//
// The width is fixed by what the party agreed to before it saw the
// ciphertext (a Spec: the parties, lambda, the level the agreed computation
// ends at and the most noise it can produce there), never by the noise
// estimate the ciphertext carries: that estimate travels in the ciphertext's
// bytes, so whoever hands the party a ciphertext could forge it low and
// narrow the smudging.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ring/context.hpp"

namespace bgv {
namespace smudging {

/// Bits of budget kept free below Q_level / 2 once every party's smudging is
/// in, beyond noise::kMinBudgetBits: a combination of shares with one missing,
/// repeated or random share leaves a phase spread over Z_Q, whose largest
/// coefficient exceeds the honest bound by these bits except with
/// probability about 2^(-kCheckBits * N).
constexpr double kCheckBits = 2.0;

/// The modulus bits the smudging of `parties` parties at lambda =
/// `security_bits` needs at a level beyond an ordinary decryption, on ring
/// degree `n`: lambda + ceil(log2 N) + ceil(log2 parties) + 2 + kCheckBits.
/// width() makes the noise grow by at most lambda + log2 N + log2 parties + 2
/// bits (the width is rounded up, and ||e|| to e + 1), and the level must keep
/// kCheckBits more than an ordinary decryption. Throws
/// Status::InvalidArgument for parties or lambda out of range, or n < 1.
unsigned room_bits(size_t n, uint32_t parties, uint32_t security_bits);

/// What a party agrees to smudge for.
struct Spec {
    /// The number of parties that each add a smudging term, in [1, threshold::kMaxParties].
    uint32_t parties;
    /// The statistical security parameter lambda, in [1, 128].
    uint32_t security_bits;
    /// The level the agreed computation's ciphertexts are at.
    size_t level;
    /// The most noise (log2 of ||m + t e||_inf) they can carry there.
    double noise_bits;
};

/// The width k of the smudging term of each party (E uniform in
/// [-2^k, 2^k)): 2^k >= 2^lambda * N * ||e|| for ||e|| <= 2^(noise_bits -
/// log2 t) + 1, so that E hides e in each of the N coefficients with
/// statistical distance 2^-lambda in all.
struct Width {
    unsigned bits;
    /// The noise once every party's smudging term is in.
    double noise_after;
};

/// Checks `spec` against `ctx` (parties, lambda, level, noise_bits at least
/// the engine's noise floor) and returns its width. Throws
/// Status::InvalidArgument / Status::InvalidLevel for a spec out of
/// range, Status::NoiseBudgetExhausted when the smudged noise would not
/// leave noise::kMinBudgetBits + kCheckBits of budget at the level.
Width width(const Context &ctx, const Spec &spec);

/// The largest noise bound the smudging of `parties` parties at `level`
/// can hide (noise_bits of the widest Spec that width() accepts): a
/// ciphertext at `level` with more noise than this cannot be decrypted
/// collectively at all. Throws Status::NoiseBudgetExhausted when even the
/// noise floor does not fit.
double level_bound(const Context &ctx, uint32_t parties, uint32_t security_bits, size_t level);

}  // namespace smudging
}  // namespace bgv
