#pragma once
/// \file The report's `timeline` object (a JSON contract): one entry per trace file ×
/// device with what its GPU timeline measured, whole-trace and per profiled step.

#include "derived.h"

#include <QJsonObject>

namespace goblin {

/// `{"devices": [...]}`: the kernel trace's timeline files first, then the torch trace's.
/// `cut` (Derived::timelineCut; null: none) gives devices without step marks the plan's N equal
/// steps of their kernel span.
QJsonObject timelineJson(const RunAnalysis &run, const TimelineCut *cut);

/// Adds `timeline` to a report built by buildReport(), and in the workbench profile brings the
/// step-time keys of `aggregates` in line with --steps N when the step time is the kernel span
/// cut into N steps.
void addTimelineToReport(QJsonObject &report, const RunAnalysis &run, const Derived &derived);

} // namespace goblin
