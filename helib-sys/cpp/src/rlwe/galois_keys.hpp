// galois_keys.hpp -- Galois keys: key switching from s(X^g) to s(X), one per element g.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "rlwe/keyswitch.hpp"

namespace bgv {

/// A set of Galois keys (key switching from s(X^g) to s(X)), one per element.
class GaloisKeys {
public:
    explicit GaloisKeys(std::shared_ptr<const Context> ctx) : ctx_(std::move(ctx)) {}

    const std::shared_ptr<const Context> &context() const { return ctx_; }
    /// Generates (or replaces) the key for element g.
    void add(const SecretKey &sk, uint64_t g);
    bool contains(uint64_t g) const { return keys_.count(g) != 0; }
    const KeySwitchKey &key(uint64_t g) const;
    std::vector<uint64_t> elements() const;
    size_t size_bytes() const;
    /// Inserts an already built key (deserialization).
    void insert(uint64_t g, KeySwitchKey key) { keys_[g] = std::move(key); }

private:
    std::shared_ptr<const Context> ctx_;
    std::map<uint64_t, KeySwitchKey> keys_;
};

}  // namespace bgv
