// automorphism.hpp -- the ring automorphisms X -> X^g: the slot permutation
// they induce on polynomials in NTT form and the Galois elements of rotations.
#pragma once

#include <cstdint>
#include <vector>

#include "ring/rns_poly.hpp"

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

/// Throws unless g is a valid Galois element (odd, in [1, 2N)).
void check_galois_element(const Context &ctx, uint64_t g);

/// out = sigma_g(in) on the first `count` residues of a polynomial in NTT form,
/// for `perm` = galois_permutation(N, g).
void permute_slots(const Context &ctx, const RnsPoly &in, const std::vector<uint32_t> &perm, RnsPoly &out,
                   size_t count);

}  // namespace bgv
