#include "timelineanalysis.h"

#include "kernelclassifier.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace goblin {

// ---------------------------------------------------------------------------------------------
// IntervalSet

IntervalSet IntervalSet::unionOf(std::vector<TimeInterval> intervals)
{
    std::sort(intervals.begin(), intervals.end(),
              [](const TimeInterval &a, const TimeInterval &b) { return a.startNs < b.startNs; });
    IntervalSet s;
    for (const TimeInterval &iv : intervals) {
        if (iv.endNs <= iv.startNs)
            continue;
        if (!s.m_intervals.empty() && iv.startNs <= s.m_intervals.back().endNs)
            s.m_intervals.back().endNs = std::max(s.m_intervals.back().endNs, iv.endNs);
        else
            s.m_intervals.push_back(iv);
    }
    s.finish();
    return s;
}

void IntervalSet::SortedBuilder::add(qint64 startNs, qint64 endNs)
{
    if (endNs <= startNs)
        return;
    if (!m_merged.empty() && startNs <= m_merged.back().endNs)
        m_merged.back().endNs = std::max(m_merged.back().endNs, endNs);
    else
        m_merged.push_back({startNs, endNs});
}

IntervalSet IntervalSet::SortedBuilder::build()
{
    IntervalSet s;
    s.m_intervals = std::move(m_merged);
    m_merged = {};
    s.finish();
    return s;
}

IntervalSet IntervalSet::difference(const IntervalSet &a, const IntervalSet &b)
{
    IntervalSet s;
    std::size_t j = 0;
    const auto &bi = b.m_intervals;
    for (TimeInterval iv : a.m_intervals) {
        while (j < bi.size() && bi[j].endNs <= iv.startNs)
            ++j;
        std::size_t k = j;
        qint64 cursor = iv.startNs;
        while (k < bi.size() && bi[k].startNs < iv.endNs) {
            if (bi[k].startNs > cursor)
                s.m_intervals.push_back({cursor, bi[k].startNs});
            cursor = std::max(cursor, bi[k].endNs);
            if (bi[k].endNs >= iv.endNs)
                break;
            ++k;
        }
        if (cursor < iv.endNs)
            s.m_intervals.push_back({cursor, iv.endNs});
    }
    s.finish();
    return s;
}

IntervalSet IntervalSet::intersection(const IntervalSet &a, const IntervalSet &b)
{
    IntervalSet s;
    std::size_t i = 0, j = 0;
    const auto &ai = a.m_intervals;
    const auto &bi = b.m_intervals;
    while (i < ai.size() && j < bi.size()) {
        const qint64 lo = std::max(ai[i].startNs, bi[j].startNs);
        const qint64 hi = std::min(ai[i].endNs, bi[j].endNs);
        if (lo < hi)
            s.m_intervals.push_back({lo, hi});
        if (ai[i].endNs < bi[j].endNs)
            ++i;
        else
            ++j;
    }
    s.finish();
    return s;
}

void IntervalSet::finish()
{
    m_intervals.shrink_to_fit();
    m_prefix.resize(m_intervals.size());
    qint64 sum = 0;
    for (std::size_t i = 0; i < m_intervals.size(); ++i) {
        sum += m_intervals[i].endNs - m_intervals[i].startNs;
        m_prefix[i] = sum;
    }
}

qint64 IntervalSet::measure(qint64 startNs, qint64 endNs) const
{
    if (endNs <= startNs || m_intervals.empty())
        return 0;
    // First interval ending after startNs, first interval starting at or after endNs.
    const auto first = std::upper_bound(m_intervals.begin(), m_intervals.end(), startNs,
                                        [](qint64 t, const TimeInterval &iv) { return t < iv.endNs; });
    const auto last = std::lower_bound(m_intervals.begin(), m_intervals.end(), endNs,
                                       [](const TimeInterval &iv, qint64 t) { return iv.startNs < t; });
    if (first >= last)
        return 0;
    const std::size_t i = std::size_t(first - m_intervals.begin());
    const std::size_t k = std::size_t(last - m_intervals.begin()) - 1;  // last one starting before endNs
    qint64 sum = m_prefix[k] - (i > 0 ? m_prefix[i - 1] : 0);
    sum -= std::max<qint64>(0, startNs - m_intervals[i].startNs);
    sum -= std::max<qint64>(0, m_intervals[k].endNs - endNs);
    return sum;
}

// ---------------------------------------------------------------------------------------------

QString timelineStepsKindName(TimelineStepsKind kind)
{
    switch (kind) {
    case TimelineStepsKind::CpuProfilerSteps:
        return QStringLiteral("ProfilerStep");
    case TimelineStepsKind::GpuAnnotations:
        return QStringLiteral("GPU annotations");
    case TimelineStepsKind::EqualSplit:
        return QStringLiteral("span / N");
    case TimelineStepsKind::WholeSpan:
        break;
    }
    return QStringLiteral("trace span");
}

