// plaintext.hpp -- plaintext polynomials mod t: validation, scaling, lifting to RNS.
#pragma once

#include <cstddef>
#include <vector>

#include "ring/rns_poly.hpp"

namespace bgv {

/// N coefficients in [0, t), plain_limbs() limbs each (coefficient-major).
using PlainCoeffs = std::vector<u64>;

/// Validates a caller's polynomial (n_coeffs <= N, each < t) and returns it
/// zero-padded to N coefficients, multiplied by `factor` mod t when given.
PlainCoeffs load_plaintext(const Context &ctx, const u64 *coeffs, size_t n_coeffs,
                           size_t limbs_per_coeff, const mpz_class *factor);

/// Where lift_plaintext keeps its working buffers. PerThread reuses this
/// thread's buffers between calls (no allocation or page faults per lift)
/// and is only for public plaintexts, such as the evaluator's encodings;
/// a plaintext that may be secret (one being encrypted) takes CallLocal,
/// buffers that live for the call alone. Independent of the output form.
enum class ScratchUse { CallLocal, PerThread };

/// The centred lift (coefficients in (-t/2, t/2]) of a plaintext as residues
/// modulo primes [0, count), in NTT form, with the lift's norms.
struct LiftedPlaintext {
    RnsPoly poly;
    double log2_linf;
    double log2_l1;
};
LiftedPlaintext lift_plaintext(const Context &ctx, const PlainCoeffs &coeffs, size_t count,
                               bool to_ntt);
/// The same lift modulo the listed primes (indices into ctx.primes()):
/// residue r of the result is modulo primes[r].
LiftedPlaintext lift_plaintext(const Context &ctx, const PlainCoeffs &coeffs, const std::vector<size_t> &primes,
                               bool to_ntt);
/// The same lift of `length` coefficients at `coeffs` (plain_limbs() limbs
/// each, each < t; `length` a power of two dividing N, at least 2), with the
/// residues in Montgomery form (x * 2^64 mod q) when `montgomery`: the
/// factor 2^64 is folded into the lift, so it costs no extra pass and gives
/// exactly the residues a separate conversion would.
///
/// For `length` < N the coefficients are those of a(Y), Y = X^(N / length),
/// the polynomial a(X^(N / length)) mod X^N + 1; the result has `length`
/// words per prime, and in NTT form (to_ntt) it is a compact polynomial (see
/// RnsPoly): the transform of length `length` with root psi^(N / length),
/// whose outputs the length-N transform repeats N / length times each.
///
/// `scratch_use` says where the working buffers (the magnitudes and signs of
/// the centred coefficients) live; see ScratchUse.
LiftedPlaintext lift_plaintext(const Context &ctx, const u64 *coeffs, size_t length,
                               const std::vector<size_t> &primes, bool to_ntt, bool montgomery,
                               ScratchUse scratch_use);

/// Checks that each of the N coefficients at `coeffs` (plain_limbs() limbs
/// each) is below t; fails with Status::InvalidArgument naming the first
/// one that is not.
void check_reduced(const Context &ctx, const u64 *coeffs);

/// Reduces an integer given by limbs modulo t (any size) into plain_limbs() limbs.
mpz_class reduce_mod_t(const Context &ctx, const u64 *limbs, size_t count);

}  // namespace bgv
