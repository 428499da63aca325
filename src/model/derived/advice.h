#pragma once
/// \file Advice: rules that read a run's waste budget and the numbers behind it, and say what to
/// look at, largest bucket first. Each piece of advice carries the bucket it explains (its
/// seconds are that bucket's value) and the evidence, the numbers that triggered it.

#include "adviceitem.h"
#include "derived.h"

#include <QJsonArray>
#include <QJsonObject>
#include <vector>

namespace goblin {


/// Advice for every waste bucket above zero whose value is known, sorted by seconds per step,
/// largest first (ties keep the bucket order), for the run's budget in `derived`.
std::vector<Advice> adviseRun(const RunAnalysis &run, const Derived &derived);

QJsonArray adviceJson(const std::vector<Advice> &advice);

} // namespace goblin
