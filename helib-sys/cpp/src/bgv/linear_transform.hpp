// linear_transform.hpp -- baby-step giant-step linear transforms with double hoisting.
#pragma once

#include <cstdint>
#include <vector>

#include "bgv/ciphertext.hpp"
#include "bgv/galois.hpp"

namespace bgv {
namespace eval {

/// dst = sum_{j < G} sigma_giant^j ( sum_{i < B} p_{j,i} * sigma_{baby[i]}(a) ),
/// with B = baby.size(), G = plains.size() / B and p_{j,i} = plains[j * B + i]
/// (nullptr for a zero term).
///
/// Double hoisting: c_1 of `a` is decomposed once; each baby step is kept in
/// the key-switching basis Q * P (no division by P), where the plaintext
/// products are summed, so a giant step's inner sum costs one division by P
/// however many baby steps it has. The giant sum runs in Horner form,
/// acc = sigma_giant(acc) + S_j, with the rotation of acc also left in Q * P and
/// S_j added there: one key switch and one division by P per giant step, and one
/// Galois key for all giant steps. The identity (g = 1) needs no key.
///
/// Every plaintext must be an extended encoding at a level >= a's, all with
/// the same correction factor; the result has factor a.factor * that factor.
/// Keys for every baby element (and for `giant` when G > 1) must be present.
void linear_transform_hoisted(const GaloisKeys &keys, const Ciphertext &a, const std::vector<uint64_t> &baby,
                              uint64_t giant, const std::vector<const EncodedPlaintext *> &plains, Ciphertext &dst);

}  // namespace eval
}  // namespace bgv
