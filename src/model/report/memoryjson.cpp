#include "memoryjson.h"

#include "tracememoryfigures.h"

#include <QJsonArray>

namespace goblin {

namespace {

double gb(qint64 bytes) { return double(bytes) / kBytesPerHbmGb; }

QJsonValue gbOrNull(bool known, qint64 bytes) { return known ? QJsonValue(gb(bytes)) : QJsonValue(QJsonValue::Null); }

QJsonValue allocatedFromName(AllocatedFrom from)
{
    switch (from) {
    case AllocatedFrom::Totals: return QStringLiteral("allocator_totals");
    case AllocatedFrom::BytesRunningSum: return QStringLiteral("bytes_running_sum");
    case AllocatedFrom::None: break;
    }
    return QJsonValue(QJsonValue::Null);
}

/// What the peaks are, in the form the events carry.
QString peaksWords(const DeviceMemory &d)
{
    switch (d.allocatedFrom) {
    case AllocatedFrom::BytesRunningSum:
        return d.eventsWithReserved > 0
                   ? QStringLiteral("allocated is the running sum of the events' signed Bytes since the trace began "
                                    "(no Total Allocated), relative to what the allocator held then; reserved the "
                                    "maximum of Total Reserved")
                   : QStringLiteral("%1 events carry Bytes only (Kineto 2021, no allocator totals): allocated is the "
                                    "running sum of their signed Bytes since the trace began, relative to what the "
                                    "allocator held then; no reserve")
                         .arg(d.eventsWithBytes);
    case AllocatedFrom::Totals:
    case AllocatedFrom::None:
        break;
    }
    return QStringLiteral("maxima of Total Allocated / Total Reserved, the caching allocator's totals");
}

} // namespace

QJsonObject memoryJson(const TraceMemory &memory)
{
    QJsonArray devices;
    for (const DeviceMemory &d : memory.devices) {
        const bool allocatedKnown = d.allocatedFrom != AllocatedFrom::None;
        QJsonArray steps, ops;
        for (const StepMemoryPeak &s : d.steps)
            steps.append(QJsonObject{{QStringLiteral("label"), s.label},
                                     {QStringLiteral("peak_allocated_gb"), gbOrNull(allocatedKnown, s.peakAllocatedBytes)},
                                     {QStringLiteral("peak_reserved_gb"), gbOrNull(d.eventsWithReserved > 0, s.peakReservedBytes)}});
        for (const MemoryOp &o : d.topOps)
            ops.append(QJsonObject{{QStringLiteral("name"), o.name},
                                   {QStringLiteral("allocations"), double(o.allocations)},
                                   {QStringLiteral("allocated_gb"), gb(o.allocatedBytes)},
                                   {QStringLiteral("freed_gb"), gb(o.freedBytes)}});
        const QString capacity = d.capacityBytes ? QStringLiteral("capacity: deviceProperties' totalGlobalMem of id %1")
                                                       .arg(d.deviceId)
                                                 : QStringLiteral("capacity: not in deviceProperties");
        devices.append(QJsonObject{
            {QStringLiteral("device"), d.deviceId},
            {QStringLiteral("device_type"), d.deviceType},
            {QStringLiteral("name"), d.name.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(d.name)},
            {QStringLiteral("capacity_gb"), d.capacityBytes ? QJsonValue(gb(*d.capacityBytes)) : QJsonValue(QJsonValue::Null)},
            {QStringLiteral("compute_units"), d.computeUnits ? QJsonValue(*d.computeUnits) : QJsonValue(QJsonValue::Null)},
            {QStringLiteral("peak_allocated_gb"), gbOrNull(allocatedKnown, d.peakAllocatedBytes)},
            {QStringLiteral("peak_reserved_gb"), gbOrNull(d.eventsWithReserved > 0, d.peakReservedBytes)},
            {QStringLiteral("allocated_from"), allocatedFromName(d.allocatedFrom)},
            {QStringLiteral("source"),
             QStringLiteral("trace [memory] events (Device Type %1, Device Id %2): %3; %4")
                 .arg(d.deviceType)
                 .arg(d.deviceId)
                 .arg(peaksWords(d), capacity)},
            {QStringLiteral("events"), double(d.events)},
            {QStringLiteral("allocations"), double(d.allocations)},
            {QStringLiteral("allocations_outside_ops"), double(d.allocationsOutsideOps)},
            {QStringLiteral("allocations_op_unknown"), double(d.allocationsOpUnknown)},
            {QStringLiteral("steps"), steps},
            {QStringLiteral("top_ops"), ops},
        });
    }
    return QJsonObject{{QStringLiteral("events"), double(memory.memoryEvents)},
                       {QStringLiteral("cpu_events"), double(memory.cpuEvents)},
                       {QStringLiteral("out_of_memory_events"), double(memory.outOfMemoryEvents)},
                       {QStringLiteral("unusable_events"), double(memory.unusableEvents)},
                       {QStringLiteral("ops_complete"), memory.opsComplete},
                       {QStringLiteral("devices"), devices}};
}

} // namespace goblin
