#pragma once
/// \file The allocator's `[memory]` instant events of a Kineto trace (tracememory.h), as an event
/// consumer (kineto/eventconsumer.h): the events and the ProfilerStep#N ranges are kept while the
/// document streams past; curves, peaks and steps are made once it ends. It finishes after
/// TraceTraitsConsumer, whose deviceProperties (TraceIdentity) give the devices' names and
/// capacities, and before AttributionConsumer, whose sweep of every thread's op stack finds the
/// op around each allocation (setAllocatingOps()). docs/memory.md defines every figure.

#include "kineto/eventconsumer.h"
#include "results/tracememory.h"

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

/// Gives `device` its allocating ops (every op that allocated or freed on it, by name; the
/// attribution's join found them): the ones that allocated most, and the allocations inside no op.
void setAllocatingOps(DeviceMemory &device, std::vector<MemoryOp> ops);


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

private:
    struct Event {
        qint64 tsNs;
        qint64 allocated;
        qint64 reserved;
        qint64 bytes;
        qint32 deviceType;
        qint32 deviceId;
        quint8 have;  ///< bit 0 allocated, 1 reserved, 2 bytes
    };
    struct Step {
        std::string label;
        qint64 beginNs;
        qint64 endNs;
    };
    void onMemory(const kineto::KinetoEvent &event);
    void onStep(const kineto::KinetoEvent &event);

    std::vector<Event> m_events;  ///< `[memory]` events of GPU devices and host, document order
    std::vector<Step> m_steps;
    qint64 m_memoryEvents = 0, m_outOfMemory = 0, m_unusable = 0, m_firstUnusableLine = 0;
};

} // namespace goblin::workbench
