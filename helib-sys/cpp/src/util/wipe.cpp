// wipe.cpp -- erasing secret-dependent memory before it is released.
#include "util/wipe.hpp"

#include <cstring>

namespace bgv {

void secure_wipe(void *data, size_t bytes) {
    if (bytes == 0) return;
    std::memset(data, 0, bytes);
    // The compiler must assume the assembly reads the zeroed memory, so it
    // cannot drop the memset as a dead store to memory about to be freed.
    __asm__ __volatile__("" : : "r"(data) : "memory");
}

}  // namespace bgv
