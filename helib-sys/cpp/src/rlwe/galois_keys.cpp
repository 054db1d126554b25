// galois_keys.cpp -- generation and lookup of Galois keys.
#include "rlwe/galois_keys.hpp"

#include <string>

#include "util/error.hpp"
#include "ring/automorphism.hpp"

namespace bgv {

void GaloisKeys::add(const SecretKey &sk, uint64_t g) {
    require(sk.context() == ctx_, HELIB_ERR_CONTEXT_MISMATCH, "secret key and Galois keys belong to different contexts");
    const Context &ctx = *ctx_;
    check_galois_element(ctx, g);
    // From s(X^g): the slot permutation of s, applied as the key is written.
    const std::vector<uint32_t> perm = galois_permutation(ctx.n(), g);
    KeySwitchKey key = make_key_switch_key(sk, sk.ntt_montgomery(), &perm);
    keys_[g] = std::move(key);
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
