// buffer_pool.cpp -- recycling of large residue buffers.
//
// glibc serves every block above its mmap threshold (at most 32 MiB, and the
// residue buffers of a ciphertext at N = 2^16 are several MiB) with fresh
// pages from the kernel, which zero-fills them on first touch: at N = 2^16 a
// public-key encryption spent about a sixth of its time in those page faults.
// Buffers freed here wait, per exact size, for the next allocation of that
// size; the total waiting is bounded. Fresh buffers are mapped with
// MAP_POPULATE, so the kernel fills the pages in one pass instead of taking a
// fault per 4 KiB page on first touch (about a tenth faster key generation
// and plan building at N = 2^16; transparent huge pages were tried and were
// much slower on a VM, where they stall on compaction). Under
// AddressSanitizer nothing is kept and buffers come from the ordinary heap,
// so every freed buffer stays poisoned and use-after-free is caught.
// Buffers that held secret-dependent residues never arrive here unwiped:
// their allocator wipes them first (Secrecy in rns_poly.hpp); public ones,
// the vast majority, are kept as they are.
#include "util/buffer_pool.hpp"

#include <sys/mman.h>

#include <mutex>
#include <new>
#include <unordered_map>
#include <utility>
#include <vector>

namespace bgv {
namespace buffer_pool {
namespace {

struct Pool {
    std::mutex mutex;
    std::unordered_map<size_t, std::vector<void *>> free;
    size_t pooled_bytes = 0;
};

Pool &pool() {
    // Never destroyed: buffers may be freed by other static destructors.
    static Pool *instance = new Pool;
    return *instance;
}

void *take(size_t bytes) {
    Pool &p = pool();
    const std::lock_guard<std::mutex> lock(p.mutex);
    const auto it = p.free.find(bytes);
    if (it == p.free.end() || it->second.empty()) return nullptr;
    void *buffer = it->second.back();
    it->second.pop_back();
    p.pooled_bytes -= bytes;
    return buffer;
}

bool give(void *buffer, size_t bytes) {
#if defined(__SANITIZE_ADDRESS__)
    (void)buffer;
    (void)bytes;
    return false;
#else
    if (bytes > kMaxPooledBytes) return false;
    // Buffers of other sizes make room: the sizes in use change as a
    // computation moves down the chain, and the ones left behind would
    // otherwise fill the pool and send every new size back to the kernel.
    std::vector<std::pair<void *, size_t>> evicted;
    bool kept = false;
    {
        Pool &p = pool();
        const std::lock_guard<std::mutex> lock(p.mutex);
        for (auto it = p.free.begin(); it != p.free.end() && p.pooled_bytes + bytes > kMaxPooledBytes; ++it) {
            if (it->first == bytes) continue;
            while (!it->second.empty() && p.pooled_bytes + bytes > kMaxPooledBytes) {
                evicted.emplace_back(it->second.back(), it->first);
                it->second.pop_back();
                p.pooled_bytes -= it->first;
            }
        }
        if (p.pooled_bytes + bytes <= kMaxPooledBytes) {
            p.free[bytes].push_back(buffer);
            p.pooled_bytes += bytes;
            kept = true;
        }
    }
    for (const auto &[old, size] : evicted) munmap(old, size);
    return kept;
#endif
}

}  // namespace

void *allocate(size_t bytes) {
    if (void *recycled = take(bytes)) return recycled;
#if defined(__SANITIZE_ADDRESS__)
    return ::operator new(bytes);
#else
    void *buffer = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (buffer == MAP_FAILED) throw std::bad_alloc();
    return buffer;
#endif
}

void release(void *buffer, size_t bytes) {
    if (give(buffer, bytes)) return;
#if defined(__SANITIZE_ADDRESS__)
    ::operator delete(buffer);
#else
    munmap(buffer, bytes);
#endif
}

}  // namespace buffer_pool
}  // namespace bgv
