#pragma once
/// \file Budgets of the profiled steps under one set of thresholds: arithmetic on the measured
/// slices fixed at load (docs/budget.md).

#include "steps.h"

#include <optional>

namespace goblin {

/// Step `index`'s budget under `thresholds`: the mean of its devices' measured budgets (the
/// seed's formulas on the step's inputs when it has no measured device). Arithmetic only.
WasteBudget stepBudget(const StepSeries &series, int index, const Thresholds &thresholds);

/// The run's measured budget: the mean of the budgets of the steps that count (not partial);
/// nullopt when the series has no measured step.
std::optional<WasteBudget> measuredRunBudget(const StepSeries &series, const Thresholds &thresholds);

} // namespace goblin
