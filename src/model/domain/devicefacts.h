#pragma once
/// \file A part of the run's facts (runfacts.h): the devices: model, memory capacity (from the file first), one naming for every view. Value types only; decided once at load
/// by analysis/runfacts.h, each value with its state and source.

#include "heuristics.h"

#include <QString>

namespace goblin {

struct DeviceFacts {
};

} // namespace goblin
