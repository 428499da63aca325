#pragma once
/// \file GPU telemetry logs other than amd-smi's CSV: nvidia-smi `--query-gpu=…
/// --format=csv` logs, `dcgmi dmon` text and `rocm-smi … --csv`, known by their content (they
/// have no fixed name) and read into the SmiTelemetry the amd-smi reader gives. Formats:
/// docs/telemetry.md and shared/formats/INPUTS2.md §7–§9. Only the workbench reads these (the
/// reference reads amd_smi.csv only).

#include "amdsmiparser.h"

#include <QByteArrayView>
#include <QString>
#include <QStringView>

#include <optional>

namespace goblin::telemetry
{

enum class LogKind {
    None,
    NvidiaSmi,  ///< nvidia-smi --query-gpu=… --format=csv[,noheader][,nounits] [-l N | -lms N]
    Dcgm,       ///< dcgmi dmon -e …
    RocmSmi,    ///< rocm-smi --show… --csv (one block per call; shell loops repeat it)
    ByColumns,  ///< any other CSV whose column names say time, device, utilisation %, memory used + unit
};

/// What the first bytes of a text file show (the run inventory's sniff; 4 KB are enough):
/// nvidia-smi property names in a `, `-separated header (`utilization.gpu [%]`, `memory.used
/// [MiB]`, …) or, without a header, a row starting with nvidia-smi's timestamp and cells with its
/// units; a line starting `#Entity` (dcgmi dmon); a `device,` header naming a rocm-smi column
/// (`GPU use (%)`, `VRAM Total …`) or followed by a `card<N>,` row.
/// Else a CSV whose header names, by their tokens, a time and a GPU utilisation in percent or
/// memory used with its unit (sniffTelemetryColumns()).
LogKind sniffTelemetryLog(QByteArrayView head);
/// A CSV header (the first line that is no `#` comment) whose names' tokens show a time column
/// and a utilisation (% or percent, with gpu/gfx/sm or a percent word) or memory-used column with
/// its unit in the name (`timestamp, device, gpu_use_percent, vram_used_bytes`), whatever wrote it.
bool sniffTelemetryColumns(QByteArrayView head);
/// "nvidia-smi", "dcgmi dmon", "rocm-smi", "telemetry CSV" (SmiTelemetry::tool).
QString logKindTool(LogKind kind);
/// "nvidia-smi-csv", "dcgmi-dmon", "rocm-smi-csv", "telemetry-csv" (InputFileInfo::format).
QString logKindFormat(LogKind kind);

/// Reads one log of `kind` into `out` (samples, per-GPU times, aggregates, columns, diagnostics
/// naming `file` and the line). `out.file.relativePath` should already name the file.
void readTelemetryLog(LogKind kind, QByteArrayView bytes, const QString &file, SmiTelemetry &out);
void readNvidiaSmi(QByteArrayView bytes, const QString &file, SmiTelemetry &out);
void readDcgm(QByteArrayView bytes, const QString &file, SmiTelemetry &out);
void readRocmSmi(QByteArrayView bytes, const QString &file, SmiTelemetry &out);
/// Reads a CSV known by its columns' names; one Info diagnostic names the columns chosen.
void readTelemetryColumns(QByteArrayView bytes, const QString &file, SmiTelemetry &out);

/// Marks the samples before the first and after the last busy one of each GPU as outside the job
/// window (SmiTelemetry::samplesOutsideJob), with its diagnostics; the amd-smi reader's rule.
void markJobWindow(SmiTelemetry &out, const QString &file);
/// The workbench reading's means and peak over the samples (job window for the means).
void aggregateSamples(SmiTelemetry &out);

/// Kineto's `baseTimeNanoseconds` of the torch trace at `path` (searched in its first and last
/// megabyte, where Kineto writes its top-level keys; gzip-compressed traces are inflated).
TraceWallClock readTraceWallClock(const QString &path, const QString &displayName);

} // namespace goblin::telemetry
