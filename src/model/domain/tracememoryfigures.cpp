#include "tracememoryfigures.h"

#include "formatting.h"
#include "thresholds.h"

#include <algorithm>

namespace goblin {

namespace {

QString deviceWords(int id, const QString &name)
{
    return name.isEmpty() ? QStringLiteral("device %1").arg(id) : QStringLiteral("device %1 (%2)").arg(id).arg(name);
}

} // namespace

QString TraceMemoryFigures::peakSource() const
{
    return QStringLiteral("trace [memory] events: peak reserved %1 of totalGlobalMem %2 on %3; the allocator's "
                          "reserve is a lower bound of what the device held")
        .arg(formatGb(peakReservedGb.value_or(0.0)),
             capacityGb ? formatGb(*capacityGb) : QStringLiteral("— (not in deviceProperties)"),
             deviceWords(deviceId, deviceName));
}

TraceMemoryFigures traceMemoryFigures(const TorchTrace &torch)
{
    TraceMemoryFigures out;
    const DeviceMemory *best = nullptr;
    for (const DeviceMemory &d : torch.memory.devices)
        if (d.eventsWithReserved > 0 && (!best || d.peakReservedBytes > best->peakReservedBytes))
            best = &d;
    if (best) {
        out.deviceId = best->deviceId;
        out.deviceType = best->deviceType;
        out.deviceName = best->name;
        out.peakReservedGb = double(best->peakReservedBytes) / kBytesPerHbmGb;
        if (best->eventsWithAllocated > 0)
            out.peakAllocatedGb = double(best->peakAllocatedBytes) / kBytesPerHbmGb;
        if (best->capacityBytes) {
            out.capacityGb = double(*best->capacityBytes) / kBytesPerHbmGb;
            out.capacitySource = QStringLiteral("deviceProperties' totalGlobalMem of %1")
                                     .arg(deviceWords(best->deviceId, best->name));
        }
    }
    if (!out.capacityGb && !torch.timeline.files.empty()) {
        const TraceIdentity &identity = torch.timeline.files.front().traits.identity;
        int smallest = -1;
        for (size_t i = 0; i < identity.deviceMemoryBytes.size(); ++i)
            if (identity.deviceMemoryBytes[i] > 0 &&
                (smallest < 0 || identity.deviceMemoryBytes[i] < identity.deviceMemoryBytes[size_t(smallest)]))
                smallest = int(i);
        if (smallest >= 0) {
            out.capacityGb = double(identity.deviceMemoryBytes[size_t(smallest)]) / kBytesPerHbmGb;
            out.capacitySource =
                QStringLiteral("deviceProperties' totalGlobalMem of %1")
                    .arg(deviceWords(smallest, smallest < identity.deviceNames.size() ? identity.deviceNames[smallest] : QString()));
        }
    }
    return out;
}

double hbmCapacityDefaultGb(const TraceMemoryFigures &figures, double thresholdGb)
{
    const ThresholdDescriptor *knob = thresholdDescriptor(ThresholdField::HbmCapacity);
    if (thresholdGb != knob->defaultValue() || !figures.capacityGb || !knob->contains(*figures.capacityGb))
        return thresholdGb;
    return *figures.capacityGb;
}

} // namespace goblin
