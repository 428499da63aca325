#include "timelineanalysis.h"

#include "devicefacts.h"
#include "kernelclassifier.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace goblin {

namespace {

/// Step windows in start order with the running maximum of their ends, so that a stream of
/// intervals arriving in start order finds the windows it can touch without scanning the ones
/// it has left behind (steps may overlap; ProfilerStep windows normally do not).
class WindowIndex
{
public:
    explicit WindowIndex(const std::vector<TimeInterval> &windows) : m_windows(windows)
    {
        m_order.resize(windows.size());
        std::iota(m_order.begin(), m_order.end(), std::size_t(0));
        std::stable_sort(m_order.begin(), m_order.end(), [&](std::size_t a, std::size_t b) {
            return windows[a].startNs < windows[b].startNs;
        });
        qint64 maxEnd = std::numeric_limits<qint64>::min();
        for (std::size_t i : m_order) {
            maxEnd = std::max(maxEnd, windows[i].endNs);
            m_maxEnd.push_back(maxEnd);
        }
    }
    std::size_t size() const { return m_order.size(); }

    /// Calls f(window index, overlap start, overlap end) for each window [a, b) overlaps. The
    /// cursor belongs to one stream, whose intervals arrive in start order.
    template<class F>
    void forOverlaps(std::size_t &cursor, qint64 a, qint64 b, F &&f) const
    {
        while (cursor < m_order.size() && m_maxEnd[cursor] <= a)
            ++cursor;
        for (std::size_t k = cursor; k < m_order.size(); ++k) {
            const TimeInterval &w = m_windows[m_order[k]];
            if (w.startNs >= b)
                break;
            const qint64 lo = std::max(a, w.startNs), hi = std::min(b, w.endNs);
            if (hi > lo)
                f(m_order[k], lo, hi);
        }
    }

private:
    const std::vector<TimeInterval> &m_windows;
    std::vector<std::size_t> m_order;
    std::vector<qint64> m_maxEnd;
};

/// The union of intervals arriving in start order, emitted one merged interval at a time: the
/// sweep never holds a set, only the interval it is growing.
struct UnionStream {
    qint64 startNs = 0, endNs = 0;
    bool open = false;
    std::size_t cursor = 0;  ///< into the WindowIndex
    qint64 totalNs = 0;

