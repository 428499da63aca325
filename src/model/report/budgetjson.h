#pragma once
/// \file A budget as JSON: the seed schema's seven keys (seconds per step) with `unattributed_s`,
/// and the report's `budget` object, where every bucket says its state and source.

#include "heuristics.h"

#include <QJsonObject>
#include <QJsonValue>

namespace goblin {

/// A number for strict JSON: non-finite becomes null.
QJsonValue finiteJson(double value);

/// {"useful_gpu": s, …, "kernel_shape": s, "unattributed_s": s}: seconds per step.
QJsonObject wasteBudgetJson(const WasteBudget &budget);

} // namespace goblin
