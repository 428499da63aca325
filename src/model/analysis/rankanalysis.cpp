#include "rankanalysis.h"

#include "kernelclassifier.h"
#include "timelineinputs.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace goblin {

namespace {

/// How the run's workbench analysis measured utilisation; every rank is measured the same way.
enum class UtilKind { Telemetry, Timeline, KernelEstimate, Unknown };

UtilKind utilKindOf(const ProfileAnalysis &a)
{
    if (!a.budgetInputs.gpuUtilKnown)
        return UtilKind::Unknown;
    if (a.gpuUtilFromTimeline)
        return UtilKind::Timeline;
    if (a.gpuUtilSource.startsWith(QLatin1String("kernel time per step")))
        return UtilKind::KernelEstimate;
    return UtilKind::Telemetry;
}

/// The devices of one rank: indices into the kernel-source TimelineAnalysis::devices, which
/// holds one entry per file × device in file order.
struct Group {
    std::size_t fileIndex = 0;
    qint64 pid = -1;
    std::optional<int> rank;
    std::vector<std::size_t> devices;
};

struct KernelSums {
    ClassTotals totals;
    quint64 kernels = 0;
    qint64 firstNs = std::numeric_limits<qint64>::max();
    qint64 lastNs = std::numeric_limits<qint64>::min();
    int devicesWithKernels = 0;
    qint64 spanNs() const { return lastNs > firstNs ? lastNs - firstNs : 0; }
};

/// Class sums of the rank's own kernel events, as kernelsFromTimeline() and the report's
/// aggregates count them: named kernels with a positive duration.
KernelSums sumKernels(const GpuTimelineFile &file, const std::vector<const GpuDeviceTimeline *> &devices)
{
    const KernelClasses classes =
        classifyKernels(file.names, KernelPatternTable::forProfile(HeuristicsProfile::Workbench));
    KernelSums s;
    ClassTotals &t = s.totals;
    for (const GpuDeviceTimeline *dev : devices) {
        bool used = false;
        for (const GpuEvent &e : dev->events) {
            if (e.kind != GpuEventKind::Kernel || e.nameId >= file.names.size() || file.names[e.nameId].empty())
                continue;
            const qint64 d = e.endNs - e.startNs;
            if (d <= 0)
                continue;
            const std::uint8_t f = classes.flags[e.nameId];
            t.totalNs += d;
            ++t.totalCalls;
            if (f & FlagCollective) {
                t.collectiveNs += d;
                ++t.collectiveCalls;
            }
            if (f & FlagGemm) {
                t.gemmNs += d;
                ++t.gemmCalls;
            }
            if (f & FlagGenericGemm) {
                t.genericGemmNs += d;
                ++t.genericGemmCalls;
            }
            if (f & FlagFp16) {
                t.fp16Ns += d;
                ++t.fp16Calls;
            }
            if (f & FlagBf16) {
                t.bf16Ns += d;
                ++t.bf16Calls;
            }
            ++s.kernels;
            s.firstNs = std::min(s.firstNs, e.startNs);
            s.lastNs = std::max(s.lastNs, e.endNs);
            used = true;
        }
        s.devicesWithKernels += used ? 1 : 0;
    }
    return s;
}

qint64 measure(const std::vector<TimeInterval> &disjoint)
{
    qint64 sum = 0;
    for (const TimeInterval &i : disjoint)
        sum += i.endNs - i.startNs;
    return sum;
}

/// Step time and host busy of one chrome trace from its own marks, by the torch reading's rules:
/// the CPU lane's ProfilerStep windows (a last one shorter than a fifth of the others' mean is
/// where the profiler stopped, left out), else the GPU lane's step annotations, else the span of
/// everything the trace placed. Host busy: the CPU operators of the training process (waits for
/// the GPU excluded) inside those windows, over their length.
void stepAndHostFromMarks(const GpuTimelineFile &file, qint64 kernelSpanNs, ProfileAnalysis &a, QString &hostSource)
{
    std::vector<TimeInterval> cpu, gpu;
    for (const StepWindow &w : file.steps)
        (w.gpuLane ? gpu : cpu).push_back({w.startNs, w.endNs});
    std::sort(cpu.begin(), cpu.end(), [](const TimeInterval &x, const TimeInterval &y) { return x.startNs < y.startNs; });
    qint64 cpuSum = 0;
    for (const TimeInterval &w : cpu)
        cpuSum += w.endNs - w.startNs;
    if (cpu.size() >= 2) {
        const qint64 lastNs = cpu.back().endNs - cpu.back().startNs;
        if (double(lastNs) < 0.2 * (double(cpuSum - lastNs) / double(cpu.size() - 1))) {
            cpuSum -= lastNs;
            cpu.pop_back();
        }
    }
    std::vector<TimeInterval> windows;
    if (!cpu.empty()) {
        a.stepTimeS = double(cpuSum) / double(cpu.size()) / 1e9;
        a.stepTimeSource = QStringLiteral("mean of %1 ProfilerStep event(s) on the CPU lane").arg(cpu.size());
        a.stepsFound = int(cpu.size());
        windows = IntervalSet::unionOf(cpu).intervals();
    } else {
        qint64 sum = 0;
        int n = 0;
        for (const TimeInterval &w : gpu)
            if (w.endNs > w.startNs) {
                sum += w.endNs - w.startNs;
                ++n;
            }
        qint64 first = std::numeric_limits<qint64>::max(), last = std::numeric_limits<qint64>::min();
        auto extend = [&](qint64 s, qint64 e) {
            first = std::min(first, s);
            last = std::max(last, e);
        };
        for (const GpuDeviceTimeline &dev : file.devices)
            for (const GpuEvent &e : dev.events)
                extend(e.startNs, e.endNs);
        for (const StepWindow &w : file.steps)
            extend(w.startNs, w.endNs);
        for (const TimeInterval &i : file.hostBusy)
            extend(i.startNs, i.endNs);
        if (last > first)
            windows.push_back({first, last});
        if (n > 0) {
            a.stepTimeS = double(sum) / double(n) / 1e9;
            a.stepTimeSource =
                QStringLiteral("mean of %1 step annotation(s) on the GPU lane (Optimizer.step / ProfilerStep)").arg(n);
        } else if (last > first) {
            a.stepTimeS = double(last - first) / 1e9;
            a.stepTimeSource = QStringLiteral("span of the trace's events (no step marks)");
            a.stepCutSpanS = double(kernelSpanNs) / 1e9;  // --steps N cuts the kernel span
        }
    }
    const qint64 windowNs = measure(windows);
    if (file.hostBusy.empty() || windowNs <= 0) {
        a.hostBusyFraction = 0.0;
        hostSource = QStringLiteral("no CPU operators (read as 0)");
        return;
    }
    const IntervalSet busy = IntervalSet::intersection(IntervalSet::unionOf(file.hostBusy), IntervalSet::unionOf(windows));
    a.hostBusyFraction = double(busy.total()) / double(windowNs);
    hostSource = QStringLiteral("union of the training process's CPU operators / %1")
                     .arg(cpu.empty() ? QStringLiteral("the trace span") : QStringLiteral("%1 ProfilerStep window(s)").arg(cpu.size()));
}

RankInputs analyzeRank(const RunAnalysis &run, const GpuTimeline &timeline, const TimelineAnalysis &analysis,
                       const Group &group, bool chromeTraces)
{
    const ProfileAnalysis &runA = run.workbench;
    const GpuTimelineFile &file = timeline.files[group.fileIndex];
    std::vector<const GpuDeviceTimeline *> devices;
    for (const GpuDeviceTimeline &dev : file.devices)
        if (chromeTraces || dev.pid == group.pid)
            devices.push_back(&dev);
    const KernelSums k = sumKernels(file, devices);

    RankInputs r;
    r.rankStated = group.rank.has_value();
    r.rank = group.rank.value_or(0);
    r.source = file.source;
    r.file = file.file;
    r.fileIndex = group.fileIndex;
    r.pid = chromeTraces ? -1 : group.pid;
    r.devices = k.devicesWithKernels;
    r.kernels = k.kernels;
    r.kernelTimeNs = k.totals.totalNs;

    ProfileAnalysis &a = r.analysis;
    a.profile = HeuristicsProfile::Workbench;
    a.classTotals = k.totals;
    a.defaultSteps = runA.defaultSteps;
    a.gpuAgents = std::max(1, k.devicesWithKernels);
    a.traceSpanS = double(k.spanNs()) / 1e9;
    if (chromeTraces) {
        stepAndHostFromMarks(file, k.spanNs(), a, r.hostBusySource);
        a.traceStepsCovered = a.traceSpanS > 0.0 && a.stepTimeS > 0.0 ? a.traceSpanS / a.stepTimeS : 1.0;
    } else {
        // A process of a kernel trace has no step marks of its own: it covers as many steps as
        // the run's kernel trace does, so its step time is its own span over that count.
        a.traceStepsCovered = runA.traceStepsCovered;
        if (a.traceStepsCovered > 0.0)
            a.stepTimeS = a.traceSpanS / a.traceStepsCovered;
        a.stepTimeSource = QStringLiteral("kernel span / %1 steps (the steps the run's kernel trace covers)")
                               .arg(a.traceStepsCovered, 0, 'f', 2);
        if (runA.stepCutSpanS > 0.0)
            a.stepCutSpanS = a.traceSpanS;
        a.hostBusyFraction = runA.hostBusyFraction;
        r.hostBusySource = QStringLiteral("the run's (no CPU operators per process): %1").arg(runA.hostBusySource);
    }
    a.perStepPerGpuDivisor = k.kernels > 0 ? a.gpuAgents * std::max(a.traceStepsCovered, 1e-12) : 1.0;

    // Measured quantities of the rank's devices (exposed communication, busy for utilisation).
    double exposedSum = 0.0, computeSum = 0.0, utilSum = 0.0;
    int withKernels = 0, utilDevices = 0;
    for (std::size_t idx : group.devices) {
        const DeviceTimelineAnalysis &d = analysis.devices[idx];
        if (d.kernels == 0)
            continue;
        ++withKernels;
        r.stepMarks = d.stepsKind != TimelineStepsKind::WholeSpan && d.stepsKind != TimelineStepsKind::EqualSplit;
        exposedSum += r.stepMarks ? d.meanPerStepNs(&TimelineStepValues::exposedCommNs) : double(d.exposedCommNs);
        computeSum += r.stepMarks ? d.meanPerStepNs(&TimelineStepValues::computeNs) : double(d.computeNs);
        qint64 busy = 0, window = 0;
        for (const TimelineStepValues &v : d.perStep) {
            busy += v.busyNs;
            window += v.windowNs;
        }
        if (window > 0) {
            utilSum += double(busy) / double(window);
            ++utilDevices;
        }
    }
    r.exposedCommNs = withKernels > 0 ? exposedSum / withKernels : 0.0;
    r.computeNs = withKernels > 0 ? computeSum / withKernels : 0.0;

    UtilKind kind = utilKindOf(runA);
    if (kind == UtilKind::Timeline && utilDevices == 0)
        kind = UtilKind::KernelEstimate;
    BudgetInputs &in = a.budgetInputs;
    switch (kind) {
    case UtilKind::Telemetry:
        a.gpuUtilPct = runA.gpuUtilPct;
        r.gpuUtilSource = QStringLiteral("the run's: %1").arg(runA.gpuUtilSource);
        break;
    case UtilKind::Timeline:
        a.gpuUtilPct = std::min(100.0, utilSum / utilDevices * 100.0);
        a.gpuUtilFromTimeline = true;
        r.gpuUtilSource = QStringLiteral("busy union of the rank's GPU events over its step windows, mean of %1 device(s)")
                              .arg(utilDevices);
        break;
    case UtilKind::KernelEstimate:
        if (k.kernels > 0 && a.stepTimeS > 0.0)
            a.gpuUtilPct = std::min(100.0, double(k.totals.totalNs) / a.perStepPerGpuDivisor / (a.stepTimeS * 1e9) * 100.0);
        r.gpuUtilSource = QStringLiteral("kernel time per step per GPU / step time");
        break;
    case UtilKind::Unknown:
        in.gpuUtilKnown = false;
        r.gpuUtilSource = QStringLiteral("unknown");
        break;
    }
    a.hostBusySource = r.hostBusySource;
    a.gpuUtilSource = r.gpuUtilSource;
    in.stepTimeS = a.stepTimeS;
    in.gpuUtilPct = a.gpuUtilPct;
    in.hostBusyFraction = a.hostBusyFraction;
    in.hbmPeakGb = runA.budgetInputs.hbmPeakGb;
    in.commExcessS = double(k.totals.collectiveNs) / 1e9 / a.perStepPerGpuDivisor;
    in.gemmNs = k.totals.gemmNs;
    in.genericGemmNs = k.totals.genericGemmNs;
    in.fp16Ns = k.totals.fp16Ns;
    in.bf16Ns = k.totals.bf16Ns;
    return r;
}

} // namespace

