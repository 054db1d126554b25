// rns_poly.cpp -- arithmetic on RNS polynomials.
#include "ring/rns_poly.hpp"

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

template <typename Op>
void pointwise(const Context &ctx, const RnsPoly &a, const RnsPoly *b, RnsPoly &dst, size_t count, Op op) {
    ensure(a.count >= count && (b == nullptr || b->count >= count), "operands cover the primes");
    if (&dst != &a && &dst != b) dst.reshape(ctx.n(), count);
    for_each_prime(ctx, count, [&](size_t i) {
        const Modulus &q = ctx.prime(i);
        const u64 *x = a.residues(i);
        const u64 *y = b ? b->residues(i) : nullptr;
        u64 *z = dst.residues(i);
        for (size_t j = 0; j < ctx.n(); ++j) z[j] = op(q, x[j], y ? y[j] : 0, z[j]);
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
    for_each_prime(ctx, count, [&](size_t i) {
        kernels::multiply_montgomery(dst.residues(i), a.residues(i), b.residues(i), ctx.n(), ctx.prime(i), false);
    });
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
