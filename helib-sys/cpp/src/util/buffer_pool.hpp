// buffer_pool.hpp -- recycling of large residue buffers.
#pragma once

#include <cstddef>

namespace bgv {
namespace buffer_pool {

/// Buffers at least this large are recycled.
constexpr size_t kMinBytes = size_t{1} << 20;
/// At most this many bytes wait in the pool; beyond, freed buffers go back to
/// the system.
constexpr size_t kMaxPooledBytes = size_t{128} << 20;

/// A buffer of `bytes` (at least kMinBytes) bytes, contents unspecified: a
/// recycled one when one of that size is waiting, otherwise fresh pages
/// mapped and faulted in by one system call. Throws std::bad_alloc when
/// memory is exhausted. Release it with `release`.
void *allocate(size_t bytes);
/// Keeps a buffer from `allocate` for reuse, or returns it to the system
/// when the pool is full.
void release(void *buffer, size_t bytes);

}  // namespace buffer_pool
}  // namespace bgv
