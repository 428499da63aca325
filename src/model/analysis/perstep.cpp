#include "perstep.h"
#include "timelineanalysis.h"

#include "formatting.h"
#include "runanalysis.h"
#include "timelineinputs.h"

#include <QHash>
#include <algorithm>
#include <cmath>

namespace goblin {

namespace {

/// Sums of one step over the files (ranks) that have it, before they become means.
struct StepAccumulator {
    QString name;
    std::size_t firstFile = 0;
    qint64 firstStartNs = 0;     ///< in the first file that has the step
    qint64 relativeStartNs = 0;  ///< from that file's first step
    double durationSumNs = 0.0;
    int files = 0;
    double utilSum = 0.0;        ///< busy / window, summed over devices
    int utilDevices = 0;
    double hostSum = 0.0;        ///< host busy / window, summed over files with CPU operators
    int hostFiles = 0;
    qint64 collectiveNs = 0, gemmNs = 0, genericGemmNs = 0, fp16Ns = 0, bf16Ns = 0;
    int kernelDevices = 0;       ///< devices with kernels in the files that have the step
    int panelDevice = -1, panelStep = -1;
    std::vector<MeasuredSlice> slices;
};

/// The host's side of one file, as the measured budget's data-wait gate and idle split read it.
struct FileHost {
    bool known = false;  ///< CPU operators or data-loading ranges were traced
    IntervalSet busy;    ///< CPU operators

