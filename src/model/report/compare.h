#pragma once
/// \file Runs side by side under one set of thresholds: bucket and top-kernel deltas against a
/// baseline (`goblin-workbench compare`), and one summary row per run (`goblin-workbench table`).
/// Everything is computed from the runs' own reports, so a delta is exactly the difference of
/// the two `report`s.

#include "csvexport.h"  // csvLine(): how the table's rows are written
#include "runanalysis.h"

#include <QHash>
#include <QJsonObject>
#include <QStringList>
#include <vector>

namespace goblin {

/// Kernel seconds per step (per GPU in the workbench profile: total time / the profile's
/// per-step-per-GPU divisor) for each of `names`; 0 for a name the run never launched.
QHash<QString, double> kernelSecondsPerStep(const RunAnalysis &run, HeuristicsProfile profile,
                                            const QStringList &names);

/// Names in a report's metrics.top_kernels, in order.
QStringList topKernelNames(const QJsonObject &report);

/// {"waste_budget": {bucket: other − baseline}, "share_of_step": {bucket: …}, "step_time_seconds",
///  "kernels": [{"name", "baseline_s_per_step", "other_s_per_step", "delta_s_per_step", "change"}]}.
/// `change` is new, gone, faster, slower or same; kernels are the union of both top-kernel
/// lists, largest |delta| first. A bucket that is null or unknown (`budget.buckets.<name>.state`)
/// in either report has a null delta.
QJsonObject compareDelta(const QJsonObject &baseline, const QJsonObject &other,
                         const QHash<QString, double> &baselineKernels, const QHash<QString, double> &otherKernels,
                         int otherIndex);

/// The whole `compare --json` object: {"runs", "baseline", "delta"} for two runs, {"runs",
/// "baseline", "deltas"} for more; `command` is added when not empty.
QJsonObject compareRuns(const std::vector<const RunAnalysis *> &runs, HeuristicsProfile profile,
                        const Thresholds &thresholds, int baseline, const QStringList &command);

/// `table` columns and one row per report: the seven buckets and unattributed_s (s/step), GPU
/// utilisation and step time (the report's `quantities`), top kernel, diagnostics count. An
/// unknown value is "—", never 0 or an empty cell. Written with csvLine() (no formula cells).
QStringList tableHeader();
QStringList tableRow(const QJsonObject &report);

} // namespace goblin
