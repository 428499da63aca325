#pragma once
/// \file Human-readable explanations of the waste budget: each bucket's formula with the live
/// numbers plugged in (tooltips, the budget table, the exported image) and a one-line verdict.

#include "derived.h"
#include "heuristics.h"

#include <QString>

namespace goblin {

/// The formula of row `index` (0..6 a bucket, kUnattributedRow, kStepTimeRow) printed from the
/// terms computeWasteBudget() recorded in `budget` (it evaluates no gate itself), e.g.
/// "step × (1 − util) × (1 − host busy) = 0.512 s × (1 − 0.452) × (1 − 0.230) = 0.216 s".
/// The numbers are rounded for reading, the result is `budget`'s. `profile` names the step row
/// and the collective bucket's meaning.
QString bucketFormula(int index, const WasteBudget &budget, HeuristicsProfile profile);

/// One sentence naming the largest waste bucket and the useful share of the step; says when there
/// is no budget, and never calls a budget with unknown buckets "no waste".
QString budgetVerdict(const WasteBudget &budget, double stepTimeS);

/// The run's caveat (graph replay not recorded…), then budgetVerdict() of its budget: the
/// headline every view and export shows.
QString runVerdict(const Derived &derived);

/// Where row `index`'s number came from, in a short phrase (the report's `source`, the mark's
/// tooltip): "measured: GPU idle inside data-loading ranges + host-to-device copies".
QString bucketSource(int index, const WasteBudget &budget, HeuristicsProfile profile);

/// What row `index` measures in `profile` (measured = the budget built on the GPU timeline),
/// for the report's `budget_definitions` and the "?" help.
QString bucketDefinition(int index, HeuristicsProfile profile, bool measured);

/// A bucket's value for reading: "—" when its state is unknown, else the seconds.
QString formatBucketSeconds(const WasteBudget &budget, int row);

} // namespace goblin
