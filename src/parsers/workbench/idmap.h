#pragma once
/// \file A hash map from 64-bit keys to small values, open addressing with linear probing: the
/// attribution's join looks one up per CPU record and per GPU event (millions), where
/// std::unordered_map's node per entry and its modulo cost more than the work around them.

#include <QtGlobal>

#include <cstddef>
#include <vector>

namespace goblin::workbench {

template <typename Value>
class IdMap
{
public:
    static constexpr quint64 kEmpty = ~quint64(0);  ///< the one key that cannot be stored

    /// The value of `key`, value-initialised when new; `inserted` says which.
    Value &at(quint64 key, bool *inserted = nullptr)
    {
        Q_ASSERT(key != kEmpty);
        if ((m_size + 1) * 2 > m_slots.size())
            grow();
        size_t i = slotOf(key);
        for (;; i = (i + 1) & m_mask) {
            Slot &slot = m_slots[i];
            if (slot.key == key) {
                if (inserted)
                    *inserted = false;
                return slot.value;
            }
            if (slot.key == kEmpty) {
                slot.key = key;
                ++m_size;
                if (inserted)
                    *inserted = true;
                return slot.value;
            }
        }
    }

    /// The value of `key`, or nullptr.
    const Value *find(quint64 key) const
    {
        if (m_slots.empty())
            return nullptr;
        for (size_t i = slotOf(key);; i = (i + 1) & m_mask) {
            const Slot &slot = m_slots[i];
            if (slot.key == key)
                return &slot.value;
            if (slot.key == kEmpty)
                return nullptr;
        }
    }

    size_t size() const { return m_size; }

    /// Every entry, in slot order.
    template <typename F>
    void forEach(F &&f) const
    {
        for (const Slot &slot : m_slots)
            if (slot.key != kEmpty)
                f(slot.key, slot.value);
    }

private:
    struct Slot {
        quint64 key = kEmpty;
        Value value{};
    };

    size_t slotOf(quint64 key) const { return size_t((key * 0x9E3779B97F4A7C15ull) >> m_shift); }

    void grow()
    {
        std::vector<Slot> old;
        old.swap(m_slots);
        const size_t capacity = old.empty() ? 64 : old.size() * 2;
        m_slots.assign(capacity, Slot{});
        m_mask = capacity - 1;
        m_shift = 64 - __builtin_ctzll(capacity);
        m_size = 0;
        for (const Slot &slot : old)
            if (slot.key != kEmpty)
                at(slot.key) = slot.value;
    }

    std::vector<Slot> m_slots;
    size_t m_mask = 0;
    int m_shift = 64;
    size_t m_size = 0;
};

} // namespace goblin::workbench
