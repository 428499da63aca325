#pragma once
/// \file The GPU timeline of a run as the parsers found it: device events (kernels, memcpy,
/// memset) per file and device, step windows and host-busy intervals. Facts only, on the
/// trace's own clock in exact integer nanoseconds; the model derives busy/compute/comm/idle.
///
/// Sources: the torch trace's own GPU events (`ph:"X"`, cat `kernel`/`gpu_memcpy`/`gpu_memset`,
/// 2021 traces `Kernel`/`Memcpy`/`Memset`), a rocprofv3 kernel trace (CSV) and rocpd databases.

#include "results/gpueventlist.h"
#include "results/tracetraits.h"

#include <QString>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace goblin {

struct HostLanes;  // results/hostlanes.h

/// One device of one file (one rank's view of one GPU).
struct GpuDeviceTimeline {
    QString source;              ///< "torch_profile", "trace.csv", "rocpd"
    QString file;                ///< the file's name as diagnostics show it (relative to the run folder)
    std::optional<int> rank;     ///< from distributedInfo, the file name or the process; nullopt = unknown
    qint64 device = 0;           ///< as the trace writes it (ROCm Kineto traces start at 2 or 1: kept)
    qint64 pid = -1;             ///< process id when the source has one
    std::vector<qint64> streams; ///< stream/queue ids as written; GpuEvent::stream indexes this
    GpuEventList events;         ///< in document order (not necessarily sorted); 16 bytes each
};

/// A half-open interval [startNs, endNs) on the trace clock.
struct TimeInterval {
    qint64 startNs = 0;
    qint64 endNs = 0;
};

/// A profiled step: ProfilerStep#N on the CPU lane, or an Optimizer.step / ProfilerStep
/// annotation on the GPU lane.
struct StepWindow {
    QString name;                ///< "ProfilerStep#12"
    qint64 startNs = 0;
    qint64 endNs = 0;
    bool gpuLane = false;        ///< from a GPU-lane annotation rather than the CPU lane
    /// Another trace's step (the torch trace's ProfilerStep), moved onto this file's clock by
    /// matching the two traces' kernels (model: ClockAlignment).
    bool aligned = false;
};

/// Everything of the GPU timeline one trace file holds.
struct GpuTimelineFile {
    QString source;
    QString file;
    std::optional<int> rank;
    std::vector<std::string> names;         ///< interned event names of this file (parsers run concurrently)
    std::vector<GpuDeviceTimeline> devices;
    std::vector<StepWindow> steps;          ///< sorted by start
    std::vector<TimeInterval> hostBusy;     ///< union of CPU ops of the process, sorted, disjoint
    /// Union of the data-loading ranges of the same process (`enumerate(DataLoader)#…` and other
    /// DataLoader ops or annotations), sorted, disjoint: GPU idle inside them is data wait.
    std::vector<TimeInterval> dataLoading;
    TraceTraits traits;                     ///< identity, graphs, phases (torch traces; empty otherwise)
    /// The host threads' ranges and the launch correlations (chrome traces; null otherwise).
    std::shared_ptr<const HostLanes> hostLanes;
};

/// The run's timeline: one entry per trace file (a rank, or a whole single-process run).
struct GpuTimeline {
    std::vector<GpuTimelineFile> files;
    bool empty() const { return files.empty(); }
};

} // namespace goblin
