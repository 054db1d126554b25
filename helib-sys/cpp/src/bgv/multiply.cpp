// multiply.cpp -- tensoring and relinearization.
#include "bgv/multiply.hpp"

#include <cmath>
#include <string>

#include "util/error.hpp"
#include "rlwe/noise.hpp"
#include "bgv/scheme.hpp"

namespace bgv {

RelinKey make_relin_key(const SecretKey &sk) {
    const Context &ctx = *sk.context();
    RnsPoly s2 = sk.ntt_montgomery();  // a copy of a secret polynomial is secret
    ensure(s2.secret(), "s^2 is wiped when released");
    // s~ * s~ * 2^-64 = s^2 * 2^64: s^2 in Montgomery form.
    poly_mul_montgomery(ctx, s2, sk.ntt_montgomery(), s2, ctx.primes().size());
    return RelinKey{make_key_switch_key(sk, s2)};
}

namespace {

/// One prime's row of the tensor product (a0 + a1 s)(b0 + b1 s): x0 = a0 b0,
/// x1 = a0 b1 + a1 b0, x2 = a1 b1 mod q, all inputs below q. b is taken to
/// Montgomery form on the fly (a lazy Shoup product by 2^64 mod q, in
/// [0, 2q)), so each output costs one Montgomery reduction; the cross term's
/// two products are summed before its one reduction (4q^2 < q 2^64 as
/// q < 2^62). Three reductions instead of four Barrett ones, about twice as
/// fast.
void tensor_row(const u64 *__restrict a0, const u64 *__restrict a1, const u64 *__restrict b0,
                const u64 *__restrict b1, u64 *__restrict x0, u64 *__restrict x1, u64 *__restrict x2, size_t n,
                const Modulus &modulus) {
    const Modulus q = modulus;  // a local copy: the stores below cannot alias it
    const u64 r = q.to_montgomery(1), r_shoup = q.shoup(r);
    for (size_t j = 0; j < n; ++j) {
        const u64 b0_mont = q.mul_shoup_lazy(b0[j], r, r_shoup), b1_mont = q.mul_shoup_lazy(b1[j], r, r_shoup);
        x0[j] = q.reduce_montgomery(static_cast<u128>(a0[j]) * b0_mont);
        x1[j] = q.reduce_montgomery(static_cast<u128>(a0[j]) * b1_mont + static_cast<u128>(a1[j]) * b0_mont);
        x2[j] = q.reduce_montgomery(static_cast<u128>(a1[j]) * b1_mont);
    }
}

}  // namespace

namespace eval {

void multiply(const Ciphertext &a, const Ciphertext &b, Ciphertext &dst) {
    check_nonempty(a);
    check_nonempty(b);
    require(a.ctx == b.ctx, Status::ContextMismatch, "operands belong to different contexts");
    if (a.level != b.level)
        fail_level_mismatch(a.level, b.level,
                            "operands are at different levels (" + std::to_string(a.level) + " and " +
                                std::to_string(b.level) + "); switch the higher one down first");
    require(a.parts.size() == 2 && b.parts.size() == 2, Status::InvalidArgument,
            "multiply needs size-2 ciphertexts: relinearize first");
    const Context &ctx = *a.ctx;
    // ||v_a * v_b||_inf <= N ||v_a||_inf ||v_b||_inf.
    const double noise = a.noise_log2 + b.noise_log2 + std::log2(static_cast<double>(ctx.n()));
    noise::require_budget(ctx, a.level, noise, "ciphertext multiplication");
    const size_t count = a.count(), n = ctx.n();
    RnsPoly c0(n, count), c1(n, count), c2(n, count);
    for_each_prime(ctx, count, [&](size_t i) {
        const u64 *a0 = a.parts[0].residues(i), *a1 = a.parts[1].residues(i);
        const u64 *b0 = b.parts[0].residues(i), *b1 = b.parts[1].residues(i);
        tensor_row(a0, a1, b0, b1, c0.residues(i), c1.residues(i), c2.residues(i), n, ctx.prime(i));
    });
    const mpz_class factor = a.factor * b.factor % ctx.t();
    dst.ctx = a.ctx;
    dst.level = a.level;
    dst.factor = factor;
    dst.noise_log2 = noise;
    dst.c1_seed.reset();
    dst.parts.clear();
    dst.parts.push_back(std::move(c0));
    dst.parts.push_back(std::move(c1));
    dst.parts.push_back(std::move(c2));
}

void relinearize(const RelinKey &rk, const Ciphertext &a, Ciphertext &dst) {
    check_nonempty(a);
    require(rk.key.ctx == a.ctx, Status::ContextMismatch, "relinearization key and ciphertext belong to different contexts");
    require(a.parts.size() <= 3, Status::InvalidArgument, "relinearize takes ciphertexts of size 2 or 3");
    if (a.parts.size() == 2) {
        if (&dst != &a) dst = a;
        return;
    }
    const Context &ctx = *a.ctx;
    const double noise = relinearized_noise_log2(rk, a);
    noise::require_budget(ctx, a.level, noise, "relinearization");
    RnsPoly k0, k1;
    key_switch(rk.key, decompose(ctx, a.parts[2], a.level), nullptr, k0, k1);
    Ciphertext out;
    out.ctx = a.ctx;
    out.level = a.level;
    out.factor = a.factor;
    out.noise_log2 = noise;
    out.parts.resize(2);
    poly_add(ctx, a.parts[0], k0, out.parts[0], a.count());
    poly_add(ctx, a.parts[1], k1, out.parts[1], a.count());
    dst = std::move(out);
}

double relinearized_noise_log2(const RelinKey &rk, const Ciphertext &a) {
    return noise::add(a.noise_log2, key_switch_noise_log2(*a.ctx, a.level, rk.key));
}

}  // namespace eval
}  // namespace bgv
