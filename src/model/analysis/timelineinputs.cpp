#include "timelineinputs.h"

#include "clockalignment.h"
#include "kernelsfromtimeline.h"
#include "timelinecrosscheck.h"

namespace goblin {

namespace {

QString firstFileOf(const GpuTimeline &timeline)
{
    return timeline.files.empty() ? QString() : timeline.files.front().file;
}

} // namespace

const TimelineAnalysis *kernelSourceTimeline(const RunAnalysis &run)
{
    if (run.kernels.workbench.rowsUsed > 0 && !run.kernelsFromTorchTimeline)
        return run.kernelTimeline.hasKernels() ? &run.kernelTimeline : nullptr;
    if (run.kernelTimeline.hasKernels())
        return &run.kernelTimeline;
    return run.torchTimeline.hasKernels() ? &run.torchTimeline : nullptr;
}

void prepareTimelines(RunAnalysis &run)
{
    if (!run.kernelTimelineMeasured)
        run.kernelTimeline = analyzeTimeline(run.kernels.timeline);
    if (!run.torchTimelineMeasured)
        run.torchTimeline = analyzeTimeline(run.torch.timeline);
    for (const TimelineAnalysis *a : {&run.kernelTimeline, &run.torchTimeline})
        run.diagnostics.insert(run.diagnostics.end(), a->problems.begin(), a->problems.end());

    // Trace-only folder: the torch trace's kernel events become the workbench's kernel list.
    // Only when neither reading of the kernel trace used a row, so the reference (which shares
    // the names) keeps reading nothing.
    const bool noKernelTrace = run.kernels.workbench.rowsUsed == 0 && run.kernels.reference.rowsUsed == 0;
    if (!run.kernelsFromTorchTimeline && noKernelTrace && run.torchTimeline.hasKernels()) {
        TimelineKernelList list = kernelsFromTimeline(run.torch.timeline);
        if (list.reading.rowsUsed > 0) {
            run.kernels.names = std::move(list.names);
            run.kernels.workbench = std::move(list.reading);
            run.kernelsFromTorchTimeline = true;
        }
    }
    if (run.kernelsFromTorchTimeline) {
        const KernelReading &kr = run.kernels.workbench;
        run.diagnostics.push_back(
            {Severity::Info, firstFileOf(run.torch.timeline), 0,
             QStringLiteral("no kernel trace with kernels: the kernel list is the torch trace's own GPU kernel events "
                            "(%1 kernels, %2 names, %3 device(s)%4); the reference reads no kernels here")
                 .arg(kr.rowsUsed)
                 .arg(run.kernels.names.size())
                 .arg(kr.agentCount)
                 .arg(kr.rowsSkippedNonPositive > 0
                          ? QStringLiteral(", %1 zero-length kernel(s) left out of the kernel sums")
                                .arg(kr.rowsSkippedNonPositive)
                          : QString())});
    }

    if (run.kernelTimeline.hasKernels() && run.torchTimeline.hasKernels()) {
        // One clock: the kernel trace's devices get the torch trace's steps (re-measured on them).
        run.clockAlignment = alignClocks(run.kernels.timeline, run.torch.timeline);
        if (run.clockAlignment.attempted)
            run.diagnostics.push_back({Severity::Info,
                                       run.clockAlignment.aligned ? run.clockAlignment.kernelTraceFile
                                                                  : firstFileOf(run.kernels.timeline),
                                       0, QStringLiteral("clock alignment: %1").arg(run.clockAlignment.reason)});
        if (giveAlignedSteps(run.kernels.timeline, run.torch.timeline, run.clockAlignment))
            run.kernelTimeline = analyzeTimeline(run.kernels.timeline);
    }
    if (run.kernelTimeline.hasKernels() && run.torchTimeline.hasKernels()) {
        const QString kernelName = firstFileOf(run.kernels.timeline);
        const TimelineCrossCheck check =
            crossCheckTimelines({run.kernels.timeline, run.kernelTimeline, kernelName},
                                {run.torch.timeline, run.torchTimeline, firstFileOf(run.torch.timeline)});
        run.diagnostics.insert(run.diagnostics.end(), check.diagnostics.begin(), check.diagnostics.end());
    }
}

std::optional<TimelineUtilisation> timelineUtilisation(const RunAnalysis &run)
{
    const TimelineAnalysis *a = kernelSourceTimeline(run);
    if (!a)
        return std::nullopt;
    // A kernel trace without step marks of its own (its clock is not the torch trace's) would be
    // measured over its whole span, warm-up and tail included: the kernel time over the torch
    // trace's steps is closer then (tst_workbenchtruth, comm-heavy: 62 % against 93 % true). With
    // no torch step time the span is the step the budget measures.
    if (a == &run.kernelTimeline && !a->devices.empty() &&
        a->devices.front().stepsKind == TimelineStepsKind::WholeSpan && run.kernels.workbench.rowsUsed > 0 &&
        run.torch.workbench.stepTimeSeconds)
        return std::nullopt;
    double sum = 0.0;
    int devices = 0;
    qint64 steps = 0;
    for (const DeviceTimelineAnalysis &d : a->devices) {
        if (d.kernels == 0)
            continue;
        qint64 busy = 0, window = 0;
        for (const TimelineStepValues &v : d.perStep) {
            busy += v.busyNs;
            window += v.windowNs;
        }
        if (window <= 0)
            continue;
        sum += double(busy) / double(window);
        steps = std::max<qint64>(steps, qint64(d.perStep.size()));
        ++devices;
    }
    if (devices == 0)
        return std::nullopt;
    TimelineUtilisation u;
    u.pct = std::min(100.0, sum / devices * 100.0);
    u.file = a->devices.front().file;
    const DeviceTimelineAnalysis &first = a->devices.front();
    u.source = QStringLiteral("GPU timeline of %1: busy union of all GPU events (all streams) over %2 step window(s) "
                              "(%3) / their length, mean of %4 device(s) (no utilisation telemetry)")
                   .arg(first.source)
                   .arg(steps)
                   .arg(timelineStepsKindName(first.stepsKind))
                   .arg(devices);
    return u;
}

} // namespace goblin
