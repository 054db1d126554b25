// rns_poly.hpp -- polynomials in Z_Q[X]/(X^N+1) held as residues per prime.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "buffer_pool.hpp"
#include "context.hpp"

namespace bgv {

/// An allocator whose value-initialization leaves memory uninitialized, so
/// that resizing a residue buffer that is about to be overwritten costs no
/// memset, and which recycles large buffers through buffer_pool (so they do
/// not come back from the kernel as fresh zero-filled pages).
template <typename T>
struct UninitializedAllocator : std::allocator<T> {
    template <typename U>
    struct rebind {
        using other = UninitializedAllocator<U>;
    };
    UninitializedAllocator() = default;
    template <typename U>
    UninitializedAllocator(const UninitializedAllocator<U> &) {}
    T *allocate(size_t count) {
        const size_t bytes = count * sizeof(T);
        if (bytes >= buffer_pool::kMinBytes) {
            if (void *recycled = buffer_pool::take(bytes)) return static_cast<T *>(recycled);
        }
        return std::allocator<T>::allocate(count);
    }
    void deallocate(T *buffer, size_t count) {
        const size_t bytes = count * sizeof(T);
        if (bytes >= buffer_pool::kMinBytes && buffer_pool::give(buffer, bytes)) return;
        std::allocator<T>::deallocate(buffer, count);
    }
    template <typename U>
    void construct(U *p) noexcept {
        ::new (static_cast<void *>(p)) U;
    }
    template <typename U, typename... Args>
    void construct(U *p, Args &&...args) {
        ::new (static_cast<void *>(p)) U(std::forward<Args>(args)...);
    }
};

using ResidueBuffer = std::vector<u64, UninitializedAllocator<u64>>;

/// A polynomial as residues modulo the first `count` primes of the context
/// (prime-major layout). Ciphertexts, keys and encoded plaintexts keep theirs
/// in NTT (evaluation) form.
struct RnsPoly {
    size_t n = 0;
    size_t count = 0;
    ResidueBuffer data;

    RnsPoly() = default;
    /// Residues left uninitialized: every constructor's caller writes them all.
    RnsPoly(size_t n_, size_t count_) : n(n_), count(count_), data(n_ * count_) {}
    /// Sets the shape, reusing the buffer; contents are unspecified afterwards.
    void reshape(size_t n_, size_t count_) {
        n = n_;
        count = count_;
        data.resize(n_ * count_);
    }
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

/// Converts every residue to Montgomery form, in place.
void to_montgomery(const Context &ctx, RnsPoly &a);

/// dst = a + b, a - b, -a, a * b (pointwise; NTT form), over `count` primes.
void poly_add(const Context &ctx, const RnsPoly &a, const RnsPoly &b, RnsPoly &dst, size_t count);
void poly_sub(const Context &ctx, const RnsPoly &a, const RnsPoly &b, RnsPoly &dst, size_t count);
void poly_negate(const Context &ctx, const RnsPoly &a, RnsPoly &dst, size_t count);
/// dst = a * b for b in Montgomery form.
void poly_mul_montgomery(const Context &ctx, const RnsPoly &a, const RnsPoly &b, RnsPoly &dst, size_t count);
/// dst = a +- b for b in Montgomery form.
void poly_add_montgomery(const Context &ctx, const RnsPoly &a, const RnsPoly &b, RnsPoly &dst, size_t count);
void poly_sub_montgomery(const Context &ctx, const RnsPoly &a, const RnsPoly &b, RnsPoly &dst, size_t count);
/// dst = a * scalar_i, one scalar residue per prime.
void poly_mul_scalar(const Context &ctx, const RnsPoly &a, const std::vector<u64> &scalar, RnsPoly &dst,
                     size_t count);

}  // namespace bgv
