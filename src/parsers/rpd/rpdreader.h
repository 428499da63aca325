#pragma once
/// \file rocmProfileData (`rpd_tracer`, `runTracer.sh`) databases, `*.rpd`, read as a kernel trace
/// for the workbench reading (the reference reads no database of this kind).
///
/// From rocpd_op (joined to rocpd_string by id): ops of type KernelExecution, Task (kernels
/// replayed from a HIP graph) and the CUPTI source's Kernel/ConcurrentKernel are kernels, named by
/// their description (the demangled kernel name); Copy* and Memcpy ops are copies, FillBuffer and
/// Memset ops memsets. Every GPU (gpuId) is one device of the file's timeline, its queueId the
/// stream; the agent label is "GPU <gpuId>". Rows are sorted by start (then end descending)
/// before they are used: rpd_tracer writes them in batches, not in time order.
/// From rocpd_api: rows named UserMarker (roctx/NVTX ranges and marks, the text in args_id:
/// rocpd_ustring in schema 3, rocpd_string before) are marker ranges; the tracer's own overhead
/// records (`OpTable::writeRows`, `hcc_activity_callback`, …) are left out and counted; every
/// other row is a runtime call (HIP, or CUDA for an rpd made with the CUPTI source).
/// rocpd_monitor samples (sclk …) have no place in the model: they are counted in an Info.
/// docs/inputs-databases.md describes all of it for users.

#include "rocpdreader.h"

namespace goblin
{

/// Reads one rpd database into the workbench accumulator (`sink.reference` must be null: the
/// reference reads no rpd), one KernelTrace::timeline file (source "rpd"), and
/// KernelTrace::host (ranges and runtime calls). Appends one InputFileInfo and the diagnostics;
/// `progress` gets this file's bytes read so far (an estimate from the rows); false cancels.
ReadOutcome readRpdDatabase(const QString &path, const QString &rel, KernelSink &sink, KernelTrace &trace,
                             const ProgressCallback &progress = {});

} // namespace goblin
