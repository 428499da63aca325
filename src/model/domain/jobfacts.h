#pragma once
/// \file A part of the run's facts (runfacts.h): which files or processes are ranks of one job, and which are separate runs. Value types only; decided once at load
/// by analysis/runfacts.h, each value with its state and source.

#include "heuristics.h"

#include <QString>

namespace goblin {

struct JobFacts {
};

} // namespace goblin
