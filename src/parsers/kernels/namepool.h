#pragma once
/// \file Interned kernel names: each distinct name stored once, looked up by view without
/// building a std::string. Shared by every kernel source (CSV traces, rocpd databases), so
/// both readings of a run use one id per name.

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace goblin::kernels
{

/// Multiply-mix hash, 16 bytes per step: every row's kernel name (often 1-2 KB) is hashed, so
/// std::hash (byte-wise murmur) would be a visible share of the load time.
std::uint64_t hashBytes(std::string_view s);

class NamePool
{
public:
    NamePool() : m_slots(1024) {}

    /// The id of `name` (0-based, first-seen order), adding it when new.
    std::uint32_t intern(std::string_view name)
    {
        const std::uint64_t h = hashBytes(name);
        const size_t mask = m_slots.size() - 1;
        size_t i = size_t(h) & mask;
        for (;;) {
            Slot &slot = m_slots[i];
            if (slot.id == 0)
                break;
            if (slot.hash == h && m_views[slot.id - 1] == name)
                return slot.id - 1;
            i = (i + 1) & mask;
        }
        return add(name, h, i);
    }

    size_t size() const { return m_views.size(); }
    std::string_view view(std::uint32_t id) const { return m_views[id]; }

    /// Hands the names over (id = index) and empties the pool.
    std::vector<std::string> take();

private:
    struct Slot {
        std::uint64_t hash = 0;
        std::uint32_t id = 0; // 1-based; 0 = empty
    };

    std::uint32_t add(std::string_view name, std::uint64_t hash, size_t slot);
    void grow();

    std::vector<Slot> m_slots;
    std::deque<std::string> m_storage; // never moves its elements: views into SSO strings stay valid
    std::vector<std::string_view> m_views;
};

} // namespace goblin::kernels

namespace goblin::kernels
{

/// Per record, one id for the name cell both readings use: interned once when both readings
/// read the same column. reset() at every record.
struct RowNameIds {
    NamePool &pool;
    int column = -1;
    std::uint32_t id = 0;

    void reset() { column = -1; }
    std::uint32_t operator()(int nameColumn, std::string_view stripped)
    {
        if (nameColumn != column) {
            id = pool.intern(stripped);
            column = nameColumn;
        }
        return id;
    }
};

} // namespace goblin::kernels
