#pragma once
/// \file The sweep's exports: JSON with the points and switch points, and CSV.

#include "sweep.h"

#include <QByteArray>
#include <QJsonObject>
#include <QStringList>

namespace goblin {

/// {"threshold", "points": [{"value", "waste_budget"}], "switch_points": [{"bucket", "value",
/// "switches": "on"|"off"}]} plus `command` when not empty. `curve` is sweepCurve()'s (or plain
/// sweepRun() points): "points" are its sampled points, the switch points its exact ones.
QJsonObject sweepJson(SweepThreshold which, const std::vector<SweepPoint> &curve, const QStringList &command);

/// CSV: value and the seven buckets, one line per sampled point, with a header line.
QByteArray sweepCsv(const std::vector<SweepPoint> &curve);

} // namespace goblin
