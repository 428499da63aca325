#pragma once
/// \file The budget of each profiled step (issue 14, item 1): every step's own inputs, aggregated
/// once at load, and the robust outlier rule on step durations. A threshold change is then the
/// seven formulas per step, nothing more. Definitions: docs/steps.md.

#include "steps.h"

#include <QString>
#include <optional>
#include <vector>

namespace goblin {

struct RunAnalysis;

/// Aggregates each step's inputs from the run's GPU timelines (one pass over the events of the
/// step-marked trace). Called once by analyzeRun() after both profiles are analysed.
StepSeries analyzeSteps(const RunAnalysis &run);

/// The kernel-source timeline's kernel span (per file) cut into `n` equal windows, each with the
/// same per-step inputs as marked steps. One pass over the events: done when N changes, never on a
/// threshold change. Equal windows give no outliers (their durations differ by at most 1 ns).
StepSeries cutSteps(const RunAnalysis &run, int n);

/// The outlier rule on `durationsS` (median + 3 × scaled MAD, with the floor), and for each step
/// whether it is beyond it and the reason with the numbers. Needs at least 3 steps to flag any.
void flagOutliers(StepSeries &series);

/// Is the last of these step durations where the profiler stopped (shorter than a fifth of the
/// others' mean)? The one rule for a partial last step (the torch reading applies it too).
bool lastStepIsPartial(const std::vector<double> &durations);

} // namespace goblin
