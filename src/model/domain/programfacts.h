#pragma once
/// \file A part of the run's facts (runfacts.h): the program that ran: PyTorch training or inference, graph capture or replay, micro-benchmark, non-PyTorch program, with its reason. Value types only; decided once at load
/// by analysis/runfacts.h, each value with its state and source.

#include "heuristics.h"

#include <QString>

namespace goblin {

struct ProgramFacts {
};

} // namespace goblin
