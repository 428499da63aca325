#pragma once
/// \file An append-only byte log in blocks that never move: the attribution's per-thread records
/// (a few bytes each, millions of them). A growing vector would copy itself at each doubling and
/// hold up to half its size unused; blocks grow from 256 bytes (most threads write little) to 64 KiB.

#include <QtGlobal>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

namespace goblin::workbench {

class ByteLog
{
public:
    ByteLog() = default;
    ByteLog(ByteLog &&) noexcept = default;
    ByteLog &operator=(ByteLog &&) noexcept = default;
    ByteLog(const ByteLog &) = delete;
    ByteLog &operator=(const ByteLog &) = delete;

    /// Where the next record of at most `maxBytes` bytes goes (records never straddle blocks);
    /// hand the position after it to commit().
    std::uint8_t *reserve(size_t maxBytes)
    {
        if (m_blocks.empty() || m_blocks.back().capacity - m_blocks.back().used < maxBytes)
            addBlock(maxBytes);
        Block &b = m_blocks.back();
        return b.data.get() + b.used;
    }
    void commit(const std::uint8_t *after)
    {
        Block &b = m_blocks.back();
        const size_t used = size_t(after - b.data.get());
        m_bytes += used - b.used;
        b.used = used;
    }

    size_t bytes() const { return m_bytes; }
    bool empty() const { return m_bytes == 0; }

    /// f(begin, end) for each block's written bytes, in order.
    template <typename F>
    void forEachBlock(F &&f) const
    {
        for (const Block &b : m_blocks)
            f(static_cast<const std::uint8_t *>(b.data.get()), static_cast<const std::uint8_t *>(b.data.get()) + b.used);
    }

private:
    static constexpr size_t kFirstBlock = 256;
    static constexpr size_t kLargestBlock = 64 * 1024;

    struct Block {
        std::unique_ptr<std::uint8_t[]> data;
        size_t capacity = 0;
        size_t used = 0;
    };

    void addBlock(size_t atLeast)
    {
        const size_t size =
            std::max(atLeast, m_blocks.empty() ? kFirstBlock : std::min(kLargestBlock, m_blocks.back().capacity * 2));
        m_blocks.push_back({std::make_unique_for_overwrite<std::uint8_t[]>(size), size, 0});
    }

    std::vector<Block> m_blocks;
    size_t m_bytes = 0;
};

} // namespace goblin::workbench
