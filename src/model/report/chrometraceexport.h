#pragma once
/// \file The hand-off: one step of a run, or the whole run, as a Chrome trace
/// (the JSON Object Format Perfetto and chrome://tracing open) holding that window's events only.
/// The window and `goblin-workbench export-trace` share it. docs/views.md ("Export as Chrome
/// trace") says what goes in.
///
/// What is written, from the run's GPU timelines (the model keeps these events one by one):
///  - every GPU event (kernel, memcpy, memset) of every device of the kernel trace and of the
///    torch trace(s), one process per device ("r3 · d7 · torch trace"), one thread per stream;
///  - per trace file, the step marks, the union of the CPU ops ("CPU ops running") and the
///    data-loading ranges, on a "host" process of their own. The model keeps no single CPU op,
///    only their union, so that is what the host lane shows.
/// Names, ts, dur, pid, tid and cat; no args (nothing from the trace's metadata or environment).
/// ts is in µs from the first exported event of the same source (kernel trace / torch trace):
/// the two are on clocks of their own, and each starting at 0 puts the window side by side.

#include "run.h"

#include <QByteArray>
#include <QString>
#include <optional>

namespace goblin {

struct ChromeTraceOptions {
    /// Index of the step in each device's step order (the Timeline view's s0, s1, …); nullopt:
    /// the whole run.
    std::optional<int> step;
    /// Devices without step marks cut into this many equal steps of their kernel span (the
    /// window's step field, --steps N); nullopt: their span is one step.
    std::optional<int> equalSteps;
};

struct ChromeTraceExport {
    QByteArray json;
    int sliceCount = 0;   ///< "ph":"X" events written (metadata events not counted)
    int gpuEventCount = 0;  ///< of which GPU events
    int deviceCount = 0;  ///< devices that contributed events or had the step
    QString error;        ///< set when nothing could be exported (no timeline, no such step)
    bool ok() const { return error.isEmpty(); }
};

/// Steps the export can pick from: the most steps any device of the run has (0 without a GPU
/// timeline).
int chromeTraceStepCount(const RunAnalysis &run, std::optional<int> equalSteps = std::nullopt);

/// The Chrome trace of the window `options` names. An event is in a step when it overlaps the
/// step's window (a zero-length event on its start counts), as the Timeline view's strip draws
/// it; it is written whole (its true start and duration). Host intervals (unions) are clipped to
/// the window.
ChromeTraceExport buildChromeTrace(const RunAnalysis &run, const ChromeTraceOptions &options);

/// buildChromeTrace() written to `path` atomically (writeExportFile). Refuses a path inside the
/// run folder. Returns false with `error` naming the path or the problem.
bool writeChromeTrace(const RunAnalysis &run, const ChromeTraceOptions &options, const QString &path,
                      QString *error, ChromeTraceExport *written = nullptr);

/// "bert-step3.trace.json" / "bert.trace.json": a file name to offer.
QString chromeTraceFileName(const RunAnalysis &run, std::optional<int> step);

/// Is `path` inside the run folder `runDir` (for a file opened alone: the folder that holds it)?
bool isInsideRunFolder(const QString &path, const QString &runDir);

} // namespace goblin
