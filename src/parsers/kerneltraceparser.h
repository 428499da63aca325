#pragma once
/// \file Kernel dispatch traces: rocprofv3 `*_kernel_trace.csv` (ROCm 6.2 … 7.x, rocpd
/// conversions), rocprof v1 `results.csv`, rocprofv2, rocprofiler-compute `timestamps.csv`.

#include "diagnostic.h"
#include "results/kerneltrace.h"
#include "results/gputimeline.h"
#include "results/inputfile.h"
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
