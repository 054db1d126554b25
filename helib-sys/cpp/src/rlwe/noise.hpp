// noise.hpp -- the key-free noise model: conservative log2 bounds on ||v||_inf.
#pragma once

#include <string>

#include "ring/context.hpp"

namespace bgv {
namespace noise {

/// Bounds use 8 standard deviations for every sum of random terms.
constexpr double kTail = 8.0;

/// The budget (bits) every ciphertext an operation produces, and every
/// ciphertext decryption accepts, must keep: its noise stays at least a factor
/// of 2 below Q_level / 2.
constexpr double kMinBudgetBits = 1.0;

/// Public-key encryption: t * (e*u + e0 + e1*s) + m.
double fresh_public(const Context &ctx);
/// Secret-key encryption: t * e + m.
double fresh_secret(const Context &ctx);
/// log2(2^a + 2^b).
double add(double a, double b);
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