    template<class Emit>
    void add(qint64 a, qint64 b, Emit &&sink)
    {
        if (b <= a)
            return;
        if (open && a <= endNs) {
            endNs = std::max(endNs, b);
            return;
        }
        flush(sink);
        startNs = a;
        endNs = b;
        open = true;
    }
    template<class Emit>
    void flush(Emit &&sink)
    {
        if (!open)
            return;
        open = false;
        totalNs += endNs - startNs;
        sink(*this, startNs, endNs);
    }
};

/// Every measured quantity of one device, per window and over the whole trace, in one sweep over
/// its events in start order. Exposed communication is |compute ∪ comm| − |compute| (collective
/// time no compute kernel overlaps); idle-while-host-busy is |host ∩ window| − |host ∩ busy ∩ window|.
struct DeviceSweep {
    std::vector<TimelineStepValues> perWindow;
    qint64 busyNs = 0, computeNs = 0, commNs = 0, exposedCommNs = 0, memcpyNs = 0;
};

/// What the sweep needs to know of each name id of a file: the workbench's kernel classes and
/// whether a copy goes from host to device (its data is an input arriving).
struct NameFlags {
    static constexpr std::uint8_t kHostToDevice = 0x80;  // beside the KernelFlag bits
    std::vector<std::uint8_t> flags;
    bool is(std::uint32_t nameId, std::uint8_t flag) const { return nameId < flags.size() && (flags[nameId] & flag); }
};

bool namesHostToDeviceCopy(const std::string &name)
{
    // Kineto: "Memcpy HtoD (Pageable -> Device)"; rocprofv3: MEMORY_COPY_HOST_TO_DEVICE.
    for (const char *token : {"HtoD", "HostToDevice", "HOST_TO_DEVICE", "Host -> Device", "H2D"})
        if (name.find(token) != std::string::npos)
            return true;
    return false;
}

NameFlags nameFlags(const GpuTimelineFile &file)
{
    const KernelClasses classes = classifyKernels(file.names, KernelPatternTable::forProfile(HeuristicsProfile::Workbench));
    NameFlags out;
    out.flags.assign(file.names.size(), 0);
    for (std::size_t i = 0; i < out.flags.size(); ++i) {
        out.flags[i] = i < classes.flags.size() ? classes.flags[i] : 0;
        if (namesHostToDeviceCopy(file.names[i]))
            out.flags[i] |= NameFlags::kHostToDevice;
    }
    return out;
}

/// The host's side of a file, as the idle split reads it: everything the process did (CPU
/// operators and data-loading ranges) and the data-loading ranges alone.
struct HostSets {
    IntervalSet activity;
    IntervalSet dataLoading;
};

HostSets hostSets(const GpuTimelineFile &file)
{
    std::vector<TimeInterval> all = file.hostBusy;
    all.insert(all.end(), file.dataLoading.begin(), file.dataLoading.end());
    return {IntervalSet::unionOf(std::move(all)), IntervalSet::unionOf(file.dataLoading)};
}

// Beyond ±2^61 ns (73 years from the clock's zero) a timestamp is garbage, and spans, unions
// and their differences could overflow; within it they all fit in 62 bits.
constexpr qint64 kTimestampLimitNs = qint64(1) << 61;

bool outOfRange(const GpuEvent &e)
{
    return e.startNs < -kTimestampLimitNs || e.startNs > kTimestampLimitNs || e.endNs < -kTimestampLimitNs ||
           e.endNs > kTimestampLimitNs;
}

/// Calls f(event) for the device's events in start order: over the vector itself when it is
/// sorted already (traces mostly are), else through a permutation of 32-bit indices — never a
/// copy of the events, which for a million kernels would be 16 MB.
template<class F>
void inStartOrder(const GpuEventList &events, F &&f)
{
    const auto byStart = [](const GpuEvent &a, const GpuEvent &b) { return a.startNs < b.startNs; };
    if (std::is_sorted(events.begin(), events.end(), byStart)) {
        for (const GpuEvent &e : events)
            f(e);
        return;
    }
    std::vector<std::uint32_t> order(events.size());
    std::iota(order.begin(), order.end(), std::uint32_t(0));
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return events.startNs(a) < events.startNs(b); });
    for (std::uint32_t i : order)
        f(events[i]);
}

