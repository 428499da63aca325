#pragma once
/// \file What a Kineto trace says about device memory: the allocator's `[memory]` instant events
/// (Total Allocated, Total Reserved, Bytes, Device Id, Device Type) as curves per device, their
/// peaks per step and per trace, the ops that allocated most, and `deviceProperties` (name,
/// totalGlobalMem, SM/CU count). docs/memory.md defines every figure.

#include <QString>
#include <QtGlobal>

#include <optional>
#include <vector>

namespace goblin {

/// One point of a device's allocator curve (decimated for long traces: each kept point is an
/// extreme of its interval, so peaks survive).
struct MemoryPoint {
    qint64 timestampNs = 0;  ///< on the trace's own clock (as GpuTimeline's events)
    qint64 allocatedBytes = 0;
    qint64 reservedBytes = 0;
};

struct StepMemoryPeak {
    QString label;  ///< "ProfilerStep#6"
    qint64 peakAllocatedBytes = 0;
    qint64 peakReservedBytes = 0;
};

/// An op that allocated device memory while running (its own allocations, summed over calls).
struct MemoryOp {
    QString name;
    qint64 allocations = 0;
    qint64 allocatedBytes = 0;  ///< positive Bytes summed
    qint64 freedBytes = 0;      ///< negative Bytes summed, as a positive number
};

/// Where a device's allocated curve comes from: the allocator's `Total Allocated` (Kineto since
/// 2022), or, when no event carries it (Kineto 2021 writes `Bytes` only), the running sum of the
/// signed `Bytes` of every allocation and free since the trace began: allocated memory relative to
/// the trace's start (what the allocator held before it is not in the trace).
enum class AllocatedFrom : quint8 { None, Totals, BytesRunningSum };

struct DeviceMemory {
    int deviceId = -1;           ///< `Device Id` as written (need not equal the kernels' device)
    int deviceType = -1;         ///< `Device Type` as written (1 on CUDA traces, 6 on ROCm ones; 0: CPU, not kept)
    QString name;                ///< deviceProperties' name, when it could be matched
    std::optional<qint64> capacityBytes;  ///< deviceProperties' totalGlobalMem, when matched
    std::optional<int> computeUnits;      ///< numSms (SMs / CUs), when matched
    qint64 events = 0;
    qint64 peakAllocatedBytes = 0;
    qint64 peakReservedBytes = 0;
    std::vector<MemoryPoint> curve;
    std::vector<StepMemoryPeak> steps;
    std::vector<MemoryOp> topOps;  ///< the ops that allocated most, largest first (at most 20)
    qint64 eventsWithAllocated = 0;  ///< events carrying `Total Allocated` (Kineto 2021 writes none)
    qint64 eventsWithBytes = 0;      ///< events carrying `Bytes`
    /// What peakAllocatedBytes, the curve's and the steps' allocated values are: the allocator's
    /// totals, the running sum of Bytes (its peak counts the trace's start as 0), or nothing.
    AllocatedFrom allocatedFrom = AllocatedFrom::None;
    qint64 eventsWithReserved = 0;   ///< events carrying `Total Reserved`
    qint64 allocations = 0;          ///< events with Bytes > 0
    qint64 allocationsOutsideOps = 0;  ///< of those, on a thread with no CPU op around them
    qint64 allocationsOpUnknown = 0;   ///< of those, of an op not joined: 0 since every op is (kept for the report's key)
};

struct TraceMemory {
    qint64 memoryEvents = 0;  ///< `[memory]` instant events read (every device type)
    std::vector<DeviceMemory> devices;  ///< GPU devices only, by deviceId
    qint64 cpuEvents = 0;          ///< of memoryEvents, `Device Type` 0 (host memory: no device kept)
    qint64 outOfMemoryEvents = 0;  ///< `[OutOfMemory]` instant events
    qint64 unusableEvents = 0;     ///< `[memory]` events without a usable ts / Device Type (diagnosed, not kept)
    /// Every CPU op took part in the op join (the attribution's sweep sees them all): always true
    /// now; kept for the report's `ops_complete`.
    bool opsComplete = true;
};

} // namespace goblin
