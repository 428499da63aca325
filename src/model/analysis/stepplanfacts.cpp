#include "decidefacts.h"

#include "formatting.h"
#include "perstep.h"
#include "timelineinputs.h"

#include <algorithm>

namespace goblin {

namespace {

/// What one file's marks are, by the plan's kinds.
StepPlanKind kindOfMarks(const std::vector<const StepWindow *> &marks, bool gpuLane, bool torchTimeline)
{
    if (gpuLane)
        return StepPlanKind::GpuAnnotations;
    const StepWindow &first = *marks.front();
    if (torchTimeline)
        return first.name.startsWith(QLatin1String("Optimizer.step")) ? StepPlanKind::OptimizerSteps
                                                                       : StepPlanKind::CpuProfilerSteps;
    // A kernel trace's CPU-lane windows: the torch trace's ProfilerSteps moved onto its clock, or
    // the step-named roctx/NVTX ranges of a marker trace beside it or of the kernel file itself
    // (rpd, Nsight, rocpd, rocprofv3 JSON, pftrace), chosen by one rule (apiTracesFrom).
    return first.aligned ? StepPlanKind::CpuProfilerSteps : StepPlanKind::MarkerRanges;
}

QString kindPhrase(StepPlanKind kind)
{
    switch (kind) {
    case StepPlanKind::CpuProfilerSteps:
        return QStringLiteral("ProfilerStep#N on the CPU lane");
    case StepPlanKind::MarkerRanges:
        return QStringLiteral("roctx/NVTX step ranges (of a marker trace, or inside the kernel file)");
    case StepPlanKind::GpuAnnotations:
        return QStringLiteral("step annotations on the GPU lane, each window a step");
    case StepPlanKind::OptimizerSteps:
        return QStringLiteral("the windows between consecutive Optimizer.step ends on the CPU lane");
    default:
        break;
    }
    return QString();
}

/// The plan from the step marks of one timeline (the torch traces', else the kernel traces').
bool planFromMarks(const GpuTimeline &timeline, bool torchTimeline, StepPlanFacts &plan)
{
    if (!timelineHasMarks(timeline))
        return false;
    plan.fromTorchTimeline = torchTimeline;
    plan.kind = StepPlanKind::None;
    for (std::size_t fi = 0; fi < timeline.files.size(); ++fi) {
        bool gpuLane = false;
        const std::vector<const StepWindow *> marks = stepMarks(timeline.files[fi], &gpuLane);
        if (marks.empty())
            continue;
        const StepPlanKind kind = kindOfMarks(marks, gpuLane, torchTimeline);
        plan.files.push_back({timeline.files[fi].file, fi, kind, int(marks.size())});
        plan.kind = std::min(plan.kind, kind);
    }
    const MarkedSteps steps = markedSteps(timeline);
    plan.steps = int(steps.names.size());
    plan.stepTimeS = steps.meanStepS();
    plan.state = ValueState::Measured;
    const bool partial = lastStepIsPartial(steps.durationsS);
    plan.source = QStringLiteral("mean of %1 step window(s)%2: %3, in %4 file(s) (%5%6)")
                      .arg(partial ? plan.steps - 1 : plan.steps)
                      .arg(partial ? QStringLiteral(" (a last, partial step left out)") : QString())
                      .arg(kindPhrase(plan.kind))
                      .arg(plan.files.size())
                      .arg(plan.files.front().file)
                      .arg(plan.files.size() > 1 ? QStringLiteral(", …; a step name is one step across files")
                                                 : QString());
    return true;
}

} // namespace

StepPlanFacts decideStepPlan(const RunAnalysis &run)
{
    StepPlanFacts plan;
    // Step marks, torch traces first: ProfilerStep#N lives there, on the clock of its GPU events
    // and CPU operators; a kernel trace's marks (a marker trace's ranges, the torch trace's steps
    // moved onto its clock) otherwise. Within a file: CPU lane, else GPU lane (perstep.h).
    if (planFromMarks(run.torch.timeline, true, plan) || planFromMarks(run.kernels.timeline, false, plan))
        return plan;

    const TorchReading &torch = run.torch.workbench;
    const bool metadata =
        torch.stepTimeSeconds && torch.stepTimeSource.contains(QLatin1String("written by the training script"));

    // The kernel span, per file (--steps N cuts each file's span into N equal steps).
    const TimelineAnalysis *kernelSource = kernelSourceTimeline(run);
    double spanSumS = 0.0;
    int spanFiles = 0;
    if (kernelSource)
        for (const FileTimelineSummary &f : kernelSource->files)
            if (f.kernels > 0 && f.kernelLastNs > f.kernelFirstNs) {
                spanSumS += double(f.kernelLastNs - f.kernelFirstNs) / 1e9;
                ++spanFiles;
            }
    // Several chrome traces (ranks) each measure their own span: a metadata number, one for the
    // whole run, gives no windows to measure them over.
    const bool severalTraceRanks = kernelSource == &run.torchTimeline && spanFiles >= 2;

    if (metadata && !severalTraceRanks) {
        plan.kind = StepPlanKind::Metadata;
        plan.stepTimeS = *torch.stepTimeSeconds;
        plan.state = ValueState::Measured;
        plan.source = torch.stepTimeSource;
        return plan;
    }
    if (spanFiles > 0) {
        plan.kind = StepPlanKind::KernelSpan;
        plan.fromTorchTimeline = kernelSource == &run.torchTimeline;
        plan.steps = 1;
        plan.kernelSpanS = spanSumS / spanFiles;
        plan.stepTimeS = plan.kernelSpanS;
        plan.state = ValueState::Estimated;
        plan.cuttable = true;
        plan.source = spanFiles == 1
                          ? QStringLiteral("the kernel span as one step (no step marks; --steps N cuts it into N)")
                          : QStringLiteral("the kernel span as one step, mean of %1 files' spans (no step marks; "
                                           "--steps N cuts each into N)")
                                .arg(spanFiles);
        return plan;
    }
    if (metadata) {
        plan.kind = StepPlanKind::Metadata;
        plan.stepTimeS = *torch.stepTimeSeconds;
        plan.state = ValueState::Measured;
        plan.source = torch.stepTimeSource;
        return plan;
    }
    if (torch.stepTimeSeconds && *torch.stepTimeSeconds > 0.0) {
        plan.kind = StepPlanKind::TraceSpan;
        plan.steps = 1;
        plan.stepTimeS = *torch.stepTimeSeconds;
        plan.state = ValueState::Estimated;
        plan.source = QStringLiteral("the trace's events' span as one step (no step marks, no kernels)");
        return plan;
    }
    plan.source = QStringLiteral("none: no step marks, no metadata step_time_seconds, no kernels, no events");
    return plan;
}

} // namespace goblin
