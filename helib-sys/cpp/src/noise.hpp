// noise.hpp -- the key-free noise model: conservative log2 bounds on ||v||_inf.
#pragma once

#include <string>

#include "context.hpp"

namespace bgv {
namespace noise {

/// Bounds use 8 standard deviations for every sum of random terms.
constexpr double kTail = 8.0;

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
/// Throws HELIB_ERR_NOISE_BUDGET_EXHAUSTED, naming `operation`, unless a result
/// at `level` with noise `noise_after` keeps at least one bit of budget.
void require_budget(const Context &ctx, size_t level, double noise_after, const std::string &operation);

}  // namespace noise
}  // namespace bgv
