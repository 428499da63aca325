#pragma once
/// \file The report's keys on where the primary torch trace's GPU time was launched from
/// (traceattribution.h, docs/attribution.md): `ops`, `attribution` and `modules`, whole trace.

#include "run.h"
#include "results/traceattribution.h"

#include <QJsonObject>

namespace goblin {

/// `ops`: one object per op name (and input shapes where recorded) with `name`, `input_shapes`
/// (null when not recorded), `calls`, `host_self_s`, `host_total_s`, `device_self_s`,
/// `device_total_s`, `kernels`, and `kind: "runtime_call"` for a launching runtime call outside
/// every op; `attribution`: `gpu_time_s`, `attributed_s`, `outside_ops_s` (of it, launched outside
/// every op), `ranges_placed_beside`, `unattributed_s`, `unattributed_by_reason`
/// {no_runtime_event, graph_replay_without_correlation}, `link_method`; `modules`: the nn.Module / record_function tree, each node
/// `name`, `kind`, `calls`, `host_s`, `device_s`, `children`. Without a trace to attribute: `ops`
/// empty, `attribution` and `modules` null.
void addAttributionToReport(QJsonObject &report, const TraceAttribution &attribution);

/// The same for a run (its primary torch trace).
inline void addAttributionToReport(QJsonObject &report, const RunAnalysis &run)
{
    addAttributionToReport(report, run.torch.attribution);
}

} // namespace goblin
