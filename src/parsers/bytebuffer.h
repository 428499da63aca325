#pragma once
/// \file Read buffers that cost few page faults.

#include <cstddef>
#include <cstdlib>
#include <memory>

namespace goblin {

struct FreeDeleter {
    void operator()(char *p) const noexcept { std::free(p); }
};
using ByteBuffer = std::unique_ptr<char[], FreeDeleter>;

/// `bytes` of uninitialised memory; throws std::bad_alloc. From 1 MB up the block is 2 MB-aligned
/// and offered to the kernel for transparent huge pages: a read buffer's pages are all fresh, and
/// each fresh 4 kB page costs a page fault (14 µs each on the paravirtualised machine the
/// benchmarks ran on, where a 4 MB buffer faulted in cost 14 ms and the same in huge pages 0.3 ms).
ByteBuffer allocateByteBuffer(std::size_t bytes);

} // namespace goblin
