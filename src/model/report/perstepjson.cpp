#include "perstepjson.h"

#include "budgetjson.h"

#include <cmath>

namespace goblin {

namespace {

QJsonValue number(double v)
{
    return std::isfinite(v) ? QJsonValue(v) : QJsonValue(QJsonValue::Null);
}

QJsonArray stepsJson(const StepSeries &series, const std::vector<WasteBudget> &budgets)
{
    QJsonArray out;
    for (int i = 0; i < series.size() && std::size_t(i) < budgets.size(); ++i) {
        const StepInputs &s = series.steps[std::size_t(i)];
        const std::optional<double> hbm = series.hbmPeakGbOf(s);
        out.append(QJsonObject{
            {QStringLiteral("name"), s.name},
            {QStringLiteral("index"), s.index},
            {QStringLiteral("start_s"), number(s.startS)},
            {QStringLiteral("duration_s"), number(s.durationS)},
            {QStringLiteral("waste_budget"), wasteBudgetJson(budgets[std::size_t(i)])},
            {QStringLiteral("outlier"), bool(series.outlier[std::size_t(i)])},
            {QStringLiteral("outlier_reason"), series.outlierReason[std::size_t(i)]},
            {QStringLiteral("partial"), s.partial},
            {QStringLiteral("gpu_util_pct"), number(s.inputs.gpuUtilPct)},
            {QStringLiteral("host_busy_fraction"),
             s.hostBusyMeasured ? number(s.inputs.hostBusyFraction) : QJsonValue(QJsonValue::Null)},
            {QStringLiteral("devices"), int(s.slices.size())},
            {QStringLiteral("hbm_peak_gb"), hbm ? number(*hbm) : QJsonValue(QJsonValue::Null)},
            {QStringLiteral("hbm_peak_scope"), !hbm ? QJsonValue(QJsonValue::Null)
                                               : s.hbmPlaced ? QJsonValue(QStringLiteral("step"))
                                                             : QJsonValue(QStringLiteral("run"))},
        });
    }
    return out;
}

} // namespace

QJsonArray perStepJson(const Derived &derived)
{
    const StepSeries *series = derived.steps();
    return series ? stepsJson(*series, derived.stepBudgets) : QJsonArray();
}

void addPerStepToReport(QJsonObject &report, const RunAnalysis &run, const Derived &derived)
{
    if (derived.profile != HeuristicsProfile::Workbench) {
        report.insert(QStringLiteral("per_step"), QJsonArray());
        report.insert(QStringLiteral("per_step_source"),
                      QStringLiteral("none in the reference profile: the reference reads no step windows (its "
                                     "RunMetrics has one budget per run); --profile workbench gives per_step"));
        return;
    }
    report.insert(QStringLiteral("per_step"), perStepJson(derived));
    report.insert(QStringLiteral("per_step_source"),
                  derived.steps() ? derived.steps()->source : run.steps.source.isEmpty() ? derived.plan.source
                                                                                         : run.steps.source);
}

} // namespace goblin
