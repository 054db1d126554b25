// modarith.hpp -- arithmetic modulo a word-size prime q < 2^62.
#pragma once

#include <cstdint>

namespace bgv {

using u64 = uint64_t;
using u128 = unsigned __int128;

/// A modulus q < 2^62 with precomputed Barrett and Shoup helpers. All inputs
/// of the reducing operations are in [0, q) unless a name says "lazy".
class Modulus {
public:
    Modulus() = default;
    explicit Modulus(u64 q) : q_(q) {
        // floor(2^128 / q) as two words: q is odd and > 1, so 2^128 / q is not exact.
        // q^-1 mod 2^64 by Newton iteration (q odd): each step doubles the correct bits.
        u64 inverse = q;
        for (int i = 0; i < 5; ++i) inverse *= 2 - q * inverse;
        q_inv_ = inverse;
        r2_ = static_cast<u64>(((static_cast<u128>(1) << 64) % q) * ((static_cast<u128>(1) << 64) % q) % q);
        const u128 hi = (static_cast<u128>(1) << 64) / q;
        const u128 rem = (static_cast<u128>(1) << 64) % q;
        const u128 lo = (rem << 64) / q;
        ratio_hi_ = static_cast<u64>(hi);
        ratio_lo_ = static_cast<u64>(lo);
    }

    u64 value() const { return q_; }

    /// x mod q for any x < 2^128 with x < q * 2^64 (always true for products of residues).
    u64 reduce128(u128 x) const {
        const u64 x0 = static_cast<u64>(x), x1 = static_cast<u64>(x >> 64);
        const u128 x0r0 = static_cast<u128>(x0) * ratio_lo_;
        const u128 x0r1 = static_cast<u128>(x0) * ratio_hi_;
        const u128 x1r0 = static_cast<u128>(x1) * ratio_lo_;
        const u128 mid = (x0r0 >> 64) + static_cast<u64>(x0r1) + static_cast<u64>(x1r0);
        const u64 quotient = x1 * ratio_hi_ + static_cast<u64>(x0r1 >> 64) +
                             static_cast<u64>(x1r0 >> 64) + static_cast<u64>(mid >> 64);
        u64 r = x0 - quotient * q_;
        if (r >= q_) r -= q_;
        if (r >= q_) r -= q_;
        return r;
    }
    u64 reduce(u64 x) const { return x >= q_ ? reduce128(x) : x; }
    u64 mul(u64 a, u64 b) const { return reduce128(static_cast<u128>(a) * b); }
    u64 add(u64 a, u64 b) const {
        const u64 s = a + b;
        return s >= q_ ? s - q_ : s;
    }
    u64 sub(u64 a, u64 b) const { return a >= b ? a - b : a + q_ - b; }
    u64 neg(u64 a) const {
        const u64 r = q_ - a;
        return r == q_ ? 0 : r;
    }
    /// The residue of a signed integer with |v| < q, without branches.
    u64 from_small(int64_t v) const {
        return static_cast<u64>(v) + (static_cast<u64>(v >> 63) & q_);
    }
    /// The residue of a signed integer.
    u64 from_signed(int64_t v) const {
        if (v >= 0) return reduce(static_cast<u64>(v));
        return neg(reduce(static_cast<u64>(-(v + 1)) + 1));
    }
    u64 pow(u64 base, u64 exponent) const {
        u64 result = 1 % q_;
        base = reduce(base);
        while (exponent != 0) {
            if (exponent & 1) result = mul(result, base);
            base = mul(base, base);
            exponent >>= 1;
        }
        return result;
    }
    /// Inverse of a nonzero residue (q prime).
    u64 inv(u64 a) const { return pow(a, q_ - 2); }

    /// Shoup precomputation floor(w * 2^64 / q) for a fixed multiplicand w < q.
    u64 shoup(u64 w) const { return static_cast<u64>((static_cast<u128>(w) << 64) / q_); }
    /// a * w mod q in [0, 2q) for any a < 2^64 (Harvey's lazy Shoup product).
    u64 mul_shoup_lazy(u64 a, u64 w, u64 w_shoup) const {
        const u64 estimate = static_cast<u64>((static_cast<u128>(a) * w_shoup) >> 64);
        return a * w - estimate * q_;
    }
    u64 mul_shoup(u64 a, u64 w, u64 w_shoup) const {
        const u64 r = mul_shoup_lazy(a, w, w_shoup);
        return r >= q_ ? r - q_ : r;
    }

    /// Montgomery product a * b * 2^-64 mod q (a, b < q): with b = x * 2^64 mod q
    /// ("Montgomery form", see to_montgomery) this is a * x mod q.
    u64 mul_montgomery(u64 a, u64 b) const { return reduce_montgomery(static_cast<u128>(a) * b); }
    /// x * 2^-64 mod q for x < q * 2^64 (a sum of products, each below q^2).
    u64 reduce_montgomery(u128 x) const {
        const u64 m = static_cast<u64>(x) * q_inv_;
        const u64 correction = static_cast<u64>((static_cast<u128>(m) * q_) >> 64);
        const u64 high = static_cast<u64>(x >> 64);
        return high >= correction ? high - correction : high + q_ - correction;
    }
    /// x * 2^64 mod q.
    u64 to_montgomery(u64 x) const { return mul_montgomery(x, r2_); }
    /// q^-1 mod 2^64 (for vectorized Montgomery products).
    u64 inverse_mod_word() const { return q_inv_; }

private:
    u64 q_ = 0;
    u64 q_inv_ = 0, r2_ = 0;
    u64 ratio_hi_ = 0, ratio_lo_ = 0;
};

}  // namespace bgv
