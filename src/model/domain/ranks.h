#pragma once
/// \file Several ranks: what each rank contributes (fixed at load), its results under one set of
/// thresholds and the spread over the ranks. Value types only. Definitions: docs/timeline.md,
/// "Several ranks".

#include "run.h"

#include <QString>
#include <optional>
#include <vector>

namespace goblin {

/// What one rank contributes, fixed at load. `analysis` is a slim ProfileAnalysis (workbench
/// profile; no kernel classes, no top kernels) so that computeMetrics() gives the rank's budget
/// with exactly the run's arithmetic, --steps N included.
struct RankInputs {
    int rank = 0;                ///< the rank the trace states, else the position in process order
    bool rankStated = false;     ///< from distributedInfo or the file name (else: process order)
    QString source;              ///< "torch_profile", "trace.csv", "rocpd"
    QString file;
    std::size_t fileIndex = 0;   ///< the file in the timeline the ranks come from
    qint64 pid = -1;             ///< process id of a kernel-trace process; -1 for chrome traces
    int devices = 0;             ///< devices with kernels
    quint64 kernels = 0;         ///< kernels with a positive duration
    qint64 kernelTimeNs = 0;
    QString hostBusySource;
    QString gpuUtilSource;
    /// Exposed communication (collective time no compute kernel overlaps on the same device),
    /// mean over the rank's devices with kernels: per step window when the trace has step marks
    /// (`stepMarks`), else over the whole kernel span (per step: divided by the steps covered).
    bool stepMarks = false;
    double exposedCommNs = 0.0;
    double computeNs = 0.0;      ///< busy compute (union of non-collective kernels), same basis as exposedCommNs
    ProfileAnalysis analysis;
};

/// The ranks of a run, in rank order. Empty when no timeline has kernels.
struct RankSet {
    QString kind;                ///< "chrome traces" or "processes"
    /// The workbench budget is the mean of the ranks' budgets: two or more chrome traces, each
    /// on its own clock with its own steps, where the run's pooled reading has the step time and
    /// host busy of one trace only. Processes of one kernel trace / rocpd database share a clock
    /// and the run's reading already takes their kernels per step per GPU (and the report of a
    /// rocpd database must stay the report of its CSV), so their budget stays the run's.
    bool budgetIsMean = false;
    std::vector<RankInputs> ranks;
};

/// One rank under one set of thresholds.
struct RankResult {
    const RankInputs *inputs = nullptr;
    WasteBudget budget;
    double stepTimeS = 0.0;
    QString stepTimeSource;
    double commExcessS = 0.0;          ///< per step per GPU (the budget's collective input)
    double exposedCommSPerStep = 0.0;  ///< per step, mean over the rank's devices
    double computeSPerStep = 0.0;      ///< busy compute per step, mean over the rank's devices
    /// Step time less exposed communication: the time the rank spends on its own work (compute,
    /// data loading, host gaps) before it reaches the collectives. The rank with the most keeps the
    /// others waiting.
    double ownWorkSPerStep() const { return stepTimeS - exposedCommSPerStep; }
    bool measured = false;             ///< budget measured on the rank's own timeline (derived.h)
};

struct RankExtreme {
    double min = 0.0;
    double max = 0.0;
    int stragglerRank = 0;  ///< the rank with the max (the lowest such rank on a tie)
    int stragglerIndex = 0; ///< its index in the results (ranks stated twice stay apart)
};

struct RankSpread {
    int ranks = 0;
    RankExtreme stepTimeS;
    RankExtreme exposedCommSPerStep;
    RankExtreme computeSPerStep;
    /// The straggler: the rank with the most time per step on its own work (step − exposed
    /// communication), the one the others wait for at the collectives. In a synchronous job every
    /// step is as long and the others show the wait as exposed communication; the rank with the
    /// longest step is usually one that waits.
    RankExtreme ownWorkSPerStep;
};

} // namespace goblin
