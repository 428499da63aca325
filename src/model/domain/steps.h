#pragma once
/// \file The profiled steps of a run: each step's window, its inputs and measured slices (one per
/// device that ran it), and the outlier rule's verdict. Value types only; made once at load by
/// analysis/perstep.h, read by the per-threshold results (derived/). Definitions: docs/steps.md.

#include "heuristics.h"
#include "measuredbudget.h"

#include <QString>
#include <optional>
#include <vector>

namespace goblin {

/// One profiled step and the budget inputs measured inside its window.
struct StepInputs {
    QString name;              ///< "ProfilerStep#12" (as the trace names it)
    int index = 0;             ///< position in the run's step list, 0-based, by start time
    double startS = 0.0;       ///< from the start of the first profiled step
    double durationS = 0.0;    ///< the step window (mean over the ranks that have this step)
    BudgetInputs inputs;       ///< stepTimeS = durationS; utilisation, host busy and kernel sums of this step
    bool utilMeasured = false; ///< busy union of the step's GPU events (else the run's utilisation)
    bool hostBusyMeasured = false;  ///< CPU operators inside the step (else the run's host busy)
    /// Where the window panel shows this step: device index in TimelinePanel order (the kernel
    /// trace's devices, then the torch trace's) and step index of that device; -1 when none.
    int timelineDevice = -1;
    int timelineStep = -1;
    /// Each device (of each rank) that ran the step, as measured on its GPU timeline: the
    /// step's budget is the mean of their measured budgets (measuredbudget.h).
    std::vector<MeasuredSlice> slices;
    /// A last step shorter than a fifth of the others' mean: where the profiler stopped. Shown,
    /// but left out of the run's mean as it is out of the run's step time.
    bool partial = false;
    /// inputs.hbmPeakGb is the peak of telemetry samples placed inside this step (telemetrysteps.h),
    /// not the run's.
    bool hbmPlaced = false;
};

/// The outlier rule's numbers (threshold-independent, fixed at load).
struct StepOutlierRule {
    static constexpr double kMadScale = 1.4826;  ///< scaled MAD: a normal distribution's sigma
    static constexpr double kMadCount = 3.0;     ///< median + 3 × scaled MAD
    /// Floor of the spread as a share of the median: when more than half the steps last exactly
    /// as long (MAD = 0, synthetic or equal-cut steps), a step 1 ns longer is no outlier.
    static constexpr double kMinSpreadOfMedian = 0.02;
    double medianS = 0.0;
    double madS = 0.0;       ///< raw median absolute deviation
    double spreadS = 0.0;    ///< max(kMadScale × MAD, kMinSpreadOfMedian × median)
    double limitS = 0.0;     ///< medianS + kMadCount × spreadS; a step longer than this is an outlier
    bool floorUsed = false;  ///< the spread is the floor (MAD too small)
};

/// Every profiled step of a run (workbench reading) with its outlier verdict.
struct StepSeries {
    std::vector<StepInputs> steps;
    std::vector<bool> outlier;         ///< parallel to steps
    std::vector<QString> outlierReason; ///< parallel to steps; empty for steps that are no outlier
    StepOutlierRule rule;
    QString source;  ///< where windows and inputs came from, or why there are no steps

    std::optional<double> hbmPeakGb;  ///< the run's, for steps telemetry could not be placed on
    bool fromTorchTimeline = false;   ///< the windows and slices are the torch traces' (else the kernel trace's)
    /// The HBM peak a step's measured budget uses: its own samples' where they were placed on it.
    std::optional<double> hbmPeakGbOf(const StepInputs &step) const
    {
        return step.hbmPlaced ? step.inputs.hbmPeakGb : hbmPeakGb;
    }
    bool measured() const { return !steps.empty() && !steps.front().slices.empty(); }
    bool empty() const { return steps.empty(); }
    int size() const { return int(steps.size()); }
};

} // namespace goblin
