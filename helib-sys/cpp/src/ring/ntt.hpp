// ntt.hpp -- negacyclic number-theoretic transform modulo one prime.
#pragma once

#include <cstddef>
#include <vector>

#include "util/cpu.hpp"
#include "util/modarith.hpp"

namespace bgv {

/// Precomputed tables for the negacyclic NTT of length n modulo q
/// (q = 1 mod 2n, q < 2^62). The forward transform maps coefficients of
/// a(X) in Z_q[X]/(X^n+1) to the evaluations a(psi^(2 bitrev(i) + 1)) in
/// bit-reversed order, so that products become pointwise. Butterflies are
/// Harvey's lazy ones with Shoup-precomputed twiddles.
class NttTables {
public:
    NttTables(size_t n, const Modulus &modulus);

    size_t size() const { return n_; }
    const Modulus &modulus() const { return modulus_; }
    u64 root() const { return psi_; }

    /// In place; input in [0, 4q) (in particular [0, q)), output in [0, q).
    void forward(u64 *values) const { forward(values, cpu_path()); }
    /// In place; input in [0, 2q) (in particular [0, q)), output in [0, q).
    void inverse(u64 *values) const { inverse(values, cpu_path()); }
    /// forward / inverse with the kernels of `path`, which this CPU must run
    /// (cpu_supports); every path gives the same output.
    void forward(u64 *values, CpuPath path) const;
    void inverse(u64 *values, CpuPath path) const;

    /// The forward transform of length m (a power of two, 2 <= m <= n) with
    /// root psi^(n/m): the NTT of a polynomial a(Y) mod Y^m + 1, where the
    /// length-n transform of a(X^(n/m)) holds each of its outputs n/m times
    /// in a row. Its tables are the first m entries of this one's (with
    /// roots in bit-reversed order, psi^bitrev_n(k) = (psi^(n/m))^bitrev_m(k)
    /// for k < m). In place; input in [0, 4q), output in [0, q).
    void forward_length(u64 *values, size_t m) const;

    /// The forward transform applied to `width` interleaved sequences at once:
    /// `rows` holds n rows of `width` words, and column j (rows[k * width + j],
    /// k < n) is transformed. Rows from `nonzero_rows` on must be zero (zero
    /// padding; the first stage then only copies). In place; input and output
    /// in [0, q); `width` is a multiple of 8.
    void forward_rows(u64 *rows, size_t width, size_t nonzero_rows) const;
    /// The inverse of forward_rows, with every output also multiplied by
    /// `extra` (a residue; 1 for the plain inverse). Input in [0, 2q), output
    /// in [0, q).
    void inverse_rows(u64 *rows, size_t width, u64 extra) const;

private:
    /// The forward transform of length m with the first m table entries.
    void forward_prefix(u64 *values, size_t m, CpuPath path) const;

    size_t n_;
    Modulus modulus_;
    u64 psi_;
    std::vector<u64> roots_, roots_shoup_;          // psi^bitrev(k)
    std::vector<u64> inv_roots_, inv_roots_shoup_;  // psi^-bitrev(k)
    u64 n_inv_, n_inv_shoup_;
    u64 last_inv_, last_inv_shoup_;  // psi^-bitrev(1) n^-1: the last inverse stage with the scaling
};

}  // namespace bgv
