#pragma once
/// \file Kernel dispatch traces: rocprofv3 `*_kernel_trace.csv` (ROCm 6.2 … 7.x, rocpd
/// conversions), rocprof v1 `results.csv`, rocprofv2, rocprofiler-compute `timestamps.csv`.

#include "diagnostic.h"
#include "gputimeline.h"
#include "inputfile.h"
#include "apitraceparser.h"
#include "progress.h"

#include <QByteArrayView>
#include <QString>
#include <QStringList>
#include <atomic>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace goblin
{

class RunInventory;  // io/runinventory.h

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

/// Reads the kernel trace(s) of a run inventory (io/runinventory.h); every file is opened
/// read-only. The reference reading uses only `<runDir>/trace.csv`. The workbench reading uses trace.csv
/// when present, otherwise every rocprofv3 `*_kernel_trace.csv` in the folder and its direct
/// sub-folders (one per process, `<hostname>/<pid>_kernel_trace.csv`), read as one trace;
/// it also falls back to those files when trace.csv exists but holds no kernel-trace layout.
/// Without either, the SQLite databases of the folder and its direct sub-folders are read, each as
/// what its tables say: rocprofv3's rocpd (by both profiles, rocpdreader.h), rocmProfileData's
/// rpd and Nsight Systems' export (the workbench only: rpd/, nsys/). Without any kernel from those,
/// rocprofv3's JSON and pftrace outputs are read (the workbench only: rocprofjson/, pftrace/).
/// Markers and runtime calls these files carry go to KernelTrace::host.
/// Stats, agent-info, API-trace and counter files are recognised and refused with a diagnostic.
///
/// Agents: rocprofv3 writes a machine-wide id (KFD node id, or a 7.x "Agent N"/"GPU N" label
/// that is also numbered per machine), so two processes on one host that report the same
/// label ran on the same GPU. Agents are therefore told apart by (folder of the file, label):
/// files in one `<hostname>/` folder share their labels, files of different hosts never do.
/// Labels are listed as written, prefixed with the folder when the trace spans several hosts.
///
/// Progress reports the bytes of all kernel-trace files read by this call so far.
KernelTrace parseKernelTraces(const RunInventory &inventory, const ProgressCallback &progress = {});
/// The same for the inventory of the whole folder `runDir`.
KernelTrace parseKernelTraces(const QString &runDir, const ProgressCallback &progress = {});

/// Reads a single kernel-trace file (both readings), for tests and the fuzzer.
/// `displayName` is how diagnostics name the file.
KernelTrace parseKernelTraceFile(const QString &path, const QString &displayName,
                                 const ProgressCallback &progress = {});

/// The same from bytes in memory, with the same result as parseKernelTraceFile of a file holding
/// them: `displayName` names them in diagnostics, and its file name part stands for the file's
/// name (rocprofiler-compute's timestamps.csv and rocprofv3's `<pid>_kernel_trace.csv` are told
/// by it). For the fuzzer and for traces that are not files.
KernelTrace parseKernelTraceBytes(QByteArrayView bytes, const QString &displayName,
                                  const ProgressCallback &progress = {});

} // namespace goblin
