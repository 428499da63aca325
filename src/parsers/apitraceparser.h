#pragma once
/// \file rocprofv3's API traces (`*_marker_api_trace.csv`, `*_hip_api_trace.csv`, and the
/// rocpd2csv form with a leading "Guid" column): roctx ranges whose message names a step give a
/// kernel trace its steps; HIP runtime calls give its host activity. Same clock as the kernels
/// (ns since boot). docs/inputs.md lists the file kinds.

#include "diagnostic.h"
#include "results/apitraces.h"
#include "results/gputimeline.h"
#include "progress.h"

#include <QRegularExpression>
#include <QString>
#include <QStringList>
#include <vector>

namespace goblin {

class RunInventory;
namespace kernels {
class HostLanesBuilder;
}

/// The default pattern of a step's range name: "ProfilerStep#12", "step 3", "Step_3",
/// "iteration 7", "train_step" … (case-insensitive, whole name).
QString defaultStepRangePattern();

/// Reads every API trace of the inventory (InputRole::ApiTrace). `stepPattern` empty: the default.
/// `hostLanes` (the window's reading, keepHostLanes()): every marker range (Step when named like a
/// step, DataLoading when it names a DataLoader, else Annotation) and every HIP call (Runtime, with
/// its Correlation_Id) also go there with their names, processes and threads, for
/// attachHostLanes(); null: nothing of that is kept.
ApiTraces parseApiTraces(const RunInventory &inventory, const QString &stepPattern = {},
                         const ProgressCallback &progress = {}, kernels::HostLanesBuilder *hostLanes = nullptr);

/// Steps and host activity from what a kernel-trace file carried (HostActivity), as
/// parseApiTraces() makes them of the CSV API traces: the ranges named like a step (`stepPattern`,
/// empty: the default) on the thread with most of them, and the union of the runtime calls.
ApiTraces apiTracesFrom(const HostActivity &host, const QString &stepPattern = {});

/// Gives the kernel trace's files without steps (and without host activity) the API traces' step
/// ranges and HIP-call union, when those fall inside the file's kernel span (the same boot clock);
/// a diagnostic says what was given, or why not. Returns whether anything was given.
bool applyApiTraces(GpuTimeline &kernelTrace, const ApiTraces &api, Diagnostics &diagnostics);

/// The API traces' host ranges (parseApiTraces()'s `hostLanes`) as the host lanes of the kernel
/// trace's files (GpuTimelineFile::hostLanes): a file gets the threads of its process (every thread
/// when it names no process, or is the only file), joined to its kernels by the correlation ids the
/// kernel reader kept there; only when the ranges fall inside the file's kernel span (the same boot
/// clock). A diagnostic says what was given, or why not. `files` names the API traces read.
void attachHostLanes(GpuTimeline &kernelTrace, kernels::HostLanesBuilder &hostLanes, const QStringList &files,
                     Diagnostics &diagnostics);

/// Last step of the host lanes of kernel-trace files (after attachHostLanes(), and for the
/// databases and files whose readers built lanes themselves): marker ranges named like a step
/// (`stepPattern`, empty: the default) become Step slices, and lanes with no host range (only the
/// kernels' correlation ids, no API trace given) are dropped.
void finishHostLanes(GpuTimeline &kernelTrace, const QString &stepPattern);

} // namespace goblin
