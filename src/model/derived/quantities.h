#pragma once
/// \file The headline quantities of a run (utilisation, host busy, step time, HBM peak and
/// capacity, tokens/s, MFU), each with where it came from: one value per quantity, which the
/// gauge, the threshold hints, the PNG, the compare view, the advice and the report all show.

#include "quantity.h"

namespace goblin {

struct Derived;
struct RunAnalysis;

/// The run's quantities under `derived` (its budget, step plan and profile).
Quantities runQuantities(const RunAnalysis &run, const Derived &derived);

} // namespace goblin
