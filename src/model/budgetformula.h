#pragma once
/// \file Human-readable explanations of the waste budget: each bucket's formula with the live
/// numbers plugged in (tooltips, the budget table, the exported image) and a one-line verdict.

#include "heuristics.h"

#include <QString>

namespace goblin {

/// Row index of the step-time total after the seven buckets in tables and charts.
inline constexpr int kStepTimeRow = WasteBudget::BucketCount;

/// The formula of bucket `index` (0..6, WasteBudget order; kStepTimeRow for the step time) with
/// the values of `inputs` and `thresholds` substituted and the result, e.g.
/// "step × (1 − util) × (1 − host busy) = 0.512 s × (1 − 0.452) × (1 − 0.230) = 0.216 s".
/// Mirrors computeWasteBudget(); the numbers are rounded for reading, the result is `budget`'s.
QString bucketFormula(int index, const BudgetInputs &inputs, const Thresholds &thresholds,
                      const WasteBudget &budget, HeuristicsProfile profile);

/// One sentence naming the largest waste bucket and the useful share of the step.
QString budgetVerdict(const WasteBudget &budget, double stepTimeS);

} // namespace goblin
