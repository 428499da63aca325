#pragma once
/// \file The reference's RunMetrics assembly (`profile_parser.parse()` after its three reads): the
/// kernel classes of its five name patterns, `_top_kernels`, `_detect_attention_kernel`,
/// `_gpu_util_from_kernels`, its warnings in its order and words, Python's `x or 0.0` / `x or
/// "unknown"`, and `_waste_budget` with the reference's own constants. Pure arithmetic on the
/// reference readings; the model's reference profile takes its numbers from here (and applies the
/// user's thresholds with its one budget formula, which equals `_waste_budget` at the defaults).

#include "amdsmiparser.h"
#include "kerneltraceparser.h"
#include "torchtraceparser.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace goblin::reference {

/// The reference's kernel-name patterns (case-insensitive; `(?<![A-Za-z0-9])` … `(?![A-Za-z0-9])`
/// bounds, so '_' separates tokens), in profile_parser.py's order.
enum class KernelPatternKind : std::uint8_t { Collective, Gemm, GenericGemm, Fp16, Bf16 };
struct KernelPatternSource {
    KernelPatternKind kind;
    const char *regex;  ///< PCRE, as QRegularExpression takes it
};
const std::array<KernelPatternSource, 5> &kernelPatterns();

/// `_detect_attention_kernel` of one lower-cased name: "flash_rocm", "flash", "sdpa", or empty.
QString attentionOfName(const QString &lowerName);

/// Python's `x or "unknown"` on a JSON value: falsy values ("", 0, false, null, [], {}) fall through.
QJsonValue orUnknown(const QJsonValue &value);

/// How the reference prints `out_dir / file` (pathlib drops "./" and trailing slashes).
QString referencePath(const QString &runDirAsGiven, const QString &file);

/// Kernel time per class (`_waste_budget`'s sums over `kernels`).
struct ReferenceClassTotals {
    qint64 collectiveNs = 0, gemmNs = 0, genericGemmNs = 0, fp16Ns = 0, bf16Ns = 0;
};

struct ReferenceKernelEntry {
    QString name;
    double pctTime = 0.0;
    std::size_t nameId = 0;  ///< into KernelTrace::names
};

/// schemas.WasteBudget, seconds per step.
struct ReferenceBudget {
    double usefulGpu = 0.0, dataWait = 0.0, hostGap = 0.0, commExcess = 0.0, memoryHeadroom = 0.0,
           precisionPath = 0.0, kernelShape = 0.0;
};

/// What `parse()` computes before `_waste_budget` (schemas.RunMetrics without the budget), and the
/// inputs the budget reads.
struct ReferenceRun {
    double tokensPerSec = 0.0;
    double mfuPct = 0.0;
    double hbmPeakGb = 0.0;
    double hbmAvgGb = 0.0;
    double gpuUtilPct = 0.0;
    QString gpuUtilSource;
    std::vector<ReferenceKernelEntry> topKernels;
    QString attentionKernelLoaded = QStringLiteral("unknown");
    QStringList warnings;
    QJsonValue rocmVersion;
    QJsonValue pytorchVersion;

    double stepTimeS = 0.0;  ///< torch_summary.step_time_seconds or 0.0
    QString stepTimeSource;
    double hostBusyFraction = 0.0;
    QString hostBusySource;
    std::optional<double> hbmPeakForBudget;  ///< smi.hbm_peak_gb as `_waste_budget` reads it (None stays None)
    ReferenceClassTotals classTotals;
};

ReferenceRun assembleRun(const KernelTrace &kernels, const TorchTrace &torch, const SmiTelemetry &smi,
                         const QString &runDirAsGiven);

/// `_waste_budget` with WorkloadConfig(precision) (nullopt: config=None).
ReferenceBudget wasteBudget(const ReferenceRun &run, const std::optional<QString> &configPrecision);

/// schemas.RunMetrics as `dataclasses.asdict()` gives it (what oracle.py prints).
QJsonObject runMetricsJson(const ReferenceRun &run, const ReferenceBudget &budget, int steps);

} // namespace goblin::reference
