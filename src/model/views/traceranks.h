#pragma once
/// \file The chrome traces a one-rank view (operators, flame graph, modules, the trace's memory
/// curves) can show: the primary trace first, then every other rank the folder holds. The views
/// offer them in a rank picker; the scope line names the one shown.

#include "run.h"

#include <QString>
#include <memory>
#include <optional>
#include <vector>

namespace goblin {

/// One chrome trace of the run, as the rank picker lists it.
struct TraceRankChoice {
    QString file;               ///< relative to the run folder
    std::optional<int> rank;    ///< distributedInfo's rank, else the one in the file name
    std::ptrdiff_t timelineFile = -1;  ///< its index in run.torch.timeline.files, or -1
    QString label;              ///< "rank 2 · sampled_rank-2.json.gz", or the file alone without a rank
};

/// Choice 0 is the primary trace (the one the report reads), then the other ranks in timeline
/// order. Empty without a torch trace.
std::vector<TraceRankChoice> traceRankChoices(const RunAnalysis &run);

/// The attribution of choice `index`; null when `index` names none.
const TraceAttribution *traceAttributionOfRank(const RunAnalysis &run, int index);
/// The same, sharing the run's lifetime (what the views hold).
std::shared_ptr<const TraceAttribution> attributionOfRank(const std::shared_ptr<const RunAnalysis> &run, int index);
/// The `[memory]` events of choice `index`; null when `index` names none.
const TraceMemory *traceMemoryOfRank(const RunAnalysis &run, int index);

} // namespace goblin
