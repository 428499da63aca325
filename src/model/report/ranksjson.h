#pragma once
/// \file The report's `ranks` array and `rank_spread` object.

#include "derived.h"

#include <QJsonObject>

namespace goblin {

/// `ranks`: one object per rank (rank, file, step time, compute and exposed communication per
/// step, its seven-bucket budget, …); `rank_spread`: min / max of step time, compute and exposed
/// communication, and the straggler (the rank with the most compute per step), null without ranks. Both are the workbench's reading of the ranks, in either
/// profile (the reference profile's own budget stays the reference's).
void addRanksToReport(QJsonObject &report, const RunAnalysis &run, const Derived &derived);

/// Who the straggler is, in words (the report's `straggler_definition`, the Ranks tab).
QString stragglerDefinition();

} // namespace goblin
