// GPU telemetry (amdsmiparser.h): amd_smi.csv by its name (the reference's), and the logs of
// nvidia-smi, dcgmi dmon and rocm-smi by their content (telemetry/telemetrylogs.h), whatever
// their name: nvidia-smi.csv, gpu_log.txt, dmon.log.

#include "formats/builtinformats.h"

#include "amdsmiparser.h"
#include "io/runinventory.h"
#include "telemetry/telemetrylogs.h"

namespace goblin::formats {

namespace {

template <telemetry::LogKind kind> bool sniffLog(const FileHead &head)
{
    return head.content == HeadContent::Text && telemetry::sniffTelemetryLog(QByteArrayView(head.bytes)) == kind;
}

template <telemetry::LogKind kind>
SmiTelemetry readLog(const QString &path, const QString &relativePath, const ProgressCallback &progress)
{
    return parseTelemetryLogFile(kind, path, relativePath, progress);
}

constexpr const char *kLogWhat = "a GPU telemetry log (nvidia-smi, dcgmi dmon or rocm-smi)";

} // namespace

const InputFormat &amdSmiCsv()
{
    // The reference's name decides alone: it reads amd_smi.csv whatever it holds.
    static const InputFormat f{"amd-smi-csv", InputRole::SmiTelemetry, FormatPlace::Folder, {kSmiFileName},
                               nullptr, 1000, "the amd-smi telemetry", "amd-smi telemetry",
                               "holds no telemetry sample", nullptr, &parseAmdSmiFile};
    return f;
}

const InputFormat &nvidiaSmiLog()
{
    static const InputFormat f{"nvidia-smi-csv", InputRole::SmiTelemetry, FormatPlace::Anywhere,
                               {QStringLiteral("*")}, &sniffLog<telemetry::LogKind::NvidiaSmi>, 400, kLogWhat,
                               "GPU telemetry", "holds no telemetry sample", nullptr,
                               &readLog<telemetry::LogKind::NvidiaSmi>};
    return f;
}

const InputFormat &dcgmiDmonLog()
{
    static const InputFormat f{"dcgmi-dmon", InputRole::SmiTelemetry, FormatPlace::Anywhere, {QStringLiteral("*")},
                               &sniffLog<telemetry::LogKind::Dcgm>, 400, kLogWhat, "GPU telemetry",
                               "holds no telemetry sample", nullptr, &readLog<telemetry::LogKind::Dcgm>};
    return f;
}

const InputFormat &rocmSmiLog()
{
    static const InputFormat f{"rocm-smi-csv", InputRole::SmiTelemetry, FormatPlace::Anywhere,
                               {QStringLiteral("*")}, &sniffLog<telemetry::LogKind::RocmSmi>, 400, kLogWhat,
                               "GPU telemetry", "holds no telemetry sample", nullptr,
                               &readLog<telemetry::LogKind::RocmSmi>};
    return f;
}

const InputFormat &telemetryCsvByColumns()
{
    // Below the three tools' logs (whose sniffs know their exact headers): what is left of CSVs
    // whose header names a time and a GPU utilisation % or memory used with its unit.
    static const InputFormat f{"telemetry-csv", InputRole::SmiTelemetry, FormatPlace::Anywhere,
                               {QStringLiteral("*")}, &sniffLog<telemetry::LogKind::ByColumns>, 390,
                               "a GPU telemetry CSV known by its columns' names", "GPU telemetry",
                               "holds no telemetry sample", nullptr, &readLog<telemetry::LogKind::ByColumns>};
    return f;
}

} // namespace goblin::formats