DeviceSweep sweepDevice(const GpuEventList &events, const NameFlags &names, const HostSets &host,
                        const std::vector<TimeInterval> &windows)
{
    DeviceSweep out;
    out.perWindow.resize(windows.size());
    const WindowIndex index(windows);
    std::vector<qint64> busyHostNs(windows.size(), 0), busyDataNs(windows.size(), 0), kernelsNs(windows.size(), 0),
        kernelsOrH2dNs(windows.size(), 0);

    const auto into = [&](qint64 TimelineStepValues::*member) {
        return [&, member](UnionStream &s, qint64 a, qint64 b) {
            index.forOverlaps(s.cursor, a, b, [&](std::size_t w, qint64 lo, qint64 hi) { out.perWindow[w].*member += hi - lo; });
        };
    };
    const auto intoVector = [&](std::vector<qint64> &sums) {
        return [&](UnionStream &s, qint64 a, qint64 b) {
            index.forOverlaps(s.cursor, a, b, [&](std::size_t w, qint64 lo, qint64 hi) { sums[w] += hi - lo; });
        };
    };
    const auto emitBusy = [&](UnionStream &s, qint64 a, qint64 b) {
        index.forOverlaps(s.cursor, a, b, [&](std::size_t w, qint64 lo, qint64 hi) {
            out.perWindow[w].busyNs += hi - lo;
            busyHostNs[w] += host.activity.measure(lo, hi);
            busyDataNs[w] += host.dataLoading.measure(lo, hi);
        });
    };
    const auto emitKernels = intoVector(kernelsNs);
    const auto emitKernelsOrH2d = intoVector(kernelsOrH2dNs);
    const auto emitCompute = into(&TimelineStepValues::computeNs);
    const auto emitComm = into(&TimelineStepValues::commNs);
    const auto emitCopies = into(&TimelineStepValues::memcpyNs);

    // Kernel time by class: each kernel's own overlap with the windows (a sum, not a union).
    constexpr std::uint8_t kClassBits = FlagGemm | FlagGenericGemm | FlagFp16 | FlagBf16;
    std::size_t classCursor = 0;
    const auto addClasses = [&](std::uint8_t f, qint64 a, qint64 b) {
        index.forOverlaps(classCursor, a, b, [&](std::size_t w, qint64 lo, qint64 hi) {
            TimelineStepValues &v = out.perWindow[w];
            const qint64 d = hi - lo;
            if (f & FlagGemm)
                v.gemmNs += d;
            if (f & FlagGenericGemm)
                v.genericGemmNs += d;
            if (f & FlagFp16)
                v.fp16Ns += d;
            if (f & FlagBf16)
                v.bf16Ns += d;
        });
    };

    UnionStream busy, kernels, kernelsOrH2d, compute, comm, copies;
    inStartOrder(events, [&](const GpuEvent &e) {
        if (outOfRange(e))
            return;
        const qint64 a = e.startNs, b = std::max(e.startNs, e.endNs);
        busy.add(a, b, emitBusy);
        // The runtime's blit kernels (ROCm's __amd_rocclr_copyBuffer…) move memory: copies, not compute.
        if (e.kind == GpuEventKind::Memcpy || e.kind == GpuEventKind::Memset || names.is(e.nameId, FlagCopyKernel)) {
            copies.add(a, b, emitCopies);
            if (e.kind == GpuEventKind::Memcpy && names.is(e.nameId, NameFlags::kHostToDevice))
                kernelsOrH2d.add(a, b, emitKernelsOrH2d);
            return;
        }
        kernels.add(a, b, emitKernels);
        kernelsOrH2d.add(a, b, emitKernelsOrH2d);
        if (names.is(e.nameId, FlagCollective))
            comm.add(a, b, emitComm);
        else
            compute.add(a, b, emitCompute);
        if (e.nameId < names.flags.size() && (names.flags[e.nameId] & kClassBits))
            addClasses(names.flags[e.nameId], a, b);
    });
    busy.flush(emitBusy);
    kernels.flush(emitKernels);
    kernelsOrH2d.flush(emitKernelsOrH2d);
    compute.flush(emitCompute);
    comm.flush(emitComm);
    copies.flush(emitCopies);

    out.busyNs = busy.totalNs;
    out.computeNs = compute.totalNs;
    out.commNs = comm.totalNs;
    out.exposedCommNs = kernels.totalNs - compute.totalNs;
    out.memcpyNs = copies.totalNs;
    for (std::size_t w = 0; w < windows.size(); ++w) {
        TimelineStepValues &v = out.perWindow[w];
        const TimeInterval &window = windows[w];
        v.windowNs = window.endNs - window.startNs;
        v.exposedCommNs = kernelsNs[w] - v.computeNs;
        v.copyOnlyNs = v.busyNs - kernelsNs[w];
        v.h2dCopyOnlyNs = kernelsOrH2dNs[w] - kernelsNs[w];
        v.idleNs = v.windowNs - v.busyNs;
        v.idleHostBusyNs = host.activity.measure(window.startNs, window.endNs) - busyHostNs[w];
        v.idleDataLoadingNs = host.dataLoading.measure(window.startNs, window.endNs) - busyDataNs[w];
        v.idleNothingNs = v.idleNs - v.idleHostBusyNs;
    }
    return out;
}

