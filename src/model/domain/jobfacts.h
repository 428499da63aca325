#pragma once
/// \file A part of the run's facts (runfacts.h): which files or processes are ranks of one job,
/// and which are separate runs. Value types only. The loader decides the job once, for every
/// input kind, before the traces are measured (analysis/rankgroups.h: chrome traces by what they
/// state; kernel-trace files by program and time), and records it here; analysis/decidefacts.h
/// completes it with the ranks the run's timeline holds. Ranks, the straggler, the views' scope
/// lines and the window (which opens each separate run) read it; nothing decides it again.

#include "heuristics.h"

#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

namespace goblin {

/// A file of the folder that is not a rank of the run: it opens as a run of its own.
struct SeparateRun {
    QString file;              ///< relative to the run folder, as diagnostics name it
    QString reason;            ///< why it is no rank of the run, in plain words ("world size 128 vs 8")
    std::optional<int> rank;   ///< the rank it states
    QString device;            ///< its device model, when it names one
};

/// What the job's ranks are.
enum class JobMembers : quint8 {
    None,          ///< nothing with a timeline was read
    ChromeTraces,  ///< one rank per torch (Kineto) trace
    Processes,     ///< one rank per process (file × pid) of the kernel traces / databases
};

struct JobFacts {
    /// Measured: one input, or the ranks state who they are (distributedInfo, world size, process
    /// group); Estimated: grouped by what they ran and when (kernel-trace files state no job);
    /// Unknown: nothing with a timeline.
    ValueState state = ValueState::Unknown;
    QString source;                      ///< how the job was decided, in plain words
    JobMembers members = JobMembers::None;
    QStringList files;                   ///< the run's files that hold its ranks, relative to the folder
    int ranks = 0;                       ///< ranks of the job with kernels (the Ranks view's rows)
    std::vector<SeparateRun> separate;   ///< the folder's other files: each opens as a run of its own
};

} // namespace goblin
