#pragma once
/// \file The report's collectives: `collectives[]` (one row per collective and size, with its
/// bandwidths and the ranks' arrival skew and wait) and `collectives_summary` (how calls were
/// found and matched). Every number a {value, state, source} object; docs/collectives.md.

#include <QJsonObject>

namespace goblin {

struct RunAnalysis;
struct CollectiveAnalysis;

QJsonObject collectivesSummaryJson(const CollectiveAnalysis &analysis);
void addCollectivesToReport(QJsonObject &report, const RunAnalysis &run);

} // namespace goblin
