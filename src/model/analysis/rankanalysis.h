#pragma once
/// \file Several ranks: one budget per rank (one chrome trace per rank, or one process of a
/// rocprofv3 kernel trace / rocpd database), the run's workbench budget as their mean, and the
/// spread (min / max / straggler) of step time and exposed communication. The per-rank inputs
/// are aggregated once at load (a few numbers each); a threshold change is arithmetic on them.
/// Definitions: docs/timeline.md, "Several ranks".

#include "ranks.h"
#include "runanalysis.h"

#include <QString>
#include <optional>
#include <vector>

namespace goblin {

/// Aggregates every rank once (called by analyzeRun() after the workbench analysis). The ranks
/// are the processes of the timeline whose kernels are the workbench's kernel list: each chrome
/// trace when the kernels come from the torch traces, else each process (file × pid) of the
/// kernel trace or rocpd database. Appends a plain-words note to `diagnostics` with >= 2 ranks.
std::shared_ptr<const RankSet> analyzeRanks(const RunAnalysis &run, Diagnostics &diagnostics);

} // namespace goblin
