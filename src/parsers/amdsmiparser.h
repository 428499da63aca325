#pragma once
/// \file amd-smi telemetry CSV (`amd-smi metric|monitor --csv`, polled, watch and --file).

#include "diagnostic.h"
#include "inputfile.h"
#include "progress.h"

#include <QByteArrayView>
#include <QString>
#include <cmath>
#include <optional>
#include <vector>

namespace goblin {

class RunInventory;  // io/runinventory.h

/// GFX utilisation at or below which the workbench treats a telemetry sample as idle when it
/// trims the job window: an idle MI300X reports 0-1 % (firmware housekeeping and the sampling
/// itself), a training step sits far above, so 5 % separates the two with room for noise.
inline constexpr double kSmiIdleUtilPct = 5.0;

/// One telemetry row of one GPU, as the workbench reads it.
struct TelemetrySample {
    double timeS = 0.0;        ///< seconds from the first sample (timestamp column, else row cadence)
    int gpu = 0;               ///< amd-smi's 0-based GPU index
    double utilPct = NAN;      ///< GFX utilisation in %, NaN when N/A
    double hbmUsedGb = NAN;    ///< VRAM used in GB, NaN when N/A
    double hbmTotalGb = NAN;   ///< VRAM of the GPU in GB when the row states it (a total column), else NaN
    double powerW = NAN;       ///< board / socket power in W when the log has it, else NaN
    bool inJobWindow = true;   ///< false for idle samples before the first / after the last busy one
};

/// What one heuristics profile read from the telemetry.
struct SmiReading {
    std::optional<double> gpuUtilPct;  ///< mean over samples (all GPUs)
    std::optional<double> hbmPeakGb;
    std::optional<double> hbmAvgGb;
    QString rocmVersion;
    int utilSamples = 0;
    int hbmSamples = 0;
    bool noHeader = false;             ///< reference: "no parseable header"
    bool readFailed = false;           ///< reference: csv.Error, nothing used
    bool fileUnreadable = false;       ///< reference: OSError reading the file ("failed to read amd-smi telemetry")
    QString readFailure;
};

/// The wall clock of a torch trace, for placing telemetry samples on its steps
/// (model/analysis/telemetrysteps.h): Kineto's `baseTimeNanoseconds` is the Unix time of its ts 0.
struct TraceWallClock {
    QString file;                      ///< the torch trace looked at (relative path); empty: none
    std::optional<qint64> baseTimeNs;  ///< baseTimeNanoseconds, when the trace has it
    QString note;                      ///< how it was found, or why not
};

/// The samples that fall inside one step (model/analysis/telemetrysteps.h).
struct TelemetryStepValues {
    int samples = 0;          ///< samples of any GPU inside the step window
    double utilMeanPct = NAN; ///< mean utilisation of those samples (N/A left out)
    double hbmPeakGb = NAN;   ///< largest memory used among them
    double powerMeanW = NAN;
};

/// Where the samples sit on the run's steps. Not read from the file: the analysis fills it
/// (model/analysis/telemetrysteps.h) when the telemetry and the step-marked trace share a clock.
struct TelemetryPlacement {
    bool placed = false;
    /// Telemetry time (TelemetrySample::timeS) at which the first step starts: step k spans
    /// [stepZeroTimeS + startS, + durationS) on the telemetry's time axis. NaN when not placed.
    double stepZeroTimeS = NAN;
    double zoneOffsetS = 0.0;  ///< local-time logs (nvidia-smi): the zone found, s east of UTC
    int samplesInSteps = 0;    ///< samples inside some step window
    QString how;               ///< the clocks joined, or why the samples could not be placed
    std::vector<TelemetryStepValues> steps;  ///< parallel to the run's steps (RunAnalysis::steps)
};

struct SmiTelemetry {
    std::vector<TelemetrySample> samples;  ///< workbench reading, file order
    int gpuCount = 0;
    double intervalS = 0.2;                ///< nominal cadence used when there is no timestamp
    int samplesOutsideJob = 0;             ///< workbench: idle lead/tail samples left out of the averages
    /// Median spacing of the timestamps of consecutive samples of one GPU (s); 0 when the file
    /// has no timestamp column (then times are sample index × intervalS).
    double measuredIntervalS = 0.0;
    QString tool = QStringLiteral("amd-smi");  ///< "amd-smi", "nvidia-smi", "dcgmi dmon", "rocm-smi"
    /// Unix time (s) of timeS 0: the first sample's wall clock; NaN when the log has none (no
    /// timestamp column; dcgmi dmon and rocm-smi never write one).
    double startEpochS = NAN;
    /// The timestamps are local time without a zone (nvidia-smi): startEpochS reads them as if
    /// they were UTC, and whoever compares them with a Unix clock must find the zone.
    bool wallClockLocal = false;
    /// Resolution of the timestamps (s): 1 for amd-smi's whole Unix seconds, 0.001 for nvidia-smi.
    double timestampResolutionS = 0.0;
    /// The GPUs' memory (GB, the largest of the GPUs) and where it comes from ("'memory.total
    /// [MiB]' column", "from the GPU name 'NVIDIA H100 80GB HBM3'"); unset when unknown.
    std::optional<double> hbmTotalGb;
    QString hbmTotalSource;
    /// The primary torch trace's wall clock (parseAmdSmi(inventory) looks it up), so that the
    /// analysis can place the samples on the trace's steps.
    TraceWallClock traceClock;
    TelemetryPlacement placement;  ///< filled by the analysis, not the reader
    SmiReading reference;
    SmiReading workbench;
    InputFileInfo file;
    Diagnostics diagnostics;
    bool referenceFileFound = false;
    bool cancelled = false;
};

/// Reads the inventory's telemetry (both readings; io/runinventory.h): `amd_smi.csv`, else the
/// telemetry log the inventory recognised by its content (nvidia-smi `--query-gpu` CSV, `dcgmi
/// dmon`, `rocm-smi --csv`; telemetry/telemetrylogs.h), which only the workbench reads (the
/// reference reads amd_smi.csv only). A missing file is not an error: the reference
/// then warns and the engine falls back to kernel time for utilisation. Also looks up the
/// primary torch trace's wall clock (SmiTelemetry::traceClock).
///
/// Reference reading: the reference's `_read_amd_smi` bit for bit (UTF-8 text, header sniffing,
/// repeated-header and blank-line removal, csv.DictReader, alias columns, unit rules), including
/// its misreadings. A file Python cannot decode as UTF-8 makes the reference crash
/// (UnicodeDecodeError is not caught): `reference.readFailed` is set with that message.
/// After a csv.Error the reference keeps a ROCm version already read from earlier rows.
///
/// Workbench reading: a real CSV reader; the dialect decides the utilisation column (`gfx`,
/// `gfx_activity`, never fan `usage` or power/clock/temperature columns) and the VRAM unit
/// (a total-VRAM column settles GB vs MB). Samples are kept per GPU; idle samples before the
/// first and after the last busy one of each GPU are out of the job window and left out of the
/// utilisation mean and the HBM average. The HBM peak is taken over all samples: memory the job
/// allocated stays resident after its last kernel, and idle samples cannot raise a maximum.
SmiTelemetry parseAmdSmi(const RunInventory &inventory, const ProgressCallback &progress = {});
/// The same for the inventory of the whole folder `runDir`.
SmiTelemetry parseAmdSmi(const QString &runDir, const ProgressCallback &progress = {});
/// Both readings of one file; `displayName` is how diagnostics and the reference columns name it.
SmiTelemetry parseAmdSmiFile(const QString &path, const QString &displayName,
                             const ProgressCallback &progress = {});
/// The same from bytes in memory, with the same result as parseAmdSmiFile of a file holding them
/// (`displayName` names them; the bytes must outlive the call). For the fuzzer and for
/// telemetry that is not a file.
SmiTelemetry parseAmdSmiBytes(QByteArrayView bytes, const QString &displayName,
                              const ProgressCallback &progress = {});

} // namespace goblin
