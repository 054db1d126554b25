// rns_poly.cpp -- arithmetic on RNS polynomials.
#include "ring/rns_poly.hpp"

#include <algorithm>

#include "util/error.hpp"
#include "ring/ntt_kernels.hpp"


namespace bgv {
namespace {

template <typename Int>
RnsPoly small_to_ntt_impl(const Context &ctx, const std::vector<Int> &coeffs, size_t count) {
    RnsPoly out(ctx.n(), count, Secrecy::Secret);
    for_each_prime(ctx, count, [&](size_t i) {
        const Modulus &q = ctx.prime(i);
        u64 *r = out.residues(i);
        for (size_t j = 0; j < ctx.n(); ++j) r[j] = q.from_small(coeffs[j]);
        ctx.ntt(i).forward(r);
    });
    return out;
}

/// Words of a compact operand expanded at a time (see repeated_block): a few
/// KiB, so they stay in the first-level cache between the expansion and the
/// product.
constexpr size_t kRepeatBlock = 512;

/// dst = op(a, b) word by word over `count` primes; b may be compact (its
/// words repeated, see RnsPoly), a and dst are full.
template <typename Op>
void pointwise(const Context &ctx, const RnsPoly &a, const RnsPoly *b, RnsPoly &dst, size_t count, Op op) {
    ensure(a.count >= count && (b == nullptr || b->count >= count), "operands cover the primes");
    ensure(b == nullptr || (b->n <= ctx.n() && b->n > 0 && ctx.n() % b->n == 0), "operand b is full or compact");
    if (&dst != &a && &dst != b) dst.reshape(ctx.n(), count);
    const size_t n = ctx.n();
    for_each_prime(ctx, count, [&](size_t i) {
        const Modulus &q = ctx.prime(i);
        const u64 *x = a.residues(i);
        u64 *z = dst.residues(i);
        u64 scratch[kRepeatBlock];
        for (size_t c = 0; c < n; c += kRepeatBlock) {
            const size_t len = std::min(kRepeatBlock, n - c);
            const u64 *y = b ? repeated_block(*b, i, c, len, n, scratch) : nullptr;
            for (size_t j = 0; j < len; ++j) z[c + j] = op(q, x[c + j], y ? y[j] : 0, z[c + j]);
        }
    });
    if (dst.count != count) dst.truncate(count);
}

}  // namespace

RnsPoly small_to_ntt(const Context &ctx, const std::vector<int32_t> &coeffs, size_t count) {
    return small_to_ntt_impl(ctx, coeffs, count);
}
RnsPoly small_to_ntt(const Context &ctx, const std::vector<int8_t> &coeffs, size_t count) {
    return small_to_ntt_impl(ctx, coeffs, count);
}

RnsPoly expanded(const Context &ctx, const RnsPoly &b) {
    if (b.n == ctx.n()) return b;
    ensure(b.n > 0 && b.n < ctx.n() && ctx.n() % b.n == 0, "a compact polynomial's length divides N");
    RnsPoly out(ctx.n(), b.count);
    for (size_t i = 0; i < b.count; ++i) repeated_block(b, i, 0, ctx.n(), ctx.n(), out.residues(i));
    return out;
}

void for_each_prime(const Context &ctx, size_t count, const std::function<void(size_t)> &body) {
    ctx.pool().parallel_for(count, body);
}

void poly_add(const Context &ctx, const RnsPoly &a, const RnsPoly &b, RnsPoly &dst, size_t count) {
    pointwise(ctx, a, &b, dst, count, [](const Modulus &q, u64 x, u64 y, u64) { return q.add(x, y); });
}
void poly_sub(const Context &ctx, const RnsPoly &a, const RnsPoly &b, RnsPoly &dst, size_t count) {
    pointwise(ctx, a, &b, dst, count, [](const Modulus &q, u64 x, u64 y, u64) { return q.sub(x, y); });
}
void poly_negate(const Context &ctx, const RnsPoly &a, RnsPoly &dst, size_t count) {
    pointwise(ctx, a, nullptr, dst, count, [](const Modulus &q, u64 x, u64, u64) { return q.neg(x); });
}
void poly_mul_montgomery(const Context &ctx, const RnsPoly &a, const RnsPoly &b, RnsPoly &dst, size_t count) {
    ensure(a.count >= count && b.count >= count, "operands cover the primes");
    if (&dst != &a && &dst != &b) dst.reshape(ctx.n(), count);
    const size_t n = ctx.n();
    if (b.n == n) {
        for_each_prime(ctx, count, [&](size_t i) {
            kernels::multiply_montgomery(dst.residues(i), a.residues(i), b.residues(i), n, ctx.prime(i), false);
        });
    } else {
        ensure(b.n > 0 && b.n < n && n % b.n == 0, "operand b is full or compact");
        for_each_prime(ctx, count, [&](size_t i) {
            u64 scratch[kRepeatBlock];
            for (size_t c = 0; c < n; c += kRepeatBlock) {
                const size_t len = std::min(kRepeatBlock, n - c);
                kernels::multiply_montgomery(dst.residues(i) + c, a.residues(i) + c,
                                             repeated_block(b, i, c, len, n, scratch), len, ctx.prime(i), false);
            }
        });
    }
    if (dst.count != count) dst.truncate(count);
}
void poly_add_montgomery(const Context &ctx, const RnsPoly &a, const RnsPoly &b, RnsPoly &dst, size_t count) {
    pointwise(ctx, a, &b, dst, count,
              [](const Modulus &q, u64 x, u64 y, u64) { return q.add(x, q.mul_montgomery(y, 1)); });
}
void poly_sub_montgomery(const Context &ctx, const RnsPoly &a, const RnsPoly &b, RnsPoly &dst, size_t count) {
    pointwise(ctx, a, &b, dst, count,
              [](const Modulus &q, u64 x, u64 y, u64) { return q.sub(x, q.mul_montgomery(y, 1)); });
}
void to_montgomery(const Context &ctx, RnsPoly &a) {
    for_each_prime(ctx, a.count, [&](size_t i) {
        const Modulus &q = ctx.prime(i);
        u64 *r = a.residues(i);
        for (size_t j = 0; j < ctx.n(); ++j) r[j] = q.to_montgomery(r[j]);
    });
}
void poly_mul_scalar(const Context &ctx, const RnsPoly &a, const std::vector<u64> &scalar, RnsPoly &dst,
                     size_t count) {
    ensure(a.count >= count && scalar.size() >= count, "operands cover the primes");
    if (&dst != &a) dst.reshape(ctx.n(), count);
    for_each_prime(ctx, count, [&](size_t i) {
        const Modulus &q = ctx.prime(i);
        const u64 w = scalar[i], ws = q.shoup(w);
        const u64 *x = a.residues(i);
        u64 *z = dst.residues(i);
        for (size_t j = 0; j < ctx.n(); ++j) z[j] = q.mul_shoup(x[j], w, ws);
    });
    if (dst.count != count) dst.truncate(count);
}

}  // namespace bgv
