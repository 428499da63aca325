#pragma once
/// \file The budget of each profiled step: every step's own inputs, aggregated
/// once at load, and the robust outlier rule on step durations. A threshold change is then the
/// seven formulas per step, nothing more. Definitions: docs/steps.md.

#include "steps.h"

#include <QString>
#include <optional>
#include <vector>

namespace goblin {

struct RunAnalysis;
struct GpuTimeline;
struct GpuTimelineFile;
struct StepWindow;

/// The step marks of one file, as the step plan takes them: its CPU-lane windows (ProfilerStep#N,
/// a marker trace's step ranges, the Optimizer.step cut), else its GPU-lane annotations; by start.
/// `gpuLane` says which.
std::vector<const StepWindow *> stepMarks(const GpuTimelineFile &file, bool *gpuLane);

/// The step names of a file's marks: the trace's own, numbered "name (k)" when a name repeats in
/// the file: windows of one name in one trace are separate steps; a name matches steps only
/// across files (ranks).
std::vector<QString> stepNames(const std::vector<const StepWindow *> &marks);

/// The steps of a timeline's marks, as analyzeSteps() lists them: one per name across the files,
/// its duration the mean of its windows; in the order of the first file that has each, by start.
struct MarkedSteps {
    std::vector<QString> names;
    std::vector<double> durationsS;
    int filesUsed = 0;
    bool anyGpuLane = false;
    /// The mean of the durations, a partial last step (lastStepIsPartial) left out; 0 without steps.
    double meanStepS() const;
};
MarkedSteps markedSteps(const GpuTimeline &timeline);

/// Has any file of the timeline a step mark?
bool timelineHasMarks(const GpuTimeline &timeline);

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
