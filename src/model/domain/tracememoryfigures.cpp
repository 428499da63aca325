#include "tracememoryfigures.h"

#include "devicefacts.h"
#include "formatting.h"
#include "thresholds.h"

#include <QLocale>

#include <algorithm>

namespace goblin {

namespace {

/// "8,220": counts as people read them.
QString formatCount(qint64 n)
{
    static const QLocale english(QLocale::English, QLocale::UnitedStates);
    return english.toString(n);
}

/// The device in the one naming ("GPU 0 (trace device 2)"), its place counted among the primary
/// trace's devices, and its model when the trace names it.
QString deviceWords(const TorchTrace &torch, int id, const QString &name)
{
    const QString device = deviceDisplayName(
        torch.timeline.files.empty() ? -1 : gpuIndexInFile(torch.timeline.files.front(), id), id);
    return name.isEmpty() ? device : QStringLiteral("%1 (%2)").arg(device, name);
}

} // namespace

QString TraceMemoryFigures::peakSource() const
{
    return QStringLiteral("trace [memory] events: peak reserved %1 of totalGlobalMem %2 on %3; the allocator's "
                          "reserve is a lower bound of what the device held")
        .arg(formatGb(peakReservedGb.value_or(0.0)),
             capacityGb ? formatGb(*capacityGb) : QStringLiteral("— (not in deviceProperties)"),
             deviceLabel);
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
        out.deviceLabel = deviceWords(torch, best->deviceId, best->name);
        out.peakReservedGb = double(best->peakReservedBytes) / kBytesPerHbmGb;
        if (best->eventsWithAllocated > 0)
            out.peakAllocatedGb = double(best->peakAllocatedBytes) / kBytesPerHbmGb;
        if (best->capacityBytes) {
            out.capacityGb = double(*best->capacityBytes) / kBytesPerHbmGb;
            out.capacitySource = QStringLiteral("deviceProperties' totalGlobalMem of %1")
                                     .arg(out.deviceLabel);
        }
    }
    if (!best) {
        // No allocator reserve: say what the trace's [memory] events are instead.
        const DeviceMemory *sums = nullptr;
        qint64 gpuEvents = 0;
        for (const DeviceMemory &d : torch.memory.devices) {
            gpuEvents += d.events;
            if (d.allocatedFrom == AllocatedFrom::BytesRunningSum && (!sums || d.peakAllocatedBytes > sums->peakAllocatedBytes))
                sums = &d;
        }
        if (sums)
            out.noPeakReason =
                QStringLiteral("no memory telemetry; the trace's %1 GPU [memory] events carry Bytes only (Kineto 2021, "
                               "no allocator totals): allocated memory rises at most %2 above the trace's start on %3, "
                               "but what the device held before the trace is unknown, so there is no HBM peak")
                    .arg(formatCount(gpuEvents), formatGb(double(sums->peakAllocatedBytes) / kBytesPerHbmGb),
                         deviceWords(torch, sums->deviceId, sums->name));
        else if (gpuEvents > 0)
            out.noPeakReason = QStringLiteral("no memory telemetry; the trace's %1 GPU [memory] events carry no Total "
                                              "Reserved and no Bytes")
                                   .arg(formatCount(gpuEvents));
        else if (torch.memory.memoryEvents > 0)
            out.noPeakReason = QStringLiteral("no memory telemetry; the trace's %1 [memory] events are of host memory only")
                                   .arg(formatCount(torch.memory.memoryEvents));
        else
            out.noPeakReason = QStringLiteral("no memory telemetry and no [memory] events in the trace");
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
                    .arg(deviceWords(torch, smallest, smallest < identity.deviceNames.size() ? identity.deviceNames[smallest] : QString()));
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
