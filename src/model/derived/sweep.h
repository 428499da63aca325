#pragma once
/// \file Threshold sweep: each waste bucket as a function of one threshold
/// (`goblin-workbench sweep`). Every point is computeMetrics() at that value, the same
/// computation `report` does, so a point equals the report at that threshold.

#include "derived.h"
#include "sweeppoint.h"

#include <optional>
#include <vector>

namespace goblin {

std::optional<SweepThreshold> sweepThresholdFromName(const QString &name);  ///< "gpu-util-below", …
QString sweepThresholdName(SweepThreshold which);
void sweepThresholdRange(SweepThreshold which, double *minimum, double *maximum);  ///< the option's limits
void setSweepThreshold(Thresholds &thresholds, SweepThreshold which, double value);


/// The values from, from + by, … up to `to` (inclusive, within by × 1e-9), each computed as
/// from + i × by so no rounding accumulates. Empty when by <= 0, to < from or more than
/// `maxPoints` points would result.
std::vector<double> sweepValues(double from, double to, double by, int maxPoints = 100000);
/// The sweep curve Derived holds (and the window draws): the threshold's whole range in
/// kSweepCurveSteps steps.
inline constexpr int kSweepCurveSteps = 100;
std::vector<double> sweepCurveValues(SweepThreshold which);

/// The run's budget at each value (the report's budget at that threshold; the step plan is made
/// once, the sweep never cuts the span again).
std::vector<SweepPoint> sweepRun(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &base,
                                 SweepThreshold which, const std::vector<double> &values);

/// The threshold values at which a step's classification flips, sorted and distinct: data
/// values, so exactly known. GPU util below: the measured utilisation of each step and device
/// whose host is busier than the host line (the gate is "utilisation < util line and host busy
/// > host line"); host busy above: the host busy of each one under the util line; HBM target:
/// the HBM peak as a share of the capacity (memory headroom is zero at and above it). Steps left
/// out of the run's mean (partial) are left out. Without a GPU timeline the run's (and each
/// rank's) seed inputs.
/// `plan`: the step plan of `base` when the caller has it (Derived::plan; a drag must not cut the
/// span again), else made here.
std::vector<double> sweepBreakpoints(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &base,
                                     SweepThreshold which, const StepPlan *plan = nullptr);

/// Where a threshold's value lies among its switches (sweepBreakpoints(), sorted): the nearest
/// switch below and above it, and whether the run's budget is the same anywhere strictly between
/// them. `gatesOnly`: the threshold acts only through gates that flip at the switches (GPU util
/// below, host busy above), so the budget is flat between any two; false (HBM target): flat only
/// below the first switch, above it the headroom follows the line. No switches at all: flat
/// everywhere (the threshold moves nothing on this run). A value exactly at a switch is not flat.
struct ThresholdSpan {
    bool flat = false;
    std::optional<double> switchBelow;
    std::optional<double> switchAbove;
    /// `v` lies strictly between the switches around the value (no switch crossed from there).
    bool contains(double v) const
    {
        return (!switchBelow || v > *switchBelow) && (!switchAbove || v < *switchAbove);
    }
};
ThresholdSpan thresholdSpanAround(const std::vector<double> &sortedSwitches, double value, bool gatesOnly);

/// sweepRun() over `values` plus both sides (side −1, +1) of every switch inside [first, last
/// value]: at each breakpoint, and — for a switch no data value explains (a bucket capped at
/// another, e.g. the host gap emptied by memory headroom) — at the value bisection finds to the
/// last bit. A piecewise-constant bucket so draws as steps at the exact switch, never as a slope
/// between samples; the window's chart and `sweep` (JSON and PNG) read this one curve.
std::vector<SweepPoint> sweepCurve(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &base,
                                   SweepThreshold which, const std::vector<double> &values);

/// Where each bucket switches on (zero → above zero) or off, between consecutive points of a
/// sweepCurve(): the switch's value (a breakpoint when a data value explains it). On plain
/// sweepRun() points: the first sampled value at which the new state holds.
struct SwitchPoint {
    QString bucket;
    double value = 0.0;
    bool on = true;
};
std::vector<SwitchPoint> switchPoints(const std::vector<SweepPoint> &points);

/// The points of a curve at their own value (side 0): what `report` gives there.
std::vector<SweepPoint> sampledPoints(const std::vector<SweepPoint> &curve);

} // namespace goblin
