#pragma once
/// \file The report's `per_step` array (a JSON contract) and `per_step_source`.

#include "derived.h"

#include <QJsonArray>
#include <QJsonObject>

namespace goblin {

/// One object per profiled step: name, index, start_s, duration_s, waste_budget (the seven keys
/// and unattributed_s, as the run's), outlier, outlier_reason; plus the step's own gpu_util_pct
/// and host_busy_fraction. Empty in the reference profile (the reference reads no step windows).
QJsonArray perStepJson(const Derived &derived);

/// Adds `per_step` and `per_step_source` to a report built by buildReport().
void addPerStepToReport(QJsonObject &report, const RunAnalysis &run, const Derived &derived);

} // namespace goblin
