#pragma once
/// \file What each view covers, in one line: which files or ranks, which devices, which steps. One
/// function builds the line from the run's facts and readings; the widgets only show it. Two views
/// whose totals come from different sources (the kernel trace beside the torch trace) each name
/// theirs, so their totals never sit side by side unlabelled. docs/views.md, "Scope line".

#include "run.h"

#include <QString>

namespace goblin {

/// The views that say their scope (the workbench's pages).
enum class ViewScope {
    Overview,     ///< the budget: the run's job
    Kernels,      ///< the workbench's kernel list
    Operators,    ///< the primary torch trace's attribution (also the flame graph and modules)
    FlameGraph,
    Modules,
    Timeline,     ///< every device of both timelines
    Ranks,        ///< the job's ranks
    Advice,
    Sweep,
    Telemetry,    ///< the telemetry file's GPUs and samples
    Diagnostics,  ///< every file read
};

/// The one line the view shows over its content; empty without a run.
QString viewScopeText(const RunAnalysis *run, ViewScope view);
/// The same for a view that shows one chrome trace (viewShowsOneRank), showing choice `rankIndex`
/// of traceRankChoices() (0: the primary trace).
QString viewScopeText(const RunAnalysis *run, ViewScope view, int rankIndex);
/// Does `view` show one of the run's several chrome traces (operators, flame graph, modules, the
/// Overview's trace memory curves when it draws them)? Then it offers a rank picker.
bool viewShowsOneRank(const RunAnalysis *run, ViewScope view);

} // namespace goblin
