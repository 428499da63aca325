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

/// What the grouping needs of one kernel-trace file (a rocprofv3 per-process CSV, a rocpd or rpd
/// database, a rocprofv3 JSON, an Nsight Systems export): these state no job, so the program it
/// ran (its kernel names) and when it ran (its span on the trace clock) tell.
struct KernelFileCandidate {
    QString file;                    ///< relative path, as GpuTimelineFile::file
    std::vector<std::string> names;  ///< the distinct names of its kernels, sorted
    qint64 firstNs = 0;              ///< its first kernel's start, on the trace clock
    qint64 lastNs = 0;               ///< its last kernel's end
    quint64 kernels = 0;
};

/// One candidate per file of a kernel timeline that holds kernels, in file order.
std::vector<KernelFileCandidate> kernelFileCandidates(const GpuTimeline &timeline);

/// Groups kernel-trace files into jobs. Two files are ranks of one job when they ran the same
/// program (at least half the kernel names of the one with fewer are among the other's) at the
/// same time (their spans overlap, or the gap between them is at most a second or a tenth of the
/// longer span, whichever is more: processes of one job run together). The run is the largest group (ties:
/// the first file's); every other file is a separate run. `runTraces` / `separateTraces` index
/// `files`.
RankGrouping groupKernelFiles(const std::vector<KernelFileCandidate> &files);

} // namespace goblin
