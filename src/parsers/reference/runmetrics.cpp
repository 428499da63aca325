// profile_parser.parse() after its three reads, in the reference's order and arithmetic.
#include "reference/runmetrics.h"

#include "kernels/accumulator.h"

#include <QDir>
#include <QJsonArray>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>

namespace goblin::reference {

namespace {

const QString kKernelFile = QStringLiteral("trace.csv");
const QString kTorchFile = QStringLiteral("torch_profile.json");
const QString kSmiFile = QStringLiteral("amd_smi.csv");

// profile_parser.py's constants.
constexpr double kHbmTotalGb = 192.0;
constexpr double kHbmHealthyTarget = 0.70;

double orZero(const std::optional<double> &v)
{
    // Python `x or 0.0`; NaN is truthy and passes through.
    return v ? *v : 0.0;
}

using kernels::namesInFirstUseOrder;

ReferenceClassTotals classTotals(const KernelTrace &trace, const std::vector<std::size_t> &used)
{
    std::vector<QRegularExpression> compiled;
    for (const KernelPatternSource &p : kernelPatterns()) {
        compiled.emplace_back(QString::fromLatin1(p.regex), QRegularExpression::CaseInsensitiveOption);
        compiled.back().optimize();
    }
    auto matches = [&](KernelPatternKind kind, const QString &name) {
        return compiled[size_t(kind)].match(name).hasMatch();
    };
    ReferenceClassTotals t;
    for (const std::size_t id : used) {
        const qint64 ns = trace.reference.perName[id].totalNs;
        const std::string &raw = trace.names[id];
        const QString name = QString::fromUtf8(raw.data(), qsizetype(raw.size()));
        const bool gemm = matches(KernelPatternKind::Gemm, name);
        if (matches(KernelPatternKind::Collective, name))
            t.collectiveNs += ns;
        if (gemm)
            t.gemmNs += ns;
        if (gemm && matches(KernelPatternKind::GenericGemm, name))
            t.genericGemmNs += ns;
        if (matches(KernelPatternKind::Fp16, name))
            t.fp16Ns += ns;
        if (matches(KernelPatternKind::Bf16, name))
            t.bf16Ns += ns;
    }
    return t;
}

QJsonValue finiteOrNull(double v)
{
    return std::isfinite(v) ? QJsonValue(v) : QJsonValue(QJsonValue::Null);
}

} // namespace

const std::array<KernelPatternSource, 5> &kernelPatterns()
{
#define GOBLIN_REF_TOKEN(alternatives) "(?<![A-Za-z0-9])(" alternatives ")(?![A-Za-z0-9])"
    static const std::array<KernelPatternSource, 5> patterns{{
        {KernelPatternKind::Collective, GOBLIN_REF_TOKEN("rccl|nccl|all[_-]?reduce|broadcast|reduce[_-]?scatter")},
        {KernelPatternKind::Gemm, GOBLIN_REF_TOKEN("gemm|matmul|hgemm|sgemm|hipblaslt")},
        {KernelPatternKind::GenericGemm, GOBLIN_REF_TOKEN("generic|fallback|naive|reference")},
        {KernelPatternKind::Fp16, GOBLIN_REF_TOKEN("fp16|half|f16")},
        {KernelPatternKind::Bf16, GOBLIN_REF_TOKEN("bf16|bfloat16")},
    }};
#undef GOBLIN_REF_TOKEN
    return patterns;
}

QString attentionOfName(const QString &lowerName)
{
    if (lowerName.contains(QLatin1String("flash_attn")) && lowerName.contains(QLatin1String("rocm")))
        return QStringLiteral("flash_rocm");
    if (lowerName.contains(QLatin1String("flash")) && lowerName.contains(QLatin1String("attn")))
        return QStringLiteral("flash");
    if (lowerName.contains(QLatin1String("scaled_dot_product_attention")))
        return QStringLiteral("sdpa");
    return QString();
}

QJsonValue orUnknown(const QJsonValue &v)
{
    if (v.isUndefined() || v.isNull())
        return QStringLiteral("unknown");
    if (v.isString() && v.toString().isEmpty())
        return QStringLiteral("unknown");
    if (v.isBool() && !v.toBool())
        return QStringLiteral("unknown");
    if (v.isDouble() && v.toDouble() == 0.0)
        return QStringLiteral("unknown");
    if (v.isArray() && v.toArray().isEmpty())
        return QStringLiteral("unknown");
    if (v.isObject() && v.toObject().isEmpty())
        return QStringLiteral("unknown");
    return v;
}

QString referencePath(const QString &runDirAsGiven, const QString &file)
{
    QString dir = QDir::cleanPath(runDirAsGiven.isEmpty() ? QStringLiteral(".") : runDirAsGiven);
    if (dir == QLatin1String("."))
        return file;
    if (dir.endsWith(QLatin1Char('/')))
        return dir + file;
    return dir + QLatin1Char('/') + file;
}

ReferenceRun assembleRun(const KernelTrace &kernels, const TorchTrace &torch, const SmiTelemetry &smi,
                         const QString &runDirAsGiven)
{
    ReferenceRun a;
    const KernelReading &kr = kernels.reference;
    const TorchReading &tr = torch.reference;
    const SmiReading &sr = smi.reference;
    const std::vector<std::size_t> used = namesInFirstUseOrder(kr);

    // The warnings, in parse()'s order and words.
    const QString given = runDirAsGiven;
    if (!kernels.referenceFileFound)
        a.warnings << QStringLiteral("profile_parser: kernel trace not found at %1").arg(referencePath(given, kKernelFile));
    else if (kernels.referenceFileEmpty)
        a.warnings << QStringLiteral("profile_parser: empty kernel trace at %1").arg(referencePath(given, kKernelFile));
    else if (kr.readFailed)
        a.warnings << QStringLiteral("profile_parser: failed to read kernel trace (%1)").arg(kr.readFailure);
    if (!torch.referenceFileFound)
        a.warnings << QStringLiteral("profile_parser: torch profile not found at %1").arg(referencePath(given, kTorchFile));
    else if (tr.readFailed)
        a.warnings << QStringLiteral("profile_parser: failed to read torch profile (%1)").arg(tr.readFailure);
    if (!smi.referenceFileFound)
        a.warnings << QStringLiteral("profile_parser: amd-smi telemetry not found at %1").arg(referencePath(given, kSmiFile));
    else if (sr.fileUnreadable)
        a.warnings << QStringLiteral("profile_parser: failed to read amd-smi telemetry (%1)").arg(sr.readFailure);
    else if (sr.noHeader)
        a.warnings << QStringLiteral("profile_parser: no parseable header in amd-smi telemetry at %1")
                          .arg(referencePath(given, kSmiFile));
    else if (sr.readFailed)
        a.warnings << QStringLiteral("profile_parser: failed to parse amd-smi telemetry (%1)").arg(sr.readFailure);

    // _top_kernels: Python's sorted(reverse=True) is stable, so equal totals keep first-use order.
    std::vector<std::size_t> ranked = used;
    std::stable_sort(ranked.begin(), ranked.end(), [&](std::size_t x, std::size_t y) {
        return kr.perName[x].totalNs > kr.perName[y].totalNs;
    });
    const double total = kr.totalNs != 0 ? double(kr.totalNs) : 1.0;
    for (std::size_t i = 0; i < ranked.size() && i < 5; ++i) {
        const std::string &name = kernels.names[ranked[i]];
        a.topKernels.push_back({QString::fromUtf8(name.data(), qsizetype(name.size())),
                                double(kr.perName[ranked[i]].totalNs) / total * 100.0, ranked[i]});
    }

    // _detect_attention_kernel: the first kernel (in file order) with a flash-shaped name.
    for (const std::size_t id : used) {
        const std::string &raw = kernels.names[id];
        const QString label = attentionOfName(QString::fromUtf8(raw.data(), qsizetype(raw.size())).toLower());
        if (!label.isEmpty()) {
            a.attentionKernelLoaded = label;
            break;
        }
    }
    if (a.attentionKernelLoaded == QLatin1String("unknown") && !used.empty())
        a.attentionKernelLoaded = QStringLiteral("eager");

    a.stepTimeS = orZero(tr.stepTimeSeconds);
    a.stepTimeSource = tr.stepTimeSeconds ? tr.stepTimeSource : QStringLiteral("not found");
    a.hostBusyFraction = orZero(tr.hostBusyFraction);
    a.hostBusySource = tr.hostBusyFraction ? tr.hostBusySource : QStringLiteral("not found (read as 0)");

    // smi.gpu_util_pct, else _gpu_util_from_kernels.
    if (sr.gpuUtilPct) {
        a.gpuUtilPct = *sr.gpuUtilPct;
        a.gpuUtilSource = QStringLiteral("amd_smi.csv, mean of %1 samples").arg(sr.utilSamples);
    } else if (kr.rowsUsed == 0 || !tr.stepTimeSeconds || *tr.stepTimeSeconds == 0.0) {
        a.gpuUtilPct = 0.0;
        a.gpuUtilSource = QStringLiteral("none (no telemetry, no kernels or no step time)");
    } else {
        const double wallNs = *tr.stepTimeSeconds * 1e9;
        a.gpuUtilPct = wallNs <= 0.0 ? 0.0 : std::min(100.0, double(kr.totalNs) / wallNs * 100.0);
        a.gpuUtilSource = QStringLiteral("trace-wide kernel time / one step time (reference fallback)");
    }

    a.tokensPerSec = orZero(tr.tokensPerSec);
    a.mfuPct = orZero(tr.mfuPct);
    a.hbmPeakGb = orZero(sr.hbmPeakGb);
    a.hbmAvgGb = orZero(sr.hbmAvgGb);
    a.hbmPeakForBudget = sr.hbmPeakGb;
    a.rocmVersion = sr.rocmVersion.isEmpty() ? QJsonValue(QStringLiteral("unknown")) : QJsonValue(sr.rocmVersion);
    a.pytorchVersion = orUnknown(tr.pytorchVersion);
    a.classTotals = classTotals(kernels, used);
    return a;
}

ReferenceBudget wasteBudget(const ReferenceRun &run, const std::optional<QString> &configPrecision)
{
    ReferenceBudget b;
    const double stepT = run.stepTimeS;
    const double gpuUtil = run.gpuUtilPct / 100.0;  // smi.gpu_util_pct was set to the resolved value
    const double hostBusy = run.hostBusyFraction;
    if (stepT <= 0)
        return b;
    b.dataWait = (gpuUtil < 0.30 && hostBusy > 0.5) ? stepT * (1.0 - gpuUtil) * hostBusy : 0.0;
    b.hostGap = stepT * (1.0 - gpuUtil) * (1.0 - hostBusy);
    const ReferenceClassTotals &c = run.classTotals;
    b.commExcess = double(c.collectiveNs) / 1e9;
    const double gemmTotalNs = c.gemmNs != 0 ? double(c.gemmNs) : 1.0;
    b.kernelShape = (double(c.genericGemmNs) / gemmTotalNs) * stepT * gpuUtil;
    if (!configPrecision || *configPrecision == QLatin1String("fp16") || *configPrecision == QLatin1String("fp32")) {
        const qint64 denom = c.fp16Ns + c.bf16Ns;
        if (denom > 0)
            b.precisionPath = (double(c.fp16Ns) / double(denom)) * stepT * gpuUtil * 0.10;
    }
    if (run.hbmPeakForBudget && *run.hbmPeakForBudget > 0) {
        const double utilisation = *run.hbmPeakForBudget / kHbmTotalGb;
        if (utilisation < kHbmHealthyTarget) {
            const double slack = (kHbmHealthyTarget - utilisation) / kHbmHealthyTarget;
            b.memoryHeadroom = slack * stepT * 0.05;
        }
    }
    const double spent = b.dataWait + b.hostGap + b.commExcess + b.kernelShape + b.precisionPath + b.memoryHeadroom;
    b.usefulGpu = std::max(0.0, stepT - spent);
    return b;
}

QJsonObject runMetricsJson(const ReferenceRun &run, const ReferenceBudget &budget, int steps)
{
    QJsonArray top;
    for (const ReferenceKernelEntry &k : run.topKernels)
        top.append(QJsonObject{{QStringLiteral("name"), k.name}, {QStringLiteral("pct_time"), finiteOrNull(k.pctTime)}});
    const QJsonObject waste{
        {QStringLiteral("useful_gpu"), finiteOrNull(budget.usefulGpu)},
        {QStringLiteral("data_wait"), finiteOrNull(budget.dataWait)},
        {QStringLiteral("host_gap"), finiteOrNull(budget.hostGap)},
        {QStringLiteral("comm_excess"), finiteOrNull(budget.commExcess)},
        {QStringLiteral("memory_headroom"), finiteOrNull(budget.memoryHeadroom)},
        {QStringLiteral("precision_path"), finiteOrNull(budget.precisionPath)},
        {QStringLiteral("kernel_shape"), finiteOrNull(budget.kernelShape)},
    };
    return QJsonObject{
        {QStringLiteral("steps"), steps},
        {QStringLiteral("tokens_per_sec"), finiteOrNull(run.tokensPerSec)},
        {QStringLiteral("mfu_pct"), finiteOrNull(run.mfuPct)},
        {QStringLiteral("hbm_peak_gb"), finiteOrNull(run.hbmPeakGb)},
        {QStringLiteral("hbm_avg_gb"), finiteOrNull(run.hbmAvgGb)},
        {QStringLiteral("gpu_util_pct"), finiteOrNull(run.gpuUtilPct)},
        {QStringLiteral("top_kernels"), top},
        {QStringLiteral("attention_kernel_loaded"), run.attentionKernelLoaded},
        {QStringLiteral("waste_budget"), waste},
        {QStringLiteral("warnings"), QJsonArray::fromStringList(run.warnings)},
        {QStringLiteral("rocm_version"), run.rocmVersion},
        {QStringLiteral("pytorch_version"), run.pytorchVersion},
        {QStringLiteral("runner_kind"), QStringLiteral("live")},
    };
}

} // namespace goblin::reference
