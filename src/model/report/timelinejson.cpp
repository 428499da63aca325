#include "timelinejson.h"

#include "metrics.h"
#include "timelineanalysis.h"

#include <QJsonArray>
#include <cmath>

namespace goblin {

namespace {

double seconds(qint64 ns) { return double(ns) / 1e9; }

QJsonValue finite(double v) { return std::isfinite(v) ? QJsonValue(v) : QJsonValue(QJsonValue::Null); }

QJsonObject deviceJson(const DeviceTimelineAnalysis &d, const TimelineDeviceCut *recut)
{
    const std::vector<TimelineStepValues> *steps = &d.perStep;
    QString stepsSource = timelineStepsKindName(d.stepsKind);
    if (recut) {
        steps = &recut->steps;
        stepsSource = timelineStepsKindName(TimelineStepsKind::EqualSplit);
    }
    auto mean = [&](qint64 TimelineStepValues::*member) {
        if (steps->empty())
            return 0.0;
        qint64 sum = 0;
        for (const TimelineStepValues &v : *steps)
            sum += v.*member;
        return seconds(sum) / double(steps->size());
    };

    QJsonArray top;
    for (const TimelineKernelStat &k : d.topKernels)
        top.append(QJsonObject{{QStringLiteral("name"), k.name},
                               {QStringLiteral("calls"), double(k.calls)},
                               {QStringLiteral("total_s"), seconds(k.totalNs)},
                               {QStringLiteral("share"),
                                d.kernelTimeNs > 0 ? double(k.totalNs) / double(d.kernelTimeNs) : 0.0}});
    QJsonArray perStep;
    for (const TimelineStepValues &v : *steps)
        perStep.append(QJsonObject{{QStringLiteral("window_s"), seconds(v.windowNs)},
                                   {QStringLiteral("busy_s"), seconds(v.busyNs)},
                                   {QStringLiteral("compute_s"), seconds(v.computeNs)},
                                   {QStringLiteral("comm_s"), seconds(v.commNs)},
                                   {QStringLiteral("exposed_comm_s"), seconds(v.exposedCommNs)},
                                   {QStringLiteral("memcpy_s"), seconds(v.memcpyNs)},
                                   {QStringLiteral("idle_s"), seconds(v.idleNs)},
                                   {QStringLiteral("idle_host_busy_s"), seconds(v.idleHostBusyNs)},
                                   {QStringLiteral("idle_nothing_s"), seconds(v.idleNothingNs)},
                                   {QStringLiteral("idle_data_loading_s"), seconds(v.idleDataLoadingNs)},
                                   {QStringLiteral("copy_only_s"), seconds(v.copyOnlyNs)},
                                   {QStringLiteral("h2d_copy_only_s"), seconds(v.h2dCopyOnlyNs)}});

    return QJsonObject{
        {QStringLiteral("source"), d.source},
        {QStringLiteral("file"), d.file},
        {QStringLiteral("rank"), d.rank ? QJsonValue(*d.rank) : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("device"), double(d.device)},
        {QStringLiteral("kernels"), double(d.kernels)},
        {QStringLiteral("comm_kernels"), double(d.commKernels)},
        {QStringLiteral("memcpy"), double(d.memcpy)},
        {QStringLiteral("memset"), double(d.memset)},
        {QStringLiteral("span_s"), seconds(d.spanNs())},
        {QStringLiteral("kernel_time_s"), seconds(d.kernelTimeNs)},
        {QStringLiteral("busy_s"), seconds(d.busyNs)},
        {QStringLiteral("compute_s"), seconds(d.computeNs)},
        {QStringLiteral("comm_s"), seconds(d.commNs)},
        {QStringLiteral("exposed_comm_s"), seconds(d.exposedCommNs)},
        {QStringLiteral("memcpy_s"), seconds(d.memcpyNs)},
        {QStringLiteral("top_kernels"), top},
        {QStringLiteral("steps"), double(steps->size())},
        {QStringLiteral("steps_source"), stepsSource},
        {QStringLiteral("busy_s_per_step"), mean(&TimelineStepValues::busyNs)},
        {QStringLiteral("compute_s_per_step"), mean(&TimelineStepValues::computeNs)},
        {QStringLiteral("comm_s_per_step"), mean(&TimelineStepValues::commNs)},
        {QStringLiteral("exposed_comm_s_per_step"), mean(&TimelineStepValues::exposedCommNs)},
        {QStringLiteral("memcpy_s_per_step"), mean(&TimelineStepValues::memcpyNs)},
        {QStringLiteral("idle_s_per_step"), mean(&TimelineStepValues::idleNs)},
        {QStringLiteral("idle_host_busy_s_per_step"), mean(&TimelineStepValues::idleHostBusyNs)},
        {QStringLiteral("idle_nothing_s_per_step"), mean(&TimelineStepValues::idleNothingNs)},
        {QStringLiteral("idle_data_loading_s_per_step"), mean(&TimelineStepValues::idleDataLoadingNs)},
        {QStringLiteral("copy_only_s_per_step"), mean(&TimelineStepValues::copyOnlyNs)},
        {QStringLiteral("h2d_copy_only_s_per_step"), mean(&TimelineStepValues::h2dCopyOnlyNs)},
        {QStringLiteral("per_step"), perStep},
    };
}

void appendDevices(QJsonArray &out, const TimelineAnalysis &analysis, bool torchTrace, const TimelineCut *cut)
{
    for (std::size_t i = 0; i < analysis.devices.size(); ++i)
        out.append(deviceJson(analysis.devices[i], cut ? cut->device(torchTrace, i) : nullptr));
}

QJsonValue clockAlignmentJson(const ClockAlignment &a)
{
    if (!a.attempted)
        return QJsonValue::Null;
    QJsonObject o{{QStringLiteral("aligned"), a.aligned}, {QStringLiteral("reason"), a.reason}};
    if (!a.aligned)
        return o;
    o.insert(QStringLiteral("offset_ns"), double(a.offsetNs));
    o.insert(QStringLiteral("offset_s"), double(a.offsetNs) / 1e9);
    o.insert(QStringLiteral("matched_kernels"), double(a.matchedKernels));
    o.insert(QStringLiteral("torch_kernels"), double(a.torchKernels));
    o.insert(QStringLiteral("residual_max_us"), a.residualMaxNs / 1e3);
    o.insert(QStringLiteral("residual_rms_us"), a.residualRmsNs / 1e3);
    o.insert(QStringLiteral("drift_us_per_s"), a.driftNsPerS / 1e3);
    o.insert(QStringLiteral("kernel_trace_file"), a.kernelTraceFile);
    o.insert(QStringLiteral("kernel_trace_device"), double(a.kernelTraceDevice));
    o.insert(QStringLiteral("torch_device"), double(a.torchDevice));
    return o;
}

} // namespace

QJsonObject timelineJson(const RunAnalysis &run, const TimelineCut *cut)
{
    QJsonArray devices;
    appendDevices(devices, run.kernelTimeline, false, cut);
    appendDevices(devices, run.torchTimeline, true, cut);
    // kernel trace ns = torch trace ns + offset_ns (null: not both traces with kernels).
    return QJsonObject{{QStringLiteral("devices"), devices},
                       {QStringLiteral("clock_alignment"), clockAlignmentJson(run.clockAlignment)}};
}

void addTimelineToReport(QJsonObject &report, const RunAnalysis &run, const Derived &derived)
{
    report.insert(QStringLiteral("timeline"), timelineJson(run, derived.timelineCut.get()));
    const StepTimeChoice step = stepTimeFor(run.profile(derived.profile), derived.thresholds);
    if (!step.fromSteps)
        return;
    // The step time itself is the budget's (report.cpp): the cut's per-step sums follow it here.
    QJsonObject aggregates = report.value(QStringLiteral("aggregates")).toObject();
    aggregates.insert(QStringLiteral("trace_steps_covered"), finite(step.stepsCovered));
    aggregates.insert(QStringLiteral("per_step_per_gpu_divisor"), finite(step.perStepPerGpuDivisor));
    aggregates.insert(QStringLiteral("comm_excess_seconds"), finite(step.commExcessS));
    report.insert(QStringLiteral("aggregates"), aggregates);
}

} // namespace goblin
