#pragma once
/// \file torch.profiler / Kineto chrome traces (`torch_profile.json`, `*.pt.trace.json[.gz]`).

#include "diagnostic.h"
#include "results/torchtrace.h"
#include "results/gputimeline.h"
#include "results/inputfile.h"
#include "progress.h"
#include "results/traceattribution.h"
#include "results/tracememory.h"

#include <QByteArrayView>
#include <QJsonValue>
#include <QString>
#include <optional>

namespace goblin {

class RunInventory;  // io/runinventory.h

/// How a trace is read: the size of the chunks the document is read in, and of the byte ranges a
/// large plain trace is cut into and read on several threads. Every plan gives the same result;
/// tests use tiny chunks and ranges so that the cuts fall everywhere.
struct TorchReadPlan {
    size_t chunkBytes = size_t(2) << 20;   ///< 2 MB
    qint64 rangeBytes = qint64(32) << 20;  ///< a plain trace of 1.5 times this is cut (0: one thread)
};

/// Whether the readings keep the host lanes (results/hostlanes.h: every host range of the trace,
/// for the window's Timeline). Off by default: the headless commands show no lanes, and keeping
/// them costs about a third more CPU and twice the memory of a load. The window turns it on
/// before it loads anything; set once, before the first read (not per load).
void setKeepHostLanes(bool keep);
bool keepHostLanes();

/// Reads the torch traces of a run inventory (io/runinventory.h): its primary trace with both
/// readings — torch_profile.json (the reference's; the workbench also accepts
/// torch_profile.json.gz and `*.pt.trace.json[.gz]` when torch_profile.json is missing, else the
/// chrome trace of the lowest rank found by content) — and the GPU timelines of its other chrome
/// traces (TorchTrace::timeline, one file per rank). Events are aggregated as they stream past;
/// the document is never held whole in memory.
TorchTrace parseTorchTrace(const RunInventory &inventory, const ProgressCallback &progress = {});
/// The same for the inventory of the whole folder `runDir`.
TorchTrace parseTorchTrace(const QString &runDir, const ProgressCallback &progress = {});

/// Reads one file (plain or gzip by magic bytes), for tests and the fuzzer. The reference reading
/// is what the reference would make of the (decompressed) JSON if it were torch_profile.json;
/// parseTorchTrace() instead reports that the reference crashes on a gzip-compressed
/// torch_profile.json, as Path.read_text() does.
TorchTrace parseTorchTraceFile(const QString &path, const QString &displayName,
                               const ProgressCallback &progress = {});

/// As above with the size of the chunks the document is read in (default 2 MB): tests use tiny
/// chunks so that events, strings and UTF-8 sequences straddle chunk boundaries.
TorchTrace parseTorchTraceFile(const QString &path, const QString &displayName, const ProgressCallback &progress,
                               size_t chunkBytes);

/// As above, and a plain file of at least 1.5 `rangeBytes` is cut into ranges of about that size
/// that are read on several threads (0: one thread; the default is 16 MB). Tests use tiny ranges
/// so that the cuts fall everywhere.
TorchTrace parseTorchTraceFile(const QString &path, const QString &displayName, const ProgressCallback &progress,
                               size_t chunkBytes, qint64 rangeBytes);

/// Reads a trace held in memory (plain or gzip by magic bytes) with the same result as
/// parseTorchTraceFile() of a file holding these bytes (chunks never exceed what the bytes need,
/// so a small input costs small buffers). `bytes` must stay valid during the call.
TorchTrace parseTorchTraceBytes(QByteArrayView bytes, const QString &displayName,
                                const ProgressCallback &progress = {}, const TorchReadPlan &plan = {});

} // namespace goblin
