// field_ntt.cpp -- the portable big-field NTT and the table construction.
#include "ring/field_ntt.hpp"

#include <string>

#include "ring/field_ntt_kernels.hpp"
#include "util/cpu.hpp"
#include "util/error.hpp"

namespace bgv {

namespace {

using u64 = uint64_t;
using u128 = unsigned __int128;

constexpr size_t kMaxFieldNtt = size_t{1} << 17;

size_t bit_reverse(size_t x, unsigned bits) {
    size_t r = 0;
    for (unsigned b = 0; b < bits; ++b) {
        r = (r << 1) | (x & 1);
        x >>= 1;
    }
    return r;
}

/// a - b with the borrow out.
u64 sub_borrow(Limbs4 &out, const Limbs4 &a, const Limbs4 &b) {
    u64 borrow = 0;
    for (int i = 0; i < 4; ++i) {
        const u128 d = static_cast<u128>(a[i]) - b[i] - borrow;
        out[i] = static_cast<u64>(d);
        borrow = static_cast<u64>(d >> 64) & 1;
    }
    return borrow;
}

/// a + b with the carry out.
u64 add_carry(Limbs4 &out, const Limbs4 &a, const Limbs4 &b) {
    u64 carry = 0;
    for (int i = 0; i < 4; ++i) {
        const u128 s = static_cast<u128>(a[i]) + b[i] + carry;
        out[i] = static_cast<u64>(s);
        carry = static_cast<u64>(s >> 64);
    }
    return carry;
}

Limbs4 load(const u64 *p) { return {p[0], p[1], p[2], p[3]}; }
void store(u64 *p, const Limbs4 &a) {
    for (int i = 0; i < 4; ++i) p[i] = a[i];
}

}  // namespace

bool limbs_less(const Limbs4 &a, const Limbs4 &b) {
    for (int i = 3; i >= 0; --i) {
        if (a[i] != b[i]) return a[i] < b[i];
    }
    return false;
}

FieldMont::FieldMont(const Limbs4 &t) : t_(t) {
    u64 inverse = t[0];  // correct to 3 bits for odd t; each step doubles them
    for (int i = 0; i < 6; ++i) inverse *= 2 - t[0] * inverse;
    neg_inv_ = ~inverse + 1;
    r1_ = pow2(256);
    r2_ = pow2(512);
}

Limbs4 FieldMont::pow2(unsigned e) const {
    Limbs4 x{1, 0, 0, 0};
    for (unsigned i = 0; i < e; ++i) x = add(x, x);
    return x;
}

Limbs4 FieldMont::add(const Limbs4 &a, const Limbs4 &b) const {
    Limbs4 s, d;
    add_carry(s, a, b);  // no carry out: a + b < 2t < 2^256
    const u64 borrow = sub_borrow(d, s, t_);
    return borrow ? s : d;
}

Limbs4 FieldMont::sub(const Limbs4 &a, const Limbs4 &b) const {
    Limbs4 d, s;
    const u64 borrow = sub_borrow(d, a, b);
    if (!borrow) return d;
    add_carry(s, d, t_);
    return s;
}

Limbs4 FieldMont::mul(const Limbs4 &a, const Limbs4 &b) const {
    // Coarsely integrated operand scanning; T holds at most 2t < 2^256 plus one word.
    u64 T[6] = {0, 0, 0, 0, 0, 0};
    for (int i = 0; i < 4; ++i) {
        u128 c = 0;
        for (int j = 0; j < 4; ++j) {
            c += static_cast<u128>(a[j]) * b[i] + T[j];
            T[j] = static_cast<u64>(c);
            c >>= 64;
        }
        c += T[4];
        T[4] = static_cast<u64>(c);
        T[5] = static_cast<u64>(c >> 64);
        const u64 m = T[0] * neg_inv_;
        c = static_cast<u128>(m) * t_[0] + T[0];
        c >>= 64;
        for (int j = 1; j < 4; ++j) {
            c += static_cast<u128>(m) * t_[j] + T[j];
            T[j - 1] = static_cast<u64>(c);
            c >>= 64;
        }
        c += T[4];
        T[3] = static_cast<u64>(c);
        T[4] = T[5] + static_cast<u64>(c >> 64);
    }
    Limbs4 r{T[0], T[1], T[2], T[3]}, d;
    const u64 borrow = sub_borrow(d, r, t_);
    return (T[4] != 0 || !borrow) ? d : r;
}

Limbs4 FieldMont::from_mont(const Limbs4 &a) const { return mul(a, Limbs4{1, 0, 0, 0}); }

Limbs4 FieldMont::pow_mont(const Limbs4 &base_mont, uint64_t e) const {
    Limbs4 result = r1_, base = base_mont;
    while (e != 0) {
        if (e & 1) result = mul(result, base);
        base = mul(base, base);
        e >>= 1;
    }
    return result;
}

namespace {

Limbs4 checked_modulus(const Limbs4 &t) {
    require((t[0] & 1) == 1, Status::InvalidArgument, "the field modulus t must be odd");
    require(t[1] != 0 || t[2] != 0 || t[3] != 0 || t[0] > 2, Status::InvalidArgument,
            "the field modulus t must be greater than 2");
    require((t[3] >> 63) == 0, Status::InvalidArgument, "the field modulus t must be below 2^255");
    return t;
}

}  // namespace

FieldNttTable::FieldNttTable(const Limbs4 &t, size_t n, const Limbs4 &psi)
    : n_(n), log_n_(0), mont_(checked_modulus(t)) {
    require(n >= 2 && n <= kMaxFieldNtt && (n & (n - 1)) == 0, Status::InvalidArgument,
            "the field NTT length " + std::to_string(n) + " is not a power of two in [2, 2^17]");
    while ((size_t{1} << log_n_) < n) ++log_n_;
    require(limbs_less(psi, t), Status::InvalidArgument, "the root psi is not reduced modulo t");
    const FieldMont &m = mont_;
    const Limbs4 psi_m = m.to_mont(psi);
    const Limbs4 psi_n = m.from_mont(m.pow_mont(psi_m, n));
    Limbs4 minus_one;
    sub_borrow(minus_one, t, Limbs4{1, 0, 0, 0});
    require(psi_n == minus_one, Status::InvalidArgument,
            "psi is not a primitive 2n-th root of unity modulo t (psi^n != -1)");
    require(m.from_mont(m.pow_mont(psi_m, 2 * static_cast<u64>(n))) == Limbs4({1, 0, 0, 0}),
            Status::InvalidArgument, "psi^(2n) != 1 modulo t");

    // Powers psi^k and psi^-k, k = 0..n, then stored at bit-reversed positions.
    const Limbs4 psi_inv_m = m.pow_mont(psi_m, 2 * static_cast<u64>(n) - 1);
    fwd_.resize(n);
    inv_.resize(n);
    Limbs4 p = m.one_mont(), q = m.one_mont();
    for (size_t k = 0; k < n; ++k) {
        const size_t r = bit_reverse(k, log_n_);
        fwd_[r] = p;
        inv_[r] = q;
        p = m.mul(p, psi_m);
        q = m.mul(q, psi_inv_m);
    }
    // n^-1 = ((t + 1) / 2)^log n.
    Limbs4 half = t;
    for (int i = 0; i < 3; ++i) half[i] = (half[i] >> 1) | (half[i + 1] << 63);
    half[3] >>= 1;
    Limbs4 one{1, 0, 0, 0};
    add_carry(half, half, one);
    n_inv_mont_ = m.pow_mont(m.to_mont(half), log_n_);

#ifdef BGV_X86_KERNELS
    __builtin_cpu_init();
    vector_ok_ = n >= 64 && cpu_supports(CpuPath::Avx512) && __builtin_cpu_supports("avx512ifma") != 0;
#endif
    use_vector_ = vector_ok_ && cpu_path() == CpuPath::Avx512;
    if (vector_ok_) build_vector_tables();
}

void FieldNttTable::forward(uint64_t *values) const {
    if (use_vector_) {
        forward_vector(values);
    } else {
        forward_scalar(values);
    }
}

void FieldNttTable::inverse(uint64_t *values) const {
    if (use_vector_) {
        inverse_vector(values);
    } else {
        inverse_scalar(values);
    }
}

void FieldNttTable::forward_scalar(uint64_t *values) const {
    const size_t n = n_;
    std::vector<Limbs4> a(n);
    for (size_t i = 0; i < n; ++i) a[i] = load(values + 4 * i);
    // Cooley-Tukey on the psi-twisted input: a[i] ends as m(psi^(2 bitrev(i) + 1)).
    size_t half = n;
    for (size_t m = 1; m < n; m <<= 1) {
        half >>= 1;
        for (size_t i = 0; i < m; ++i) {
            const Limbs4 &w = fwd_[m + i];
            Limbs4 *x = a.data() + 2 * i * half;
            Limbs4 *y = x + half;
            for (size_t j = 0; j < half; ++j) {
                const Limbs4 u = x[j];
                const Limbs4 v = mont_.mul(y[j], w);
                x[j] = mont_.add(u, v);
                y[j] = mont_.sub(u, v);
            }
        }
    }
    for (size_t k = 0; k < n; ++k) store(values + 4 * k, a[bit_reverse(k, log_n_)]);
}

void FieldNttTable::inverse_scalar(uint64_t *values) const {
    const size_t n = n_;
    std::vector<Limbs4> a(n);
    for (size_t k = 0; k < n; ++k) a[bit_reverse(k, log_n_)] = load(values + 4 * k);
    size_t half = 1;
    for (size_t m = n >> 1; m >= 1; m >>= 1) {
        for (size_t i = 0; i < m; ++i) {
            const Limbs4 &w = inv_[m + i];
            Limbs4 *x = a.data() + 2 * i * half;
            Limbs4 *y = x + half;
            for (size_t j = 0; j < half; ++j) {
                const Limbs4 u = x[j], v = y[j];
                x[j] = mont_.add(u, v);
                y[j] = mont_.mul(mont_.sub(u, v), w);
            }
        }
        half <<= 1;
    }
    for (size_t i = 0; i < n; ++i) store(values + 4 * i, mont_.mul(a[i], n_inv_mont_));
}

// ---------------------------------------------------------------------------
// The IFMA tables and transforms.

namespace {

constexpr u64 kMask52 = (u64{1} << 52) - 1;

void to52(const Limbs4 &a, u64 *out) {
    out[0] = a[0] & kMask52;
    out[1] = ((a[0] >> 52) | (a[1] << 12)) & kMask52;
    out[2] = ((a[1] >> 40) | (a[2] << 24)) & kMask52;
    out[3] = ((a[2] >> 28) | (a[3] << 36)) & kMask52;
    out[4] = a[3] >> 16;
}

}  // namespace

void FieldNttTable::build_vector_tables() {
    const size_t n = n_;
    const Limbs4 r260 = mont_.pow2(260);  // mul(x * 2^256, 2^260) = x * 2^260
    to52(mont_.modulus(), t52_.data());
    neg_inv52_ = mont_.neg_inverse() & kMask52;
    fwd52_.resize(5 * n);
    inv52_.resize(5 * n);
    for (size_t k = 0; k < n; ++k) {
        to52(mont_.mul(fwd_[k], r260), fwd52_.data() + 5 * k);
        to52(mont_.mul(inv_[k], r260), inv52_.data() + 5 * k);
    }
    to52(mont_.mul(n_inv_mont_, r260), n_inv52_.data());
    // The last three forward stages (half = 4, 2, 1) and the first three
    // inverse ones work on 8 x 8 blocks transposed so that lane g holds group
    // g (8 consecutive elements) of a 64-element chunk and vector p its p-th
    // element; the butterfly of group G at offset p uses twiddle index
    // n / (2 half) + G * (8 / (2 half)) + p / (2 half). Per chunk: 7 vectors
    // (1 for half = 4, 2 for half = 2, 4 for half = 1) of 5 limbs x 8 lanes.
    const size_t chunks = n / 64;
    fwd_lanes_.assign(chunks * 7 * 40, 0);
    inv_lanes_.assign(chunks * 7 * 40, 0);
    for (size_t c = 0; c < chunks; ++c) {
        size_t slot = 0;
        for (size_t half = 4; half >= 1; half >>= 1) {
            const size_t per_group = 8 / (2 * half);
            for (size_t q = 0; q < per_group; ++q, ++slot) {
                for (size_t g = 0; g < 8; ++g) {
                    const size_t index = n / (2 * half) + (8 * c + g) * per_group + q;
                    for (size_t l = 0; l < 5; ++l) {
                        const size_t at = ((c * 7 + slot) * 5 + l) * 8 + g;
                        fwd_lanes_[at] = fwd52_[5 * index + l];
                        inv_lanes_[at] = inv52_[5 * index + l];
                    }
                }
            }
        }
    }
}

void FieldNttTable::forward_vector(uint64_t *values) const {
    ensure(vector_ok_, "the IFMA field NTT needs a CPU with AVX-512 IFMA and n >= 64");
#ifdef BGV_X86_KERNELS
    field_kernels::Field52 f{t52_.data(), neg_inv52_};
    field_kernels::forward(values, n_, log_n_, f, fwd52_.data(), fwd_lanes_.data());
#endif
}

void FieldNttTable::inverse_vector(uint64_t *values) const {
    ensure(vector_ok_, "the IFMA field NTT needs a CPU with AVX-512 IFMA and n >= 64");
#ifdef BGV_X86_KERNELS
    field_kernels::Field52 f{t52_.data(), neg_inv52_};
    field_kernels::inverse(values, n_, log_n_, f, inv52_.data(), inv_lanes_.data(), n_inv52_.data());
#endif
}

}  // namespace bgv
