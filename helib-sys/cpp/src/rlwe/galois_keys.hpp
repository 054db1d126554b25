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
    /// Generates (or replaces) the keys for the elements `gs`, all checked
    /// first. With at least two keys per thread of the context's pool, the
    /// pool generates several keys at once (each on one thread); otherwise the
    /// keys are made one after another, each spread over the pool. On a
    /// failure the keys completed before it stay in the set.
    void add_many(const SecretKey &sk, const std::vector<uint64_t> &gs);
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
