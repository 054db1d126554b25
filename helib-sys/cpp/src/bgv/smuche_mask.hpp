// smuche_mask.hpp -- INSECURE by design: the Smuche caching scheme's
// public-key mask without fresh error terms (see smuche_mask.cpp). Only the
// labelled C entry point helib_ciphertext_add_public_key_mask calls it.
#pragma once

#include "bgv/ciphertext.hpp"
#include "rlwe/keys.hpp"

namespace bgv {

/// dst = a + (b * xi, a_pk * xi) for a fresh ternary xi (dst may be a).
/// Throws Status::ContextMismatch for a key of another context and
/// Status::NoiseBudgetExhausted when the level cannot hold the added noise.
void add_smuche_mask(const PublicKey &pk, const Ciphertext &a, Ciphertext &dst);

}  // namespace bgv
