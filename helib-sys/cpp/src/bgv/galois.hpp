// galois.hpp -- Galois automorphisms X -> X^g, Galois keys, rotations of the slot rows.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "bgv/ciphertext.hpp"
#include "rlwe/keyswitch.hpp"

namespace bgv {

/// The permutation of NTT slots realizing X -> X^g (g odd mod 2N) on a
/// polynomial in NTT form: out[k] = in[perm[k]].
std::vector<uint32_t> galois_permutation(size_t n, uint64_t g);

/// The Galois element rotating both slot rows left by `step`: 3^step mod 2N
/// (negative steps rotate right).
uint64_t galois_element_for_step(size_t n, int64_t step);
/// The steps a rotation by `step` is composed of when its own key is missing:
/// the non-adjacent form (signed powers of two) of k = step mod N/2 or of
/// k - N/2, whichever has fewer terms (k's on a tie); empty for k = 0.
std::vector<int64_t> rotation_terms(size_t n, int64_t step);
/// The Galois element swapping the two slot rows: 2N - 1.
inline uint64_t galois_element_row_swap(size_t n) { return 2 * n - 1; }

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

/// Throws unless g is a valid Galois element (odd, in [1, 2N)).
void check_galois_element(const Context &ctx, uint64_t g);
/// Throws unless `a` is a written size-2 ciphertext of the keys' context.
void check_galois_input(const GaloisKeys &keys, const Ciphertext &a);

/// out = sigma_g(in) on the first `count` residues of a polynomial in NTT form,
/// for `perm` = galois_permutation(N, g).
void permute_slots(const Context &ctx, const RnsPoly &in, const std::vector<uint32_t> &perm, RnsPoly &out,
                   size_t count);

namespace eval {
/// dst = the encryption of m(X^g) (a size-2 ciphertext), with the key for g.
void apply_galois(const GaloisKeys &keys, const Ciphertext &a, uint64_t g, Ciphertext &dst);
/// Rotates both rows left by `step`. With `compose`, a missing key is replaced
/// by a chain of rotations by signed powers of two whose keys are present;
/// otherwise (or when those are missing too) HELIB_ERR_MISSING_KEY names it.
void rotate_rows(const GaloisKeys &keys, const Ciphertext &a, int64_t step, bool compose, Ciphertext &dst);
/// Several automorphisms of one ciphertext sharing a single decomposition of c_1.
void apply_galois_hoisted(const GaloisKeys &keys, const Ciphertext &a, const std::vector<uint64_t> &elements,
                          std::vector<Ciphertext *> &dsts);
}  // namespace eval

}  // namespace bgv
