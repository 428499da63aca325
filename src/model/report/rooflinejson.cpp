// The roofline's report keys: the GPU's roofs and each op row against them.
#include "rooflinejson.h"

#include "oproofline.h"

#include <QJsonArray>

#include <cmath>

namespace goblin {

namespace {

QJsonObject valueJson(const std::optional<double> &value, const QString &source, const QString &reason)
{
    if (value && std::isfinite(*value))
        return QJsonObject{{QStringLiteral("value"), *value},
                           {QStringLiteral("state"), valueStateName(ValueState::Estimated)},
                           {QStringLiteral("source"), source}};
    return QJsonObject{{QStringLiteral("value"), QJsonValue()},
                       {QStringLiteral("state"), valueStateName(ValueState::Unknown)},
                       {QStringLiteral("source"), reason}};
}

QJsonObject roofValueJson(const RoofValue &v)
{
    if (!v.value)
        return valueJson(std::nullopt, QString(), QStringLiteral("not in the GPU table"));
    // A data sheet's figure: stated, not measured on this run.
    return QJsonObject{{QStringLiteral("value"), *v.value},
                       {QStringLiteral("state"), valueStateName(ValueState::Estimated)},
                       {QStringLiteral("source"), v.source}};
}

} // namespace

QJsonObject gpuSpecJson(const GpuRoof &roof)
{
    QJsonObject peaks, achievable;
    for (int d = 0; d < kRoofDtypeCount; ++d) {
        const QString key = roofDtypeKey(RoofDtype(d));
        if (!roof.known || roof.peakTflops[size_t(d)].value)
            peaks.insert(key, roof.known ? roofValueJson(roof.peakTflops[size_t(d)])
                                         : valueJson(std::nullopt, QString(), roof.reason));
        if (roof.achievableTflops[size_t(d)].value)
            achievable.insert(key, roofValueJson(roof.achievableTflops[size_t(d)]));
    }
    QJsonObject out{{QStringLiteral("known"), roof.known},
                    {QStringLiteral("model"), roof.known ? QJsonValue(roof.model) : QJsonValue()},
                    {QStringLiteral("device_name"), roof.deviceName.isEmpty() ? QJsonValue() : QJsonValue(roof.deviceName)},
                    {QStringLiteral("state"), valueStateName(roof.known ? ValueState::Estimated : ValueState::Unknown)},
                    {QStringLiteral("reason"), roof.known ? QJsonValue() : QJsonValue(roof.reason)},
                    {QStringLiteral("peak_tflops"), peaks},
                    {QStringLiteral("achievable_tflops"), achievable},
                    {QStringLiteral("hbm_tbps"), roof.known ? roofValueJson(roof.hbmTbps)
                                                            : valueJson(std::nullopt, QString(), roof.reason)},
                    {QStringLiteral("roof_uses"), QStringLiteral("peak_tflops")},
                    {QStringLiteral("docs"), QStringLiteral("docs/roofline.md")}};
    if (!roof.note.isEmpty())
        out.insert(QStringLiteral("note"), roof.note);
    return out;
}

void addRooflineToReport(QJsonObject &report, const RunAnalysis &run)
{
    const GpuRoof roof = decideGpuRoof(run.facts.devices);
    report.insert(QStringLiteral("gpu_spec"), gpuSpecJson(roof));
    QJsonArray ops = report.value(QStringLiteral("ops")).toArray();
    const std::vector<OpStats> &rows = run.torch.attribution.wholeTrace.ops;
    for (qsizetype i = 0; i < ops.size() && size_t(i) < rows.size(); ++i) {
        const OpRoofline r = opRoofline(rows[size_t(i)], roof);
        // Short sources: the report writes them on every op row (docs/roofline.md defines each).
        const QString costSource = opRooflineSource(r);
        const QString rateSource = costSource + QStringLiteral(" / device self time");
        const QString roofSource = rateSource + QStringLiteral(", gpu_spec roof");
        QJsonObject row = ops.at(i).toObject();
        row.insert(QStringLiteral("flops"), valueJson(r.flops, costSource, r.costReason));
        row.insert(QStringLiteral("bytes"), valueJson(r.bytes, costSource, r.costReason));
        row.insert(QStringLiteral("achieved_tflops"), valueJson(r.achievedTflops, rateSource, r.rateReason));
        row.insert(QStringLiteral("achieved_tbps"), valueJson(r.achievedTbps, rateSource, r.rateReason));
        row.insert(QStringLiteral("roof_tflops"), valueJson(r.roofTflops, roofSource, r.roofReason));
        row.insert(QStringLiteral("efficiency"), valueJson(r.efficiencyPct, roofSource, r.roofReason));
        row.insert(QStringLiteral("time_at_roof_s"), valueJson(r.timeAtRoofS, roofSource, r.roofReason));
        row.insert(QStringLiteral("input_types"),
                   rows[size_t(i)].inputTypes.isEmpty() ? QJsonValue() : QJsonValue(rows[size_t(i)].inputTypes.join(QLatin1String(" / "))));
        ops.replace(i, row);
    }
    report.insert(QStringLiteral("ops"), ops);
}

} // namespace goblin
