// ntt.cpp -- lazy Harvey butterflies for the negacyclic NTT.
#include "ring/ntt.hpp"

#include <algorithm>

#include "util/error.hpp"
#include "ring/ntt_avx2.hpp"
#include "ring/ntt_avx512.hpp"
#include "ring/ntt_kernels.hpp"
#include "ring/primes.hpp"

namespace bgv {
namespace {

size_t bit_reverse(size_t x, unsigned bits) {
    size_t r = 0;
    for (unsigned i = 0; i < bits; ++i) {
        r = (r << 1) | (x & 1);
        x >>= 1;
    }
    return r;
}

}  // namespace

NttTables::NttTables(size_t n, const Modulus &modulus)
    : n_(n), modulus_(modulus), roots_(n), roots_shoup_(n), inv_roots_(n), inv_roots_shoup_(n) {
    ensure(n >= 2 && (n & (n - 1)) == 0, "NTT length is a power of two");
    ensure(modulus.value() % (2 * n) == 1, "NTT prime is 1 mod 2n");
    unsigned log_n = 0;
    while ((size_t{1} << log_n) < n) ++log_n;
    psi_ = minimal_primitive_root(2 * n, modulus.value());
    const u64 psi_inv = modulus.inv(psi_);
    u64 power = 1, inv_power = 1;
    std::vector<u64> powers(n), inv_powers(n);
    for (size_t i = 0; i < n; ++i) {
        powers[i] = power;
        inv_powers[i] = inv_power;
        power = modulus.mul(power, psi_);
        inv_power = modulus.mul(inv_power, psi_inv);
    }
    for (size_t k = 0; k < n; ++k) {
        const size_t r = bit_reverse(k, log_n);
        roots_[k] = powers[r];
        inv_roots_[k] = inv_powers[r];
        roots_shoup_[k] = modulus.shoup(roots_[k]);
        inv_roots_shoup_[k] = modulus.shoup(inv_roots_[k]);
    }
    n_inv_ = modulus.inv(static_cast<u64>(n) % modulus.value());
    n_inv_shoup_ = modulus.shoup(n_inv_);
    last_inv_ = modulus.mul(inv_roots_[1], n_inv_);
    last_inv_shoup_ = modulus.shoup(last_inv_);
}

void NttTables::forward(u64 *a, CpuPath path) const { forward_prefix(a, n_, path); }

void NttTables::forward_prefix(u64 *a, size_t m, CpuPath path) const {
#ifdef BGV_X86_KERNELS
    if (path == CpuPath::Avx512) {
        kernels::avx512::ntt_forward(a, m, roots_.data(), roots_shoup_.data(), modulus_);
        return;
    }
    if (path == CpuPath::Avx2) {
        kernels::avx2::ntt_forward(a, m, roots_.data(), roots_shoup_.data(), modulus_);
        return;
    }
#endif
    (void)path;
    kernels::scalar::ntt_forward(a, m, roots_.data(), roots_shoup_.data(), modulus_);
}

void NttTables::forward_length(u64 *a, size_t m) const {
    ensure(m >= 2 && m <= n_ && (m & (m - 1)) == 0, "sub-transform length is a power of two in [2, n]");
    forward_prefix(a, m, cpu_path());
}

void NttTables::inverse(u64 *a, CpuPath path) const {
#ifdef BGV_X86_KERNELS
    if (path == CpuPath::Avx512) {
        kernels::avx512::ntt_inverse(a, n_, inv_roots_.data(), inv_roots_shoup_.data(), n_inv_, n_inv_shoup_,
                                     last_inv_, last_inv_shoup_, modulus_);
        return;
    }
    if (path == CpuPath::Avx2) {
        kernels::avx2::ntt_inverse(a, n_, inv_roots_.data(), inv_roots_shoup_.data(), n_inv_, n_inv_shoup_,
                                   last_inv_, last_inv_shoup_, modulus_);
        return;
    }
#endif
    (void)path;
    kernels::scalar::ntt_inverse(a, n_, inv_roots_.data(), inv_roots_shoup_.data(), n_inv_, n_inv_shoup_, modulus_);
}

void NttTables::forward_rows(u64 *rows, size_t width, size_t nonzero_rows) const {
    size_t t = n_;
    size_t m = 1;
    if (nonzero_rows <= n_ / 2) {
        // First stage with a zero second half: x + w*0 = x - w*0 = x.
        t >>= 1;
        std::copy(rows, rows + t * width, rows + t * width);
        m = 2;
    }
    // The butterflies of forward(), each between two rows instead of two words.
    for (; m < n_; m <<= 1) {
        t >>= 1;
        kernels::forward_rows_stage(rows, m, t, width, roots_.data(), roots_shoup_.data(), modulus_);
    }
    kernels::reduce_from_4q(rows, n_ * width, modulus_);
}

void NttTables::inverse_rows(u64 *rows, size_t width, u64 extra) const {
    size_t t = 1;
    for (size_t m = n_; m > 1; m >>= 1) {
        kernels::inverse_rows_stage(rows, m >> 1, t, width, inv_roots_.data(), inv_roots_shoup_.data(), modulus_);
        t <<= 1;
    }
    const u64 factor = modulus_.mul(n_inv_, modulus_.reduce(extra));
    kernels::scale(rows, n_ * width, factor, modulus_.shoup(factor), modulus_);
}

}  // namespace bgv
