#pragma once
/// \file What a GPU timeline measured, per trace file and device: busy, compute, communication,
/// exposed communication, copies and idle (split by what the host did), whole-trace and per step.
/// Value types and the interval arithmetic they are made with; analysis/timelineanalysis.h measures
/// them once at load. Definitions: docs/timeline.md.

#include "diagnostic.h"
#include "results/gputimeline.h"

#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

namespace goblin {

/// A sorted, disjoint set of half-open intervals with prefix sums of their lengths, so the
/// measure of its intersection with any window costs O(log n).
class IntervalSet
{
public:
    IntervalSet() = default;
    /// Union of arbitrary intervals (any order, overlapping, empty ones dropped).
    static IntervalSet unionOf(std::vector<TimeInterval> intervals);
    /// Intervals added in order of their start (as a sweep over sorted events gives them) are
    /// merged on the fly: no copy of the events, no second sort.
    class SortedBuilder
    {
    public:
        void add(qint64 startNs, qint64 endNs);
        IntervalSet build();

    private:
        std::vector<TimeInterval> m_merged;
    };
    /// `a` minus `b`.
    static IntervalSet difference(const IntervalSet &a, const IntervalSet &b);
    /// `a` intersected with `b`.
    static IntervalSet intersection(const IntervalSet &a, const IntervalSet &b);

    qint64 total() const { return m_prefix.empty() ? 0 : m_prefix.back(); }
    /// Length of the set inside [startNs, endNs).
    qint64 measure(qint64 startNs, qint64 endNs) const;
    const std::vector<TimeInterval> &intervals() const { return m_intervals; }
    bool empty() const { return m_intervals.empty(); }

private:
    void finish();  ///< builds the prefix sums
    std::vector<TimeInterval> m_intervals;
    std::vector<qint64> m_prefix;  ///< m_prefix[i] = length of intervals [0, i]
};

/// Per step: nanoseconds of each measured quantity inside the step window.
struct TimelineStepValues {
    qint64 windowNs = 0;
    qint64 busyNs = 0, computeNs = 0, commNs = 0, exposedCommNs = 0, memcpyNs = 0;
    /// idle = window − busy; idleHostBusy: idle while the host runs a CPU operator or a
    /// data-loading range; idleDataLoading (⊆ idleHostBusy): idle inside a data-loading range;
    /// idleNothing = idle − idleHostBusy.
    qint64 idleNs = 0, idleHostBusyNs = 0, idleNothingNs = 0, idleDataLoadingNs = 0;
    /// Busy with copies, memsets or copy kernels only (busy − the union of the other kernels), and the part of it that is
    /// host-to-device copies.
    qint64 copyOnlyNs = 0, h2dCopyOnlyNs = 0;
    /// Kernel time inside the window by class (durations summed, overlaps counted twice).
    qint64 gemmNs = 0, genericGemmNs = 0, fp16Ns = 0, bf16Ns = 0;
};

struct TimelineKernelStat {
    QString name;
    quint64 calls = 0;
    qint64 totalNs = 0;
};

/// Which step windows a device's per-step values use.
enum class TimelineStepsKind {
    CpuProfilerSteps,  ///< ProfilerStep#N on the CPU lane of the file
    AlignedProfilerSteps,  ///< the torch trace's ProfilerStep#N, moved onto a kernel trace's clock
    GpuAnnotations,    ///< Optimizer.step / ProfilerStep annotations on the GPU lane
    EqualSplit,        ///< the file's kernel span cut into N equal steps (--steps N)
    WholeSpan,         ///< no marks and no N: the file's kernel span as one step
};
QString timelineStepsKindName(TimelineStepsKind kind);  ///< "ProfilerStep", "GPU annotations", "span / N", "trace span"

/// One device of one trace file.
struct DeviceTimelineAnalysis {
    QString source, file;
    std::optional<int> rank;
    qint64 device = 0;
    std::size_t fileIndex = 0;  ///< into GpuTimeline::files
    std::size_t deviceIndex = 0;  ///< into that file's devices

    quint64 kernels = 0, commKernels = 0, memcpy = 0, memset = 0, zeroLengthKernels = 0;
    qint64 firstNs = 0, lastNs = 0;  ///< first start / last end over all GPU events of the device
    qint64 kernelTimeNs = 0;         ///< plain sum of kernel durations
    qint64 busyNs = 0, computeNs = 0, commNs = 0, exposedCommNs = 0, memcpyNs = 0;
    std::vector<TimelineKernelStat> topKernels;  ///< by total time, at most kTopKernels

    TimelineStepsKind stepsKind = TimelineStepsKind::WholeSpan;
    std::vector<TimeInterval> stepWindows;
    std::vector<TimelineStepValues> perStep;

    qint64 spanNs() const { return lastNs > firstNs ? lastNs - firstNs : 0; }
    /// Mean over the steps of one member, in ns (0 without steps).
    double meanPerStepNs(qint64 TimelineStepValues::*member) const;
};

/// Per-file facts the devices share.
struct FileTimelineSummary {
    qint64 kernelFirstNs = 0, kernelLastNs = 0;  ///< span of the file's kernels (all devices)
    quint64 kernels = 0;
    bool hasCpuSteps = false, hasGpuSteps = false;
};

struct TimelineAnalysis {
    std::vector<DeviceTimelineAnalysis> devices;
    std::vector<FileTimelineSummary> files;  ///< parallel to GpuTimeline::files
    Diagnostics problems;                    ///< bad input found, naming the file
    bool hasKernels() const;
    quint64 kernelCount() const;
};

inline constexpr int kTimelineTopKernels = 10;

/// How a kernel trace's clock (rocprofv3: ns since boot) maps onto the torch trace's (Kineto: its
/// own base), found by matching the two traces' kernel sequences (names and durations):
/// kernelTraceNs = torchNs + offsetNs. analysis/clockalignment.h finds it; docs/timeline.md.
struct ClockAlignment {
    bool attempted = false;  ///< both traces had kernels
    bool aligned = false;
    qint64 offsetNs = 0;
    quint64 matchedKernels = 0;  ///< torch kernels matched to a kernel-trace kernel of that name
    quint64 torchKernels = 0;    ///< kernels of the torch device that was matched
    double residualMaxNs = 0.0;  ///< largest |start difference - offset| over the matched kernels
    double residualRmsNs = 0.0;
    /// Slope of the start difference over the torch trace's time (ns per s): the clocks' drift.
    double driftNsPerS = 0.0;
    QString kernelTraceFile;     ///< the kernel trace file matched
    qint64 kernelTraceDevice = 0;  ///< its device whose kernels matched
    qint64 torchDevice = 0;
    QString reason;  ///< why no alignment (or what was aligned): the diagnostic's text
};

/// `[first, last)` cut into n equal windows (the last one takes the remainder ns).
std::vector<TimeInterval> equalWindows(qint64 firstNs, qint64 lastNs, int n);

} // namespace goblin
