#pragma once
/// \file Threshold sweep: each waste bucket as a function of one threshold
/// (`goblin-workbench sweep`). Every point is computeMetrics() at that value, the same
/// computation `report` does, so a point equals the report at that threshold.

#include "derived.h"

#include <optional>
#include <vector>

namespace goblin {

enum class SweepThreshold { GpuUtilBelow, HostBusyAbove, HbmTarget };
std::optional<SweepThreshold> sweepThresholdFromName(const QString &name);  ///< "gpu-util-below", …
QString sweepThresholdName(SweepThreshold which);
void sweepThresholdRange(SweepThreshold which, double *minimum, double *maximum);  ///< the option's limits
void setSweepThreshold(Thresholds &thresholds, SweepThreshold which, double value);

struct SweepPoint {
    double value = 0.0;
    WasteBudget budget;
    HeuristicsProfile profile = HeuristicsProfile::Workbench;
};

/// The values from, from + by, … up to `to` (inclusive, within by × 1e-9), each computed as
/// from + i × by so no rounding accumulates. Empty when by <= 0, to < from or more than
/// `maxPoints` points would result.
std::vector<double> sweepValues(double from, double to, double by, int maxPoints = 100000);

/// The run's budget at each value (the report's budget at that threshold; the step plan is made
/// once, the sweep never cuts the span again).
std::vector<SweepPoint> sweepRun(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &base,
                                 SweepThreshold which, const std::vector<double> &values);

/// Where each bucket switches on (zero → above zero) or off, between consecutive points: the
/// first value at which the new state holds.
struct SwitchPoint {
    QString bucket;
    double value = 0.0;
    bool on = true;
};
std::vector<SwitchPoint> switchPoints(const std::vector<SweepPoint> &points);

} // namespace goblin
