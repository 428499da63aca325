#pragma once
/// \file The host side of a chrome trace as lanes: per host thread (pid, tid), the step, the
/// data-loading ranges, record_function / module ranges, CPU operators and runtime calls, each at
/// its nesting depth; and the correlation ids that join a GPU event to the runtime call that
/// launched it (Kineto's `args.correlation`, the id its `ac2g` flows carry). Facts only, on the
/// trace's own clock in exact integer nanoseconds; the Timeline draws them.
///
/// Stored compactly (24 bytes a slice, names interned) and laid out for drawing: the slices of one
/// lane (thread, depth) are contiguous and sorted by start, and never overlap, so their ends are
/// sorted too and the first slice visible after any time is one binary search away.

#include <QtGlobal>

#include <cstdint>
#include <string>
#include <vector>

namespace goblin {

enum class HostSliceKind : std::uint8_t {
    Step,         ///< ProfilerStep#N
    DataLoading,  ///< `enumerate(DataLoader)#…` and annotations naming a DataLoader
    Annotation,   ///< record_function / user_annotation ranges
    Module,       ///< `nn.Module: …` python_function ranges
    CpuOp,        ///< cpu_op (Kineto 2021: Operator)
    Runtime,      ///< cuda_runtime / cuda_driver / Runtime: the launches (cudaLaunchKernel, hipLaunchKernel…)
    Count
};

/// One host range: 24 bytes.
struct HostSlice {
    qint64 startNs = 0;
    qint64 endNs = 0;
    std::uint32_t nameId = 0;  ///< into HostLanes::names
    std::uint16_t thread = 0;  ///< into HostLanes::threads
    HostSliceKind kind = HostSliceKind::CpuOp;
    std::uint8_t depth = 0;  ///< 0 = outermost on its thread
};
static_assert(sizeof(HostSlice) == 24, "one per host event of multi-GB traces: keep it at 24 bytes");

/// One lane: the slices of one depth of one thread, `slices[begin, end)`.
struct HostLane {
    std::uint16_t thread = 0;
    std::uint8_t depth = 0;
    std::uint32_t begin = 0, end = 0;
};

struct HostThread {
    qint64 pid = 0, tid = 0;  ///< as written (a string "25738" read as its number; 0 when not a number)
    std::uint8_t depths = 0;  ///< lanes of this thread (max depth + 1)
};

/// A runtime call's correlation id: `HostLanes::slices[slice]` launched the GPU events of that id.
struct RuntimeCorrelation {
    qint64 correlation = 0;
    std::uint32_t slice = 0;
};

/// A GPU event's correlation id, found by its device, stream and start (as GpuDeviceTimeline
/// holds them): 24 bytes.
struct GpuCorrelation {
    qint64 startNs = 0;
    qint64 correlation = 0;
    qint32 device = 0;
    qint32 stream = 0;
};

/// The host lanes of one trace file.
struct HostLanes {
    std::vector<std::string> names;
    std::vector<HostThread> threads;   ///< by pid, then tid
    std::vector<HostSlice> slices;     ///< lane by lane (threads in order, depth 0 first), each by start
    std::vector<HostLane> lanes;       ///< in the same order
    std::vector<RuntimeCorrelation> runtimeByCorrelation;  ///< sorted by correlation
    std::vector<GpuCorrelation> gpuByPlace;                ///< sorted by device, stream, start
    /// Slices nested deeper than kMaxDepth (left out; a broken trace's runaway nesting).
    qint64 tooDeep = 0;
    static constexpr int kMaxDepth = 200;

    bool empty() const { return slices.empty(); }
};

} // namespace goblin
