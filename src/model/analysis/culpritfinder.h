#pragma once
/// \file Finds the ops and modules behind each kernel class (domain/culprits.h) in the torch
/// trace's launch trees: every GPU-event leaf is classified by its name (the workbench's kernel
/// patterns), and its GPU time goes to the innermost op and the innermost module above it.

#include "culprits.h"
#include "results/traceattribution.h"

namespace goblin {

/// `limit` ops and modules per class. Uses the per-step scopes when the trace marks steps (their
/// sum divided by their count), else the whole trace.
RunCulprits findCulprits(const TraceAttribution &attribution, int limit = 5);

} // namespace goblin
