// bigint.hpp -- little-endian limb arrays, GMP integers, and their conversions.
#pragma once

#include <gmp.h>
#include <gmpxx.h>

#include <cstddef>
#include <vector>

#include "util/modarith.hpp"

namespace bgv {

/// The most limbs an integer given as a limb array may have (2^26 bits). GMP
/// aborts on integers of more than about 2^31 limbs, and nothing the engine
/// computes needs integers anywhere near this long.
constexpr size_t kMaxIntegerLimbs = size_t{1} << 20;

/// Limbs (little endian) -> integer; fails with Status::InvalidArgument,
/// before reading, when count exceeds kMaxIntegerLimbs.
mpz_class mpz_from_limbs(const u64 *limbs, size_t count);
/// Integer (>= 0) -> exactly `count` limbs; throws Status::BufferTooSmall if it does not fit.
void mpz_to_limbs(const mpz_class &value, u64 *limbs, size_t count);
/// Number of 64-bit limbs needed for a nonnegative integer (at least 1).
size_t limbs_for(const mpz_class &value);
/// The integer given by limbs, reduced modulo the word-size prime (Horner in base 2^64).
u64 reduce_limbs(const u64 *limbs, size_t count, const Modulus &q);
/// Compares a limb array against a value stored as `ref_count` limbs: <0, 0, >0.
/// Inline: the plaintext lift and checks call it once per coefficient.
inline int compare_limbs(const u64 *limbs, size_t count, const u64 *ref, size_t ref_count) {
    const size_t top = count > ref_count ? count : ref_count;
    for (size_t k = top; k-- > 0;) {
        const u64 a = k < count ? limbs[k] : 0;
        const u64 b = k < ref_count ? ref[k] : 0;
        if (a != b) return a < b ? -1 : 1;
    }
    return 0;
}
/// out[0 .. limbs + 2) = the sum over i < count of scalars[i] times the
/// `limbs`-limb integer table[i * limbs ..], column by column with a 192-bit
/// carry (no call per term: the CRT and the reductions mod t run it once
/// per coefficient). The sum must fit in limbs + 2 limbs (count < 2^64 does).
inline void sum_of_scaled(const u64 *scalars, size_t count, const u64 *table, size_t limbs, u64 *out) {
    u128 low = 0;  // bits 0..127 of the current column's sum
    for (size_t p = 0; p < limbs; ++p) {
        u64 high = 0;  // its bits 128..191
        for (size_t i = 0; i < count; ++i) {
            const u128 product = static_cast<u128>(scalars[i]) * table[i * limbs + p];
            low += product;
            high += low < product ? 1 : 0;
        }
        out[p] = static_cast<u64>(low);
        low = (low >> 64) | (static_cast<u128>(high) << 64);
    }
    out[limbs] = static_cast<u64>(low);
    out[limbs + 1] = static_cast<u64>(low >> 64);
}
/// log2 of a nonnegative integer held in limbs (-infinity for zero, as -1e300).
double log2_limbs(const u64 *limbs, size_t count);
double log2_mpz(const mpz_class &value);

}  // namespace bgv
