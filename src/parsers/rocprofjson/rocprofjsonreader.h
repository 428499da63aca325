#pragma once
/// \file Kernel dispatches, HIP calls and roctx ranges from rocprofv3's JSON output
/// (`rocprofv3 --output-format json`, rocprofiler-sdk's tool: `<pid>_results.json`, plain or
/// .gz), fed into the same sinks as a rocpd database (rocpdreader.h), so that the JSON of a run
/// gives the kernels of the run's kernel_trace.csv.
///
/// The document is `{"rocprofiler-sdk-tool": [process, ...]}`; per process the reader uses
/// `metadata.pid`, `agents` (id.handle -> logical_node_id), `kernel_symbols` (kernel_id ->
/// formatted_kernel_name, the name the CSV writes), `strings.buffer_records` (kind and
/// operation names), `strings.marker_api` (roctx messages by correlation id),
/// `strings.correlation_id.external` (--kernel-rename names) and `buffer_records`
/// (`kernel_dispatch`, `hip_api`, `marker_api`). It is read in one streaming pass: the project's
/// JsonScanner validates every byte (Python's grammar, its error messages and lines) while the
/// reader's own splitter (64 bytes at a time inside records) copies each record out and hands it
/// to simdjson; the text is never held whole.
///
/// Each dispatch reads as rocprofv3's CSV writes it: Kernel_Name = formatted_kernel_name (or the
/// renamed name), Agent_Id "Agent <logical_node_id>" (rocprofv3's default agent index),
/// Start/End_Timestamp in ns, the duration end - start.

#include "kerneltraceparser.h"
#include "progress.h"
#include "rocpdreader.h"

#include <QByteArrayView>
#include <QString>

namespace goblin
{

/// Reads one rocprofv3 JSON file (a path; .gz inflated on the fly) into `sink` (the reference
/// accumulator is normally null: the reference reads no JSON), one KernelTrace::timeline file
/// (source "rocprofv3-json", one device per agent), one InputFileInfo, the diagnostics, and
/// `trace.host` (HIP calls, roctx ranges) when the file holds them. `progress` gets the input
/// bytes read (compressed bytes for .gz); false cancels.
ReadOutcome readRocprofJson(const QString &path, const QString &rel, KernelSink &sink, KernelTrace &trace,
                             const ProgressCallback &progress = {});

/// The same from bytes in memory (tests, fuzzing); `rel` names them.
ReadOutcome readRocprofJsonBytes(QByteArrayView bytes, const QString &rel, KernelSink &sink, KernelTrace &trace,
                                  const ProgressCallback &progress = {});

} // namespace goblin
