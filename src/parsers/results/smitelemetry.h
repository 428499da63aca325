#pragma once
/// \file What the telemetry readers give (amdsmiparser.h, telemetry/): per-GPU samples, both readings,
/// the GPUs' memory, the trace's wall clock for placing the samples.

#include "diagnostic.h"
#include "results/inputfile.h"

#include <QString>
#include <cmath>
#include <map>
#include <optional>
#include <vector>

namespace goblin {

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
    /// The GPUs' memory (GB, the largest of the GPUs) from a total column, and which ("'memory.total
    /// [MiB]' column"); unset when the log has none.
    std::optional<double> hbmTotalGb;
    QString hbmTotalSource;
    /// The GPU names the log writes (nvidia-smi's `name`, rocm-smi's `Card series`), by GPU. The
    /// reader only reports them: what memory a name means is decided with the run's devices (the
    /// one table of GPU models, analysis/devicefacts.cpp).
    std::map<int, QString> gpuNames;
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

} // namespace goblin
