// bigint.cpp -- limb-array helpers on top of GMP.
#include "util/bigint.hpp"

#include <cmath>
#include <string>

#include "util/error.hpp"

namespace bgv {

static_assert(sizeof(mp_limb_t) == sizeof(u64), "GMP limbs must be 64-bit");

mpz_class mpz_from_limbs(const u64 *limbs, size_t count) {
    require(count <= kMaxIntegerLimbs, Status::InvalidArgument,
            "an integer of " + std::to_string(count) + " limbs is longer than the " +
                std::to_string(kMaxIntegerLimbs) + " limbs accepted");
    mpz_class out;
    mpz_import(out.get_mpz_t(), count, -1, sizeof(u64), 0, 0, limbs);
    return out;
}

void mpz_to_limbs(const mpz_class &value, u64 *limbs, size_t count) {
    ensure(sgn(value) >= 0, "mpz_to_limbs takes a nonnegative value");
    const size_t needed = mpz_size(value.get_mpz_t());
    require(needed <= count, Status::BufferTooSmall, "integer does not fit the output limbs");
    for (size_t i = 0; i < count; ++i) limbs[i] = i < needed ? mpz_getlimbn(value.get_mpz_t(), i) : 0;
}

size_t limbs_for(const mpz_class &value) {
    const size_t n = mpz_size(value.get_mpz_t());
    return n == 0 ? 1 : n;
}

u64 reduce_limbs(const u64 *limbs, size_t count, const Modulus &q) {
    u64 r = 0;
    for (size_t k = count; k-- > 0;) r = q.reduce128((static_cast<u128>(r) << 64) | limbs[k]);
    return r;
}

double log2_limbs(const u64 *limbs, size_t count) {
    size_t top = count;
    while (top > 0 && limbs[top - 1] == 0) --top;
    if (top == 0) return -1e300;
    double value = static_cast<double>(limbs[top - 1]);
    if (top >= 2) value += static_cast<double>(limbs[top - 2]) / 18446744073709551616.0;
    return std::log2(value) + 64.0 * static_cast<double>(top - 1);
}

double log2_mpz(const mpz_class &value) {
    if (sgn(value) == 0) return -1e300;
    long exponent = 0;
    const double mantissa = mpz_get_d_2exp(&exponent, value.get_mpz_t());
    return std::log2(std::fabs(mantissa)) + static_cast<double>(exponent);
}

}  // namespace bgv
