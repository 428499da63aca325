#pragma once
/// \file The GPU's roofline (docs/roofline.md): dense peak TFLOP/s per datatype and memory
/// bandwidth of the run's GPU model, from the one GPU table (resources/gpus.json, its `roofs`),
/// every value with its source. An unknown GPU has no roof: every roofline value stays unknown.

#include "devicefacts.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <array>
#include <optional>
#include <vector>

namespace goblin {

/// The datatypes a roof has a peak for (the math an op runs in, from its inputs' dtype).
enum class RoofDtype : quint8 { Fp64, Fp32, Tf32, Bf16, Fp16, Fp8, Int8, Count };
inline constexpr int kRoofDtypeCount = int(RoofDtype::Count);
/// "fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8" (the table's and the report's keys).
QString roofDtypeKey(RoofDtype dtype);

/// One value of the table with the text of its source (data sheet title and address).
struct RoofValue {
    std::optional<double> value;
    QString source;
};

/// A GPU's roof. `known` false: the GPU is not in the table (or names no variant), every value unset.
struct GpuRoof {
    bool known = false;
    QString model;       ///< the table's variant name, "NVIDIA H100 SXM"
    QString deviceName;  ///< the name the run's files gave the GPU
    QString reason;      ///< unknown: why ("no GPU name in the run's files", …)
    QString note;        ///< the table's remark on the variant, if any
    std::array<RoofValue, kRoofDtypeCount> peakTflops;        ///< data sheet, dense; the roof uses these
    std::array<RoofValue, kRoofDtypeCount> achievableTflops;  ///< published measured maxima, beside
    RoofValue hbmTbps;  ///< device memory bandwidth, 10^12 bytes/s
};

/// The roof of a device name ("NVIDIA H100 80GB HBM3", "AMD Instinct MI300X VF"), matched as the
/// table's memory entries are (gpumodels.cpp), then its first `roofs` variant whose tokens match.
GpuRoof gpuRoofFromName(const QString &deviceName);
/// The roof of the run's GPU: the model its devices name (deviceProperties, agent info, Nsight
/// GPU table, telemetry name: the run's facts). Devices naming different roofs: unknown.
GpuRoof decideGpuRoof(const DeviceFacts &devices);

/// One row of the table's roofs, for checks: the entry's model, the variant, and what is wrong
/// with it (a value without a source that resolves, a variant without bandwidth or peaks).
struct RoofTableRow {
    QString entryModel;
    QString variantModel;
    QStringList problems;
    GpuRoof roof;
};
/// Every variant of the shipped table; `tableJson` non-empty: of that text instead (for tests).
std::vector<RoofTableRow> gpuRoofTable(const QByteArray &tableJson = {});

} // namespace goblin
