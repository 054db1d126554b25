// field_ntt.hpp -- the negacyclic NTT over a big prime field F_t (t < 2^255),
// the plaintext field of the slot encoding.
//
// Elements are four little-endian 64-bit limbs. The transform of length n
// with a primitive 2n-th root psi maps the coefficients of m(X) in
// F_t[X]/(X^n + 1) to the evaluations m(psi^(2k+1)), k = 0..n in natural
// order (the order of a size-n FFT on the coset psi * <psi^2>), and back.
//
// Two implementations give identical results: a portable one (Montgomery
// products on 4 x 64-bit limbs, R = 2^256) and, when the CPU has AVX-512 IFMA
// and HELIB_CPU allows avx512, one that runs 8 butterflies at once on 5 x
// 52-bit limbs (R = 2^260). Twiddles of both are computed once per table.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace bgv {

using Limbs4 = std::array<uint64_t, 4>;

/// Montgomery arithmetic modulo an odd t < 2^255 on 4 x 64-bit limbs (R = 2^256).
class FieldMont {
public:
    /// `t` must be odd, > 2 and < 2^255 (checked by FieldNttTable).
    explicit FieldMont(const Limbs4 &t);

    const Limbs4 &modulus() const { return t_; }
    /// -t^-1 mod 2^64.
    uint64_t neg_inverse() const { return neg_inv_; }

    /// a * b / 2^256 mod t, for a, b < t; the result is < t.
    Limbs4 mul(const Limbs4 &a, const Limbs4 &b) const;
    Limbs4 add(const Limbs4 &a, const Limbs4 &b) const;
    Limbs4 sub(const Limbs4 &a, const Limbs4 &b) const;
    /// a * 2^256 mod t.
    Limbs4 to_mont(const Limbs4 &a) const { return mul(a, r2_); }
    /// a / 2^256 mod t.
    Limbs4 from_mont(const Limbs4 &a) const;
    /// 2^e mod t.
    Limbs4 pow2(unsigned e) const;
    /// base^e mod t, everything in Montgomery form.
    Limbs4 pow_mont(const Limbs4 &base_mont, uint64_t e) const;
    Limbs4 one_mont() const { return r1_; }

private:
    Limbs4 t_;
    uint64_t neg_inv_;
    Limbs4 r1_;  // 2^256 mod t
    Limbs4 r2_;  // 2^512 mod t
};

/// Whether a < b as 256-bit integers.
bool limbs_less(const Limbs4 &a, const Limbs4 &b);

/// The precomputed tables of one (t, n, psi).
class FieldNttTable {
public:
    /// Throws bgv::Error(Status::InvalidArgument) unless t is odd, in
    /// (2, 2^255), n is a power of two in [2, 2^17], psi < t and psi^n = -1.
    FieldNttTable(const Limbs4 &t, size_t n, const Limbs4 &psi);

    size_t size() const { return n_; }
    const FieldMont &mont() const { return mont_; }
    /// Whether the transforms run the AVX-512 IFMA kernels.
    bool vectorized() const { return use_vector_; }

    /// In place on n elements (4 limbs each, all < t; the caller checks):
    /// coefficients -> evaluations at psi^(2k+1), k = 0..n.
    void forward(uint64_t *values) const;
    /// The inverse of forward.
    void inverse(uint64_t *values) const;

    /// The portable transforms, whatever the CPU (the reference of the vector ones).
    void forward_scalar(uint64_t *values) const;
    void inverse_scalar(uint64_t *values) const;
    /// The IFMA transforms; only when vector_available().
    void forward_vector(uint64_t *values) const;
    void inverse_vector(uint64_t *values) const;
    /// Whether the IFMA kernels can run here (CPU support and n >= 64), whatever HELIB_CPU says.
    bool vector_available() const { return vector_ok_; }

private:
    size_t n_;
    unsigned log_n_;
    FieldMont mont_;
    // psi^bitrev(k) and psi^-bitrev(k) (log n bits), k = 0..n, Montgomery form (R = 2^256).
    std::vector<Limbs4> fwd_;
    std::vector<Limbs4> inv_;
    Limbs4 n_inv_mont_;
    bool vector_ok_ = false;
    bool use_vector_ = false;
    // IFMA tables (R = 2^260, 5 x 52-bit limbs).
    std::array<uint64_t, 5> t52_{};
    uint64_t neg_inv52_ = 0;
    std::vector<uint64_t> fwd52_;       // [k][limb], k = 0..n
    std::vector<uint64_t> inv52_;       // [k][limb]
    std::vector<uint64_t> fwd_lanes_;   // per-lane twiddles of the last three forward stages
    std::vector<uint64_t> inv_lanes_;   // per-lane twiddles of the first three inverse stages
    std::array<uint64_t, 5> n_inv52_{};

    void build_vector_tables();
};

}  // namespace bgv
