#pragma once
/// \file How the GPU timelines enter the workbench analysis: the kernel list of trace-only
/// folders, and utilisation from the busy union when there is no telemetry. The reference profile never reads any of this.

#include "runanalysis.h"

#include <optional>

namespace goblin {

/// Analyses both timelines once, puts the torch trace's kernels in place of an empty kernel
/// trace (workbench reading only), cross-checks the two when both have kernels, and appends the
/// diagnostics. Called by analyzeRun() after the parsers' diagnostics are collected.
void prepareTimelines(RunAnalysis &run);

/// The timeline whose kernels are the workbench's kernel list (the kernel trace's when it has
/// kernels, else the torch trace's); nullptr when neither has kernels.
const TimelineAnalysis *kernelSourceTimeline(const RunAnalysis &run);

struct TimelineUtilisation {
    double pct = 0.0;
    QString source;
    QString file;
};

/// Busy union of all GPU events over the step windows / the windows' length, mean over the
/// devices with kernels of the kernel-source timeline; nullopt without one.
std::optional<TimelineUtilisation> timelineUtilisation(const RunAnalysis &run);

} // namespace goblin