double DeviceTimelineAnalysis::meanPerStepNs(qint64 TimelineStepValues::*member) const
{
    if (perStep.empty())
        return 0.0;
    qint64 sum = 0;
    for (const TimelineStepValues &v : perStep)
        sum += v.*member;
    return double(sum) / double(perStep.size());
}

bool TimelineAnalysis::hasKernels() const { return kernelCount() > 0; }

quint64 TimelineAnalysis::kernelCount() const
{
    quint64 n = 0;
    for (const DeviceTimelineAnalysis &d : devices)
        n += d.kernels;
    return n;
}

std::vector<TimeInterval> equalWindows(qint64 firstNs, qint64 lastNs, int n)
{
    std::vector<TimeInterval> out;
    if (n < 1 || lastNs <= firstNs)
        return out;
    const qint64 span = lastNs - firstNs;
    for (int i = 0; i < n; ++i) {
        // Integer boundaries: step i is [first + span*i/n, first + span*(i+1)/n).
        const qint64 a = firstNs + qint64((__int128(span) * i) / n);
        const qint64 b = firstNs + qint64((__int128(span) * (i + 1)) / n);
        out.push_back({a, b});
    }
    return out;
}

namespace {

struct DeviceSets {
    IntervalSet busy, compute, comm, exposedComm, memcpy, idleHostBusy;
};

/// One step's values from a device's interval sets: the only place the idle split is derived.
TimelineStepValues valuesIn(const IntervalSet &busy, const IntervalSet &compute, const IntervalSet &comm,
                            const IntervalSet &exposedComm, const IntervalSet &memcpy,
                            const IntervalSet &idleHostBusy, TimeInterval w)
{
    TimelineStepValues v;
    v.windowNs = w.endNs - w.startNs;
    v.busyNs = busy.measure(w.startNs, w.endNs);
    v.computeNs = compute.measure(w.startNs, w.endNs);
    v.commNs = comm.measure(w.startNs, w.endNs);
    v.exposedCommNs = exposedComm.measure(w.startNs, w.endNs);
    v.memcpyNs = memcpy.measure(w.startNs, w.endNs);
    v.idleNs = v.windowNs - v.busyNs;
    v.idleHostBusyNs = idleHostBusy.measure(w.startNs, w.endNs);
    v.idleNothingNs = v.idleNs - v.idleHostBusyNs;
    return v;
}

std::vector<TimelineStepValues> valuesFor(const DeviceSets &s, const std::vector<TimeInterval> &windows)
{
    std::vector<TimelineStepValues> out;
    out.reserve(windows.size());
    for (const TimeInterval &w : windows)
        out.push_back(valuesIn(s.busy, s.compute, s.comm, s.exposedComm, s.memcpy, s.idleHostBusy, w));
    return out;
}

void analyzeDevice(const GpuTimelineFile &file, const GpuDeviceTimeline &dev, const KernelClasses &classes,
                   const IntervalSet &hostBusy, DeviceTimelineAnalysis &out, Diagnostics &problems)
{
    // One sorted copy of the device's events (by start), then one pass per category.
    std::vector<GpuEvent> events = dev.events;
    std::sort(events.begin(), events.end(), [](const GpuEvent &a, const GpuEvent &b) { return a.startNs < b.startNs; });

    IntervalSet::SortedBuilder all, compute, comm, copies;  // events are sorted by start
    std::vector<TimelineKernelStat> perName(file.names.size());
    std::vector<std::uint8_t> seen(file.names.size(), 0);
    qint64 backwards = 0, badNames = 0, outOfRange = 0;
    out.firstNs = std::numeric_limits<qint64>::max();
    out.lastNs = std::numeric_limits<qint64>::min();
    // Beyond ±2^61 ns (73 years from the clock's zero) a timestamp is garbage, and spans, unions
    // and their differences could overflow; within it they all fit in 62 bits.
    constexpr qint64 kTimestampLimitNs = qint64(1) << 61;
    const auto saturatingAdd = [](qint64 &sum, qint64 value) {
        if (__builtin_add_overflow(sum, value, &sum))
            sum = std::numeric_limits<qint64>::max();
    };
    for (GpuEvent e : events) {
        if (e.startNs < -kTimestampLimitNs || e.startNs > kTimestampLimitNs || e.endNs < -kTimestampLimitNs ||
            e.endNs > kTimestampLimitNs) {
            ++outOfRange;
            continue;
        }
        if (e.endNs < e.startNs) {
            ++backwards;
            e.endNs = e.startNs;
        }
        out.firstNs = std::min(out.firstNs, e.startNs);
        out.lastNs = std::max(out.lastNs, e.endNs);
        all.add(e.startNs, e.endNs);
        if (e.kind == GpuEventKind::Memcpy || e.kind == GpuEventKind::Memset) {
            (e.kind == GpuEventKind::Memcpy ? out.memcpy : out.memset) += 1;
            copies.add(e.startNs, e.endNs);
            continue;
        }
        ++out.kernels;
        const qint64 d = e.endNs - e.startNs;
        saturatingAdd(out.kernelTimeNs, d);
        out.zeroLengthKernels += d == 0 ? 1 : 0;
        if (e.nameId >= file.names.size()) {
            ++badNames;
            compute.add(e.startNs, e.endNs);
            continue;
        }
        const bool collective = e.nameId < classes.flags.size() && (classes.flags[e.nameId] & FlagCollective);
        if (collective) {
            ++out.commKernels;
            comm.add(e.startNs, e.endNs);
        } else {
            compute.add(e.startNs, e.endNs);
        }
        TimelineKernelStat &s = perName[e.nameId];
        s.calls += 1;
        saturatingAdd(s.totalNs, d);
        seen[e.nameId] = 1;
    }
    if (out.firstNs > out.lastNs)  // no usable event
        out.firstNs = out.lastNs = 0;
    if (outOfRange > 0)
        problems.push_back({Severity::Warning, file.file, 0,
                            QStringLiteral("device %1: %2 GPU event(s) with timestamps beyond ±2^61 ns left out of "
                                           "the timeline")
                                .arg(dev.device)
                                .arg(outOfRange)});
    if (backwards > 0)
        problems.push_back({Severity::Warning, file.file, 0,
                            QStringLiteral("device %1: %2 GPU event(s) end before they start; read as zero-length")
                                .arg(dev.device)
                                .arg(backwards)});
    if (badNames > 0)
        problems.push_back({Severity::Warning, file.file, 0,
                            QStringLiteral("device %1: %2 kernel(s) refer to no known name; counted as unnamed "
                                           "compute kernels")
                                .arg(dev.device)
                                .arg(badNames)});

    DeviceSets s;
    events.clear();
    events.shrink_to_fit();  // the sorted copy is no longer needed
    s.busy = all.build();
    s.compute = compute.build();
    s.comm = comm.build();
    s.exposedComm = IntervalSet::difference(s.comm, s.compute);
    s.memcpy = copies.build();
    s.idleHostBusy = IntervalSet::difference(hostBusy, s.busy);
    out.busyNs = s.busy.total();
    out.computeNs = s.compute.total();
    out.commNs = s.comm.total();
    out.exposedCommNs = s.exposedComm.total();
    out.memcpyNs = s.memcpy.total();

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

    out.perStep = valuesFor(s, out.stepWindows);
    if (out.stepsKind == TimelineStepsKind::EqualSplit || out.stepsKind == TimelineStepsKind::WholeSpan) {
        out.busy = std::move(s.busy);
        out.compute = std::move(s.compute);
        out.comm = std::move(s.comm);
        out.exposedComm = std::move(s.exposedComm);
        out.memcpySet = std::move(s.memcpy);
        out.idleHostBusy = std::move(s.idleHostBusy);
    }
}

} // namespace

