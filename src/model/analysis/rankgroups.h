#pragma once
/// \file Which chrome traces of a folder are ranks of one job. Traces join as ranks only when
/// they agree: distinct stated ranks, the same distributedInfo world size, process group and
/// backend (when both state them), the same device model (deviceProperties names), the same phase
/// kind (a training trace — backward or optimizer ops — never joins inference traces). A trace
/// without any rank information beside others is no rank of theirs. The group holding
/// torch_profile.json (else the largest, else the first in rank order) is the run; every other
/// trace is a separate run, outside the run's budget. Definitions: docs/timeline.md, "Several
/// ranks".

#include "results/gputimeline.h"
#include "run.h"

#include <QString>
#include <optional>
#include <vector>

namespace goblin {

/// What the grouping needs of one trace.
struct RankCandidate {
    QString file;                  ///< relative path, as GpuTimelineFile::file
    std::optional<int> rank;       ///< stated: distributedInfo, else the file name
    TraceIdentity identity;
    TracePhases phases;
    bool cpuActivity = false;      ///< the trace shows CPU operators (host-busy intervals)
};

struct RankGrouping {
    std::vector<std::size_t> runTraces;  ///< indexes into the candidates of the run's ranks, in input order
    std::vector<std::size_t> separateTraces;  ///< the others, in input order
    std::vector<SeparateRun> separate;   ///< one per separateTraces entry
};

/// The candidates of a torch timeline: one per file, the rank from the traits (distributedInfo)
/// else the one GpuTimelineFile states (distributedInfo or the file name).
std::vector<RankCandidate> rankCandidates(const std::vector<GpuTimelineFile> &files);

/// Groups `traces` (the torch entry's order: the primary first, then rank order). A trace named
/// torch_profile.json or torch_profile.json.gz in the folder itself anchors the run.
RankGrouping groupRanks(const std::vector<RankCandidate> &traces);

} // namespace goblin