/// Counts, span, kernel time and top kernels of one device, with the problems found in its events.
void countDevice(const GpuTimelineFile &file, const GpuDeviceTimeline &dev, const NameFlags &names,
                 DeviceTimelineAnalysis &out, Diagnostics &problems)
{
    std::vector<TimelineKernelStat> perName(file.names.size());
    std::vector<std::uint8_t> seen(file.names.size(), 0);
    qint64 backwards = 0, badNames = 0, outside = 0;
    out.firstNs = std::numeric_limits<qint64>::max();
    out.lastNs = std::numeric_limits<qint64>::min();
    const auto saturatingAdd = [](qint64 &sum, qint64 value) {
        if (__builtin_add_overflow(sum, value, &sum))
            sum = std::numeric_limits<qint64>::max();
    };
    for (const GpuEvent &e : dev.events) {
        if (outOfRange(e)) {
            ++outside;
            continue;
        }
        const qint64 endNs = std::max(e.startNs, e.endNs);
        backwards += e.endNs < e.startNs ? 1 : 0;
        out.firstNs = std::min(out.firstNs, e.startNs);
        out.lastNs = std::max(out.lastNs, endNs);
        if (e.kind == GpuEventKind::Memcpy || e.kind == GpuEventKind::Memset) {
            (e.kind == GpuEventKind::Memcpy ? out.memcpy : out.memset) += 1;
            continue;
        }
        ++out.kernels;
        const qint64 d = endNs - e.startNs;
        saturatingAdd(out.kernelTimeNs, d);
        out.zeroLengthKernels += d == 0 ? 1 : 0;
        if (e.nameId >= file.names.size()) {
            ++badNames;
            continue;
        }
        out.commKernels += names.is(e.nameId, FlagCollective) ? 1 : 0;
        TimelineKernelStat &s = perName[e.nameId];
        s.calls += 1;
        saturatingAdd(s.totalNs, d);
        seen[e.nameId] = 1;
    }
    if (out.firstNs > out.lastNs)  // no usable event
        out.firstNs = out.lastNs = 0;
    if (outside > 0)
        problems.push_back({Severity::Warning, file.file, 0,
                            QStringLiteral("%1: %2 GPU event(s) with timestamps beyond ±2^61 ns left out of "
                                           "the timeline")
                                .arg(deviceNameInFile(file, dev.device))
                                .arg(outside)});
    if (backwards > 0)
        problems.push_back({Severity::Warning, file.file, 0,
                            QStringLiteral("%1: %2 GPU event(s) end before they start; read as zero-length")
                                .arg(deviceNameInFile(file, dev.device))
                                .arg(backwards)});
    if (badNames > 0)
        problems.push_back({Severity::Warning, file.file, 0,
                            QStringLiteral("%1: %2 kernel(s) refer to no known name; counted as unnamed "
                                           "compute kernels")
                                .arg(deviceNameInFile(file, dev.device))
                                .arg(badNames)});

    // Top kernels by total time; ties by name for a stable order.
    std::vector<std::size_t> ids;
    for (std::size_t id = 0; id < perName.size(); ++id)
        if (seen[id])
            ids.push_back(id);
    std::sort(ids.begin(), ids.end(), [&](std::size_t a, std::size_t b) {
        if (perName[a].totalNs != perName[b].totalNs)
            return perName[a].totalNs > perName[b].totalNs;
        return file.names[a] < file.names[b];
    });
    for (std::size_t i = 0; i < ids.size() && int(i) < kTimelineTopKernels; ++i) {
        TimelineKernelStat st = perName[ids[i]];
        const std::string &n = file.names[ids[i]];
        st.name = QString::fromUtf8(n.data(), qsizetype(n.size()));
        out.topKernels.push_back(std::move(st));
    }
}

} // namespace

std::vector<TimelineStepValues> measureWindows(const GpuTimeline &timeline, const DeviceTimelineAnalysis &device,
                                               const std::vector<TimeInterval> &windows)
{
    if (device.fileIndex >= timeline.files.size())
        return {};
    const GpuTimelineFile &file = timeline.files[device.fileIndex];
    if (device.deviceIndex >= file.devices.size())
        return {};
    return sweepDevice(file.devices[device.deviceIndex].events, nameFlags(file), hostSets(file), windows).perWindow;
}

