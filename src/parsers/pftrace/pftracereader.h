#pragma once
/// \file Kernel dispatches, HIP calls and marker ranges from a Perfetto trace: a stream of
/// TracePacket messages (`rocprofv3 --output-format pftrace`, `*.pftrace`, `*.perfetto-trace`,
/// `*.pb`, plain or .gz), decoded with protozero and fed into the same sinks as a rocpd database
/// (rocpdreader.h).
///
/// What is read (field numbers from perfetto's protos/perfetto/trace/): TrackEvent slices, a
/// TYPE_SLICE_BEGIN and the next TYPE_SLICE_END on the same track (track_uuid, or the sequence's
/// TrackEventDefaults), with their name (inline or interned per sequence: InternedData
/// event_names / event_categories / debug_annotation_names) and timestamps (absolute ns, or deltas
/// on a sequence's incremental clock from its ClockSnapshot, as the Perfetto SDK writes them).
/// The category says what a slice is, as rocprofv3's writer (generatePerfetto.cpp) files them:
/// `kernel_dispatch` → a kernel (agent from the "agent" debug annotation or the track name
/// "COMPUTE AGENT [n] ...", queue from "queue"), `hip_api` → a HIP runtime call
/// (KernelTrace::host.runtimeCalls), `marker_api` → a roctx range (host.ranges; thread from the
/// track's ThreadDescriptor or the "tid" annotation). Other categories are counted, not read.
///
/// rocprofv3 names a kernel slice by the demangled symbol `kernel_name` (its CSV writes
/// formatted_kernel_name, the same without the `.kd` suffix): a trailing ".kd" (or
/// " [clone .kd]") is dropped so that both give one name. Note that rocprofv3's writer moves the
/// end of a dispatch that overlaps the next one on its queue to the middle of the overlap
/// (a firmware timestamp workaround): such kernels read a little shorter than in the CSV.

#include "kerneltraceparser.h"
#include "progress.h"
#include "pftrace/pftracesniff.h"
#include "rocpdreader.h"

#include <QByteArrayView>
#include <QString>

namespace goblin
{

/// Reads one Perfetto trace file into `sink` (reference accumulator normally null), one
/// KernelTrace::timeline file (source "pftrace", one device per agent), one InputFileInfo, the
/// diagnostics and `trace.host`. `progress` gets the input bytes read; false cancels.
ReadOutcome readPftrace(const QString &path, const QString &rel, KernelSink &sink, KernelTrace &trace,
                         const ProgressCallback &progress = {});

/// The same from bytes in memory (tests, fuzzing).
ReadOutcome readPftraceBytes(QByteArrayView bytes, const QString &rel, KernelSink &sink, KernelTrace &trace,
                              const ProgressCallback &progress = {});

} // namespace goblin
