// automorphism.cpp -- slot permutations of X -> X^g and the Galois elements of rotations.
#include "ring/automorphism.hpp"

#include <cstdint>
#include <string>

#include "util/error.hpp"

namespace bgv {
namespace {

// The low `bits` bits of x reversed (bits in 1..=32, x below 2^bits):
// swaps of halves, bytes, nibbles, pairs and bits, without a loop, so a
// permutation of 2^16 slots (made once per rotation of a transform) costs
// a few cycles per slot.
size_t bit_reverse(size_t x, unsigned bits) {
    uint32_t v = static_cast<uint32_t>(x);
    v = __builtin_bswap32(v);
    v = ((v >> 4) & 0x0F0F0F0Fu) | ((v & 0x0F0F0F0Fu) << 4);
    v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
    v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
    return bits == 0 ? 0 : static_cast<size_t>(v >> (32 - bits));
}

}  // namespace

void permute_slots(const Context &ctx, const RnsPoly &in, const std::vector<uint32_t> &perm, RnsPoly &out,
                   size_t count) {
    out.reshape(ctx.n(), count);
    for_each_prime(ctx, count, [&](size_t i) {
        const u64 *x = in.residues(i);
        u64 *y = out.residues(i);
        for (size_t j = 0; j < ctx.n(); ++j) y[j] = x[perm[j]];
    });
}

std::vector<uint32_t> galois_permutation(size_t n, uint64_t g) {
    unsigned log_n = 0;
    while ((size_t{1} << log_n) < n) ++log_n;
    const uint64_t two_n = 2 * n;
    std::vector<uint32_t> perm(n);
    // NTT slot k holds the evaluation at psi^(2 bitrev(k) + 1); m(X^g) there is m at psi^((2 bitrev(k) + 1) g).
    for (size_t k = 0; k < n; ++k) {
        const uint64_t exponent = ((2 * bit_reverse(k, log_n) + 1) * g) & (two_n - 1);  // n: a power of two
        perm[k] = static_cast<uint32_t>(bit_reverse((exponent - 1) / 2, log_n));
    }
    return perm;
}

uint64_t galois_element_for_step(size_t n, int64_t step) {
    const int64_t half = static_cast<int64_t>(n / 2);
    int64_t k = step % half;
    if (k < 0) k += half;
    const uint64_t two_n = 2 * n;  // at most 2^18, so products fit 64 bits
    uint64_t g = 1, base = 3;
    for (uint64_t e = static_cast<uint64_t>(k); e != 0; e >>= 1) {
        if (e & 1) g = g * base % two_n;
        base = base * base % two_n;
    }
    return g;
}

std::vector<int64_t> rotation_terms(size_t n, int64_t step) {
    const int64_t half = static_cast<int64_t>(n / 2);
    int64_t k = step % half;
    if (k < 0) k += half;
    // Non-adjacent form: signed powers of two, no two adjacent.
    auto naf = [](int64_t v) {
        std::vector<int64_t> terms;
        for (int64_t bit = 1; v != 0; bit <<= 1, v /= 2) {
            if (v & 1) {
                const int64_t digit = 2 - (((v % 4) + 4) % 4);  // +1 or -1
                terms.push_back(digit * bit);
                v -= digit;
            }
        }
        return terms;
    };
    std::vector<int64_t> terms = naf(k), other = naf(k - half);
    if (other.size() < terms.size()) terms = std::move(other);
    return terms;
}

void check_galois_element(const Context &ctx, uint64_t g) {
    require(g % 2 == 1 && g < 2 * ctx.n(), Status::InvalidArgument,
            "Galois element " + std::to_string(g) + " must be odd and below 2N");
}

}  // namespace bgv
