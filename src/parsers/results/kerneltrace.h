#pragma once
/// \file What the kernel readers give (kerneltraceparser.h and the readers it calls): per-name sums of
/// both readings, the files read, the kernels as a timeline, the host side the files carry.

#include "results/apitraces.h"
#include "diagnostic.h"
#include "results/gputimeline.h"
#include "results/inputfile.h"

#include <QString>
#include <QStringList>
#include <limits>
#include <string>
#include <vector>

namespace goblin {

/// Per distinct kernel name, what one reading of the trace summed up.
struct KernelNameStats {
    quint64 calls = 0;
    qint64 totalNs = 0;
    qint64 minNs = std::numeric_limits<qint64>::max();
    qint64 maxNs = 0;
    qint64 firstRow = -1; ///< index (among used rows) of the first row with this name; -1 = unused
};

/// How one heuristics profile read the trace. Both profiles share the interned names.
struct KernelReading {
    std::vector<KernelNameStats> perName; ///< indexed by name id (KernelTrace::names)
    qint64 rowsUsed = 0;
    qint64 rowsSkippedNoName = 0;
    qint64 rowsSkippedNonPositive = 0; ///< duration <= 0 (reference: silently)
    qint64 rowsSkippedUnreadable = 0;  ///< duration/timestamps not a number
    qint64 totalNs = 0;                ///< sum of used durations
    /// Wall-clock span covered by the used rows (max end − min start), 0 when the layout has
    /// no timestamps. The workbench divides trace-wide sums by it to get per-step values.
    qint64 firstStartNs = 0;
    qint64 lastEndNs = 0;
    bool hasTimestamps = false;
    int agentCount = 0;      ///< distinct GPU agents among used rows (0 = no agent column)
    QStringList agents;      ///< their labels as written ("4", "Agent 2", "GPU 0")
    bool readFailed = false; ///< the reference's csv module would have raised: nothing is used
    QString readFailure;     ///< why, in the reference's words where possible
    /// With readFailed: the reference would not even warn but raise out of parse()
    /// (UnicodeDecodeError on non-UTF-8 bytes, OverflowError on an infinite duration).
    bool wouldCrash = false;
    qint64 failureLine = 0; ///< physical line of the failure, 0 when it concerns the whole file
};

struct KernelTrace {
    std::vector<std::string> names;   ///< interned kernel names (stripped), id = index, first-seen order
    KernelReading reference;          ///< `trace.csv` only, the reference's columns and number rules
    KernelReading workbench;          ///< trace.csv, else every `*_kernel_trace.csv`, read right
    std::vector<InputFileInfo> files; ///< one per file read (the workbench may read several)
    Diagnostics diagnostics;
    /// The workbench reading's kernels as a timeline: one file per CSV read (source "trace.csv",
    /// also for `*_kernel_trace.csv`) or rocpd database ("rocpd"), one device per (process, agent);
    /// rows with a name and readable start/end, zero-length included. Empty when the layout has
    /// no timestamps.
    GpuTimeline timeline;
    /// trace.csv exists (the reference warns when not); also true when a rocpd database stands in
    /// for it (no trace.csv, no *_kernel_trace.csv): both readings then read the database as the
    /// trace.csv rocpd2csv would make of it.
    bool referenceFileFound = false;
    bool referenceFileEmpty = false; ///< trace.csv has no header (the reference: "empty kernel trace")
    /// Marker ranges and runtime calls the kernel files carry themselves (databases, rocprofv3 JSON,
    /// pftrace): the loader makes steps and host activity of them (apiTracesFrom) as of the CSV
    /// API traces.
    HostActivity host;
    bool cancelled = false;
};

} // namespace goblin
