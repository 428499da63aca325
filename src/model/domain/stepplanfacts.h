#pragma once
/// \file A part of the run's facts (runfacts.h): the step plan and the one step time every number reads. Value types only; decided once at load
/// by analysis/runfacts.h, each value with its state and source.

#include "heuristics.h"

#include <QString>

namespace goblin {

struct StepPlanFacts {
};

} // namespace goblin
