// galois_keys.cpp -- generation and lookup of Galois keys.
#include "rlwe/galois_keys.hpp"

#include <string>

#include "util/error.hpp"
#include "ring/automorphism.hpp"
#include "util/thread_pool.hpp"

namespace bgv {

void GaloisKeys::add(const SecretKey &sk, uint64_t g) {
    require(sk.context() == ctx_, Status::ContextMismatch, "secret key and Galois keys belong to different contexts");
    const Context &ctx = *ctx_;
    check_galois_element(ctx, g);
    // From s(X^g): the slot permutation of s, applied as the key is written.
    const std::vector<uint32_t> perm = galois_permutation(ctx.n(), g);
    KeySwitchKey key = make_key_switch_key(sk, sk.ntt_montgomery(), &perm);
    keys_[g] = std::move(key);
}

void GaloisKeys::add_many(const SecretKey &sk, const std::vector<uint64_t> &gs) {
    require(sk.context() == ctx_, Status::ContextMismatch, "secret key and Galois keys belong to different contexts");
    const Context &ctx = *ctx_;
    for (const uint64_t g : gs) check_galois_element(ctx, g);
    ThreadPool &pool = ctx.pool();
    if (pool.size() < 2 || gs.size() < 2 * static_cast<size_t>(pool.size())) {
        for (const uint64_t g : gs) add(sk, g);
        return;
    }
    // One key per task: the key's own rows then run on the task's thread (the
    // pool is busy), so the threads no longer meet at a barrier per key and
    // the serial parts of one key (its permutation, seeds and error draws)
    // overlap with the other keys' work.
    std::vector<KeySwitchKey> made(gs.size());
    std::vector<char> done(gs.size(), 0);
    auto keep_done = [&] {
        for (size_t k = 0; k < gs.size(); ++k) {
            if (done[k] != 0) keys_[gs[k]] = std::move(made[k]);
        }
    };
    try {
        pool.parallel_for(gs.size(), [&](size_t k) {
            const std::vector<uint32_t> perm = galois_permutation(ctx.n(), gs[k]);
            made[k] = make_key_switch_key(sk, sk.ntt_montgomery(), &perm);
            done[k] = 1;
        });
    } catch (...) {
        keep_done();
        throw;
    }
    keep_done();
}

const KeySwitchKey &GaloisKeys::key(uint64_t g) const {
    const auto it = keys_.find(g);
    if (it == keys_.end()) fail_missing_galois_key(g, nullptr, "no Galois key for element " + std::to_string(g));
    return it->second;
}

std::vector<uint64_t> GaloisKeys::elements() const {
    std::vector<uint64_t> out;
    for (const auto &entry : keys_) out.push_back(entry.first);
    return out;
}

size_t GaloisKeys::size_bytes() const {
    size_t total = 0;
    for (const auto &entry : keys_) total += entry.second.size_bytes();
    return total;
}

}  // namespace bgv
