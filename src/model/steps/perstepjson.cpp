#include "perstepjson.h"

#include <cmath>

namespace goblin {

namespace {

QJsonValue number(double v)
{
    return std::isfinite(v) ? QJsonValue(v) : QJsonValue(QJsonValue::Null);
}

QJsonArray stepsJson(const StepSeries &series, const Thresholds &thresholds)
{
    QJsonArray out;
    for (int i = 0; i < series.size(); ++i) {
        const StepInputs &s = series.steps[std::size_t(i)];
        const WasteBudget b = stepBudget(series, i, thresholds);
        QJsonObject budget;
        for (int k = 0; k < WasteBudget::BucketCount; ++k)
            budget.insert(WasteBudget::bucketKey(k), number(b.bucket(k)));
        budget.insert(QStringLiteral("unattributed_s"), number(b.unattributed));
        out.append(QJsonObject{
            {QStringLiteral("name"), s.name},
            {QStringLiteral("index"), s.index},
            {QStringLiteral("start_s"), number(s.startS)},
            {QStringLiteral("duration_s"), number(s.durationS)},
            {QStringLiteral("waste_budget"), budget},
            {QStringLiteral("outlier"), bool(series.outlier[std::size_t(i)])},
            {QStringLiteral("outlier_reason"), series.outlierReason[std::size_t(i)]},
            {QStringLiteral("gpu_util_pct"), number(s.inputs.gpuUtilPct)},
            {QStringLiteral("host_busy_fraction"), number(s.inputs.hostBusyFraction)},
        });
    }
    return out;
}

/// The run's marked steps, or with --steps N and no marks the kernel span cut into N (in `cut`).
const StepSeries &seriesFor(const RunAnalysis &run, const Thresholds &thresholds, StepSeries &cut)
{
    if (const int n = cutStepCount(run, thresholds))
        cut = cutSteps(run, n);
    return cut.steps.empty() && cut.source.isEmpty() ? run.steps : cut;
}

} // namespace

QJsonArray perStepJson(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &thresholds)
{
    if (profile != HeuristicsProfile::Workbench)
        return {};
    StepSeries cut;
    return stepsJson(seriesFor(run, thresholds, cut), thresholds);
}

void addPerStepToReport(QJsonObject &report, const RunAnalysis &run, HeuristicsProfile profile,
                        const Thresholds &thresholds)
{
    if (profile != HeuristicsProfile::Workbench) {
        report.insert(QStringLiteral("per_step"), QJsonArray());
        report.insert(QStringLiteral("per_step_source"),
                      QStringLiteral("none in the reference profile: the reference reads no step windows (its "
                                     "RunMetrics has one budget per run); --profile workbench gives per_step"));
        return;
    }
    StepSeries cut;
    const StepSeries &series = seriesFor(run, thresholds, cut);
    report.insert(QStringLiteral("per_step"), stepsJson(series, thresholds));
    report.insert(QStringLiteral("per_step_source"), series.source);
}

} // namespace goblin
