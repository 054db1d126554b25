// scheme.hpp -- encryption, decryption and the homomorphic operations.
#pragma once

#include "bgv/ciphertext.hpp"
#include "rlwe/keys.hpp"
#include "bgv/plaintext.hpp"

namespace bgv {

/// Public-key encryption at `level`: c = (b*u + t*e0 + m', a*u + t*e1) with
/// m' = m * (canonical factor of the level).
Ciphertext encrypt_public(const PublicKey &pk, const u64 *coeffs, size_t n_coeffs,
                          size_t limbs_per_coeff, size_t level);
/// Secret-key encryption at `level`: c = (-a*s + t*e + m', a), a from a fresh seed.
Ciphertext encrypt_secret(const SecretKey &sk, const u64 *coeffs, size_t n_coeffs,
                          size_t limbs_per_coeff, size_t level);

/// Decrypts into N coefficients of plain_limbs() limbs; throws
/// Status::NoiseBudgetExhausted when the noise has wrapped (budget < 1 bit).
PlainCoeffs decrypt(const SecretKey &sk, const Ciphertext &ct);
/// Decodes v = [c_0 + c_1 s + ...]_{Q_level} given in coefficient form
/// (residues modulo q_0..q_level): the centred lift of v mod t times
/// factor^-1 mod t, with log2 max |v| in `log2_noise`. No budget check: the
/// caller decides what noise it accepts (decrypt, collective decryption).
PlainCoeffs decode_decryption(const Context &ctx, const RnsPoly &v, size_t level, const mpz_class &factor,
                              double &log2_noise);
/// Exact remaining budget log2(Q/2) - log2 ||v||_inf, clamped at 0.
double noise_budget(const SecretKey &sk, const Ciphertext &ct);

/// The homomorphic operations. `dst` may alias an input.
namespace eval {
void add(const Ciphertext &a, const Ciphertext &b, Ciphertext &dst);
void sub(const Ciphertext &a, const Ciphertext &b, Ciphertext &dst);
void negate(const Ciphertext &a, Ciphertext &dst);
void add_plain(const Ciphertext &a, const EncodedPlaintext &p, Ciphertext &dst);
void sub_plain(const Ciphertext &a, const EncodedPlaintext &p, Ciphertext &dst);
void mul_plain(const Ciphertext &a, const EncodedPlaintext &p, Ciphertext &dst);
void mul_scalar(const Ciphertext &a, const mpz_class &k, Ciphertext &dst);
/// dst = a + k (the constant polynomial, scaled by a's correction factor).
void add_scalar(const Ciphertext &a, const mpz_class &k, Ciphertext &dst);
void mod_switch(const Ciphertext &a, Ciphertext &dst);
void mod_switch_to(const Ciphertext &a, size_t level, Ciphertext &dst);
void mod_switch_reduce_noise(const Ciphertext &a, Ciphertext &dst);
}  // namespace eval

/// Throws unless the ciphertext has been written.
void check_nonempty(const Ciphertext &ct);

}  // namespace bgv
