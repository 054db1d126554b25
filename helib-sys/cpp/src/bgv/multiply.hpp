// multiply.hpp -- ciphertext products and relinearization.
#pragma once

#include "bgv/ciphertext.hpp"
#include "rlwe/keyswitch.hpp"

namespace bgv {

/// The relinearization key: key switching from s^2 to s.
struct RelinKey {
    KeySwitchKey key;
};

RelinKey make_relin_key(const SecretKey &sk);

namespace eval {
/// Tensor product of two size-2 ciphertexts at the same level: a size-3
/// ciphertext of the product (factors multiply). Refused when the estimated
/// noise would exhaust the budget.
void multiply(const Ciphertext &a, const Ciphertext &b, Ciphertext &dst);
/// Size 3 -> size 2 by key switching c_2 from s^2 to s (size 2: a copy).
void relinearize(const RelinKey &rk, const Ciphertext &a, Ciphertext &dst);
/// The noise estimate (log2) of `a`'s relinearization by `rk`.
double relinearized_noise_log2(const RelinKey &rk, const Ciphertext &a);
}  // namespace eval

}  // namespace bgv
