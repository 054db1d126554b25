// rns_poly.hpp -- polynomials in Z_Q[X]/(X^N+1) held as residues per prime.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "util/buffer_pool.hpp"
#include "ring/context.hpp"
#include "util/wipe.hpp"

namespace bgv {

/// Whether a residue buffer may hold secret-dependent values: the secret key
/// in any form, its powers and automorphisms, decryption intermediates
/// (c_0 + c_1 s, enough with the ciphertext to recover s). Secret buffers are
/// wiped before they are freed or handed to the buffer pool; public ones
/// (ciphertexts, public keys, plaintext encodings) are not, so the hot paths
/// pay nothing.
enum class Secrecy : bool { Public = false, Secret = true };

/// An allocator whose value-initialization leaves memory uninitialized, so
/// that resizing a residue buffer that is about to be overwritten costs no
/// memset, and which recycles large buffers through buffer_pool (so they do
/// not come back from the kernel as fresh zero-filled pages).
///
/// It carries the buffer's Secrecy, and the secrecy travels with the buffer:
/// a move hands it over, a copy is as secret as its source, and assigning a
/// buffer of the other secrecy releases the old one (wiping it if secret) and
/// adopts the source's. A secret buffer is wiped in full (its whole capacity)
/// before it is released, also when a resize reallocates it.
template <typename T>
struct UninitializedAllocator : std::allocator<T> {
    template <typename U>
    struct rebind {
        using other = UninitializedAllocator<U>;
    };
    using propagate_on_container_copy_assignment = std::true_type;
    using propagate_on_container_move_assignment = std::true_type;
    using propagate_on_container_swap = std::true_type;
    using is_always_equal = std::false_type;

    Secrecy secrecy = Secrecy::Public;

    UninitializedAllocator() = default;
    explicit UninitializedAllocator(Secrecy s) : secrecy(s) {}
    template <typename U>
    UninitializedAllocator(const UninitializedAllocator<U> &other) : secrecy(other.secrecy) {}
    UninitializedAllocator select_on_container_copy_construction() const { return *this; }

    T *allocate(size_t count) {
        const size_t bytes = count * sizeof(T);
        if (bytes >= buffer_pool::kMinBytes) return static_cast<T *>(buffer_pool::allocate(bytes));
        return std::allocator<T>::allocate(count);
    }
    void deallocate(T *buffer, size_t count) {
        const size_t bytes = count * sizeof(T);
        if (secrecy == Secrecy::Secret) secure_wipe(buffer, bytes);
        if (bytes >= buffer_pool::kMinBytes) return buffer_pool::release(buffer, bytes);
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
    /// Equal allocators may release each other's buffers: only those of the
    /// same secrecy, so that a container never moves a secret buffer under a
    /// public allocator.
    friend bool operator==(const UninitializedAllocator &a, const UninitializedAllocator &b) {
        return a.secrecy == b.secrecy;
    }
    friend bool operator!=(const UninitializedAllocator &a, const UninitializedAllocator &b) {
        return !(a == b);
    }
};

using ResidueBuffer = std::vector<u64, UninitializedAllocator<u64>>;

/// A polynomial as residues modulo the first `count` primes of the context
/// (prime-major layout). Ciphertexts, keys and encoded plaintexts keep theirs
/// in NTT (evaluation) form. A polynomial made Secrecy::Secret (the secret
/// key and what is computed from it) wipes its buffer before releasing it.
///
/// `n` is the ring degree N, except for a *compact* polynomial in NTT form
/// (only encoded plaintexts are): one in X^s, s = N / n, held by the n
/// outputs of the length-n transform (NttTables::forward_length). Word j of
/// its length-N transform is word j / s of its own (repeated_block).
struct RnsPoly {
    size_t n = 0;
    size_t count = 0;
    ResidueBuffer data;

    RnsPoly() = default;
    /// An empty polynomial whose buffers, once allocated, have this secrecy.
    explicit RnsPoly(Secrecy secrecy) : data(ResidueBuffer::allocator_type(secrecy)) {}
    /// Residues left uninitialized: every constructor's caller writes them all.
    RnsPoly(size_t n_, size_t count_, Secrecy secrecy = Secrecy::Public)
        : n(n_), count(count_), data(n_ * count_, ResidueBuffer::allocator_type(secrecy)) {}
    /// Whether the buffer is wiped before it is released.
    bool secret() const { return data.get_allocator().secrecy == Secrecy::Secret; }
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
/// Small polynomials are the secret key and error terms, so the result is
/// Secrecy::Secret (whatever it becomes, e.g. b = t*e - a*s, keeps the flag).
RnsPoly small_to_ntt(const Context &ctx, const std::vector<int32_t> &coeffs, size_t count);
RnsPoly small_to_ntt(const Context &ctx, const std::vector<int8_t> &coeffs, size_t count);

/// Words [c, c + len) of residue i of `b`'s length-`n` NTT form: b's own
/// words when it is full (b.n = n); for a compact b (b.n < n, see RnsPoly),
/// each of its words repeated n / b.n times, written to `scratch` (len words).
inline const u64 *repeated_block(const RnsPoly &b, size_t i, size_t c, size_t len, size_t n, u64 *scratch) {
    if (b.n == n) return b.residues(i) + c;
    // n / b.n is a power of two: word j repeats over [j << shift, (j + 1) << shift).
    const unsigned shift = static_cast<unsigned>(__builtin_ctzll(n / b.n));
    const u64 *words = b.residues(i);
    for (size_t k = 0; k < len;) {
        const size_t j = (c + k) >> shift;
        const size_t end = std::min(len, ((j + 1) << shift) - c);
        std::fill(scratch + k, scratch + end, words[j]);
        k = end;
    }
    return scratch;
}

/// b as a full polynomial (n = N), in a new buffer: its compact words
/// repeated (see RnsPoly), or a copy when b is full.
RnsPoly expanded(const Context &ctx, const RnsPoly &b);

/// Per-prime maps run on the context's pool.
void for_each_prime(const Context &ctx, size_t count, const std::function<void(size_t)> &body);

/// Converts every residue to Montgomery form, in place.
void to_montgomery(const Context &ctx, RnsPoly &a);

/// dst = a + b, a - b, -a, a * b (pointwise; NTT form), over `count` primes.
void poly_add(const Context &ctx, const RnsPoly &a, const RnsPoly &b, RnsPoly &dst, size_t count);
void poly_sub(const Context &ctx, const RnsPoly &a, const RnsPoly &b, RnsPoly &dst, size_t count);
void poly_negate(const Context &ctx, const RnsPoly &a, RnsPoly &dst, size_t count);
/// dst = a * b for b in Montgomery form (b may be compact; a and dst are full).
void poly_mul_montgomery(const Context &ctx, const RnsPoly &a, const RnsPoly &b, RnsPoly &dst, size_t count);
/// dst = a +- b for b in Montgomery form (b may be compact; a and dst are full).
void poly_add_montgomery(const Context &ctx, const RnsPoly &a, const RnsPoly &b, RnsPoly &dst, size_t count);
void poly_sub_montgomery(const Context &ctx, const RnsPoly &a, const RnsPoly &b, RnsPoly &dst, size_t count);
/// dst = a * scalar_i, one scalar residue per prime.
void poly_mul_scalar(const Context &ctx, const RnsPoly &a, const std::vector<u64> &scalar, RnsPoly &dst,
                     size_t count);

}  // namespace bgv
