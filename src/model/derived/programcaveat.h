#pragma once
/// \file What the program that ran (the run's facts, programfacts.h) changes in a budget's words
/// and states: a graph capture's idle is the capture, not data wait or launch gaps; host-busy idle
/// that the thresholds book as data wait with no data-loading op seen is an estimate; a
/// range-profiler capture times nothing. The headline (Derived::caveat) says each.

#include "derived.h"

namespace goblin {

/// The budget's data wait is (partly) GPU idle while the host ran other work, booked as data wait
/// by the thresholds, and no data-loading op was seen anywhere in the run.
bool dataWaitIsHostBusyIdle(const RunAnalysis &run, const WasteBudget &budget);

/// Lowers the states the program's facts make unreliable (every budget of `d`) and appends the
/// sentence that says why to `d.caveat`. Workbench profile only.
void applyProgramFacts(const RunAnalysis &run, Derived &d);

} // namespace goblin