std::vector<TimelineStepValues> recutSteps(const DeviceTimelineAnalysis &device, const std::vector<TimeInterval> &windows)
{
    if (device.stepsKind != TimelineStepsKind::EqualSplit && device.stepsKind != TimelineStepsKind::WholeSpan)
        return {};
    std::vector<TimelineStepValues> out;
    out.reserve(windows.size());
    for (const TimeInterval &w : windows) {
        out.push_back(valuesIn(device.busy, device.compute, device.comm, device.exposedComm, device.memcpySet,
                               device.idleHostBusy, w));
    }
    return out;
}

TimelineAnalysis analyzeTimeline(const GpuTimeline &timeline, int equalSteps)
{
    TimelineAnalysis result;
    const KernelPatternTable table = KernelPatternTable::forProfile(HeuristicsProfile::Workbench);
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
        for (const StepWindow &w : file.steps) {
            if (w.endNs <= w.startNs)
                continue;
            (w.gpuLane ? gpuSteps : cpuSteps).push_back({w.startNs, w.endNs});
        }
        summary.hasCpuSteps = !cpuSteps.empty();
        summary.hasGpuSteps = !gpuSteps.empty();
        TimelineStepsKind kind = TimelineStepsKind::WholeSpan;
        std::vector<TimeInterval> windows;
        if (!cpuSteps.empty()) {
            kind = TimelineStepsKind::CpuProfilerSteps;
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

        const KernelClasses classes = classifyKernels(file.names, table);
        const IntervalSet hostBusy = IntervalSet::unionOf(file.hostBusy);
        for (const GpuDeviceTimeline &dev : file.devices) {
            DeviceTimelineAnalysis d;
            d.source = dev.source.isEmpty() ? file.source : dev.source;
            d.file = dev.file.isEmpty() ? file.file : dev.file;
            d.rank = dev.rank ? dev.rank : file.rank;
            d.device = dev.device;
            d.fileIndex = fi;
            d.stepsKind = kind;
            d.stepWindows = windows;
            analyzeDevice(file, dev, classes, hostBusy, d, result.problems);
            result.devices.push_back(std::move(d));
        }
        result.files.push_back(summary);
    }
    return result;
}

} // namespace goblin
