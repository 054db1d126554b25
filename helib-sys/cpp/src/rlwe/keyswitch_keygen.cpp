// keyswitch_keygen.cpp -- generation of key-switching keys.
#include "rlwe/keyswitch.hpp"

#include <algorithm>
#include <memory>

#include "util/error.hpp"
#include "ring/ntt_kernels.hpp"

namespace bgv {

size_t KeySwitchKey::size_bytes() const {
    size_t total = 0;
    for (const auto &p : b) total += p.data.size() * sizeof(u64);
    for (const auto &p : a) total += p.data.size() * sizeof(u64);
    return total;
}

KeySwitchKey make_key_switch_key(const SecretKey &sk, const RnsPoly &s_prime,
                                 const std::vector<uint32_t> *permutation) {
    const Context &ctx = *sk.context();
    require(!ctx.digits().empty(), Status::InvalidArgument,
            "key switching needs special primes: the context has none");
    const size_t all = ctx.primes().size(), n = ctx.n(), digits = ctx.digits().size();
    ensure(s_prime.n == n && s_prime.count >= all, "s' covers every prime");
    ensure(permutation == nullptr || permutation->size() == n, "one permutation entry per slot");
    KeySwitchKey key;
    key.ctx = sk.context();
    for (size_t d = 0; d < digits; ++d) key.a_seeds.push_back(os_seed());
    // Final storage, written once below (residues uninitialized until then),
    // mapped on the pool: the kernel fills fresh pages in the thread that maps
    // them, over a third of a key's time at N = 2^16 with 29 primes, and it
    // then no longer runs on one thread while the others wait.
    key.a.resize(digits);
    key.b.resize(digits);
    for_each_prime(ctx, 2 * digits, [&](size_t j) {
        (j < digits ? key.a[j] : key.b[j - digits]) = RnsPoly(n, all);
    });
    // The errors e_d (secret, wiped when released), drawn in parallel.
    std::vector<std::unique_ptr<WipedVector<int32_t>>> errors(digits);
    for_each_prime(ctx, digits, [&](size_t d) {
        Prng prng = Prng::from_os();
        errors[d] = std::make_unique<WipedVector<int32_t>>(sample_gaussian(prng, n));
    });
    // One task per (digit, prime) row, each in place in the key's own buffers:
    // b = NTT(t e 2^64), the error scaled as it is reduced; then, a chunk at a
    // time while the chunk is still in L1, a = the seed's stream for this prime
    // (as uniform_from_seed; drawing it in chunks gives the same values), and
    // a *= 2^64 with b -= a s (+ [in digit] P s' 2^64) in one pass.
    // The row of b holds NTT(t e), a secret, only inside its task, which cannot
    // fail between the steps; should the pool still report a failure, every b
    // is wiped before the key is released (b is a public buffer, not wiped on
    // release, so a key costs no 14 MB memset when freed).
    const uint32_t *perm = permutation != nullptr ? permutation->data() : nullptr;
    auto row = [&](size_t task) {
        constexpr size_t kChunk = 2048;  // 16 KiB of a
        const size_t d = task / all, i = task % all;
        const auto [begin, end] = ctx.digits()[d];
        const Modulus &q = ctx.prime(i);
        u64 *a = key.a[d].residues(i), *b = key.b[d].residues(i);
        const u64 t = q.to_montgomery(ctx.t_mod(i));  // t * 2^64: b comes out in Montgomery form
        kernels::scale_small(errors[d]->data(), nullptr, b, n, t, q.shoup(t), q);
        ctx.ntt(i).forward(b);
        const u64 r = q.to_montgomery(1);  // 2^64 mod q
        const bool in_digit = i >= begin && i < end;
        // P mod q (chain primes only): times s' (Montgomery form) gives P s' 2^64.
        const u64 p = in_digit ? ctx.special_modulus_mod(i) : 0;
        const u64 *s = sk.ntt_montgomery().residues(i);
        const u64 *g = in_digit ? s_prime.residues(i) : nullptr;
        Prng prng(key.a_seeds[d], i);
        for (size_t j = 0; j < n; j += kChunk) {
            const size_t len = std::min(kChunk, n - j);
            prng.fill_uniform_below(q.value(), a + j, len);
            // With a permutation, g is indexed through it; without, chunk by chunk.
            const u64 *g_chunk = g == nullptr || perm != nullptr ? g : g + j;
            kernels::key_switch_key_row(b + j, a + j, s + j, g_chunk, perm != nullptr ? perm + j : nullptr, r,
                                        q.shoup(r), p, q.shoup(p), len, q);
        }
    };
    try {
        for_each_prime(ctx, digits * all, row);
    } catch (...) {
        for (RnsPoly &b : key.b) secure_wipe(b.data.data(), b.data.size() * sizeof(u64));
        throw;
    }
    return key;
}

}  // namespace bgv
