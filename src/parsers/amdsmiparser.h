#pragma once
/// \file amd-smi telemetry CSV (`amd-smi metric|monitor --csv`, polled, watch and --file).

#include "diagnostic.h"
#include "inputfile.h"
#include "progress.h"

#include <QString>
#include <cmath>
#include <optional>
#include <vector>

namespace goblin {

/// One telemetry row of one GPU, as the workbench reads it.
struct TelemetrySample {
    double timeS = 0.0;        ///< seconds from the first sample (timestamp column, else row cadence)
    int gpu = 0;               ///< amd-smi's 0-based GPU index
    double utilPct = NAN;      ///< GFX utilisation in %, NaN when N/A
    double hbmUsedGb = NAN;    ///< VRAM used in GB, NaN when N/A
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
    QString readFailure;
};

struct SmiTelemetry {
    std::vector<TelemetrySample> samples;  ///< workbench reading, file order
    int gpuCount = 0;
    double intervalS = 0.2;                ///< nominal cadence used when there is no timestamp
    int samplesOutsideJob = 0;             ///< workbench: idle lead/tail samples left out of the averages
    SmiReading reference;
    SmiReading workbench;
    InputFileInfo file;
    Diagnostics diagnostics;
    bool referenceFileFound = false;
    bool cancelled = false;
};

SmiTelemetry parseAmdSmi(const QString &runDir, const ProgressCallback &progress = {});
SmiTelemetry parseAmdSmiFile(const QString &path, const QString &displayName,
                             const ProgressCallback &progress = {});

} // namespace goblin
