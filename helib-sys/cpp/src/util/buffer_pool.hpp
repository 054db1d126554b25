// buffer_pool.hpp -- recycling of large residue buffers.
#pragma once

#include <cstddef>

namespace bgv {
namespace buffer_pool {

/// Buffers at least this large are recycled.
constexpr size_t kMinBytes = size_t{1} << 20;
/// At most this many bytes wait in the pool; beyond, the smallest waiting
/// regions go back to the system to make room.
/// With 128 MiB, an encrypted FFT at N = 2^16 over 16 ciphertexts (23-prime
/// chain) spent a seventh of its time in the kernel mapping and zeroing the
/// pages of its key-switching buffers; at 1 GiB the FFT of 4 ciphertexts
/// takes 0.71x the CPU time, for 0.2 GiB more peak memory.
constexpr size_t kMaxPooledBytes = size_t{1} << 30;

/// A buffer of `bytes` (at least kMinBytes) bytes, page-aligned, contents
/// unspecified: recycled pages when any wait (a larger region split, or a
/// smaller one grown in place of copying), otherwise fresh pages mapped and
/// faulted in by one system call. Throws std::bad_alloc when
/// memory is exhausted. Release it with `release`.
void *allocate(size_t bytes);
/// Keeps a buffer from `allocate` for reuse, or returns it to the system
/// when the pool is full.
void release(void *buffer, size_t bytes);

}  // namespace buffer_pool
}  // namespace bgv
