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

/// A recycled buffer of exactly `bytes` bytes (contents unspecified), or
/// nullptr when none is waiting.
void *take(size_t bytes);
/// Keeps a buffer of `bytes` bytes for reuse; false (the caller frees it)
/// when the pool is full.
bool give(void *buffer, size_t bytes);

}  // namespace buffer_pool
}  // namespace bgv
