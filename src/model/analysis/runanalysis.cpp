#include "runanalysis.h"

#include "culpritfinder.h"
#include "kernelclassifier.h"
#include "decidefacts.h"
#include "runtraits.h"
#include "perstep.h"
#include "telemetrysteps.h"

#include "formatting.h"
#include "kernels/accumulator.h"
#include "profiledifferences.h"
#include "reference/runmetrics.h"
#include "rankanalysis.h"
#include "timelineinputs.h"
#include "tracememoryfigures.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonObject>
#include <QFileInfo>
#include <algorithm>
#include <cmath>
#include <numeric>

namespace goblin {

namespace {

const QString kKernelFile = QStringLiteral("trace.csv");
const QString kTorchFile = QStringLiteral("torch_profile.json");
const QString kSmiFile = QStringLiteral("amd_smi.csv");

ClassTotals sumClasses(const KernelReading &reading, const KernelClasses &classes)
{
    ClassTotals t;
    for (std::size_t id = 0; id < reading.perName.size(); ++id) {
        const KernelNameStats &s = reading.perName[id];
        if (s.calls == 0)
            continue;
        const std::uint8_t f = id < classes.flags.size() ? classes.flags[id] : 0;
        t.totalNs += s.totalNs;
        t.totalCalls += s.calls;
        if (f & FlagCollective) {
            t.collectiveNs += s.totalNs;
            t.collectiveCalls += s.calls;
        }
        if (f & FlagGemm) {
            t.gemmNs += s.totalNs;
            t.gemmCalls += s.calls;
        }
        if (f & FlagGenericGemm) {
            t.genericGemmNs += s.totalNs;
            t.genericGemmCalls += s.calls;
        }
        if (f & FlagFp16) {
            t.fp16Ns += s.totalNs;
            t.fp16Calls += s.calls;
        }
        if (f & FlagBf16) {
            t.bf16Ns += s.totalNs;
            t.bf16Calls += s.calls;
        }
    }
    return t;
}

using kernels::namesInFirstUseOrder;

std::vector<TopKernel> topKernels(const KernelTrace &trace, const KernelReading &reading, int topN)
{
    std::vector<std::size_t> ids = namesInFirstUseOrder(reading);
    if (ids.empty())
        return {};
    // Python's sorted(reverse=True) is stable: equal totals keep first-use order.
    std::stable_sort(ids.begin(), ids.end(),
                     [&](std::size_t a, std::size_t b) { return reading.perName[a].totalNs > reading.perName[b].totalNs; });
    const double total = reading.totalNs != 0 ? double(reading.totalNs) : 1.0;
    std::vector<TopKernel> out;
    for (std::size_t i = 0; i < ids.size() && int(i) < topN; ++i) {
        const std::string &name = trace.names[ids[i]];
        out.push_back({QString::fromUtf8(name.data(), qsizetype(name.size())),
                       double(reading.perName[ids[i]].totalNs) / total * 100.0, ids[i]});
    }
    return out;
}

QString attentionOf(const KernelReading &reading, const KernelClasses &classes)
{
    const std::vector<std::size_t> ids = namesInFirstUseOrder(reading);
    for (std::size_t id : ids)
        if (id < classes.attention.size() && classes.attention[id] != AttentionKind::None)
            return attentionLabel(classes.attention[id]);
    return ids.empty() ? QStringLiteral("unknown") : QStringLiteral("eager");
}


/// The reference profile: the reference wing's RunMetrics assembly (src/parsers/reference/runmetrics),
/// plus what the model adds for the views (kernel classes for the table, the budget's inputs).
void analyzeReference(RunAnalysis &run)
{
    ProfileAnalysis &a = run.reference;
    a.profile = HeuristicsProfile::Reference;
    const KernelReading &kr = run.kernels.reference;
    const reference::ReferenceRun r = reference::assembleRun(run.kernels, run.torch, run.smi, run.runDirAsGiven);

    a.classes = classifyKernels(run.kernels.names, KernelPatternTable::forProfile(HeuristicsProfile::Reference));
    a.classTotals = sumClasses(kr, a.classes);
    for (const reference::ReferenceKernelEntry &k : r.topKernels)
        a.topKernels.push_back({k.name, k.pctTime, k.nameId});
    a.attentionKernelLoaded = r.attentionKernelLoaded;
    a.warnings = r.warnings;

    a.stepTimeS = r.stepTimeS;
    a.stepTimeSource = r.stepTimeSource;
    a.hostBusyFraction = r.hostBusyFraction;
    a.hostBusySource = r.hostBusySource;
    a.stepsFound = run.torch.reference.profilerSteps;
    a.gpuAgents = kr.agentCount;
    a.gpuUtilPct = r.gpuUtilPct;
    a.gpuUtilSource = r.gpuUtilSource;
    a.tokensPerSec = r.tokensPerSec;
    a.mfuPct = r.mfuPct;
    a.hbmPeakGb = r.hbmPeakGb;
    a.hbmAvgGb = r.hbmAvgGb;
    a.rocmVersion = r.rocmVersion;
    a.pytorchVersion = r.pytorchVersion;
    a.defaultSteps = 10;
    if (kr.hasTimestamps && kr.lastEndNs > kr.firstStartNs)
        a.traceSpanS = double(kr.lastEndNs - kr.firstStartNs) / 1e9;
    a.perStepPerGpuDivisor = 1.0;

    BudgetInputs &in = a.budgetInputs;
    in.stepTimeS = a.stepTimeS;
    in.gpuUtilPct = a.gpuUtilPct;
    in.hostBusyFraction = a.hostBusyFraction;
    in.hbmPeakGb = r.hbmPeakForBudget;
    in.commExcessS = double(r.classTotals.collectiveNs) / 1e9;
    in.gemmNs = r.classTotals.gemmNs;
    in.genericGemmNs = r.classTotals.genericGemmNs;
    in.fp16Ns = r.classTotals.fp16Ns;
    in.bf16Ns = r.classTotals.bf16Ns;
}

void analyzeWorkbench(RunAnalysis &run)
{
    ProfileAnalysis &a = run.workbench;
    a.profile = HeuristicsProfile::Workbench;
    a.budgetInputs.gpuUtilKnown = true;
    const KernelReading &kr = run.kernels.workbench;
    const TorchReading &tr = run.torch.workbench;
    const SmiReading &sr = run.smi.workbench;
    Diagnostics &diags = run.diagnostics;

    a.classes = classifyKernels(run.kernels.names, KernelPatternTable::forProfile(HeuristicsProfile::Workbench));
    a.classTotals = sumClasses(kr, a.classes);
    a.topKernels = topKernels(run.kernels, kr, 5);
    a.attentionKernelLoaded = attentionOf(kr, a.classes);

    a.hostBusyFraction = tr.hostBusyFraction.value_or(0.0);
    a.hostBusySource = tr.hostBusyFraction ? tr.hostBusySource : QStringLiteral("not found (read as 0)");
    a.gpuAgents = std::max(1, kr.agentCount);
    // The one step time: the step plan's (runfacts.h), whatever the trace's own reading said.
    const StepPlanFacts &plan = run.facts.stepPlan;
    // The steps found are the plan's windows (ProfilerStep, marker ranges, GPU-lane annotations,
    // the optimizer cut), not the ProfilerStep events alone; a span is not a step found.
    a.stepsFound = plan.hasWindows() ? plan.steps : 0;
    a.stepTimeS = plan.stepTimeS;
    a.stepTimeSource = plan.kind == StepPlanKind::None ? QStringLiteral("not found") : plan.source;

    // Trace-wide sums become per step and per GPU: divide by the agents and by the steps the
    // kernel trace covers (its span over the step time). rocprofv3 usually records many more
    // steps than torch.profiler's schedule window, so the profiler's step count is the wrong divisor.
    const QString traceFile = run.kernelsFromTorchTimeline && !run.torch.timeline.files.empty()
                                  ? run.torch.timeline.files.front().file
                              : run.kernels.files.empty() ? kKernelFile
                                                          : run.kernels.files.front().relativePath;
    if (kr.hasTimestamps && kr.lastEndNs > kr.firstStartNs)
        a.traceSpanS = double(kr.lastEndNs - kr.firstStartNs) / 1e9;
    if (plan.cuttable)
        a.stepCutSpanS = plan.kernelSpanS;  // --steps N: the step time is this span / N (computeMetrics)
    if (a.traceSpanS > 0.0 && a.stepTimeS > 0.0) {
        a.traceStepsCovered = a.traceSpanS / a.stepTimeS;
    } else if (kr.rowsUsed > 0) {
        a.traceStepsCovered = std::max(1, tr.profilerSteps);
        diags.push_back({Severity::Warning, traceFile, 0,
                         QStringLiteral("the kernel trace has no usable timestamps or there is no step time, so "
                                        "trace-wide kernel sums are divided by %1 profiler step(s) instead of the "
                                        "steps the trace covers")
                             .arg(a.traceStepsCovered)});
    }
    a.perStepPerGpuDivisor = a.gpuAgents * std::max(a.traceStepsCovered, 1e-12);
    if (kr.rowsUsed == 0)
        a.perStepPerGpuDivisor = 1.0;

    // Telemetry polled every 200 ms (or 1 s) cannot see a job shorter than its cadence: when no
    // sample of any GPU is busy while the kernel trace shows work, the samples only describe the
    // idle GPU around the job.
    bool telemetrySawTheJob = false;
    for (const TelemetrySample &s : run.smi.samples)
        telemetrySawTheJob = telemetrySawTheJob || (!std::isnan(s.utilPct) && s.utilPct > kSmiIdleUtilPct);
    const std::optional<TimelineUtilisation> timelineUtil = timelineUtilisation(run);
    const bool kernelEstimatePossible = (kr.rowsUsed > 0 && a.stepTimeS > 0.0) || timelineUtil;
    const QString smiFile = run.smi.file.relativePath.isEmpty() ? kSmiFile : run.smi.file.relativePath;
    if (sr.gpuUtilPct && !telemetrySawTheJob && kernelEstimatePossible) {
        diags.push_back({Severity::Warning, smiFile, 0,
                         QStringLiteral("no telemetry sample shows the GPU busy (all %1 samples at or below %2 %) "
                                        "although the kernel trace shows work: the job is shorter than the "
                                        "sampling period, so utilisation is estimated from kernel time instead")
                             .arg(run.smi.samples.size())
                             .arg(kSmiIdleUtilPct)});
    }
    if (sr.gpuUtilPct && (telemetrySawTheJob || !kernelEstimatePossible)) {
        a.gpuUtilPct = *sr.gpuUtilPct;
        a.gpuUtilSource = QStringLiteral("%1, mean of %2 samples inside the job window")
                              .arg(run.smi.file.relativePath.isEmpty() ? kSmiFile : run.smi.file.relativePath)
                              .arg(sr.utilSamples);
    } else if (timelineUtil) {
        a.gpuUtilPct = timelineUtil->pct;
        a.gpuUtilSource = timelineUtil->source;
        a.gpuUtilFromTimeline = true;
        diags.push_back({Severity::Info, timelineUtil->file, 0,
                         QStringLiteral("GPU utilisation measured on the GPU timeline: %1 % (%2)")
                             .arg(a.gpuUtilPct, 0, 'f', 1)
                             .arg(a.gpuUtilSource)});
    } else if (kernelEstimatePossible) {
        const double perStepPerGpuNs = double(kr.totalNs) / a.perStepPerGpuDivisor;
        a.gpuUtilPct = std::min(100.0, perStepPerGpuNs / (a.stepTimeS * 1e9) * 100.0);
        a.gpuUtilSource = QStringLiteral("kernel time per step per GPU / step time (no utilisation telemetry)");
        diags.push_back({Severity::Info, traceFile, 0,
                         QStringLiteral("GPU utilisation estimated from kernel time: %1 % (kernel time %2 per step "
                                        "per GPU over a step of %3)")
                             .arg(a.gpuUtilPct, 0, 'f', 1)
                             .arg(describeSeconds(perStepPerGpuNs / 1e9), describeSeconds(a.stepTimeS))});
    } else {
        a.gpuUtilPct = 0.0;
        a.gpuUtilSource = QStringLiteral("none (no telemetry, no kernels or no step time)");
        a.budgetInputs.gpuUtilKnown = false;
        diags.push_back({Severity::Warning, QString(), 0,
                         QStringLiteral("GPU utilisation is unknown (no utilisation telemetry, no kernel trace with a "
                                        "step time and no GPU timeline): nothing measured the GPU")});
    }

    a.tokensPerSec = tr.tokensPerSec.value_or(0.0);
    a.mfuPct = tr.mfuPct.value_or(0.0);
    a.hbmPeakGb = sr.hbmPeakGb.value_or(0.0);
    a.hbmAvgGb = sr.hbmAvgGb.value_or(0.0);
    a.rocmVersion = sr.rocmVersion.isEmpty() ? QJsonValue(QStringLiteral("unknown")) : QJsonValue(sr.rocmVersion);
    QJsonValue version = reference::orUnknown(tr.pytorchVersion);
    if (!version.isString())
        version = QStringLiteral("unknown");
    a.pytorchVersion = version;
    a.defaultSteps = tr.profilerSteps > 0 ? tr.profilerSteps : 10;

    BudgetInputs &in = a.budgetInputs;
    in.stepTimeS = a.stepTimeS;
    in.gpuUtilPct = a.gpuUtilPct;
    in.hostBusyFraction = a.hostBusyFraction;
    in.hostBusyKnown = tr.hostBusyFraction.has_value();
    in.kernelsKnown = kr.rowsUsed > 0;
    // No memory telemetry: the trace's own [memory] events, the allocator's peak reserve (a lower
    // bound of what the device held; quantities.cpp names the source, docs/memory.md).
    in.hbmPeakGb = sr.hbmPeakGb ? sr.hbmPeakGb : traceMemoryFigures(run.torch).peakReservedGb;
    in.commExcessS = double(a.classTotals.collectiveNs) / 1e9 / a.perStepPerGpuDivisor;
    in.gemmNs = a.classTotals.gemmNs;
    in.genericGemmNs = a.classTotals.genericGemmNs;
    in.fp16Ns = a.classTotals.fp16Ns;
    in.bf16Ns = a.classTotals.bf16Ns;

    for (const Diagnostic &d : run.diagnostics)
        if (d.severity != Severity::Info)
            a.warnings << (d.file.isEmpty() ? d.message
                                            : d.line > 0 ? QStringLiteral("%1:%2: %3").arg(d.file).arg(d.line).arg(d.message)
                                                         : QStringLiteral("%1: %2").arg(d.file, d.message));
}


/// No torch trace gave a host busy fraction, but the timeline measured one in every step (CPU
/// operators, or a HIP / CUDA runtime API trace): the run's figure is the steps' mean, so that the
/// aggregates say what the steps and the budget measured instead of "not found".
void adoptMeasuredHostBusy(RunAnalysis &run)
{
    ProfileAnalysis &a = run.workbench;
    if (run.torch.workbench.hostBusyFraction)
        return;
    // Without step marks the budget takes the kernel span as one step (derived.cpp's plan).
    StepSeries wholeSpan;
    if (run.steps.empty() && a.stepCutSpanS > 0.0 && kernelSourceTimeline(run))
        wholeSpan = cutSteps(run, 1);
    const StepSeries &series = run.steps.empty() ? wholeSpan : run.steps;
    if (series.empty())
        return;
    double sum = 0.0;
    for (const StepInputs &s : series.steps) {
        if (!s.hostBusyMeasured)
            return;
        sum += s.inputs.hostBusyFraction;
    }
    const int n = series.size();
    a.hostBusyFraction = sum / n;
    a.hostBusySource = QStringLiteral("host activity on the trace's timeline (CPU operators, HIP / CUDA runtime calls) "
                                      "inside the step windows / their length, mean of %1 step(s)")
                           .arg(n);
    a.budgetInputs.hostBusyFraction = a.hostBusyFraction;
    a.budgetInputs.hostBusyKnown = true;
}

} // namespace

void analyzeRun(RunAnalysis &run)
{
    run.diagnostics.clear();
    for (const Diagnostics *source : {&run.kernels.diagnostics, &run.torch.diagnostics, &run.smi.diagnostics})
        run.diagnostics.insert(run.diagnostics.end(), source->begin(), source->end());
    prepareTimelines(run);  // before both profiles: may give the workbench its kernel list
    run.traits = analyzeRunTraits(run.torch.timeline, run.torchTimeline);
    run.diagnostics.insert(run.diagnostics.end(), run.traits.diagnostics.begin(), run.traits.diagnostics.end());
    decideRunFacts(run);
    analyzeReference(run);
    analyzeWorkbench(run);
    run.workbench.ranks = analyzeRanks(run, run.diagnostics);
    run.steps = analyzeSteps(run);
    adoptMeasuredHostBusy(run);
    explainDifferences(run);
    placeTelemetry(run);  // per-step HBM (and utilisation without GPU events) from telemetry, when clocks meet
    run.culprits = findCulprits(run.torch.attribution);
}

} // namespace goblin
