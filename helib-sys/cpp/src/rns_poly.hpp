// rns_poly.hpp -- polynomials in Z_Q[X]/(X^N+1) held as residues per prime.
#pragma once

#include <cstddef>
#include <vector>

#include "context.hpp"

namespace bgv {

/// A polynomial as residues modulo the first `count` primes of the context
/// (prime-major layout). Ciphertexts, keys and encoded plaintexts keep theirs
/// in NTT (evaluation) form.
struct RnsPoly {
    size_t n = 0;
    size_t count = 0;
    std::vector<u64> data;

    RnsPoly() = default;
    RnsPoly(size_t n_, size_t count_) : n(n_), count(count_), data(n_ * count_, 0) {}
    u64 *residues(size_t i) { return data.data() + i * n; }
    const u64 *residues(size_t i) const { return data.data() + i * n; }
    /// Keeps only the first `new_count` primes.
    void truncate(size_t new_count) {
        count = new_count;
        data.resize(n * new_count);
    }
};

/// Residues of small signed coefficients, in NTT form, for primes [0, count).
RnsPoly small_to_ntt(const Context &ctx, const std::vector<int32_t> &coeffs, size_t count);
RnsPoly small_to_ntt(const Context &ctx, const std::vector<int8_t> &coeffs, size_t count);

/// Per-prime maps run on the context's pool.
void for_each_prime(const Context &ctx, size_t count, const std::function<void(size_t)> &body);

/// dst = a + b, a - b, -a, a * b (pointwise; NTT form), over `count` primes.
void poly_add(const Context &ctx, const RnsPoly &a, const RnsPoly &b, RnsPoly &dst, size_t count);
void poly_sub(const Context &ctx, const RnsPoly &a, const RnsPoly &b, RnsPoly &dst, size_t count);
void poly_negate(const Context &ctx, const RnsPoly &a, RnsPoly &dst, size_t count);
void poly_mul(const Context &ctx, const RnsPoly &a, const RnsPoly &b, RnsPoly &dst, size_t count);
/// dst += a * b (pointwise).
void poly_mul_add(const Context &ctx, const RnsPoly &a, const RnsPoly &b, RnsPoly &dst, size_t count);
/// dst = a * scalar_i, one scalar residue per prime.
void poly_mul_scalar(const Context &ctx, const RnsPoly &a, const std::vector<u64> &scalar, RnsPoly &dst,
                     size_t count);

}  // namespace bgv
