#pragma once
/// \file The report's `timeline` object (issue 13's JSON contract): one entry per trace file ×
/// device with what its GPU timeline measured, whole-trace and per profiled step.

#include "runanalysis.h"

#include <QJsonObject>

namespace goblin {

/// `{"devices": [...]}`: the kernel trace's timeline files first, then the torch trace's.
/// With `thresholds.steps` (--steps N), files without step marks are cut into N equal steps of
/// their kernel span (from the measured sets; no event is read again).
QJsonObject timelineJson(const RunAnalysis &run, const Thresholds &thresholds);

/// Adds `timeline` to a report built by buildReport(), and in the workbench profile brings the
/// step-time keys of `aggregates` in line with --steps N when the step time is the kernel span
/// cut into N steps (computeMetrics() does the same for the budget).
void addTimelineToReport(QJsonObject &report, const RunAnalysis &run, HeuristicsProfile profile,
                         const Thresholds &thresholds);

} // namespace goblin
