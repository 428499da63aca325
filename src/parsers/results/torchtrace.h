#pragma once
/// \file What the chrome-trace reader gives (torchtraceparser.h): both readings of the primary trace,
/// the GPU timelines of every rank, the attribution and the memory events.

#include "diagnostic.h"
#include "results/gputimeline.h"
#include "results/inputfile.h"
#include "results/traceattribution.h"
#include "results/tracememory.h"

#include <QJsonValue>
#include <QString>
#include <memory>
#include <optional>
#include <vector>

namespace goblin {

struct TraceCollectives;  // results/tracecollectives.h (kept out: few readers need it)

/// The workbench's own reading of one more chrome trace of the run folder (another rank): what
/// the one-rank views (operators, flame graph, modules, trace memory) show when that rank is picked.
struct RankTraceReading {
    QString file;               ///< relative to the run folder, as its GpuTimelineFile names it
    std::optional<int> rank;    ///< distributedInfo's rank, else the one in the file name
    TraceAttribution attribution;
    TraceMemory memory;
    std::shared_ptr<const TraceCollectives> collectives;  ///< its collective calls; null: none read
};

/// What one heuristics profile read from the torch trace.
struct TorchReading {
    std::optional<double> tokensPerSec;
    std::optional<double> mfuPct;
    QJsonValue pytorchVersion{QJsonValue::Undefined};  ///< as found (the reference passes non-strings through); Undefined = absent
    std::optional<double> stepTimeSeconds;
    QString stepTimeSource;           ///< "metadata step_time_seconds", "mean of 3 ProfilerStep events (CPU lane)", "trace span"…
    std::optional<double> hostBusyFraction;
    QString hostBusySource;
    int profilerSteps = 0;            ///< ProfilerStep#N events counted for the step time
    bool readFailed = false;          ///< reference: json.loads failed, nothing is used
    QString readFailure;
};

struct TorchTrace {
    TorchReading reference;  ///< torch_profile.json read as the reference does
    TorchReading workbench;  ///< read right (see the engine issue, point 6)
    InputFileInfo file;      ///< the file the workbench read
    Diagnostics diagnostics;
    bool referenceFileFound = false;
    qint64 eventCount = 0;   ///< trace events seen
    qint64 nonObjectEvents = 0;  ///< entries of traceEvents that are no JSON object (numbers, strings, null, lists)
    qint64 scalarEvents = 0;     ///< of those, the scalars: numbers, strings, true, false, null
    int parallelRanges = 0;  ///< byte ranges read on other threads and counted (0: one pass)
    bool cancelled = false;
    /// The GPU timeline of the trace's own device events: files[0] is the file read above (when
    /// one was), then every other chrome trace of the run folder (a rank each) in rank order.
    GpuTimeline timeline;
    /// The primary trace's GPU time by launching op, module and stack (workbench reading).
    TraceAttribution attribution;
    /// The primary trace's `[memory]` events and deviceProperties (workbench reading).
    TraceMemory memory;
    /// The primary trace's collective calls (workbench reading); null when not read.
    std::shared_ptr<const TraceCollectives> collectives;
    /// The other chrome traces' attribution and memory (one per rank, in timeline order; copies
    /// of a trace left out): the one-rank views' other ranks. The report reads the primary's.
    std::vector<RankTraceReading> otherRanks;
};

} // namespace goblin