    explicit FileHost(const GpuTimelineFile &file)
        : known(!file.hostBusy.empty() || !file.dataLoading.empty()), busy(IntervalSet::unionOf(file.hostBusy))
    {
    }
    double fraction(const TimeInterval &w) const
    {
        return w.endNs > w.startNs ? double(busy.measure(w.startNs, w.endNs)) / double(w.endNs - w.startNs) : 0.0;
    }
};

MeasuredSlice sliceOf(const TimelineStepValues &v, const FileHost &host, const TimeInterval &window, std::size_t file,
                      const GpuDeviceTimeline &device)
{
    MeasuredSlice s = MeasuredSlice::fromTimeline(v, host.known, host.fraction(window));
    s.file = int(file);
    s.pid = device.pid;
    s.device = device.device;
    return s;
}

/// A device's class sums in one step window, as the timeline's sweep measured them (kernel time
/// inside the window; collectives as their union on the device).
void addClassSums(StepAccumulator &a, const TimelineStepValues &v)
{
    a.collectiveNs += v.commNs;
    a.gemmNs += v.gemmNs;
    a.genericGemmNs += v.genericGemmNs;
    a.fp16Ns += v.fp16Ns;
    a.bf16Ns += v.bf16Ns;
}

QString ms(double seconds) { return formatSeconds(seconds); }

QString stepWindowsKindPhrase(StepPlanKind kind, bool anyGpuLane)
{
    switch (kind) {
    case StepPlanKind::CpuProfilerSteps:
        return anyGpuLane ? QStringLiteral("ProfilerStep on the CPU lane; step annotations on the GPU lane in files "
                                           "without one")
                          : QStringLiteral("ProfilerStep on the CPU lane");
    case StepPlanKind::MarkerRanges:
        return QStringLiteral("roctx/NVTX step ranges (of a marker trace, or inside the kernel file)");
    case StepPlanKind::GpuAnnotations:
        return QStringLiteral("step annotations on the GPU lane; one name repeated in a trace is one step per window");
    case StepPlanKind::OptimizerSteps:
        return QStringLiteral("windows between consecutive Optimizer.step ends on the CPU lane");
    default:
        break;
    }
    return QStringLiteral("step marks");
}

QString utilSource(int devicesWithKernels, const BudgetInputs &runIn)
{
    return devicesWithKernels > 0
               ? QStringLiteral("busy union of the step's GPU events / step, mean of %1 device(s)").arg(devicesWithKernels)
               : QStringLiteral("the run's %1 % for every step (no GPU events in the step-marked trace)")
                     .arg(runIn.gpuUtilPct, 0, 'f', 1);
}

QString hostSource(bool anyHost, const BudgetInputs &runIn)
{
    return anyHost ? QStringLiteral("CPU operators of the training process inside the step / step")
                   : QStringLiteral("the run's %1 for every step (no CPU operators)").arg(runIn.hostBusyFraction, 0, 'f', 3);
}

void appendSteps(std::vector<StepAccumulator> &accs, const BudgetInputs &runIn, StepSeries &out)
{
    std::stable_sort(accs.begin(), accs.end(), [](const StepAccumulator &a, const StepAccumulator &b) {
        return a.firstFile != b.firstFile ? a.firstFile < b.firstFile : a.firstStartNs < b.firstStartNs;
    });
    for (const StepAccumulator &a : accs) {
        StepInputs s;
        s.name = a.name;
        s.index = int(out.steps.size());
        s.startS = double(a.relativeStartNs) / 1e9;
        s.durationS = a.durationSumNs / a.files / 1e9;
        BudgetInputs &in = s.inputs;
        in.stepTimeS = s.durationS;
        // The run's peak until placeTelemetry() (telemetrysteps.h) gives the step the peak of its own
        // samples, where the telemetry and the trace share a wall clock.
        in.hbmPeakGb = runIn.hbmPeakGb;
        s.utilMeasured = a.utilDevices > 0;
        in.gpuUtilKnown = s.utilMeasured || runIn.gpuUtilKnown;
        in.gpuUtilPct = s.utilMeasured ? std::min(100.0, a.utilSum / a.utilDevices * 100.0) : runIn.gpuUtilPct;
        s.hostBusyMeasured = a.hostFiles > 0;
        in.hostBusyFraction = s.hostBusyMeasured ? a.hostSum / a.hostFiles : runIn.hostBusyFraction;
        if (a.kernelDevices > 0) {
            in.commExcessS = double(a.collectiveNs) / 1e9 / a.kernelDevices;
            in.gemmNs = a.gemmNs;
            in.genericGemmNs = a.genericGemmNs;
            in.fp16Ns = a.fp16Ns;
            in.bf16Ns = a.bf16Ns;
        } else {
            in.commExcessS = runIn.commExcessS;
            in.gemmNs = runIn.gemmNs;
            in.genericGemmNs = runIn.genericGemmNs;
            in.fp16Ns = runIn.fp16Ns;
            in.bf16Ns = runIn.bf16Ns;
        }
        s.timelineDevice = a.panelDevice;
        s.timelineStep = a.panelStep;
        s.slices = a.slices;
        out.steps.push_back(std::move(s));
    }
}

} // namespace

std::vector<const StepWindow *> stepMarks(const GpuTimelineFile &file, bool *gpuLane)
{
    std::vector<const StepWindow *> cpu, gpu;
    for (const StepWindow &w : file.steps)
        if (w.endNs > w.startNs)
            (w.gpuLane ? gpu : cpu).push_back(&w);
    *gpuLane = cpu.empty();
    std::vector<const StepWindow *> marks = cpu.empty() ? std::move(gpu) : std::move(cpu);
    std::stable_sort(marks.begin(), marks.end(),
                     [](const StepWindow *a, const StepWindow *b) { return a->startNs < b->startNs; });
    return marks;
}

std::vector<QString> stepNames(const std::vector<const StepWindow *> &marks)
{
    QHash<QString, int> count;
    for (const StepWindow *w : marks)
        ++count[w->name];
    QHash<QString, int> seen;
    std::vector<QString> names;
    names.reserve(marks.size());
    for (std::size_t k = 0; k < marks.size(); ++k) {
        const QString &name = marks[k]->name;
        if (name.isEmpty())
            names.push_back(QStringLiteral("step %1").arg(k));
        else if (count.value(name) > 1)
            names.push_back(QStringLiteral("%1 (%2)").arg(name).arg(++seen[name]));
        else
            names.push_back(name);
    }
    return names;
}

bool timelineHasMarks(const GpuTimeline &timeline)
{
    for (const GpuTimelineFile &f : timeline.files)
        for (const StepWindow &w : f.steps)
            if (w.endNs > w.startNs)
                return true;
    return false;
}

double MarkedSteps::meanStepS() const
{
    std::size_t n = durationsS.size();
    if (n == 0)
        return 0.0;
    if (lastStepIsPartial(durationsS))
        --n;
    double sum = 0.0;
    for (std::size_t i = 0; i < n; ++i)
        sum += durationsS[i];
    return sum / double(n);
}

MarkedSteps markedSteps(const GpuTimeline &timeline)
{
    struct Step {
        QString name;
        std::size_t firstFile = 0;
        qint64 firstStartNs = 0;
        double sumNs = 0.0;
        int files = 0;
    };
    std::vector<Step> steps;
    QHash<QString, int> byName;
    MarkedSteps out;
    for (std::size_t fi = 0; fi < timeline.files.size(); ++fi) {
        bool gpuLane = false;
        const std::vector<const StepWindow *> marks = stepMarks(timeline.files[fi], &gpuLane);
        if (marks.empty())
            continue;
        ++out.filesUsed;
        out.anyGpuLane = out.anyGpuLane || gpuLane;
        const std::vector<QString> names = stepNames(marks);
        for (std::size_t k = 0; k < marks.size(); ++k) {
            auto it = byName.constFind(names[k]);
            if (it == byName.constEnd()) {
                it = byName.insert(names[k], int(steps.size()));
                steps.push_back({names[k], fi, marks[k]->startNs, 0.0, 0});
            }
            Step &s = steps[std::size_t(*it)];
            s.sumNs += double(marks[k]->endNs - marks[k]->startNs);
            ++s.files;
        }
    }
    std::stable_sort(steps.begin(), steps.end(), [](const Step &a, const Step &b) {
        return a.firstFile != b.firstFile ? a.firstFile < b.firstFile : a.firstStartNs < b.firstStartNs;
    });
    for (const Step &s : steps) {
        out.names.push_back(s.name);
        out.durationsS.push_back(s.sumNs / s.files / 1e9);
    }
    return out;
}

StepSeries analyzeSteps(const RunAnalysis &run)
{
    StepSeries out;
    const BudgetInputs &runIn = run.workbench.budgetInputs;
    out.hbmPeakGb = runIn.hbmPeakGb;

    // The torch trace first: ProfilerStep#N lives there, on the same clock as its GPU events and
    // CPU operators. A kernel trace is used only when it carries step marks of its own.
    struct Candidate {
        const GpuTimeline *timeline;
        const TimelineAnalysis *analysis;
        int panelOffset;  ///< TimelinePanel lists the kernel trace's devices first
    };
    const Candidate candidates[] = {
        {&run.torch.timeline, &run.torchTimeline, int(run.kernelTimeline.devices.size())},
        {&run.kernels.timeline, &run.kernelTimeline, 0},
    };
    // The step plan (runfacts.h) chose the timeline whose marks are the steps.
    const StepPlanFacts &plan = run.facts.stepPlan;
    const Candidate *chosen = !plan.hasWindows() ? nullptr : plan.fromTorchTimeline ? &candidates[0] : &candidates[1];
    if (!chosen) {
        out.source = QStringLiteral("no per-step budget: no trace has step marks (ProfilerStep#N on the CPU lane, "
                                    "a marker trace's step ranges, step annotations on the GPU lane, Optimizer.step "
                                    "annotations); the run's step: %1")
                         .arg(plan.source);
        return out;
    }

    out.fromTorchTimeline = chosen == &candidates[0];
    std::vector<StepAccumulator> accs;
    QHash<QString, int> byName;
    int filesUsed = 0, devicesWithKernels = 0;
    bool anyGpuLane = false, anyHost = false;
    QString firstFile;
    for (std::size_t fi = 0; fi < chosen->timeline->files.size(); ++fi) {
        const GpuTimelineFile &file = chosen->timeline->files[fi];
        bool gpuLane = false;
        const std::vector<const StepWindow *> marks = stepMarks(file, &gpuLane);
        if (marks.empty())
            continue;
        ++filesUsed;
        anyGpuLane = anyGpuLane || gpuLane;
        if (firstFile.isEmpty())
            firstFile = file.file;

        std::vector<int> accOf(marks.size());
        const std::vector<QString> names = stepNames(marks);
        for (std::size_t k = 0; k < marks.size(); ++k) {
            // Ranks share step names (ProfilerStep#N): one step of the run per name.
            const QString &name = names[k];
            auto it = byName.constFind(name);
            if (it == byName.constEnd()) {
                StepAccumulator a;
                a.name = name;
                a.firstFile = fi;
                a.firstStartNs = marks[k]->startNs;
                a.relativeStartNs = marks[k]->startNs - marks.front()->startNs;
                it = byName.insert(name, int(accs.size()));
                accs.push_back(a);
            }
            accOf[k] = *it;
            StepAccumulator &a = accs[std::size_t(*it)];
            a.durationSumNs += double(marks[k]->endNs - marks[k]->startNs);
            ++a.files;
        }

        // Host busy: the training process's CPU operators inside each step.
        if (!file.hostBusy.empty()) {
            anyHost = true;
            const IntervalSet host = IntervalSet::unionOf(file.hostBusy);
            for (std::size_t k = 0; k < marks.size(); ++k) {
                StepAccumulator &a = accs[std::size_t(accOf[k])];
                const qint64 window = marks[k]->endNs - marks[k]->startNs;
                a.hostSum += double(host.measure(marks[k]->startNs, marks[k]->endNs)) / double(window);
                ++a.hostFiles;
            }
        }

        // Utilisation: the busy union the timeline measured in the same windows.
        const FileHost fileHost(file);
        const std::vector<DeviceTimelineAnalysis> &devices = chosen->analysis->devices;
        int fileKernelDevices = 0;
        for (std::size_t di = 0; di < devices.size(); ++di) {
            const DeviceTimelineAnalysis &d = devices[di];
            if (d.fileIndex != fi || d.kernels == 0)
                continue;
            ++fileKernelDevices;
            for (std::size_t k = 0; k < marks.size(); ++k) {
                // Both lists are sorted by start (analyzeTimeline() cuts the same marks).
                auto w = std::lower_bound(d.stepWindows.begin(), d.stepWindows.end(), marks[k]->startNs,
                                          [](const TimeInterval &t, qint64 start) { return t.startNs < start; });
                while (w != d.stepWindows.end() && w->startNs == marks[k]->startNs && w->endNs != marks[k]->endNs)
                    ++w;
                if (w == d.stepWindows.end() || w->startNs != marks[k]->startNs)
                    continue;
                const std::size_t s = std::size_t(w - d.stepWindows.begin());
                if (s >= d.perStep.size() || d.perStep[s].windowNs <= 0)
                    continue;
                StepAccumulator &a = accs[std::size_t(accOf[k])];
                a.utilSum += double(d.perStep[s].busyNs) / double(d.perStep[s].windowNs);
                ++a.utilDevices;
                a.slices.push_back(sliceOf(d.perStep[s], fileHost, *w, fi, file.devices[d.deviceIndex]));
                addClassSums(a, d.perStep[s]);
                if (a.panelDevice < 0) {
                    a.panelDevice = chosen->panelOffset + int(di);
                    a.panelStep = int(s);
                }
            }
        }
        devicesWithKernels += fileKernelDevices;

        for (std::size_t k = 0; k < marks.size(); ++k)
            accs[std::size_t(accOf[k])].kernelDevices += fileKernelDevices;
    }

    appendSteps(accs, runIn, out);
    std::vector<double> durations;
    for (const StepInputs &step : out.steps)
        durations.push_back(step.durationS);
    if (lastStepIsPartial(durations))
        out.steps.back().partial = true;
    out.source = QStringLiteral("%1: %2 step window(s) (%3) from %4 file(s); utilisation: %5; host busy: %6; "
                                "kernel sums: %7")
                     .arg(firstFile)
                     .arg(out.steps.size())
                     .arg(stepWindowsKindPhrase(plan.kind, anyGpuLane))
                     .arg(filesUsed)
                     .arg(utilSource(devicesWithKernels, runIn), hostSource(anyHost, runIn))
                     .arg(devicesWithKernels > 0 ? QStringLiteral("kernel time inside the step, per device")
                                                 : QStringLiteral("the run's per-step sums"));
    flagOutliers(out);
    return out;
}

StepSeries cutSteps(const RunAnalysis &run, int n)
{
    StepSeries out;
    const BudgetInputs &runIn = run.workbench.budgetInputs;
    out.hbmPeakGb = runIn.hbmPeakGb;
    const TimelineAnalysis *an = n > 0 ? kernelSourceTimeline(run) : nullptr;
    if (!an) {
        out.source = QStringLiteral("no per-step budget: no GPU timeline to cut into %1 steps").arg(n);
        return out;
    }
    out.fromTorchTimeline = an == &run.torchTimeline;
    const GpuTimeline &timeline = out.fromTorchTimeline ? run.torch.timeline : run.kernels.timeline;
    std::vector<StepAccumulator> accs(static_cast<std::size_t>(n));
    int filesUsed = 0, devicesWithKernels = 0;
    bool anyHost = false;
    QString firstFile;
    for (std::size_t fi = 0; fi < an->files.size() && fi < timeline.files.size(); ++fi) {
        const FileTimelineSummary &summary = an->files[fi];
        if (summary.kernels == 0 || summary.kernelLastNs - summary.kernelFirstNs < n)
            continue;
        const GpuTimelineFile &file = timeline.files[fi];
        const std::vector<TimeInterval> windows = equalWindows(summary.kernelFirstNs, summary.kernelLastNs, n);
        if (firstFile.isEmpty())
            firstFile = file.file;
        ++filesUsed;
        for (int k = 0; k < n; ++k) {
            StepAccumulator &a = accs[std::size_t(k)];
            const TimeInterval &w = windows[std::size_t(k)];
            if (a.files == 0) {
                a.name = QStringLiteral("span / %1 #%2").arg(n).arg(k);
                a.firstFile = fi;
                a.firstStartNs = w.startNs;
                a.relativeStartNs = w.startNs - windows.front().startNs;
            }
            a.durationSumNs += double(w.endNs - w.startNs);
            ++a.files;
        }
        if (!file.hostBusy.empty()) {
            anyHost = true;
            const IntervalSet host = IntervalSet::unionOf(file.hostBusy);
            for (int k = 0; k < n; ++k) {
                const TimeInterval &w = windows[std::size_t(k)];
                accs[std::size_t(k)].hostSum += double(host.measure(w.startNs, w.endNs)) / double(w.endNs - w.startNs);
                ++accs[std::size_t(k)].hostFiles;
            }
        }
        int fileKernelDevices = 0;
        const FileHost fileHost(file);
        for (const DeviceTimelineAnalysis &d : an->devices) {
            if (d.fileIndex != fi || d.kernels == 0)
                continue;
            const std::vector<TimelineStepValues> values = measureWindows(timeline, d, windows);
            if (values.size() != windows.size())
                continue;
            ++fileKernelDevices;
            for (int k = 0; k < n; ++k) {
                const TimelineStepValues &v = values[std::size_t(k)];
                accs[std::size_t(k)].utilSum += double(v.busyNs) / double(v.windowNs);
                ++accs[std::size_t(k)].utilDevices;
                accs[std::size_t(k)].slices.push_back(
                    sliceOf(v, fileHost, windows[std::size_t(k)], fi, file.devices[d.deviceIndex]));
                addClassSums(accs[std::size_t(k)], v);
            }
        }
        devicesWithKernels += fileKernelDevices;
        for (StepAccumulator &a : accs)
            a.kernelDevices += fileKernelDevices;
    }
    if (filesUsed == 0) {
        out.source = QStringLiteral("no per-step budget: no kernel span to cut into %1 steps").arg(n);
        return out;
    }
    appendSteps(accs, runIn, out);
    out.source = QStringLiteral("%1: the kernel span cut into %2 equal steps (--steps %2; no step marks) in %3 "
                                "file(s); utilisation: %4; host busy: %5; kernel sums: kernel time inside the step, "
                                "per device")
                     .arg(firstFile)
                     .arg(n)
                     .arg(filesUsed)
                     .arg(utilSource(devicesWithKernels, runIn), hostSource(anyHost, runIn));
    if (runIn.hbmPeakGb && !run.smi.samples.empty())
        out.source += QStringLiteral("; HBM: the run's peak for every step (telemetry samples are placed only on "
                                     "marked steps whose clock they share, docs/telemetry.md)");
    flagOutliers(out);
    return out;
}

namespace {

double median(std::vector<double> v)
{
    if (v.empty())
        return 0.0;
    const std::size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(mid), v.end());
    const double upper = v[mid];
    if (v.size() % 2 == 1)
        return upper;
    const double lower = *std::max_element(v.begin(), v.begin() + std::ptrdiff_t(mid));
    return (lower + upper) / 2.0;
}

} // namespace

