// block_product.cpp -- block convolutions by an NTT across blocks, and monomial products.
#include "bgv/block_product.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <string>
#include <utility>

#include "util/error.hpp"
#include "rlwe/noise.hpp"
#include "ring/ntt_kernels.hpp"
#include "bgv/scheme.hpp"

namespace bgv {
namespace eval {
namespace {

/// Words of scratch one work item may use for its matrices (512 KiB: the
/// matrices stay in a core's L2 cache through all the stages).
constexpr size_t kScratchWords = size_t{1} << 16;

/// One operand of a convolution: per block, the residue polynomials of its parts.
struct Operand {
    std::vector<std::vector<const RnsPoly *>> blocks;
    size_t parts = 0;
    /// Encoded plaintexts keep their residues in Montgomery form.
    bool montgomery = false;
};

size_t transform_length(size_t outputs) {
    size_t length = 1;
    while (length < outputs) length <<= 1;
    return length;
}

/// Copies block rows [0, blocks) of part `part` at prime i, slots [j0, j0 + width),
/// into a length x width matrix, zero-padding rows [blocks, length).
void load(const Operand &op, size_t part, size_t i, size_t j0, size_t width, size_t length, u64 *matrix) {
    for (size_t k = 0; k < op.blocks.size(); ++k) {
        std::memcpy(matrix + k * width, op.blocks[k][part]->residues(i) + j0, width * sizeof(u64));
    }
    std::fill(matrix + op.blocks.size() * width, matrix + length * width, u64{0});
}

/// The pointwise tensor of the transformed rows: results replace the inputs.
/// With two-part operands the parts of the result are (a0 b0, a0 b1 + a1 b0, a1 b1)
/// and land in (a0, a1, b1); with a one-part b they are (a0 b0, a1 b0) in (a0, a1).
/// Every product is a Montgomery product (a factor 2^-64 the caller undoes).
void tensor(u64 *a0, u64 *a1, u64 *b0, u64 *b1, size_t words, u64 *cross, const Modulus &q) {
    if (b1 == nullptr) {
        kernels::multiply_montgomery(a0, a0, b0, words, q, false);
        kernels::multiply_montgomery(a1, a1, b0, words, q, false);
        return;
    }
    kernels::multiply_montgomery(cross, a0, b1, words, q, false);
    kernels::multiply_montgomery(cross, a1, b0, words, q, true);
    kernels::multiply_montgomery(a0, a0, b0, words, q, false);
    kernels::multiply_montgomery(b1, a1, b1, words, q, false);
    std::memcpy(a1, cross, words * sizeof(u64));
}

struct Scratch {
    std::vector<u64> words;
    u64 *get(size_t count) {
        if (words.size() < count) words.resize(count);
        return words.data();
    }
};

/// out[k - first][p] = sum_{i+j=k} (a_i (x) b_j)[p] at every prime of the level.
void convolve(const Context &ctx, size_t primes, const Operand &a, const Operand &b, size_t first,
              const std::vector<std::vector<RnsPoly *>> &out) {
    const size_t n = ctx.n(), length = transform_length(a.blocks.size() + b.blocks.size() - 1);
    const size_t matrices = a.parts + b.parts;
    size_t width = n;
    while (width > 8 && width * length * (matrices + 1) > kScratchWords) width >>= 1;
    const size_t chunks = n / width;
    std::vector<std::unique_ptr<NttTables>> tables(primes);
    if (length > 1) {
        for_each_prime(ctx, primes, [&](size_t i) { tables[i] = std::make_unique<NttTables>(length, ctx.prime(i)); });
    }
    // Montgomery products leave 2^-64 unless b brought 2^64 along.
    const bool compensate = !b.montgomery;
    ctx.pool().parallel_for(primes * chunks, [&](size_t item) {
        thread_local Scratch scratch;
        const size_t i = item / chunks, j0 = (item % chunks) * width;
        const Modulus &q = ctx.prime(i);
        const size_t block = length * width;
        u64 *base = scratch.get(block * (matrices + 1));
        u64 *am[2] = {base, base + block};
        u64 *bm[2] = {base + a.parts * block, base + (a.parts + 1) * block};
        u64 *cross = base + matrices * block;
        for (size_t p = 0; p < a.parts; ++p) load(a, p, i, j0, width, length, am[p]);
        for (size_t p = 0; p < b.parts; ++p) load(b, p, i, j0, width, length, bm[p]);
        if (length > 1) {
            for (size_t p = 0; p < a.parts; ++p) tables[i]->forward_rows(am[p], width, a.blocks.size());
            for (size_t p = 0; p < b.parts; ++p) tables[i]->forward_rows(bm[p], width, b.blocks.size());
        }
        tensor(am[0], am[1], bm[0], b.parts == 2 ? bm[1] : nullptr, block, cross, q);
        u64 *results[3] = {am[0], am[1], b.parts == 2 ? bm[1] : nullptr};
        const size_t parts = a.parts + b.parts - 1;
        const u64 extra = compensate ? q.reduce128(static_cast<u128>(1) << 64) : 1;
        for (size_t p = 0; p < parts; ++p) {
            if (length > 1) {
                tables[i]->inverse_rows(results[p], width, extra);
            } else if (compensate) {
                kernels::scale(results[p], width, extra, q.shoup(extra), q);
            }
            for (size_t k = 0; k < out.size(); ++k) {
                std::memcpy(out[k][p]->residues(i) + j0, results[p] + (first + k) * width, width * sizeof(u64));
            }
        }
    });
}

/// The checks every block operand of `a` passes: written, size 2, one context, level and factor.
void check_ciphertext_blocks(const std::vector<const Ciphertext *> &blocks, const char *name) {
    require(!blocks.empty(), Status::InvalidArgument, std::string(name) + " has no blocks");
    for (const Ciphertext *c : blocks) {
        require(c != nullptr, Status::NullPointer, std::string("a block of ") + name + " is NULL");
        check_nonempty(*c);
        const Ciphertext &head = *blocks.front();
        require(c->ctx == head.ctx, Status::ContextMismatch,
                std::string("the blocks of ") + name + " belong to different contexts");
        if (c->level != head.level)
            fail_level_mismatch(head.level, c->level, std::string("the blocks of ") + name + " are at different levels");
        require(c->factor == head.factor, Status::FactorMismatch,
                std::string("the blocks of ") + name + " carry different correction factors");
        require(c->parts.size() == 2, Status::InvalidArgument,
                std::string("the blocks of ") + name + " must be size-2 ciphertexts (relinearize first)");
    }
}

void check_outputs(const std::vector<Ciphertext *> &dst, size_t first, size_t blocks_a, size_t blocks_b,
                   const Context &ctx) {
    const size_t total = blocks_a + blocks_b - 1;
    require(total <= ctx.n(), Status::InvalidArgument,
            "a block product needs at most N = " + std::to_string(ctx.n()) + " output blocks, got " +
                std::to_string(total));
    require(!dst.empty() && first < total && dst.size() <= total - first, Status::InvalidArgument,
            "output blocks [" + std::to_string(first) + ", " + std::to_string(first + dst.size()) +
                ") are not within the " + std::to_string(total) + " blocks of the product");
    for (const Ciphertext *d : dst) require(d != nullptr, Status::NullPointer, "an output block is NULL");
}

Operand ciphertext_operand(const std::vector<const Ciphertext *> &blocks) {
    Operand op;
    op.parts = 2;
    for (const Ciphertext *c : blocks) op.blocks.push_back({&c->parts[0], &c->parts[1]});
    return op;
}

/// Runs the convolution into fresh ciphertexts shaped like `like`, then moves them into dst.
void convolve_into(const Operand &a, const Operand &b, size_t first, const Ciphertext &like,
                   const mpz_class &factor, double noise, const std::vector<Ciphertext *> &dst) {
    const Context &ctx = *like.ctx;
    const size_t parts = a.parts + b.parts - 1;
    std::vector<Ciphertext> results(dst.size());
    std::vector<std::vector<RnsPoly *>> out(dst.size());
    for (size_t k = 0; k < dst.size(); ++k) {
        results[k].ctx = like.ctx;
        results[k].level = like.level;
        results[k].factor = factor;
        results[k].noise_log2 = noise;
        for (size_t p = 0; p < parts; ++p) results[k].parts.emplace_back(ctx.n(), like.count());
        for (RnsPoly &poly : results[k].parts) out[k].push_back(&poly);
    }
    convolve(ctx, like.count(), a, b, first, out);
    for (size_t k = 0; k < dst.size(); ++k) *dst[k] = std::move(results[k]);
}

}  // namespace

void multiply_blocks(const std::vector<const Ciphertext *> &a, const std::vector<const Ciphertext *> &b,
                     size_t first, const std::vector<Ciphertext *> &dst) {
    check_ciphertext_blocks(a, "a");
    check_ciphertext_blocks(b, "b");
    const Ciphertext &head = *a.front();
    require(b.front()->ctx == head.ctx, Status::ContextMismatch, "operands belong to different contexts");
    if (b.front()->level != head.level)
        fail_level_mismatch(head.level, b.front()->level,
                            "operands are at different levels (" + std::to_string(head.level) + " and " +
                                std::to_string(b.front()->level) + "); switch the higher one down first");
    const Context &ctx = *head.ctx;
    check_outputs(dst, first, a.size(), b.size(), ctx);
    // Each output block sums at most min(c_a, c_b) products, each bounded by
    // N ||v_a||_inf ||v_b||_inf.
    double noise_a = -1e300, noise_b = -1e300;
    for (const Ciphertext *c : a) noise_a = std::max(noise_a, c->noise_log2);
    for (const Ciphertext *c : b) noise_b = std::max(noise_b, c->noise_log2);
    const double noise = block_product_noise(ctx, head.level, noise_a, noise_b, false, std::min(a.size(), b.size()));
    convolve_into(ciphertext_operand(a), ciphertext_operand(b), first, head, head.factor * b.front()->factor % ctx.t(),
                  noise, dst);
}

void multiply_plain_blocks(const std::vector<const Ciphertext *> &a, const std::vector<const EncodedPlaintext *> &b,
                           size_t first, const std::vector<Ciphertext *> &dst) {
    check_ciphertext_blocks(a, "a");
    require(!b.empty(), Status::InvalidArgument, "b has no blocks");
    const Ciphertext &head = *a.front();
    Operand plain;
    plain.parts = 1;
    plain.montgomery = true;
    double log2_l1_sum = -1e300;
    // Compact plaintexts (see RnsPoly) are expanded for the convolution.
    std::deque<RnsPoly> expansions;
    for (const EncodedPlaintext *p : b) {
        require(p != nullptr, Status::NullPointer, "a block of b is NULL");
        require(p->ctx == head.ctx, Status::ContextMismatch, "operands belong to different contexts");
        if (p->level < head.level)
            fail_level_mismatch(head.level, p->level,
                                "a plaintext block is encoded at level " + std::to_string(p->level) +
                                    ", below the ciphertexts' level " + std::to_string(head.level));
        require(p->factor == b.front()->factor, Status::FactorMismatch,
                "the plaintext blocks carry different correction factors");
        if (p->poly.n == p->ctx->n()) {
            plain.blocks.push_back({&p->poly});
        } else {
            expansions.push_back(expanded(*p->ctx, p->poly));
            plain.blocks.push_back({&expansions.back()});
        }
        log2_l1_sum = noise::add(log2_l1_sum, std::max(p->log2_l1, 0.0));
    }
    const Context &ctx = *head.ctx;
    check_outputs(dst, first, a.size(), b.size(), ctx);
    // ||sum_j v_{k-j} p_j||_inf <= max_i ||v_i||_inf * sum_j ||p_j||_1.
    double noise_a = -1e300;
    for (const Ciphertext *c : a) noise_a = std::max(noise_a, c->noise_log2);
    const double noise = block_product_noise(ctx, head.level, noise_a, log2_l1_sum, true, 0);
    convolve_into(ciphertext_operand(a), plain, first, head, head.factor * b.front()->factor % ctx.t(), noise, dst);
}

double block_product_noise(const Context &ctx, size_t level, double noise_a, double b_log2, bool plain,
                           size_t terms) {
    ctx.check_level(level);
    if (plain) {
        // ||sum_j v_{k-j} p_j||_inf <= max_i ||v_i||_inf * sum_j ||p_j||_1.
        const double noise = noise_a + b_log2;
        noise::require_budget(ctx, level, noise, "block plaintext multiplication");
        return noise;
    }
    require(terms >= 1, Status::InvalidArgument, "a block product sums at least one product per block");
    // Each output block sums at most min(c_a, c_b) products, each bounded by
    // N ||v_a||_inf ||v_b||_inf.
    const double noise =
        noise_a + b_log2 + std::log2(static_cast<double>(ctx.n()) * static_cast<double>(terms));
    noise::require_budget(ctx, level, noise, "block multiplication");
    return noise;
}

void convolve_rows(const Context &ctx, size_t prime, size_t width, const u64 *const *a, size_t a_blocks,
                   size_t a_parts, const u64 *const *b, size_t b_blocks, size_t b_parts, bool b_montgomery,
                   size_t first, u64 *const *out, size_t out_blocks) {
    require(prime < ctx.chain_size(), Status::InvalidArgument,
            "prime " + std::to_string(prime) + " is not a chain prime");
    require(a != nullptr && b != nullptr && out != nullptr, Status::NullPointer, "a row list is NULL");
    require(a_parts == 2 && (b_parts == 1 || b_parts == 2), Status::InvalidArgument,
            "rows of size-2 ciphertexts times rows of size-2 ciphertexts or of plaintexts");
    require(!b_montgomery || b_parts == 1, Status::InvalidArgument, "only plaintext rows are in Montgomery form");
    require(width >= 1 && a_blocks >= 1 && b_blocks >= 1, Status::InvalidArgument,
            "a row convolution needs columns and blocks");
    // Bounds before any product of them: at most N columns and N blocks a side,
    // so no word count below can wrap.
    require(width <= ctx.n() && a_blocks <= ctx.n() && b_blocks <= ctx.n(), Status::InvalidArgument,
            "a row convolution has at most N = " + std::to_string(ctx.n()) + " columns and blocks a side");
    const size_t total = a_blocks + b_blocks - 1;
    require(total <= ctx.n(), Status::InvalidArgument,
            "a block product needs at most N = " + std::to_string(ctx.n()) + " output blocks, got " +
                std::to_string(total));
    require(out_blocks >= 1 && first < total && out_blocks <= total - first, Status::InvalidArgument,
            "output blocks [" + std::to_string(first) + ", " + std::to_string(first + out_blocks) +
                ") are not within the " + std::to_string(total) + " blocks of the product");
    const size_t out_parts = a_parts + b_parts - 1;
    const auto require_rows = [](auto rows, size_t count) {
        require(std::find(rows, rows + count, nullptr) == rows + count, Status::NullPointer, "a row is NULL");
    };
    require_rows(a, a_blocks * a_parts);
    require_rows(b, b_blocks * b_parts);
    require_rows(out, out_blocks * out_parts);
    const Modulus &q = ctx.prime(prime);
    const size_t length = transform_length(total);
    const size_t matrices = a_parts + b_parts;
    // Column chunks whose matrices stay in cache, as in convolve.
    size_t chunk = width;
    while (chunk > 8 && chunk * length * (matrices + 1) > kScratchWords) chunk = (chunk / 2 + 7) / 8 * 8;
    const size_t chunks = (width + chunk - 1) / chunk;
    std::unique_ptr<NttTables> table;
    if (length > 1) table = std::make_unique<NttTables>(length, q);
    const bool compensate = !b_montgomery;
    ctx.pool().parallel_for(chunks, [&](size_t item) {
        thread_local Scratch scratch;
        const size_t j0 = item * chunk, cw = std::min(chunk, width - j0);
        const size_t block = length * cw;
        u64 *base = scratch.get(block * (matrices + 1));
        u64 *am[2] = {base, base + block};
        u64 *bm[2] = {base + a_parts * block, base + (a_parts + 1) * block};
        u64 *cross = base + matrices * block;
        // Each row piece is checked below the prime once it is in the
        // matrix (in cache), not in a pass of its own over the operands.
        const auto load_rows = [&](const u64 *const *rows, size_t blocks, size_t parts, size_t p, u64 *matrix) {
            for (size_t k = 0; k < blocks; ++k) {
                std::memcpy(matrix + k * cw, rows[k * parts + p] + j0, cw * sizeof(u64));
            }
            const u64 *end = matrix + blocks * cw;
            const u64 *bad = std::find_if(static_cast<const u64 *>(matrix), end, [&](u64 w) { return w >= q.value(); });
            if (bad != end) {
                const size_t at = static_cast<size_t>(bad - matrix);
                throw Error(Status::MalformedInput, "residue " + std::to_string(j0 + at % cw) + " of row " +
                                                        std::to_string((at / cw) * parts + p) +
                                                        " of a row operand is not below prime " +
                                                        std::to_string(prime));
            }
            std::fill(matrix + blocks * cw, matrix + length * cw, u64{0});
        };
        for (size_t p = 0; p < a_parts; ++p) load_rows(a, a_blocks, a_parts, p, am[p]);
        for (size_t p = 0; p < b_parts; ++p) load_rows(b, b_blocks, b_parts, p, bm[p]);
        if (length > 1) {
            for (size_t p = 0; p < a_parts; ++p) table->forward_rows(am[p], cw, a_blocks);
            for (size_t p = 0; p < b_parts; ++p) table->forward_rows(bm[p], cw, b_blocks);
        }
        tensor(am[0], am[1], bm[0], b_parts == 2 ? bm[1] : nullptr, block, cross, q);
        u64 *results[3] = {am[0], am[1], b_parts == 2 ? bm[1] : nullptr};
        const u64 extra = compensate ? q.reduce128(static_cast<u128>(1) << 64) : 1;
        for (size_t p = 0; p < out_parts; ++p) {
            if (length > 1) {
                table->inverse_rows(results[p], cw, extra);
            } else if (compensate) {
                kernels::scale(results[p], cw, extra, q.shoup(extra), q);
            }
            for (size_t k = 0; k < out_blocks; ++k) {
                std::memcpy(out[k * out_parts + p] + j0, results[p] + (first + k) * cw, cw * sizeof(u64));
            }
        }
    });
}

void mul_monomial(const Ciphertext &a, uint64_t k, Ciphertext &dst) {
    check_nonempty(a);
    const Context &ctx = *a.ctx;
    const size_t n = ctx.n();
    require(k < 2 * n, Status::InvalidArgument,
            "monomial exponent " + std::to_string(k) + " is not below 2N = " + std::to_string(2 * n));
    Ciphertext out;
    out.ctx = a.ctx;
    out.level = a.level;
    out.factor = a.factor;
    out.noise_log2 = a.noise_log2;
    for (size_t p = 0; p < a.parts.size(); ++p) out.parts.emplace_back(n, a.count());
    for_each_prime(ctx, a.count(), [&](size_t i) {
        const Modulus &q = ctx.prime(i);
        // X^k in evaluation form, in Montgomery form so one Montgomery product applies it.
        std::vector<u64> monomial(n, 0);
        monomial[k % n] = k < n ? q.to_montgomery(1) : q.neg(q.to_montgomery(1));
        ctx.ntt(i).forward(monomial.data());
        for (size_t p = 0; p < a.parts.size(); ++p) {
            kernels::multiply_montgomery(out.parts[p].residues(i), a.parts[p].residues(i), monomial.data(), n, q,
                                         false);
        }
    });
    dst = std::move(out);
}

}  // namespace eval
}  // namespace bgv
