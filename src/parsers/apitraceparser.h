#pragma once
/// \file rocprofv3's API traces (`*_marker_api_trace.csv`, `*_hip_api_trace.csv`, and the
/// rocpd2csv form with a leading "Guid" column): roctx ranges whose message names a step give a
/// kernel trace its steps; HIP runtime calls give its host activity. Same clock as the kernels
/// (ns since boot). docs/inputs.md lists the file kinds.

#include "diagnostic.h"
#include "gputimeline.h"
#include "progress.h"

#include <QRegularExpression>
#include <QString>
#include <QStringList>
#include <vector>

namespace goblin {

class RunInventory;

/// The default pattern of a step's range name: "ProfilerStep#12", "step 3", "Step_3",
/// "iteration 7", "train_step" … (case-insensitive, whole name).
QString defaultStepRangePattern();

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
    qint64 hipCalls = 0;                  ///< runtime calls (HIP, or CUDA for an nsys export)
    QString runtimeName = QStringLiteral("HIP");
    Diagnostics diagnostics;
    bool cancelled = false;
    bool empty() const { return files.isEmpty(); }
};

/// Reads every API trace of the inventory (InputRole::ApiTrace). `stepPattern` empty: the default.
ApiTraces parseApiTraces(const RunInventory &inventory, const QString &stepPattern = {},
                         const ProgressCallback &progress = {});

/// Steps and host activity from what a kernel-trace file carried (HostActivity), as
/// parseApiTraces() makes them of the CSV API traces: the ranges named like a step (`stepPattern`,
/// empty: the default) on the thread with most of them, and the union of the runtime calls.
ApiTraces apiTracesFrom(const HostActivity &host, const QString &stepPattern = {});

/// Gives the kernel trace's files without steps (and without host activity) the API traces' step
/// ranges and HIP-call union, when those fall inside the file's kernel span (the same boot clock);
/// a diagnostic says what was given, or why not. Returns whether anything was given.
bool applyApiTraces(GpuTimeline &kernelTrace, const ApiTraces &api, Diagnostics &diagnostics);

} // namespace goblin