std::vector<TimelineStepValues> recutSteps(const GpuTimeline &timeline, const DeviceTimelineAnalysis &device,
                                           const std::vector<TimeInterval> &windows)
{
    if (device.stepsKind != TimelineStepsKind::EqualSplit && device.stepsKind != TimelineStepsKind::WholeSpan)
        return {};
    return measureWindows(timeline, device, windows);
}

TimelineAnalysis analyzeTimeline(const GpuTimeline &timeline, int equalSteps)
{
    TimelineAnalysis result;
    for (std::size_t fi = 0; fi < timeline.files.size(); ++fi) {
        const GpuTimelineFile &file = timeline.files[fi];
        FileTimelineSummary summary;
        summary.kernelFirstNs = std::numeric_limits<qint64>::max();
        summary.kernelLastNs = std::numeric_limits<qint64>::min();
        for (const GpuDeviceTimeline &dev : file.devices)
            for (const GpuEvent &e : dev.events)
                if (e.kind == GpuEventKind::Kernel) {
                    ++summary.kernels;
                    summary.kernelFirstNs = std::min(summary.kernelFirstNs, e.startNs);
                    summary.kernelLastNs = std::max(summary.kernelLastNs, std::max(e.startNs, e.endNs));
                }
        if (summary.kernels == 0)
            summary.kernelFirstNs = summary.kernelLastNs = 0;

        // Step windows: CPU-lane ProfilerSteps, else GPU-lane annotations, else N equal steps
        // of the kernel span, else the span as one step.
        std::vector<TimeInterval> cpuSteps, gpuSteps;
        bool alignedSteps = false;
        for (const StepWindow &w : file.steps) {
            if (w.endNs <= w.startNs)
                continue;
            (w.gpuLane ? gpuSteps : cpuSteps).push_back({w.startNs, w.endNs});
            alignedSteps = alignedSteps || (w.aligned && !w.gpuLane);
        }
        summary.hasCpuSteps = !cpuSteps.empty();
        summary.hasGpuSteps = !gpuSteps.empty();
        TimelineStepsKind kind = TimelineStepsKind::WholeSpan;
        std::vector<TimeInterval> windows;
        if (!cpuSteps.empty()) {
            kind = alignedSteps ? TimelineStepsKind::AlignedProfilerSteps : TimelineStepsKind::CpuProfilerSteps;
            windows = std::move(cpuSteps);
        } else if (!gpuSteps.empty()) {
            kind = TimelineStepsKind::GpuAnnotations;
            windows = std::move(gpuSteps);
        } else if (equalSteps > 0 && summary.kernels > 0) {
            kind = TimelineStepsKind::EqualSplit;
            windows = equalWindows(summary.kernelFirstNs, summary.kernelLastNs, equalSteps);
        } else {
            windows = equalWindows(summary.kernelFirstNs, summary.kernelLastNs, 1);
        }
        std::sort(windows.begin(), windows.end(),
                  [](const TimeInterval &a, const TimeInterval &b) { return a.startNs < b.startNs; });

        const NameFlags names = nameFlags(file);
        const HostSets host = hostSets(file);
        for (std::size_t di = 0; di < file.devices.size(); ++di) {
            const GpuDeviceTimeline &dev = file.devices[di];
            DeviceTimelineAnalysis d;
            d.source = dev.source.isEmpty() ? file.source : dev.source;
            d.file = dev.file.isEmpty() ? file.file : dev.file;
            d.rank = dev.rank ? dev.rank : file.rank;
            d.device = dev.device;
            d.fileIndex = fi;
            d.deviceIndex = di;
            d.stepsKind = kind;
            d.stepWindows = windows;
            countDevice(file, dev, names, d, result.problems);
            DeviceSweep sweep = sweepDevice(dev.events, names, host, windows);
            d.busyNs = sweep.busyNs;
            d.computeNs = sweep.computeNs;
            d.commNs = sweep.commNs;
            d.exposedCommNs = sweep.exposedCommNs;
            d.memcpyNs = sweep.memcpyNs;
            d.perStep = std::move(sweep.perWindow);
            result.devices.push_back(std::move(d));
        }
        result.files.push_back(summary);
    }
    return result;
}

} // namespace goblin
