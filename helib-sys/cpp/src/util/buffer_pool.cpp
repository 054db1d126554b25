// buffer_pool.cpp -- recycling of large residue buffers.
//
// glibc serves every block above its mmap threshold (at most 32 MiB, and the
// residue buffers of a ciphertext at N = 2^16 are several MiB) with fresh
// pages from the kernel, which zero-fills them on first touch: at N = 2^16 a
// public-key encryption spent about a sixth of its time in those page faults,
// and on a virtual machine whose host backs guest memory lazily, first
// touches have cost 0.3-2.6 s per GiB.
//
// So freed buffers wait here, as page-aligned regions, and serve later
// allocations of any size:
//   - a waiting region at least as large is split (best fit): its front is
//     handed out, its tail waits on (or, below kMinBytes, is unmapped);
//   - otherwise the largest waiting region is grown by mremap, which moves
//     its pages, already touched, instead of copying or zeroing them; only
//     the missing tail is new memory;
//   - with nothing waiting, fresh pages are mapped with MAP_POPULATE, so the
//     kernel fills them in one pass instead of one fault per 4 KiB page.
// Transparent huge pages were tried and were much slower on a VM, where they
// stall on compaction. The waiting total is bounded by kMaxPooledBytes; the
// smallest regions go back to the system first. Under AddressSanitizer
// nothing is kept and buffers come from the ordinary heap, so every freed
// buffer stays poisoned and use-after-free is caught. Buffers that held
// secret-dependent residues never arrive here unwiped: their allocator
// wipes them first (Secrecy in rns_poly.hpp); public ones, the vast
// majority, are kept as they are.
#include "util/buffer_pool.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <iterator>
#include <map>
#include <mutex>
#include <new>
#include <vector>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older kernels refuse it harmlessly
#endif

namespace bgv {
namespace buffer_pool {
namespace {
#if !defined(__SANITIZE_ADDRESS__)

/// A page-aligned range of mapped memory.
struct Region {
    char *start = nullptr;
    size_t bytes = 0;
};

size_t page_bytes() {
    static const size_t page = [] {
        const long reported = sysconf(_SC_PAGESIZE);
        return reported > 0 ? static_cast<size_t>(reported) : size_t{4096};
    }();
    return page;
}

size_t whole_pages(size_t bytes) {
    const size_t page = page_bytes();
    return (bytes + page - 1) / page * page;
}

struct Pool {
    std::mutex mutex;
    /// Waiting regions by size, for best-fit lookup.
    std::multimap<size_t, char *> waiting;
    size_t pooled_bytes = 0;

    Region remove(std::multimap<size_t, char *>::iterator it) {
        const Region region{it->second, it->first};
        waiting.erase(it);
        pooled_bytes -= region.bytes;
        return region;
    }
    void add(Region region) {
        waiting.emplace(region.bytes, region.start);
        pooled_bytes += region.bytes;
    }
};

Pool &pool() {
    // Never destroyed: buffers may be freed by other static destructors.
    static Pool *instance = new Pool;
    return *instance;
}

/// Gives a region back to the system.
void unmap(Region region) { munmap(region.start, region.bytes); }

/// What the pool has for a request of `bytes` (whole pages): `ready`, a
/// region of exactly that size, or else `to_grow`, a smaller one to enlarge
/// (both empty when nothing waits).
struct Offer {
    Region ready;
    Region to_grow;
};

Offer take(size_t bytes) {
    Offer offer;
    Pool &p = pool();
    const std::lock_guard<std::mutex> lock(p.mutex);
    const auto fit = p.waiting.lower_bound(bytes);
    if (fit != p.waiting.end()) {
        const Region region = p.remove(fit);
        offer.ready = {region.start, bytes};
        const Region tail{region.start + bytes, region.bytes - bytes};
        if (tail.bytes == 0) return offer;
        if (tail.bytes >= kMinBytes) {
            try {
                p.add(tail);
                return offer;
            } catch (const std::bad_alloc &) {
                // No room to note the tail: it goes back to the system.
            }
        }
        unmap(tail);
    } else if (!p.waiting.empty()) {
        offer.to_grow = p.remove(std::prev(p.waiting.end()));
    }
    return offer;
}

/// `region` enlarged to `bytes`, its pages moved rather than copied; nullptr
/// (and `region` unmapped) when the kernel refuses.
char *grow(Region region, size_t bytes) {
    void *moved = mremap(region.start, region.bytes, bytes, MREMAP_MAYMOVE);
    if (moved == MAP_FAILED) {
        unmap(region);
        return nullptr;
    }
    char *start = static_cast<char *>(moved);
    // Fill the new tail in one pass, as MAP_POPULATE does for fresh
    // mappings; a kernel without MADV_POPULATE_WRITE faults it in on touch.
    madvise(start + region.bytes, bytes - region.bytes, MADV_POPULATE_WRITE);
    return start;
}
#endif

}  // namespace

void *allocate(size_t bytes) {
#if defined(__SANITIZE_ADDRESS__)
    return ::operator new(bytes);
#else
    const size_t size = whole_pages(bytes);
    const Offer offer = take(size);
    if (offer.ready.start != nullptr) return offer.ready.start;
    if (offer.to_grow.start != nullptr) {
        if (char *grown = grow(offer.to_grow, size)) return grown;
    }
    void *buffer = mmap(nullptr, size, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (buffer == MAP_FAILED) throw std::bad_alloc();
    return buffer;
#endif
}

void release(void *buffer, size_t bytes) {
#if defined(__SANITIZE_ADDRESS__)
    (void)bytes;
    ::operator delete(buffer);
#else
    const Region freed{static_cast<char *>(buffer), whole_pages(bytes)};
    if (freed.bytes <= kMaxPooledBytes) {
        Pool &p = pool();
        const std::lock_guard<std::mutex> lock(p.mutex);
        while (p.pooled_bytes + freed.bytes > kMaxPooledBytes) unmap(p.remove(p.waiting.begin()));
        try {
            p.add(freed);
            return;
        } catch (const std::bad_alloc &) {
            // No room to note it: it goes back to the system below.
        }
    }
    unmap(freed);
#endif
}

}  // namespace buffer_pool
}  // namespace bgv
