#include "compare.h"

#include "commandline.h"
#include "report.h"

#include <QJsonArray>
#include <QSet>
#include <algorithm>
#include <cmath>

namespace goblin {

namespace {

const QString kMetrics = QStringLiteral("metrics");
const QString kBudget = QStringLiteral("waste_budget");

double stepTimeOf(const QJsonObject &report)
{
    return report[QStringLiteral("aggregates")][QStringLiteral("step_time_seconds")].toDouble(0.0);
}

QJsonValue difference(const QJsonValue &baseline, const QJsonValue &other)
{
    if (!baseline.isDouble() || !other.isDouble())
        return QJsonValue(QJsonValue::Null);
    return other.toDouble() - baseline.toDouble();
}

QString changeOf(double baseline, double other)
{
    if (baseline <= 0.0 && other > 0.0)
        return QStringLiteral("new");
    if (baseline > 0.0 && other <= 0.0)
        return QStringLiteral("gone");
    if (other < baseline)
        return QStringLiteral("faster");
    if (other > baseline)
        return QStringLiteral("slower");
    return QStringLiteral("same");
}

QString numberField(const QJsonValue &v)
{
    return v.isDouble() ? exactNumberText(v.toDouble()) : QString();
}

const QString kDash = QStringLiteral("—");

/// The report's `budget.buckets` key of a `metrics.waste_budget` key.
QString bucketsKeyOf(const QString &wasteBudgetKey)
{
    return wasteBudgetKey == QLatin1String("unattributed_s") ? QStringLiteral("unattributed") : wasteBudgetKey;
}

/// A bucket the report says is unknown has no number, whatever `metrics.waste_budget` (the seed
/// schema, 0 there) holds.
bool bucketUnknown(const QJsonObject &report, const QString &wasteBudgetKey)
{
    const QJsonValue bucket = report[QStringLiteral("budget")][QStringLiteral("buckets")][bucketsKeyOf(wasteBudgetKey)];
    return bucket[QStringLiteral("state")].toString() == QLatin1String("unknown");
}

/// A bucket's seconds per step for a table cell: "—" when unknown or missing. The seed schema's
/// `metrics.waste_budget` where it has the key (the reference's has no unattributed_s), else
/// `budget.buckets.<name>.seconds_per_step`.
QString bucketField(const QJsonObject &report, const QString &wasteBudgetKey)
{
    QJsonValue v = report[kMetrics][kBudget][wasteBudgetKey];
    if (v.isUndefined())
        v = report[QStringLiteral("budget")][QStringLiteral("buckets")][bucketsKeyOf(wasteBudgetKey)]
                  [QStringLiteral("seconds_per_step")];
    return !v.isDouble() || bucketUnknown(report, wasteBudgetKey) ? kDash : exactNumberText(v.toDouble());
}

/// A headline quantity's value for a table cell (`quantities.<key>.value`): "—" when null.
QString quantityField(const QJsonObject &report, const QString &key)
{
    const QJsonValue v = report[QStringLiteral("quantities")][key][QStringLiteral("value")];
    return v.isDouble() ? exactNumberText(v.toDouble()) : kDash;
}

} // namespace

QHash<QString, double> kernelSecondsPerStep(const RunAnalysis &run, HeuristicsProfile profile,
                                            const QStringList &names)
{
    const ProfileAnalysis &a = run.profile(profile);
    const KernelReading &kr = profile == HeuristicsProfile::Reference ? run.kernels.reference : run.kernels.workbench;
    const double divisor = a.perStepPerGpuDivisor > 0.0 ? a.perStepPerGpuDivisor : 1.0;
    QHash<QString, double> out;
    for (const QString &n : names)
        out.insert(n, 0.0);
    const QSet<QString> wanted(names.begin(), names.end());
    for (std::size_t id = 0; id < kr.perName.size() && id < run.kernels.names.size(); ++id) {
        if (kr.perName[id].calls == 0)
            continue;
        const std::string &raw = run.kernels.names[id];
        const QString name = QString::fromUtf8(raw.data(), qsizetype(raw.size()));
        if (wanted.contains(name))
            out[name] += double(kr.perName[id].totalNs) / 1e9 / divisor;
    }
    return out;
}

QStringList topKernelNames(const QJsonObject &report)
{
    QStringList out;
    for (const QJsonValue &k : report[kMetrics][QStringLiteral("top_kernels")].toArray())
        out << k[QStringLiteral("name")].toString();
    return out;
}

QJsonObject compareDelta(const QJsonObject &baseline, const QJsonObject &other,
                         const QHash<QString, double> &baselineKernels, const QHash<QString, double> &otherKernels,
                         int otherIndex)
{
    const QJsonObject b = baseline[kMetrics][kBudget].toObject();
    const QJsonObject o = other[kMetrics][kBudget].toObject();
    const double stepB = stepTimeOf(baseline), stepO = stepTimeOf(other);
    QJsonObject budget, share;
    QStringList keys;
    for (int i = 0; i < WasteBudget::BucketCount; ++i)
        keys << WasteBudget::bucketKey(i);
    if (b.contains(QLatin1String("unattributed_s")) || o.contains(QLatin1String("unattributed_s")))
        keys << QStringLiteral("unattributed_s");  // workbench reports: the step nothing measured
    for (const QString &key : keys) {
        // Unknown in either run: no difference to speak of (0 − x would read as a change).
        const bool unknown = bucketUnknown(baseline, key) || bucketUnknown(other, key);
        budget.insert(key, unknown ? QJsonValue(QJsonValue::Null) : difference(b[key], o[key]));
        share.insert(key, !unknown && b[key].isDouble() && o[key].isDouble() && stepB > 0 && stepO > 0
                              ? QJsonValue(o[key].toDouble() / stepO - b[key].toDouble() / stepB)
                              : QJsonValue(QJsonValue::Null));
    }

    QStringList names = topKernelNames(baseline);
    for (const QString &n : topKernelNames(other))
        if (!names.contains(n))
            names << n;
    struct Row {
        QString name;
        double base, other;
    };
    std::vector<Row> rows;
    for (const QString &n : names)
        rows.push_back({n, baselineKernels.value(n, 0.0), otherKernels.value(n, 0.0)});
    std::stable_sort(rows.begin(), rows.end(), [](const Row &x, const Row &y) {
        return std::abs(x.other - x.base) > std::abs(y.other - y.base);
    });
    QJsonArray kernels;
    for (const Row &r : rows)
        kernels.append(QJsonObject{{QStringLiteral("name"), r.name},
                                   {QStringLiteral("baseline_s_per_step"), r.base},
                                   {QStringLiteral("other_s_per_step"), r.other},
                                   {QStringLiteral("delta_s_per_step"), r.other - r.base},
                                   {QStringLiteral("change"), changeOf(r.base, r.other)}});

    return QJsonObject{{QStringLiteral("other"), otherIndex},
                       {kBudget, budget},
                       {QStringLiteral("share_of_step"), share},
                       {QStringLiteral("step_time_seconds"), stepO - stepB},
                       {QStringLiteral("kernels"), kernels}};
}

QJsonObject compareRuns(const std::vector<const RunAnalysis *> &runs, HeuristicsProfile profile,
                        const Thresholds &thresholds, int baseline, const QStringList &command)
{
    std::vector<QJsonObject> reports;
    QStringList names;
    for (const RunAnalysis *r : runs) {
        reports.push_back(buildReport(*r, profile, thresholds));
        for (const QString &n : topKernelNames(reports.back()))
            if (!names.contains(n))
                names << n;
    }
    std::vector<QHash<QString, double>> kernels;
    for (const RunAnalysis *r : runs)
        kernels.push_back(kernelSecondsPerStep(*r, profile, names));

    QJsonArray reportArray, deltas;
    for (std::size_t i = 0; i < reports.size(); ++i) {
        reportArray.append(reports[i]);
        if (int(i) != baseline)
            deltas.append(compareDelta(reports[std::size_t(baseline)], reports[i], kernels[std::size_t(baseline)],
                                       kernels[i], int(i)));
    }
    QJsonObject out{{QStringLiteral("runs"), reportArray}, {QStringLiteral("baseline"), baseline}};
    if (deltas.size() == 1)
        out.insert(QStringLiteral("delta"), deltas.first());
    else
        out.insert(QStringLiteral("deltas"), deltas);
    if (!command.isEmpty())
        out.insert(QStringLiteral("command"), commandJson(command));
    return out;
}

QStringList tableHeader()
{
    QStringList h{QStringLiteral("run"), QStringLiteral("path"), QStringLiteral("profile")};
    for (int i = 0; i < WasteBudget::BucketCount; ++i)
        h << WasteBudget::bucketKey(i);
    h << QStringLiteral("unattributed_s") << QStringLiteral("gpu_util_pct") << QStringLiteral("step_time_seconds")
      << QStringLiteral("top_kernel") << QStringLiteral("top_kernel_pct_time") << QStringLiteral("diagnostics");
    return h;
}

QStringList tableRow(const QJsonObject &report)
{
    const QJsonObject metrics = report[kMetrics].toObject();
    QStringList row{report[QStringLiteral("run")][QStringLiteral("name")].toString(),
                    report[QStringLiteral("run")][QStringLiteral("path")].toString(),
                    report[QStringLiteral("profile")].toString()};
    for (int i = 0; i < WasteBudget::BucketCount; ++i)
        row << bucketField(report, WasteBudget::bucketKey(i));
    row << bucketField(report, QStringLiteral("unattributed_s"));
    const QJsonArray top = metrics[QStringLiteral("top_kernels")].toArray();
    // One value per quantity: the report's `quantities`, as the window and the PNG show them.
    row << quantityField(report, QStringLiteral("gpu_util_pct")) << quantityField(report, QStringLiteral("step_time_s"))
        << (top.isEmpty() ? QString() : top.first()[QStringLiteral("name")].toString())
        << (top.isEmpty() ? QString() : numberField(top.first()[QStringLiteral("pct_time")]))
        << QString::number(report[QStringLiteral("diagnostics")].toArray().size());
    return row;
}

} // namespace goblin
