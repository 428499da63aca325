#pragma once
/// \file Each rank's budget and the spread over the ranks under one set of thresholds:
/// arithmetic on the per-rank inputs fixed at load (analysis/ranks.h).

#include "ranks.h"

namespace goblin {

/// Per-rank budgets, step times and exposed communication under `thresholds` (arithmetic only).
std::vector<RankResult> rankResults(const RankSet &set, const Thresholds &thresholds);

/// The mean of the ranks' budgets, bucket by bucket (terms: the mean of each operand; a gate
/// shared by all ranks, else Counted). nullopt unless `set.budgetIsMean`.
std::optional<WasteBudget> meanRankBudget(const RankSet &set, const Thresholds &thresholds);

/// Min / max / straggler of step time and exposed communication; nullopt without ranks.
std::optional<RankSpread> rankSpread(const std::vector<RankResult> &results);

} // namespace goblin
