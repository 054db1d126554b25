// keys.cpp -- key generation.
#include "rlwe/keys.hpp"


#include "util/error.hpp"

namespace bgv {

RnsPoly uniform_from_seed(const Context &ctx, const Seed &seed, size_t count) {
    RnsPoly out(ctx.n(), count);
    for_each_prime(ctx, count, [&](size_t i) {
        Prng prng(seed, i);
        prng.fill_uniform_below(ctx.prime(i).value(), out.residues(i), ctx.n());
    });
    return out;
}

namespace {

std::vector<int8_t> sample_secret(size_t n) {
    Prng prng = Prng::from_os();
    return sample_ternary(prng, n);
}

}  // namespace

SecretKey::SecretKey(std::shared_ptr<const Context> ctx)
    : ctx_(std::move(ctx)),
      coeffs_(sample_secret(ctx_->n())),
      s_ntt_(small_to_ntt(*ctx_, coeffs_, ctx_->primes().size())) {
    ensure(s_ntt_.secret(), "the secret key's residues are wiped when released");
    to_montgomery(*ctx_, s_ntt_);
}

namespace {

/// The coefficients of a key being rebuilt, after checking their count (handed
/// on as the plain vector: WipedVector itself cannot be copied, and the key's
/// WipedVector takes over the buffer).
std::vector<int8_t> &&checked_secret(const Context &ctx, WipedVector<int8_t> &coeffs) {
    ensure(coeffs.size() == ctx.n(), "a secret key has N coefficients");
    return std::move(coeffs);
}

}  // namespace

SecretKey::SecretKey(std::shared_ptr<const Context> ctx, WipedVector<int8_t> &&coeffs)
    : ctx_(std::move(ctx)),
      coeffs_(checked_secret(*ctx_, coeffs)),
      s_ntt_(small_to_ntt(*ctx_, coeffs_, ctx_->primes().size())) {
    ensure(s_ntt_.secret(), "the secret key's residues are wiped when released");
    to_montgomery(*ctx_, s_ntt_);
}

PublicKey::PublicKey(const SecretKey &sk) : ctx_(sk.context()) {
    const Context &ctx = *ctx_;
    const size_t count = ctx.chain_size();
    a_seed_ = os_seed();
    a_ = uniform_from_seed(ctx, a_seed_, count);
    Prng prng = Prng::from_os();
    const WipedVector<int32_t> e = sample_gaussian(prng, ctx.n());
    // The buffer holds NTT(e) until b = t*e - a*s overwrites it below; it is
    // secret, so no failure in between releases it unwiped (the key pays one
    // memset when it is freed).
    b_ = small_to_ntt(ctx, e, count);
    // b = t*e - a*s
    for_each_prime(ctx, count, [&](size_t i) {
        const Modulus &q = ctx.prime(i);
        const u64 t = ctx.t_mod(i), ts = q.shoup(t);
        u64 *b = b_.residues(i);
        const u64 *a = a_.residues(i), *s = sk.ntt_montgomery().residues(i);
        for (size_t j = 0; j < ctx.n(); ++j) {
            b[j] = q.sub(q.mul_shoup(b[j], t, ts), q.mul_montgomery(a[j], s[j]));
        }
    });
    to_montgomery(ctx, a_);
    to_montgomery(ctx, b_);
}

PublicKey::PublicKey(std::shared_ptr<const Context> ctx, RnsPoly b, const Seed &a_seed)
    : ctx_(std::move(ctx)), b_(std::move(b)), a_seed_(a_seed) {
    ensure(b_.n == ctx_->n() && b_.count == ctx_->chain_size(), "public key b spans the chain");
    a_ = uniform_from_seed(*ctx_, a_seed_, ctx_->chain_size());
    to_montgomery(*ctx_, a_);
}

}  // namespace bgv
