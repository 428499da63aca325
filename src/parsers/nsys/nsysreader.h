#pragma once
/// \file Nsight Systems SQLite exports (`nsys export --type sqlite`, any file name) read as a
/// kernel trace for the workbench reading (the reference reads no database of this kind).
///
/// CUPTI_ACTIVITY_KIND_KERNEL rows are the kernels (name: demangledName, else shortName, both
/// StringIds), CUPTI_ACTIVITY_KIND_MEMCPY/MEMSET the copies and memsets; one timeline device per
/// (process, deviceId), its streamId the stream, agent label "GPU <deviceId>". The tables are
/// not in time order: the rows are sorted by start (then end descending) before they are used.
/// CUPTI_ACTIVITY_KIND_RUNTIME rows are the host's CUDA runtime calls, NVTX_EVENTS rows with an
/// end the marker ranges (text, else textId; pid/tid unpacked from globalTid), NVTX marks
/// instants. TARGET_INFO_GPU's name and memory go into an Info (the timeline has no field for
/// them); graph-level traces (CUPTI_ACTIVITY_KIND_GRAPH_TRACE) and graph-launched kernels are
/// named in diagnostics. docs/inputs-databases.md describes all of it for users.

#include "rocpdreader.h"

namespace goblin
{

/// Reads one nsys export into the workbench accumulator (`sink.reference` must be null), one
/// KernelTrace::timeline file (source "nsys") and KernelTrace::host. Appends one InputFileInfo
/// and the diagnostics; `progress` gets this file's bytes read so far (an estimate from the
/// rows); false cancels.
ReadOutcome readNsysDatabase(const QString &path, const QString &rel, KernelSink &sink, KernelTrace &trace,
                              const ProgressCallback &progress = {});

} // namespace goblin
