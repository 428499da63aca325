#pragma once
/// \file The events of one device, 16 bytes each instead of GpuEvent's 24: a million kernels
/// (what a 450 MB trace.csv holds) cost 16 MB. Events keep their order and read back as GpuEvent
/// values exactly; the few that do not fit the packed form (a duration of 4.29 s or more, more
/// than a million names in one file, a device with more than 1,022 streams) are kept whole
/// beside the packed ones, so nothing is rounded, clamped or dropped.

#include <QtGlobal>

#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <vector>

namespace goblin {

enum class GpuEventKind : std::uint8_t { Kernel, Memcpy, Memset };

/// One device event as the model reads it.
struct GpuEvent {
    qint64 startNs = 0;
    qint64 endNs = 0;          ///< >= startNs; zero-length events are kept (they count as kernels)
    std::uint32_t nameId = 0;  ///< index into GpuTimelineFile::names
    std::uint16_t stream = 0;  ///< index into GpuDeviceTimeline::streams
    GpuEventKind kind = GpuEventKind::Kernel;
};

class GpuEventList
{
    // Bits of Packed::nameStreamKind: kind 2, stream 10, name 20. A stream field of all ones
    // marks an event kept whole in m_wide.
    static constexpr std::uint32_t kKindBits = 2, kStreamBits = 10, kNameBits = 20;
    static constexpr std::uint32_t kWideStream = (1u << kStreamBits) - 1;
    static constexpr std::uint32_t kMaxName = (1u << kNameBits) - 1;
    static constexpr qint64 kMaxDurationNs = 0xffffffffLL;

    struct Packed {
        qint64 startNs;
        std::uint32_t durationNs;
        std::uint32_t nameStreamKind;
    };
    static_assert(sizeof(Packed) == 16);

    struct Wide {
        std::size_t index;
        GpuEvent event;
    };

public:
    class const_iterator
    {
    public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = GpuEvent;
        using difference_type = std::ptrdiff_t;
        using pointer = void;
        using reference = GpuEvent;

        const_iterator() = default;
        GpuEvent operator*() const
        {
            const Packed &p = m_list->m_packed[m_index];
            if (((p.nameStreamKind >> kKindBits) & kWideStream) == kWideStream)
                return m_list->m_wide[m_wide].event;
            return unpack(p);
        }
        const_iterator &operator++()
        {
            const Packed &p = m_list->m_packed[m_index];
            if (((p.nameStreamKind >> kKindBits) & kWideStream) == kWideStream)
                ++m_wide;
            ++m_index;
            return *this;
        }
        const_iterator operator++(int)
        {
            const_iterator before = *this;
            ++*this;
            return before;
        }
        bool operator==(const const_iterator &other) const { return m_index == other.m_index; }

    private:
        friend class GpuEventList;
        const_iterator(const GpuEventList *list, std::size_t index, std::size_t wide)
            : m_list(list), m_index(index), m_wide(wide)
        {
        }
        const GpuEventList *m_list = nullptr;
        std::size_t m_index = 0;
        std::size_t m_wide = 0;  ///< the next entry of m_wide, which iteration meets in order
    };

    void push_back(const GpuEvent &e)
    {
        qint64 durationNs = 0;
        if (!__builtin_sub_overflow(e.endNs, e.startNs, &durationNs) && durationNs >= 0 && durationNs < kMaxDurationNs && e.stream < kWideStream && e.nameId <= kMaxName) {
            m_packed.push_back({e.startNs, std::uint32_t(durationNs),
                                (e.nameId << (kKindBits + kStreamBits)) | (std::uint32_t(e.stream) << kKindBits) |
                                    std::uint32_t(e.kind)});
            return;
        }
        m_wide.push_back({m_packed.size(), e});
        m_packed.push_back({e.startNs, 0, (kWideStream << kKindBits) | std::uint32_t(e.kind)});
    }

    std::size_t size() const { return m_packed.size(); }
    bool empty() const { return m_packed.empty(); }
    std::size_t capacity() const { return m_packed.capacity(); }
    void reserve(std::size_t n) { m_packed.reserve(n); }
    /// Events kept whole (not packed); for tests and memory figures.
    std::size_t wideCount() const { return m_wide.size(); }
    static constexpr std::size_t bytesPerEvent() { return sizeof(Packed); }

    /// Event i; O(1), O(log wide) for an event kept whole.
    GpuEvent operator[](std::size_t i) const;
    GpuEvent at(std::size_t i) const
    {
        if (i >= m_packed.size())
            throw std::out_of_range("GpuEventList::at");
        return (*this)[i];
    }
    /// The start alone, without unpacking (what sorts and sweeps compare).
    qint64 startNs(std::size_t i) const { return m_packed[i].startNs; }

    const_iterator begin() const { return const_iterator(this, 0, 0); }
    const_iterator end() const { return const_iterator(this, m_packed.size(), m_wide.size()); }

private:
    static GpuEvent unpack(const Packed &p)
    {
        GpuEvent e;
        e.startNs = p.startNs;
        e.endNs = p.startNs + qint64(p.durationNs);
        e.nameId = p.nameStreamKind >> (kKindBits + kStreamBits);
        e.stream = std::uint16_t((p.nameStreamKind >> kKindBits) & kWideStream);
        e.kind = GpuEventKind(p.nameStreamKind & ((1u << kKindBits) - 1));
        return e;
    }

    std::vector<Packed> m_packed;  ///< every event, in order
    std::vector<Wide> m_wide;      ///< the events that did not fit, by index
};

inline GpuEvent GpuEventList::operator[](std::size_t i) const
{
    const Packed &p = m_packed[i];
    if (((p.nameStreamKind >> kKindBits) & kWideStream) != kWideStream)
        return unpack(p);
    std::size_t lo = 0, hi = m_wide.size();
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (m_wide[mid].index < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return m_wide[lo].event;
}

} // namespace goblin
