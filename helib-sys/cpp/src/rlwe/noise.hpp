// noise.hpp -- the key-free noise model: conservative log2 bounds on ||v||_inf.
#pragma once

#include <string>

#include "ring/context.hpp"

namespace bgv {
namespace noise {

/// Bounds use kTail standard deviations for every sum of random terms (the
/// C interface exports it as HELIB_NOISE_TAIL, and the Rust model reads it
/// there). Such a sum is close to Gaussian, and a Gaussian exceeds 8 sigma
/// with probability erfc(8 / sqrt 2) ~ 2^-49.5; over the N <= 2^17
/// coefficients of a ciphertext the bound fails with probability at most
/// 2^-32.5, per ciphertext. 6 sigma (2^-28.9 a coefficient) would leave
/// 2^-11.9 at N = 2^17: about one ciphertext in 4000 past its bound, too
/// often for a bound the engine refuses operations by.
constexpr double kTail = 8.0;

/// The budget (bits) every ciphertext an operation produces, and every
/// ciphertext decryption accepts, must keep: its noise stays at least a factor
/// of 2 below Q_level / 2.
constexpr double kMinBudgetBits = 1.0;

/// Public-key encryption: t * (e*u + e0 + e1*s) + m.
double fresh_public(const Context &ctx);
/// fresh_public for ring degree `n` and log2 t = `log2_t`, without a context
/// (the parameter searches of the Rust model read it through the C interface).
double fresh_public_bits(size_t n, double log2_t);
/// Secret-key encryption: t * e + m.
double fresh_secret(const Context &ctx);
/// log2(2^a + 2^b).
double add(double a, double b);
/// What a modulus switch of a size-3 ciphertext (a product not yet
/// relinearized) adds over a size-2 one, for ring degree `n` and log2 t =
/// `log2_t`: the rounding of its third part meets s^2 (the Rust model reads
/// it through the C interface).
double squared_secret_rounding_bits(size_t n, double log2_t);
/// After a modulus switch dropping a prime of log2 size `log2_q`, for a
/// ciphertext with `parts` polynomials.
double after_mod_switch(const Context &ctx, double noise, double log2_q, size_t parts);
/// log2(Q_level / 2) - noise.
double budget(const Context &ctx, size_t level, double noise);
/// Throws Status::NoiseBudgetExhausted, naming `operation`, unless a result
/// at `level` with noise `noise_after` keeps at least kMinBudgetBits of budget.
void require_budget(const Context &ctx, size_t level, double noise_after, const std::string &operation);

/// The noise floor: the smallest estimate the engine assigns to any
/// ciphertext. Every ciphertext at a level got there by a fresh encryption
/// (noise t * (e...) + m, at least fresh_secret) or by a modulus switch (at
/// least the switching floor t * (w0 + w1 s)), and no operation lowers an
/// estimate below its inputs' except a switch; so this is min(fresh_secret,
/// switching floor) = log2(t) + a few bits. Estimates read from outside
/// (deserialized ciphertexts) are raised to it.
double floor_log2(const Context &ctx);

/// The level rule: a ciphertext at `level` can be decrypted (and exists
/// meaningfully) only if Q_level / 2 is above the noise floor with
/// kMinBudgetBits to spare. Below that, the noise every ciphertext carries
/// (t times a small error) wraps modulo Q_level, and a structured wrap (when
/// t mod Q_level is small) can leave a residue that looks like small noise, so
/// the exact measurement at decryption cannot be trusted there.
bool level_holds_floor(const Context &ctx, size_t level);

}  // namespace noise
}  // namespace bgv
