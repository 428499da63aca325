#include "ranksjson.h"

#include "ranks.h"

#include <QJsonArray>
#include <cmath>

namespace goblin {

namespace {

QJsonValue finite(double v) { return std::isfinite(v) ? QJsonValue(v) : QJsonValue(QJsonValue::Null); }

QJsonObject budgetJson(const WasteBudget &b)
{
    QJsonObject o;
    for (int i = 0; i < WasteBudget::BucketCount; ++i)
        o.insert(WasteBudget::bucketKey(i), finite(b.bucket(i)));
    o.insert(QStringLiteral("unattributed_s"), finite(b.unattributed));
    return o;
}

QJsonObject extremeJson(const RankExtreme &e)
{
    return QJsonObject{{QStringLiteral("min"), finite(e.min)},
                       {QStringLiteral("max"), finite(e.max)},
                       {QStringLiteral("straggler_rank"), e.stragglerRank}};
}

} // namespace

void addRanksToReport(QJsonObject &report, const RunAnalysis &run, const Thresholds &thresholds)
{
    QJsonArray ranks;
    std::vector<RankResult> results;
    if (run.workbench.ranks)
        results = rankResults(*run.workbench.ranks, thresholds);
    const std::optional<RankSpread> spread = rankSpread(results);
    for (std::size_t i = 0; i < results.size(); ++i) {
        const RankResult &x = results[i];
        const RankInputs &r = *x.inputs;
        const ProfileAnalysis &a = r.analysis;
        ranks.append(QJsonObject{
            {QStringLiteral("rank"), r.rank},
            {QStringLiteral("rank_source"),
             r.rankStated ? QStringLiteral("trace") : QStringLiteral("process order")},
            {QStringLiteral("file"), r.file},
            {QStringLiteral("source"), r.source},
            {QStringLiteral("pid"), r.pid >= 0 ? QJsonValue(double(r.pid)) : QJsonValue(QJsonValue::Null)},
            {QStringLiteral("devices"), r.devices},
            {QStringLiteral("kernels"), double(r.kernels)},
            {QStringLiteral("kernel_time_s"), finite(double(r.kernelTimeNs) / 1e9)},
            {QStringLiteral("step_time_s"), finite(x.stepTimeS)},
            {QStringLiteral("step_time_source"), x.stepTimeSource},
            {QStringLiteral("host_busy_fraction"), finite(a.hostBusyFraction)},
            {QStringLiteral("host_busy_source"), r.hostBusySource},
            {QStringLiteral("gpu_util_pct"), finite(a.gpuUtilPct)},
            {QStringLiteral("gpu_util_source"), r.gpuUtilSource},
            {QStringLiteral("comm_excess_s"), finite(x.commExcessS)},
            {QStringLiteral("exposed_comm_s_per_step"), finite(x.exposedCommSPerStep)},
            {QStringLiteral("straggler"), spread && spread->ranks >= 2 && int(i) == spread->stepTimeS.stragglerIndex},
            {QStringLiteral("waste_budget"), budgetJson(x.budget)},
        });
    }
    report.insert(QStringLiteral("ranks"), ranks);
    if (!spread) {
        report.insert(QStringLiteral("rank_spread"), QJsonValue(QJsonValue::Null));
        return;
    }
    report.insert(QStringLiteral("rank_spread"),
                  QJsonObject{{QStringLiteral("ranks"), spread->ranks},
                              {QStringLiteral("kind"), run.workbench.ranks->kind},
                              {QStringLiteral("workbench_budget"),
                               run.workbench.ranks->budgetIsMean ? QStringLiteral("mean over ranks") : QStringLiteral("the run's")},
                              {QStringLiteral("step_time_s"), extremeJson(spread->stepTimeS)},
                              {QStringLiteral("exposed_comm_s_per_step"), extremeJson(spread->exposedCommSPerStep)}});
}

} // namespace goblin
