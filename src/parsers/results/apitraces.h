#pragma once
/// \file What the API-trace readers give: marker ranges and runtime calls a kernel file carries
/// (HostActivity), and the steps and host activity made of them (ApiTraces; apitraceparser.h).

#include "diagnostic.h"
#include "results/gputimeline.h"

#include <QString>
#include <QStringList>
#include <vector>

namespace goblin {

/// One marker range (roctx, NVTX, rocpd region, rpd UserMarker …) as a reader found it: every name,
/// the step pattern is applied later (apiTracesFrom).
struct MarkerRange {
    QString name;
    qint64 process = 0;
    qint64 thread = 0;
    qint64 startNs = 0;
    qint64 endNs = 0;   ///< == startNs for an instant mark (never a step)
};

/// The host side a kernel-trace file carries itself (a rocpd/rpd/nsys database, a rocprofv3 JSON or
/// pftrace): its marker ranges and its runtime-API calls (HIP or CUDA), on the kernels' clock.
/// Readers fill it; apiTracesFrom() turns it into steps and host activity as the CSV API traces are.
struct HostActivity {
    QStringList files;                  ///< the files it was read from, relative to the run folder
    std::vector<MarkerRange> ranges;
    std::vector<TimeInterval> runtimeCalls;  ///< one per HIP/CUDA runtime call (any order, may overlap)
    QString runtimeName = QStringLiteral("HIP");  ///< "HIP" or "CUDA", for the diagnostics
    bool empty() const { return ranges.empty() && runtimeCalls.empty(); }
};

struct ApiTraces {
    QStringList files;                    ///< the API traces read, relative to the run folder
    QString stepPattern;                  ///< the pattern the step ranges matched
    std::vector<StepWindow> steps;        ///< the step ranges of the thread with most of them, by start
    qint64 markerRanges = 0;              ///< roctx ranges read (every name)
    qint64 stepRanges = 0;                ///< … whose name matched the pattern (all threads)
    std::vector<TimeInterval> hostApiBusy;  ///< union of the HIP calls (all threads), sorted, disjoint
    /// Union of the marker ranges that name a DataLoader (as the host lanes draw them), sorted,
    /// disjoint: GPU idle inside them is data wait, as inside a torch trace's DataLoader ranges.
    std::vector<TimeInterval> dataLoading;
    qint64 dataLoadingRanges = 0;
    qint64 hipCalls = 0;                  ///< runtime calls (HIP, or CUDA for an nsys export)
    QString runtimeName = QStringLiteral("HIP");
    Diagnostics diagnostics;
    bool cancelled = false;
    bool empty() const { return files.isEmpty(); }
};

} // namespace goblin
