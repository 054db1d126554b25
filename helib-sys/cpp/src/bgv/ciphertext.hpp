// ciphertext.hpp -- BGV ciphertexts and encoded plaintexts.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "util/random.hpp"
#include "ring/rns_poly.hpp"

namespace bgv {

/// A BGV ciphertext (c_0, ..., c_k) at `level`, in NTT form modulo Q_level:
/// [sum_i c_i s^i]_Q = factor * m + t * e. `factor` is the plaintext
/// correction factor (modulus switching multiplies the message by q^-1 mod t);
/// `noise_log2` is a conservative estimate of log2 ||sum_i c_i s^i||_inf
/// tracked without the secret key.
struct Ciphertext {
    std::shared_ptr<const Context> ctx;
    std::vector<RnsPoly> parts;
    size_t level = 0;
    mpz_class factor = 1;
    double noise_log2 = 0;
    /// For secret-key encryptions: c_1 is expanded from this seed.
    std::optional<Seed> c1_seed;

    bool empty() const { return parts.empty(); }
    size_t count() const { return level + 1; }
};

/// A ciphertext of `parts` (2 or 3) polynomials at `level` from their residues
/// in engine form (part major, then prime: parts x (level + 1) x N words),
/// with its correction factor and noise estimate: the inverse of reading
/// them out, for ciphertexts assembled from residues computed elsewhere.
/// Every residue must be below its prime, the factor an invertible residue
/// mod t and the estimate finite (Status::MalformedInput otherwise); an
/// estimate below the floor every ciphertext carries is raised to it, as on
/// deserialization.
Ciphertext ciphertext_from_residues(const std::shared_ptr<const Context> &ctx, size_t level, size_t parts,
                                    const mpz_class &factor, double noise_log2, const u64 *residues, size_t len);

/// As ciphertext_from_residues with every residue zero: the frame that
/// write_residue_columns fills when the residues arrive in pieces (column
/// ranges from several processes) and staging them whole would cost a copy.
Ciphertext ciphertext_zeros(const std::shared_ptr<const Context> &ctx, size_t level, size_t parts,
                            const mpz_class &factor, double noise_log2);

/// As ciphertext_zeros with the residues left unwritten (indeterminate): for
/// a caller that writes every residue (write_residue_columns, the row
/// convolution) before anything reads one.
Ciphertext ciphertext_unwritten(const std::shared_ptr<const Context> &ctx, size_t level, size_t parts,
                                const mpz_class &factor, double noise_log2);

/// Checks that columns [first, first + count) of residue row (part, prime)
/// exist in `ct`: part below its size (Status::InvalidArgument), prime at
/// most its level (Status::InvalidLevel), the columns within N
/// (Status::InvalidArgument).
void require_residue_columns(const Ciphertext &ct, size_t part, size_t prime, size_t first, size_t count);

/// Writes `count` residues into columns [first, first + count) of row
/// (part, prime) of `ct`, each checked below the prime
/// (Status::MalformedInput, nothing written); the row must exist
/// (require_residue_columns). Clears a c_1 seed, which no longer describes c_1.
void write_residue_columns(Ciphertext &ct, size_t part, size_t prime, size_t first, const u64 *words, size_t count);

/// A plaintext in RNS + NTT form at `level` (residues in Montgomery form, as
/// it is mostly a multiplicand), scaled by `factor` mod t, with the norms of
/// its centred lift (used by the noise estimate). An `extended` encoding also
/// holds the residues modulo the special primes (after the chain's level + 1):
/// it can multiply ciphertexts in the key-switching basis Q * P
/// (double-hoisted linear transforms).
///
/// A plaintext that is a polynomial in X^s (s > 1, a power of two) is held
/// compact: N / s words a prime (see RnsPoly), s its stride. Slot vectors
/// that repeat with period P along each row encode to such polynomials with
/// s = N / (2P), as do the diagonals of most FFT levels: their encodings are
/// s times smaller and s times cheaper to make.
struct EncodedPlaintext {
    std::shared_ptr<const Context> ctx;
    RnsPoly poly;
    size_t level = 0;
    bool extended = false;
    mpz_class factor = 1;
    double log2_linf = 0;
    double log2_l1 = 0;
};

/// Whether a plaintext being encoded may be secret. A MaySecret one (a
/// message added to an encryption of zero is one) is encoded the same way
/// whatever its coefficients. A Public one (the evaluator's own constants, a
/// transform's diagonals) that is a polynomial in X^s is kept compact, and
/// the time that takes depends on s.
enum class Visibility { MaySecret, Public };

EncodedPlaintext encode_plaintext(std::shared_ptr<const Context> ctx, const u64 *coeffs,
                                  size_t n_coeffs, size_t limbs_per_coeff, size_t level,
                                  const mpz_class &factor, bool extended = false,
                                  Visibility visibility = Visibility::MaySecret);

/// The smallest compact length: an encoding keeps at least this many words a
/// prime (a stride of at most N / kMinCompactLength), so that its transform
/// and the products with it run whole vectors.
constexpr size_t kMinCompactLength = 16;

/// Words of `pt`'s residues: N / stride per prime it is encoded for.
size_t encoded_word_count(const EncodedPlaintext &pt);

/// The stride s of `pt` (1 for a full encoding): it is a polynomial in X^s.
size_t encoded_stride(const EncodedPlaintext &pt);

/// An encoded plaintext being filled from raw residues (engine form, as
/// encoded_plaintext_from_residues takes them) straight into its own buffer:
/// the caller writes `poly`'s words and checks them prefix by prefix
/// (residue_import_check), and only residue_import_finish, which checks what
/// is left and the metadata, turns it into an EncodedPlaintext. No residue
/// reaches an EncodedPlaintext unchecked.
struct ResidueImport {
    std::shared_ptr<const Context> ctx;
    RnsPoly poly;
    size_t level = 0;
    bool extended = false;
    /// Words [0, checked) are known to be below their primes.
    size_t checked = 0;
};

/// A fresh import for an encoding at `level` (chain primes 0..=level, then
/// the special primes when `extended`) of stride `stride` (N / stride words
/// a prime); its words are uninitialized. Throws Status::InvalidLevel or
/// Status::MalformedInput (also for a stride that is not a power of two
/// from 1 to N / kMinCompactLength).
ResidueImport residue_import_begin(std::shared_ptr<const Context> ctx, size_t level, bool extended,
                                   size_t stride);

/// Checks words [checked, upto) against their primes and advances `checked`
/// (an `upto` at or below it checks nothing). Throws
/// Status::MalformedInput for a residue at or above its prime, or an
/// `upto` past the end.
void residue_import_check(ResidueImport &import, size_t upto);

/// Checks the rest of the residues, the factor and the norms (as
/// encoded_plaintext_from_residues) and hands over the buffer.
EncodedPlaintext residue_import_finish(ResidueImport &&import, const mpz_class &factor, double log2_linf,
                                       double log2_l1);

/// An encoded plaintext from its raw residues (engine form: NTT and
/// Montgomery, chain primes 0..=level then the special primes when
/// `extended`, N / stride words each) and norms, as a cache of encodings
/// stored them. Everything is checked before it is kept (see
/// helib_encoded_plaintext_import_residues); bad input throws
/// Status::MalformedInput.
EncodedPlaintext encoded_plaintext_from_residues(std::shared_ptr<const Context> ctx, size_t level,
                                                 bool extended, size_t stride, const mpz_class &factor,
                                                 const u64 *residues, size_t residues_len,
                                                 double log2_linf, double log2_l1);

}  // namespace bgv
