#include "bytebuffer.h"

#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace goblin {

ByteBuffer allocateByteBuffer(std::size_t bytes)
{
    constexpr std::size_t kHugePage = std::size_t(2) << 20;
    void *p = nullptr;
    if (bytes >= (std::size_t(1) << 20)) {
        const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
        p = std::aligned_alloc(kHugePage, rounded);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        if (p)
            madvise(p, rounded, MADV_HUGEPAGE);  // a hint; ignored where huge pages are off
#endif
    } else {
        p = std::malloc(bytes ? bytes : 1);
    }
    if (!p)
        throw std::bad_alloc();
    return ByteBuffer(static_cast<char *>(p));
}

} // namespace goblin