std::shared_ptr<const RankSet> analyzeRanks(const RunAnalysis &run, Diagnostics &diagnostics)
{
    auto set = std::make_shared<RankSet>();
    const TimelineAnalysis *analysis = kernelSourceTimeline(run);
    if (!analysis)
        return set;
    // What the ranks are is the job's (runfacts: decided once); a run built without its facts
    // (tests) falls back to the timeline the kernels come from.
    const bool chromeTraces = run.facts.job.members == JobMembers::None ? analysis == &run.torchTimeline
                                                                        : run.facts.job.members == JobMembers::ChromeTraces;
    const GpuTimeline &timeline = chromeTraces ? run.torch.timeline : run.kernels.timeline;
    set->kind = chromeTraces ? QStringLiteral("chrome traces") : QStringLiteral("processes");

    // One group per chrome trace, or per process (file × pid) of the kernel trace.
    std::map<std::pair<std::size_t, qint64>, Group> groups;
    std::size_t idx = 0;
    for (std::size_t fi = 0; fi < timeline.files.size(); ++fi)
        for (const GpuDeviceTimeline &dev : timeline.files[fi].devices) {
            const qint64 pid = chromeTraces ? -1 : dev.pid;
            Group &g = groups[{fi, pid}];
            g.fileIndex = fi;
            g.pid = pid;
            g.rank = dev.rank ? dev.rank : timeline.files[fi].rank;
            g.devices.push_back(idx++);
        }
    for (const auto &[key, group] : groups) {
        RankInputs r = analyzeRank(run, timeline, *analysis, group, chromeTraces);
        if (r.kernels > 0)
            set->ranks.push_back(std::move(r));
    }
    // Rank order: the ranks the traces state, then (for the others) by process id, then file.
    std::stable_sort(set->ranks.begin(), set->ranks.end(), [](const RankInputs &x, const RankInputs &y) {
        if (x.rankStated != y.rankStated)
            return x.rankStated;
        if (x.rankStated && x.rank != y.rank)
            return x.rank < y.rank;
        return x.pid < y.pid;
    });
    std::vector<int> stated;
    for (const RankInputs &r : set->ranks)
        if (r.rankStated)
            stated.push_back(r.rank);
    std::sort(stated.begin(), stated.end());
    for (std::size_t i = 1; i < stated.size(); ++i)
        if (stated[i] == stated[i - 1] && (i < 2 || stated[i - 2] != stated[i])) {
            QStringList files;
            for (const RankInputs &r : set->ranks)
                if (r.rankStated && r.rank == stated[i])
                    files << r.file;
            diagnostics.push_back({Severity::Warning, files.front(), 0,
                                   QStringLiteral("%1 traces state rank %2 (%3): they are listed as separate ranks "
                                                  "with the same number")
                                       .arg(files.size())
                                       .arg(stated[i])
                                       .arg(files.join(QStringLiteral(", ")))});
        }
    int next = stated.empty() ? 0 : stated.back() + 1;
    for (RankInputs &r : set->ranks)
        if (!r.rankStated)
            r.rank = next++;

    if (set->ranks.size() == 1) {
        // One rank is the run: its entry carries the run's own inputs (metadata step time and
        // host busy included), so its budget is the report's.
        RankInputs &only = set->ranks.front();
        ProfileAnalysis slim;
        const ProfileAnalysis &w = run.workbench;
        slim.profile = w.profile;
        slim.budgetInputs = w.budgetInputs;
        slim.classTotals = w.classTotals;
        slim.gpuUtilPct = w.gpuUtilPct;
        slim.gpuUtilSource = w.gpuUtilSource;
        slim.defaultSteps = w.defaultSteps;
        slim.gpuAgents = w.gpuAgents;
        slim.stepsFound = w.stepsFound;
        slim.stepTimeS = w.stepTimeS;
        slim.stepTimeSource = w.stepTimeSource;
        slim.hostBusyFraction = w.hostBusyFraction;
        slim.hostBusySource = w.hostBusySource;
        slim.traceSpanS = w.traceSpanS;
        slim.traceStepsCovered = w.traceStepsCovered;
        slim.perStepPerGpuDivisor = w.perStepPerGpuDivisor;
        slim.stepCutSpanS = w.stepCutSpanS;
        slim.gpuUtilFromTimeline = w.gpuUtilFromTimeline;
        only.analysis = std::move(slim);
        only.hostBusySource = w.hostBusySource;
        only.gpuUtilSource = w.gpuUtilSource;
    }
    set->budgetIsMean = chromeTraces && set->ranks.size() >= 2;
    if (set->ranks.size() >= 2) {
        const QString how =
            set->budgetIsMean
                ? QStringLiteral("the workbench budget is the mean of the %1 ranks' budgets, each computed from that "
                                 "rank's own timeline, steps and host activity")
                      .arg(set->ranks.size())
                : QStringLiteral("each has its own budget in the Ranks tab and the report's ranks[]; the workbench "
                                 "budget stays the run's, which already takes the kernels of all %1 processes")
                      .arg(set->ranks.size());
        // The numbers (step times, the straggler) depend on the thresholds and the steps: the Ranks
        // tab and rank_spread give them, computed where every other result is (derived.h).
        diagnostics.push_back({Severity::Info, QString(), 0,
                               QStringLiteral("%1 ranks (%2): %3. The reference profile keeps the reference's single "
                                              "answer.")
                                   .arg(set->ranks.size())
                                   .arg(set->kind, how)});
    }
    return set;
}

} // namespace goblin
