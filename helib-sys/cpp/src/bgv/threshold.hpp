// threshold.hpp -- the threshold protocols on ciphertexts: smudged decryption
// shares and their combination, encryption to additive shares and back, and
// collective key switching to another public key. The key side (collective
// keys, the per-party primitives) is rlwe/threshold.hpp; these steps need
// ciphertexts and plaintext lifting, so they sit in the scheme layer.
#pragma once

#include <cstdint>
#include <memory>

#include "bgv/ciphertext.hpp"
#include "bgv/multiply.hpp"
#include "rlwe/smudging.hpp"
#include "rlwe/threshold.hpp"
#include "util/sha256.hpp"
#include "util/wipe.hpp"

namespace bgv {
namespace threshold {

/// What a step of a smudged protocol (collective decryption, encryption to
/// shares, collective key switching) has checked: `ct` is a written
/// ciphertext, of the context of the party's secret when one is given, of
/// size 2, at the level of the agreed spec and claiming no more noise than
/// the spec allows; the smudging width comes from the spec alone.
struct SmudgedStep {
    const Ciphertext &ct;
    const Context &ctx;
    /// The spec the step was checked against.
    smudging::Spec spec;
    /// The smudging width per party and the noise once every party's is in.
    smudging::Width width;
};

/// Checks `ct` against `spec` (and `share`'s context, unless nullptr).
/// Throws Status::ContextMismatch, the errors of smudging::width,
/// Status::InvalidArgument for a size other than 2, Status::LevelMismatch
/// (with its levels) for another level, and Status::NoiseBudgetExhausted for
/// a noise estimate above the spec's bound.
SmudgedStep smudged_step(const Ciphertext &ct, const smudging::Spec &spec, const PartySecret *share);

/// The same checks for a size-3 `product` that each party relinearizes with
/// `rk` before it makes its share (e2s_share_of_product): the spec's noise
/// bound applies to the relinearization's estimate. Throws
/// Status::ContextMismatch for a key of another context and
/// Status::InvalidArgument for a size other than 3.
SmudgedStep smudged_product_step(const Ciphertext &product, const RelinKey &rk, const smudging::Spec &spec,
                                 const PartySecret *share);

/// A party's decryption share c1 s_i + t E over the ciphertext's primes (NTT form).
RnsPoly decrypt_share(const SmudgedStep &step, const PartySecret &key);

/// The plaintext (N coefficients of plain_limbs() limbs) of c0 + the summed
/// decryption shares `sum`. Throws Status::MalformedInput when the measured
/// noise exceeds what honest shares leave: a share is missing, repeated or forged.
WipedVector<u64> decrypt_combine(const SmudgedStep &step, const RnsPoly &sum);

/// A party's encryption-to-shares output: its additive share S_i of the
/// message (uniform mod t, N coefficients of plain_limbs() limbs) and its
/// smudged share c1 s_i + t E - lift(f S_i), so that the combination decodes
/// to m - sum S_i.
struct E2sShare {
    WipedVector<u64> mask;
    RnsPoly share;
};
E2sShare e2s_share(const SmudgedStep &step, const PartySecret &key);

/// A party's encryption-to-shares output for the relinearization (c0 + k0,
/// c1 + k1) of the step's size-3 product (a step of smudged_product_step):
/// the share of e2s_share on it, plus k0 when `adds_public_part`. Exactly one
/// participant adds k0 (public, so it reveals nothing), and decrypt_combine
/// on the product's own c0 then decodes m - sum S_i: whoever combines never
/// relinearizes.
E2sShare e2s_share_of_product(const SmudgedStep &step, const PartySecret &key, const RelinKey &rk,
                              bool adds_public_part);

/// h = -a s_i + t e + lift(f S_i): a party's shares-to-encryption share of
/// its additive share S_i (`n_coeffs` coefficients of `limbs` limbs) at
/// `level`, for the common a of `seed`.
RnsPoly s2e_share(const PartySecret &key, const Seed &seed, size_t level, const u64 *coeffs, size_t n_coeffs,
                  size_t limbs);

/// The encryption (sum, a) of the summed shares-to-encryption shares of
/// `parties` parties at `level`. Throws Status::NoiseBudgetExhausted when the
/// level cannot hold the noise.
Ciphertext s2e_assemble(const std::shared_ptr<const Context> &ctx, const Seed &seed, size_t level,
                        uint32_t parties, RnsPoly sum);

/// A party's collective key-switching share toward `target`: h0 = s_i c1 +
/// u b' + t E (smudging), h1 = u a' + t e1. Throws Status::ContextMismatch
/// for a target of another context.
struct KeySwitchShare {
    RnsPoly h0, h1;
};
KeySwitchShare key_switch_share(const SmudgedStep &step, const PartySecret &key, const PublicKey &target);

/// The ciphertext under the target key from the summed shares. Throws
/// Status::NoiseBudgetExhausted when the level cannot hold the noise.
Ciphertext key_switch_assemble(const SmudgedStep &step, RnsPoly h0_sum, RnsPoly h1_sum);

/// A 32-byte digest binding a ciphertext's level, parts, factor and residues.
Digest ciphertext_digest(const Ciphertext &ct);

}  // namespace threshold
}  // namespace bgv
