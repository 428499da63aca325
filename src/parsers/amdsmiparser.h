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

struct SmiTelemetry {
    std::vector<TelemetrySample> samples;  ///< workbench reading, file order
    int gpuCount = 0;
    double intervalS = 0.2;                ///< nominal cadence used when there is no timestamp
    int samplesOutsideJob = 0;             ///< workbench: idle lead/tail samples left out of the averages
    /// Median spacing of the timestamps of consecutive samples of one GPU (s); 0 when the file
    /// has no timestamp column (then times are sample index × intervalS).
    double measuredIntervalS = 0.0;
    SmiReading reference;
    SmiReading workbench;
    InputFileInfo file;
    Diagnostics diagnostics;
    bool referenceFileFound = false;
    bool cancelled = false;
};

/// Reads the inventory's `amd_smi.csv` (both readings; io/runinventory.h). A missing file is not an error: the reference
/// then warns and the engine falls back to kernel time for utilisation.
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
