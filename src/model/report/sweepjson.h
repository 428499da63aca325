#pragma once
/// \file The sweep's exports: JSON with the points and switch points, and CSV.

#include "sweep.h"

#include <QByteArray>
#include <QJsonObject>
#include <QStringList>

namespace goblin {

/// {"threshold", "points": [{"value", "waste_budget"}], "switch_points": [{"bucket", "value",
/// "switches": "on"|"off"}]} plus `command` when not empty.
QJsonObject sweepJson(SweepThreshold which, const std::vector<SweepPoint> &points, const QStringList &command);

/// CSV: value and the seven buckets, one line per point, with a header line.
QByteArray sweepCsv(const std::vector<SweepPoint> &points);

} // namespace goblin
