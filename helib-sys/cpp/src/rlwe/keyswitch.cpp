// keyswitch.cpp -- the key switch itself: the inner products of a
// decomposition with a key-switching key, then the division by P. Key
// generation is in keyswitch_keygen.cpp, ModUp in decompose.cpp, ModDown in
// mod_down.cpp, the noise bound in keyswitch_noise.cpp.
#include "rlwe/keyswitch.hpp"

#include "util/error.hpp"
#include "ring/ntt_kernels.hpp"

namespace bgv {

void key_switch_inner_product_block(const KeySwitchKey &key, const Decomposition &dec, size_t r,
                                    const uint32_t *permutation, size_t begin, size_t len, u64 *u0, u64 *u1) {
    const Context &ctx = *key.ctx;
    const size_t prime = extended_prime(ctx, dec.level, r), digits = dec.digits.size();
    ensure(digits <= Context::kMaxPrimes, "a digit holds at least one prime");
    const u64 *digit_rows[Context::kMaxPrimes], *b_rows[Context::kMaxPrimes], *a_rows[Context::kMaxPrimes];
    for (size_t d = 0; d < digits; ++d) {
        digit_rows[d] = dec.digits[d].residues(r);
        b_rows[d] = key.b[d].residues(prime) + begin;
        a_rows[d] = key.a[d].residues(prime) + begin;
    }
    kernels::dot_product_pair(u0, u1, digit_rows, permutation != nullptr ? permutation + begin : nullptr, b_rows,
                              a_rows, digits, len, ctx.prime(prime));
}

void key_switch_inner_product(const KeySwitchKey &key, const Decomposition &dec,
                              const std::vector<uint32_t> *permutation, RnsPoly &u0, RnsPoly &u1) {
    const Context &ctx = *key.ctx;
    const size_t n = ctx.n(), ext = dec.level + 1 + ctx.special_size();
    u0.reshape(n, ext);
    u1.reshape(n, ext);
    const uint32_t *perm = permutation != nullptr ? permutation->data() : nullptr;
    for_each_prime(ctx, ext, [&](size_t r) {
        key_switch_inner_product_block(key, dec, r, perm, 0, n, u0.residues(r), u1.residues(r));
    });
}

void key_switch(const KeySwitchKey &key, const Decomposition &dec, const std::vector<uint32_t> *permutation,
                RnsPoly &k0, RnsPoly &k1) {
    RnsPoly u0, u1;
    key_switch_inner_product(key, dec, permutation, u0, u1);
    const Context &ctx = *key.ctx;
    const size_t level = dec.level;
    mod_down(ctx, u0, level, k0);
    mod_down(ctx, u1, level, k1);
}

}  // namespace bgv
