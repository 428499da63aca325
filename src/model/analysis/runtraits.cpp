// What the traits of the torch traces mean for the run: decided once at load,
// from counts the parser made while the events streamed past (tracetraits.h) and one linear pass
// over each device's events for the two timeline checks.
#include "runtraits.h"

#include "devicefacts.h"

#include <QJsonArray>
#include <QLocale>

#include <algorithm>
#include <limits>

namespace goblin {

namespace {

/// "4,210": counts as people read them in messages.
QString count(qint64 n)
{
    static const QLocale english(QLocale::English, QLocale::UnitedStates);
    return english.toString(n);
}

/// "1 backward op", "312 backward ops".
QString counted(qint64 n, const QString &singular, const QString &plural)
{
    return QStringLiteral("%1 %2").arg(count(n), n == 1 ? singular : plural);
}

QString vendorOfCall(const QString &call)
{
    if (call.startsWith(QLatin1String("hip")))
        return QStringLiteral("HIP");
    if (call.startsWith(QLatin1String("cu")))
        return QStringLiteral("CUDA");
    return {};
}

/// For the headline: "1 replay in 8" when the recorded launches divide the launches evenly,
/// else "12 of 30 replays".
QString recordedShare(qint64 recorded, qint64 launches)
{
    if (recorded == 0)
        return QStringLiteral("no replay of %1").arg(count(launches));
    if (recorded == launches)
        return launches == 1 ? QStringLiteral("the one replay") : QStringLiteral("all %1 replays").arg(count(launches));
    if (launches % recorded == 0)
        return QStringLiteral("1 replay in %1").arg(count(launches / recorded));
    return QStringLiteral("%1 of %2 replays").arg(count(recorded), count(launches));
}

/// For a file's diagnostic: "12 (1 in 8)", "40 (43 %)", "all", "none".
QString recordedCount(qint64 recorded, qint64 launches)
{
    if (recorded == 0)
        return QStringLiteral("none");
    if (recorded == launches)
        return QStringLiteral("all");
    if (launches % recorded == 0)
        return QStringLiteral("%1 (1 in %2)").arg(count(recorded), count(launches / recorded));
    return QStringLiteral("%1 (%2 %)").arg(count(recorded)).arg(qRound(100.0 * double(recorded) / double(launches)));
}

/// The sorted, disjoint union of the windows.
std::vector<TimeInterval> unionOf(std::vector<TimeInterval> windows)
{
    std::sort(windows.begin(), windows.end(),
              [](const TimeInterval &a, const TimeInterval &b) { return a.startNs < b.startNs; });
    std::vector<TimeInterval> out;
    for (const TimeInterval &w : windows) {
        if (w.endNs <= w.startNs)
            continue;
        if (!out.empty() && w.startNs <= out.back().endNs)
            out.back().endNs = std::max(out.back().endNs, w.endNs);
        else
            out.push_back(w);
    }
    return out;
}

/// Does [startNs, endNs) (a point when empty) meet none of the windows (sorted, disjoint)?
bool outsideAll(const std::vector<TimeInterval> &windows, qint64 startNs, qint64 endNs)
{
    // The first window ending after the event starts is the only one that can hold it.
    const auto it = std::upper_bound(windows.begin(), windows.end(), startNs,
                                     [](qint64 t, const TimeInterval &w) { return t < w.endNs; });
    if (it == windows.end())
        return true;
    return endNs > startNs ? it->startNs >= endNs : it->startNs > startNs;
}

/// Kernels of one device that start more than the tolerance before an earlier kernel of the same
/// stream ends. One pass in document order; a stream whose kernels are not in start order is
/// sorted and counted again on its own.
qint64 overlappingKernels(const GpuDeviceTimeline &device)
{
    struct Stream {
        qint64 lastStartNs = std::numeric_limits<qint64>::min();
        qint64 maxEndNs = std::numeric_limits<qint64>::min();
        qint64 overlaps = 0;
        bool inOrder = true;
    };
    std::vector<Stream> streams(device.streams.size() + 1);
    for (const GpuEvent e : device.events) {
        if (e.kind != GpuEventKind::Kernel || e.endNs <= e.startNs || e.stream >= streams.size())
            continue;
        Stream &s = streams[e.stream];
        if (!s.inOrder)
            continue;
        if (e.startNs < s.lastStartNs) {
            s.inOrder = false;
            continue;
        }
        if (s.maxEndNs != std::numeric_limits<qint64>::min() && s.maxEndNs - e.startNs > kOverlapToleranceNs)
            ++s.overlaps;
        s.lastStartNs = e.startNs;
        s.maxEndNs = std::max(s.maxEndNs, e.endNs);
    }
    qint64 total = 0;
    for (size_t i = 0; i < streams.size(); ++i) {
        if (streams[i].inOrder) {
            total += streams[i].overlaps;
            continue;
        }
        std::vector<TimeInterval> kernels;
        for (const GpuEvent e : device.events)
            if (e.kind == GpuEventKind::Kernel && e.endNs > e.startNs && e.stream == i)
                kernels.push_back({e.startNs, e.endNs});
        std::sort(kernels.begin(), kernels.end(), [](const TimeInterval &a, const TimeInterval &b) {
            return a.startNs < b.startNs || (a.startNs == b.startNs && a.endNs < b.endNs);
        });
        qint64 maxEndNs = std::numeric_limits<qint64>::min();
        for (const TimeInterval &k : kernels) {
            if (maxEndNs != std::numeric_limits<qint64>::min() && maxEndNs - k.startNs > kOverlapToleranceNs)
                ++total;
            maxEndNs = std::max(maxEndNs, k.endNs);
        }
    }
    return total;
}

/// The step windows the events of one device are checked against: those its analysis measured
/// with (CPU ProfilerSteps or GPU-lane annotations; a cut span is no step mark), else the file's
/// own marks, CPU lane first.
std::vector<TimeInterval> stepWindowsOf(const GpuTimelineFile &file, size_t fileIndex, size_t deviceIndex,
                                        const TimelineAnalysis &analysis)
{
    for (const DeviceTimelineAnalysis &d : analysis.devices) {
        if (d.fileIndex != fileIndex || d.deviceIndex != deviceIndex)
            continue;
        if (d.stepsKind == TimelineStepsKind::CpuProfilerSteps || d.stepsKind == TimelineStepsKind::GpuAnnotations ||
            d.stepsKind == TimelineStepsKind::AlignedProfilerSteps)
            return unionOf(d.stepWindows);
        return {};
    }
    std::vector<TimeInterval> cpu, gpu;
    for (const StepWindow &s : file.steps)
        (s.gpuLane ? gpu : cpu).push_back({s.startNs, s.endNs});
    return unionOf(cpu.empty() ? gpu : cpu);
}

} // namespace

RunTraitsAnalysis analyzeRunTraits(const GpuTimeline &torchTimeline, const TimelineAnalysis &torchTimelineAnalysis)
{
    RunTraitsAnalysis out;
    GraphSummary &graphs = out.graphs;
    QString runtimeApi;
    for (const GpuTimelineFile &file : torchTimeline.files) {
        out.hasTorchTrace = true;
        const TraceTraits &t = file.traits;
        out.cpuOps += t.phases.cpuOps;
        out.backwardOps += t.phases.backwardOps;
        out.optimizerOps += t.phases.optimizerOps;
        out.optimizerSteps += t.phases.optimizerSteps;
        out.dataLoaderOps += t.phases.dataLoaderOps;
        out.moduleFrames += t.phases.forwardModules;
        out.profilerRanges += t.phases.profilerRanges;
        if (runtimeApi.isEmpty())
            runtimeApi = t.identity.runtimeApi;
        if (graphs.launchName.isEmpty())
            graphs.launchName = t.graphs.launchName;
        graphs.launches += t.graphs.launches;
        graphs.captures += t.graphs.captures;
        graphs.launchesWithGpuEvents += t.graphs.launchesWithGpuEvents;
        graphs.gpuEventsInGraphs += t.graphs.gpuEventsInGraphs;
    }
    out.vendor = vendorOfCall(graphs.launchName);
    if (out.vendor.isEmpty())
        out.vendor = runtimeApi;
    out.hasDataLoader = out.dataLoaderOps > 0;
    out.replaysGraphs = graphs.launches > 0;
    out.capturesGraphs = graphs.captures > 0;

    // Training or inference, from the CPU lane.
    const QString files = torchTimeline.files.size() > 1
                              ? QStringLiteral(" in %1 trace files").arg(torchTimeline.files.size())
                              : QString();
    RunKind &kind = out.runKind;
    if (!out.hasTorchTrace) {
        kind.kind = RunKind::Kind::Unknown;
        kind.reason = QStringLiteral("no torch trace: training or inference is read from its CPU operators");
    } else if (out.backwardOps > 0 || out.optimizerOps > 0) {
        kind.kind = RunKind::Kind::Training;
        QStringList parts;
        if (out.backwardOps > 0)
            parts << counted(out.backwardOps, QStringLiteral("backward op"), QStringLiteral("backward ops"));
        if (out.optimizerSteps > 0)
            parts << counted(out.optimizerSteps, QStringLiteral("optimizer step"), QStringLiteral("optimizer steps"));
        else if (out.optimizerOps > 0)
            parts << counted(out.optimizerOps, QStringLiteral("optimizer op"), QStringLiteral("optimizer ops"));
        kind.reason = parts.join(QStringLiteral(", ")) + files;
    } else if (out.cpuOps == 0) {
        kind.kind = RunKind::Kind::Unknown;
        kind.reason = QStringLiteral("no CPU operators in the trace (GPU events only): training or inference cannot "
                                     "be told") + files;
    } else if (out.dataLoaderOps > 0) {
        kind.kind = RunKind::Kind::Unknown;
        kind.reason = QStringLiteral("%1 but no backward op and no optimizer step among %2: an evaluation loop, or a "
                                     "capture that missed the backward pass")
                          .arg(counted(out.dataLoaderOps, QStringLiteral("DataLoader range"), QStringLiteral("DataLoader ranges")),
                               counted(out.cpuOps, QStringLiteral("CPU op"), QStringLiteral("CPU ops"))) + files;
    } else {
        kind.kind = RunKind::Kind::Inference;
        kind.reason = QStringLiteral("no backward op, no optimizer step, no DataLoader among %1")
                          .arg(counted(out.cpuOps, QStringLiteral("CPU op"), QStringLiteral("CPU ops"))) + files;
    }

    // Graph replay, file by file (correlation ids are per file), then the run's headline.
    const QString vendorWord = out.vendor.isEmpty() ? QString() : out.vendor + QLatin1Char(' ');
    for (const GpuTimelineFile &file : torchTimeline.files) {
        const TraceGraphs &g = file.traits.graphs;
        const QString word = vendorOfCall(g.launchName).isEmpty() ? vendorWord : vendorOfCall(g.launchName) + QLatin1Char(' ');
        if (g.launches > 0) {
            std::uint32_t most = 0, fewest = std::numeric_limits<std::uint32_t>::max();
            for (const std::uint32_t n : g.gpuEventsPerLaunch) {
                most = std::max(most, n);
                fewest = std::min(fewest, n);
            }
            qint64 partly = 0;
            for (const std::uint32_t n : g.gpuEventsPerLaunch)
                if (double(n) < kPartlyRecordedShare * double(most))
                    ++partly;
            graphs.partlyRecordedLaunches += partly;
            const QString call = g.launchName.isEmpty() ? QStringLiteral("graph launch") : g.launchName;
            const bool unmeasured = g.launchesWithGpuEvents < g.launches || partly > 0;
            QString message = QStringLiteral("%1graph replay: %2 %3 calls, kernels recorded for %4")
                                  .arg(word, count(g.launches), call, recordedCount(g.launchesWithGpuEvents, g.launches));
            if (g.launchesWithGpuEvents > 0)
                message += most == fewest ? QStringLiteral(", %1 GPU events each").arg(count(most))
                                          : QStringLiteral(", %1 to %2 GPU events each").arg(count(fewest), count(most));
            if (partly > 0)
                message += QStringLiteral("; %1 of the recorded replays have fewer than %2 % of the GPU events of the "
                                          "largest (%3): partly recorded")
                               .arg(count(partly))
                               .arg(int(kPartlyRecordedShare * 100))
                               .arg(count(most));
            if (unmeasured)
                message += QStringLiteral(": GPU idle between replays is not measured");
            out.diagnostics.push_back({unmeasured ? Severity::Warning : Severity::Info, file.file, 0, message});
        }
        if (g.captures > 0)
            out.diagnostics.push_back(
                {Severity::Info, file.file, 0,
                 QStringLiteral("%1graph capture: %2 stream-capture or graph-instantiate calls; kernels launched while "
                                "a stream is captured do not run then, so the GPU idles around them")
                     .arg(word, count(g.captures))});
    }
    if (graphs.launches > 0) {
        graphs.replaysRecordedFraction = double(graphs.launchesWithGpuEvents) / double(graphs.launches);
        graphs.replayIdleUnmeasured = graphs.launchesWithGpuEvents < graphs.launches || graphs.partlyRecordedLaunches > 0;
        if (graphs.launchesWithGpuEvents < graphs.launches)
            graphs.headline = QStringLiteral("%1graph replay: kernels recorded for %2 — idle not measured")
                                  .arg(vendorWord, recordedShare(graphs.launchesWithGpuEvents, graphs.launches));
        else if (graphs.partlyRecordedLaunches > 0)
            graphs.headline = QStringLiteral("%1graph replay: %2 of %3 replays partly recorded — idle not measured")
                                  .arg(vendorWord, count(graphs.partlyRecordedLaunches), count(graphs.launches));
        else
            graphs.headline = QStringLiteral("%1graph replay: kernels recorded for %2")
                                  .arg(vendorWord, recordedShare(graphs.launchesWithGpuEvents, graphs.launches));
    } else if (graphs.captures > 0) {
        graphs.headline = QStringLiteral("%1graph capture: %2 capture calls, no replay in the trace")
                              .arg(vendorWord, count(graphs.captures));
    }

    // The timeline's own checks.
    TimelineChecks &checks = out.checks;
    for (size_t f = 0; f < torchTimeline.files.size(); ++f) {
        const GpuTimelineFile &file = torchTimeline.files[f];
        qint64 overlaps = 0, outside = 0, outsideNs = 0;
        bool checkedSteps = false;
        QStringList overlapDevices;
        for (size_t d = 0; d < file.devices.size(); ++d) {
            const GpuDeviceTimeline &device = file.devices[d];
            if (const qint64 n = overlappingKernels(device); n > 0) {
                overlaps += n;
                ++checks.overlapDevices;
                overlapDevices << QStringLiteral("%1: %2").arg(deviceNameInFile(file, device.device), count(n));
            }
            const std::vector<TimeInterval> windows = stepWindowsOf(file, f, d, torchTimelineAnalysis);
            if (windows.empty())
                continue;
            checkedSteps = true;
            for (const GpuEvent e : device.events)
                if (outsideAll(windows, e.startNs, e.endNs)) {
                    ++outside;
                    outsideNs += e.endNs - e.startNs;
                }
        }
        if (checkedSteps)
            ++checks.filesWithSteps;
        checks.overlappingKernelsOnOneStream += overlaps;
        checks.gpuEventsOutsideSteps += outside;
        checks.gpuTimeOutsideStepsNs += outsideNs;
        if (overlaps > 0)
            out.diagnostics.push_back(
                {Severity::Warning, file.file, 0,
                 QStringLiteral("%1 start more than 1 µs before an earlier kernel of the same stream ends (%2): a "
                                "stream runs one kernel at a time, so the trace's clock or its stream ids are "
                                "unreliable (graph nodes run on streams of their own but are written on the launch's "
                                "stream; ROCm traces before Kineto 2026-06 write the HSA queue, which several streams "
                                "share); busy time is a union and counts each instant once")
                     .arg(counted(overlaps, QStringLiteral("kernel"), QStringLiteral("kernels")),
                          overlapDevices.join(QStringLiteral(", ")))});
        if (outside > 0)
            out.diagnostics.push_back({Severity::Info, file.file, 0,
                                       QStringLiteral("%1 (%2 ms) outside the profiled steps: not in any step's budget")
                                           .arg(counted(outside, QStringLiteral("GPU event"), QStringLiteral("GPU events")))
                                           .arg(double(outsideNs) / 1e6, 0, 'f', 3)});
    }
    return out;
}

} // namespace goblin
