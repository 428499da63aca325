#pragma once
/// \file The allocator's `[memory]` instant events of a Kineto trace (tracememory.h), as an event
/// consumer (kineto/eventconsumer.h): the events, the CPU ops and the ProfilerStep#N ranges are
/// kept while the document streams past; curves, peaks, steps and the allocating ops are made
/// once it ends. It finishes after TraceTraitsConsumer, whose deviceProperties (TraceIdentity)
/// give the devices' names and capacities. docs/memory.md defines every figure.

#include "kineto/eventconsumer.h"

#include <QtGlobal>

#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace goblin::workbench {

/// The members of a `[memory]` event's args this reading uses, read from the bytes of the
/// (already validated) object: `args` starts at its '{' and may run on past its '}'.
struct MemoryArgs {
    qint64 totalAllocated = 0, totalReserved = 0, bytes = 0, deviceId = -1, deviceType = -1;
    bool haveAllocated = false, haveReserved = false, haveBytes = false, haveDeviceId = false, haveDeviceType = false;
};
MemoryArgs readMemoryArgs(std::string_view args);


class MemoryConsumer final : public kineto::EventConsumer
{
public:
    explicit MemoryConsumer(const kineto::ConsumerContext &) {}

    static std::unique_ptr<kineto::EventConsumer> make(const kineto::ConsumerContext &context)
    {
        return std::make_unique<MemoryConsumer>(context);
    }

    void onEvent(const kineto::KinetoEvent &event) override;
    void finishRange() override;
    void absorb(kineto::EventConsumer &laterRange, int generation) override;
    void finish(const kineto::KinetoDocument &document, TorchTrace &out) override;

    /// CPU ops kept for the op join: 24 bytes each, so at most 768 KiB per reader. A trace with
    /// more keeps the first ones (document order); allocations inside the time span of the ops
    /// left out are counted as of an unknown op, never given to an outer one.
    static constexpr size_t kMaxOps = size_t(1) << 15;
    /// What a byte range keeps once read, since every range is held until all are read (a 1 GB
    /// trace has dozens): none when it had no [memory] event, else its last kMaxRangeOps.
    static constexpr size_t kMaxRangeOps = size_t(1) << 13;

private:
    struct Event {
        qint64 tsNs;
        qint64 allocated;
        qint64 reserved;
        qint64 bytes;
        qint32 deviceType;
        qint32 deviceId;
        quint32 thread;
        quint8 have;  ///< bit 0 allocated, 1 reserved, 2 bytes
    };
    struct Op {
        qint64 beginNs;
        qint64 endNs;
        quint32 thread;
        quint32 name;
    };
    struct Step {
        std::string label;
        qint64 beginNs;
        qint64 endNs;
    };
    struct StringHash {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    using Interned = std::unordered_map<std::string, quint32, StringHash, std::equal_to<>>;

    void onMemory(const kineto::KinetoEvent &event);
    void onCpuOp(const kineto::KinetoEvent &event);
    quint32 threadOf(const kineto::KinetoEvent &event);
    static quint32 intern(Interned &map, std::vector<std::string> &list, std::string_view text);

    std::vector<Event> m_events;  ///< `[memory]` events of GPU devices and host, document order
    std::vector<Op> m_ops;
    std::vector<Step> m_steps;
    std::vector<std::string> m_threads, m_names;  ///< "pid\x1ftid" raw tokens; op names
    Interned m_threadIndex, m_nameIndex;
    struct NameSlot {
        quint32 id = 0;
        bool valid = false;
    };
    static constexpr size_t kNameCacheSlots = 256;
    std::array<NameSlot, kNameCacheSlots> m_nameCache{};
    std::string m_lastThreadKey;
    quint32 m_lastThread = 0;
    bool m_haveLastThread = false;
    void dropOp(qint64 beginNs, qint64 endNs)
    {
        m_droppedBeginNs = std::min(m_droppedBeginNs, beginNs);
        m_droppedEndNs = std::max(m_droppedEndNs, endNs);
    }
    /// The time span of the CPU ops not kept (empty: begin > end).
    qint64 m_droppedBeginNs = std::numeric_limits<qint64>::max();
    qint64 m_droppedEndNs = std::numeric_limits<qint64>::min();
    qint64 m_memoryEvents = 0, m_outOfMemory = 0, m_unusable = 0, m_firstUnusableLine = 0;
    qint64 m_opsWithoutThread = 0;
};

} // namespace goblin::workbench
