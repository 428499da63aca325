#pragma once
/// \file The seed's budget of a profile under one set of thresholds: its formulas on the inputs
/// fixed at load (used where no GPU timeline covers the steps, and by the reference profile), and
/// the step time --steps N gives when it cuts the kernel span.

#include "run.h"

namespace goblin {

/// The step time one set of thresholds gives: the profile's own, or with --steps N (and a
/// kernel span to cut, workbench only) span / N with the per-step sums that follow.
struct StepTimeChoice {
    bool fromSteps = false;  ///< --steps N applied
    double stepTimeS = 0.0;
    QString source;
    double stepsCovered = 0.0;
    double perStepPerGpuDivisor = 1.0;
    double commExcessS = 0.0;
};
StepTimeChoice stepTimeFor(const ProfileAnalysis &analysis, const Thresholds &thresholds);

/// Budget and step label for one set of thresholds: the live recompute.
RunMetrics computeMetrics(const ProfileAnalysis &analysis, const Thresholds &thresholds);

} // namespace goblin
