#pragma once
/// \file The `command` of every JSON export: the argv that reproduces it, with `goblin-workbench`
/// first and every threshold and the profile spelled out (so a later change of defaults cannot
/// change what the command computes).

#include "heuristics.h"

#include <QJsonArray>
#include <QStringList>

namespace goblin {

/// Shortest text that reads back as exactly `value` ("60", "0.5", "0.30000000000000004").
QString exactNumberText(double value);

/// --profile, --precision, [--steps], --gpu-util-below, --host-busy-above, --hbm-target,
/// --hbm-capacity-gb with their values, in that order.
QStringList thresholdArguments(HeuristicsProfile profile, const Thresholds &thresholds);

/// {"goblin-workbench", command, positional…, thresholdArguments…, extra…}.
QStringList reproducingCommand(const QString &command, const QStringList &positional, HeuristicsProfile profile,
                               const Thresholds &thresholds, const QStringList &extra = {});

QJsonArray commandJson(const QStringList &argv);

} // namespace goblin
