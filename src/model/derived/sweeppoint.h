#pragma once
/// \file The threshold a sweep runs along and one point of its curve (sweep.h computes them;
/// Derived holds the curve the window shows).

#include "heuristics.h"

namespace goblin {

enum class SweepThreshold { GpuUtilBelow, HostBusyAbove, HbmTarget };

struct SweepPoint {
    double value = 0.0;
    WasteBudget budget;
    HeuristicsProfile profile = HeuristicsProfile::Workbench;
    /// 0: the budget at `value` (what `report` gives there). -1 / +1: a side of a switch at
    /// `value` — the budget just below / just above it; drawn as the two ends of a vertical step.
    int side = 0;
};

} // namespace goblin