void flagOutliers(StepSeries &series)
{
    const std::size_t n = series.steps.size();
    series.outlier.assign(n, false);
    series.outlierReason.assign(n, QString());
    series.rule = StepOutlierRule{};
    if (n == 0)
        return;
    std::vector<double> durations;
    durations.reserve(n);
    for (const StepInputs &s : series.steps)
        durations.push_back(s.durationS);
    StepOutlierRule &r = series.rule;
    r.medianS = median(durations);
    std::vector<double> deviations;
    deviations.reserve(n);
    for (double d : durations)
        deviations.push_back(std::fabs(d - r.medianS));
    r.madS = median(deviations);
    const double scaled = StepOutlierRule::kMadScale * r.madS;
    const double floor = StepOutlierRule::kMinSpreadOfMedian * r.medianS;
    r.floorUsed = scaled < floor;
    r.spreadS = std::max(scaled, floor);
    r.limitS = r.medianS + StepOutlierRule::kMadCount * r.spreadS;
    if (n < 3)
        return;  // a median of one or two steps says nothing about what is normal
    for (std::size_t i = 0; i < n; ++i) {
        const double d = durations[i];
        if (!(d > r.limitS))
            continue;
        series.outlier[i] = true;
        const QString spread =
            r.floorUsed ? QStringLiteral("3 × %1 (2 % of the median; scaled MAD %2 is smaller)")
                              .arg(ms(r.spreadS), ms(scaled))
                        : QStringLiteral("3 × 1.4826 × MAD = 3 × 1.4826 × %1").arg(ms(r.madS));
        series.outlierReason[i] = QStringLiteral("%1 is %2× the median step (%3), beyond median + %4 = %5")
                                      .arg(ms(d))
                                      .arg(r.medianS > 0.0 ? d / r.medianS : 0.0, 0, 'f', 2)
                                      .arg(ms(r.medianS), spread, ms(r.limitS));
    }
}

bool lastStepIsPartial(const std::vector<double> &durations)
{
    if (durations.size() < 2)
        return false;
    double others = 0.0;
    for (std::size_t i = 0; i + 1 < durations.size(); ++i)
        others += durations[i];
    return durations.back() < 0.2 * (others / double(durations.size() - 1));
}

} // namespace goblin
