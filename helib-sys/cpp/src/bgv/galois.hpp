// galois.hpp -- automorphisms of ciphertexts (X -> X^g with a Galois key) and
// rotations of the slot rows. The slot permutations are in ring/automorphism,
// the keys in rlwe/galois_keys.
#pragma once

#include <cstdint>
#include <vector>

#include "bgv/ciphertext.hpp"
#include "ring/automorphism.hpp"
#include "rlwe/galois_keys.hpp"

namespace bgv {

/// Throws unless `a` is a written size-2 ciphertext of the keys' context.
void check_galois_input(const GaloisKeys &keys, const Ciphertext &a);

namespace eval {
/// dst = the encryption of m(X^g) (a size-2 ciphertext), with the key for g.
void apply_galois(const GaloisKeys &keys, const Ciphertext &a, uint64_t g, Ciphertext &dst);
/// Rotates both rows left by `step`. With `compose`, a missing key is replaced
/// by a chain of rotations by signed powers of two whose keys are present;
/// otherwise (or when those are missing too) Status::MissingKey names it.
void rotate_rows(const GaloisKeys &keys, const Ciphertext &a, int64_t step, bool compose, Ciphertext &dst);
/// Several automorphisms of one ciphertext sharing a single decomposition of c_1.
void apply_galois_hoisted(const GaloisKeys &keys, const Ciphertext &a, const std::vector<uint64_t> &elements,
                          std::vector<Ciphertext *> &dsts);
}  // namespace eval

}  // namespace bgv
