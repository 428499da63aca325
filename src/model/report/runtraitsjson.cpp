#include "runtraitsjson.h"

#include <QJsonArray>

namespace goblin {

void addRunTraitsToReport(QJsonObject &report, const RunTraitsAnalysis &traits)
{
    report.insert(QStringLiteral("run_kind"), runKindName(traits.runKind.kind));
    report.insert(QStringLiteral("run_kind_reason"), traits.runKind.reason);
    const GraphSummary &g = traits.graphs;
    QJsonObject graphs;
    graphs.insert(QStringLiteral("launches"), g.launches);
    graphs.insert(QStringLiteral("captures"), g.captures);
    graphs.insert(QStringLiteral("replays_recorded_fraction"),
                  g.replaysRecordedFraction ? QJsonValue(*g.replaysRecordedFraction) : QJsonValue(QJsonValue::Null));
    graphs.insert(QStringLiteral("diagnostic"), g.headline.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(g.headline));
    graphs.insert(QStringLiteral("launches_with_gpu_events"), g.launchesWithGpuEvents);
    graphs.insert(QStringLiteral("gpu_events_in_graphs"), g.gpuEventsInGraphs);
    graphs.insert(QStringLiteral("partly_recorded_launches"), g.partlyRecordedLaunches);
    graphs.insert(QStringLiteral("replay_idle_unmeasured"), g.replayIdleUnmeasured);
    graphs.insert(QStringLiteral("launch_call"), g.launchName.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(g.launchName));
    graphs.insert(QStringLiteral("vendor"), traits.vendor.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(traits.vendor));
    report.insert(QStringLiteral("graphs"), graphs);
    const TimelineChecks &c = traits.checks;
    QJsonObject checks;
    checks.insert(QStringLiteral("overlapping_kernels_on_one_stream"), c.overlappingKernelsOnOneStream);
    checks.insert(QStringLiteral("gpu_events_outside_steps"), c.gpuEventsOutsideSteps);
    checks.insert(QStringLiteral("gpu_time_outside_steps_s"), double(c.gpuTimeOutsideStepsNs) / 1e9);
    report.insert(QStringLiteral("timeline_checks"), checks);
}

void addRunTraitsToReport(QJsonObject &report, const RunAnalysis &run)
{
    addRunTraitsToReport(report, run.traits);
    const ProgramFacts &p = run.facts.program;
    report.insert(QStringLiteral("run_kind"), programKindName(p.kind));
    report.insert(QStringLiteral("run_kind_reason"), p.reason);

    const auto orNull = [](const QString &s) { return s.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(s); };
    QJsonObject facts = report.value(QStringLiteral("facts")).toObject();
    QJsonArray devices;
    for (const DeviceFact &d : run.facts.devices.devices)
        devices.append(QJsonObject{
            {QStringLiteral("name"), deviceDisplayName(d.gpu, d.traceDevice)},
            {QStringLiteral("trace_device"), d.traceDevice},
            {QStringLiteral("file"), orNull(d.file)},
            {QStringLiteral("model"), orNull(d.model)},
            {QStringLiteral("memory_gb"), d.memoryGb ? QJsonValue(*d.memoryGb) : QJsonValue(QJsonValue::Null)},
            {QStringLiteral("memory_state"), valueStateName(d.memoryState)},
            {QStringLiteral("memory_source"), d.memorySource},
            {QStringLiteral("shared_memory"), d.sharedMemory},
        });
    facts.insert(QStringLiteral("devices"), devices);
    const DeviceFacts &dev = run.facts.devices;
    facts.insert(QStringLiteral("capacity"),
                 QJsonObject{{QStringLiteral("gb"), dev.capacityGb},
                             {QStringLiteral("state"), valueStateName(dev.capacityState)},
                             {QStringLiteral("source"), dev.capacitySource},
                             {QStringLiteral("from_run"), dev.capacityFromRun},
                             {QStringLiteral("shared_memory"), dev.sharedMemory}});
    facts.insert(QStringLiteral("program"),
                 QJsonObject{{QStringLiteral("kind"), programKindName(p.kind)},
                             {QStringLiteral("state"), valueStateName(p.state)},
                             {QStringLiteral("reason"), p.reason},
                             {QStringLiteral("program"), orNull(p.program)},
                             {QStringLiteral("pytorch"), p.pytorch},
                             {QStringLiteral("data_loading_ops"), double(p.dataLoaderOps)},
                             {QStringLiteral("profiler_ranges"), double(p.profilerRanges)},
                             {QStringLiteral("distinct_kernels"), p.distinctKernels}});
    report.insert(QStringLiteral("facts"), facts);
}

void addSeparateRunsToReport(QJsonObject &report, const RunAnalysis &run)
{
    QJsonArray separate;
    for (const SeparateRun &s : run.facts.job.separate) {
        QJsonObject o{{QStringLiteral("file"), s.file}, {QStringLiteral("reason"), s.reason}};
        if (s.rank)
            o.insert(QStringLiteral("rank"), *s.rank);
        if (!s.device.isEmpty())
            o.insert(QStringLiteral("device"), s.device);
        separate.append(o);
    }
    report.insert(QStringLiteral("separate_runs"), separate);
}

} // namespace goblin
