#include "ranksjson.h"

#include "budgetjson.h"
#include "ranks.h"

#include <QJsonArray>
#include <cmath>

namespace goblin {

namespace {

QJsonObject extremeJson(const RankExtreme &e)
{
    return QJsonObject{{QStringLiteral("min"), finiteJson(e.min)},
                       {QStringLiteral("max"), finiteJson(e.max)},
                       {QStringLiteral("straggler_rank"), e.stragglerRank}};
}

} // namespace

QString stragglerDefinition()
{
    return QStringLiteral(
        "The straggler is the rank the others wait for: the one with the most time per step on its own work (step "
        "time less its exposed communication: compute, data loading and host gaps before it reaches the "
        "collectives). In a synchronous job every rank's step is as long and the others show the wait as exposed "
        "communication, so the rank with the longest step is usually one that waits.");
}

void addRanksToReport(QJsonObject &report, const RunAnalysis &run, const Derived &derived)
{
    QJsonArray ranks;
    const std::vector<RankResult> &results = derived.ranks;
    const std::optional<RankSpread> &spread = derived.spread;
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
            {QStringLiteral("kernel_time_s"), finiteJson(double(r.kernelTimeNs) / 1e9)},
            {QStringLiteral("step_time_s"), finiteJson(x.stepTimeS)},
            {QStringLiteral("step_time_source"), x.stepTimeSource},
            {QStringLiteral("host_busy_fraction"),
             (x.measured ? x.budget.terms.hostKnown : a.budgetInputs.hostBusyKnown)
                 ? finiteJson(x.measured ? x.budget.terms.hostBusy : a.hostBusyFraction)
                 : QJsonValue(QJsonValue::Null)},
            {QStringLiteral("host_busy_source"), r.hostBusySource},
            {QStringLiteral("gpu_util_pct"),
             x.measured || a.budgetInputs.gpuUtilKnown ? finiteJson(x.measured ? x.budget.terms.gpuUtilPct : a.gpuUtilPct)
                                                       : QJsonValue(QJsonValue::Null)},
            {QStringLiteral("gpu_util_source"), r.gpuUtilSource},
            {QStringLiteral("comm_excess_s"), finiteJson(x.commExcessS)},
            {QStringLiteral("exposed_comm_s_per_step"), finiteJson(x.exposedCommSPerStep)},
            {QStringLiteral("compute_s_per_step"), finiteJson(x.computeSPerStep)},
            {QStringLiteral("straggler"),
             spread && spread->ranks >= 2 && int(i) == spread->ownWorkSPerStep.stragglerIndex},
            {QStringLiteral("own_work_s_per_step"), finiteJson(x.ownWorkSPerStep())},
            {QStringLiteral("budget_measured"), x.measured},
            {QStringLiteral("waste_budget"), wasteBudgetJson(x.budget)},
        });
    }
    report.insert(QStringLiteral("ranks"), ranks);
    // The job the ranks belong to, as the run's facts decided it once (domain/jobfacts.h).
    const JobFacts &job = run.facts.job;
    const QString members = job.members == JobMembers::ChromeTraces ? QStringLiteral("chrome_traces")
                            : job.members == JobMembers::Processes  ? QStringLiteral("processes")
                                                                    : QStringLiteral("none");
    report.insert(QStringLiteral("job"),
                  QJsonObject{{QStringLiteral("state"), valueStateName(job.state)},
                              {QStringLiteral("source"), job.source},
                              {QStringLiteral("members"), members},
                              {QStringLiteral("ranks"), job.ranks},
                              {QStringLiteral("files"), QJsonArray::fromStringList(job.files)},
                              {QStringLiteral("separate_runs"), qint64(job.separate.size())}});
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
                              {QStringLiteral("exposed_comm_s_per_step"), extremeJson(spread->exposedCommSPerStep)},
                              {QStringLiteral("compute_s_per_step"), extremeJson(spread->computeSPerStep)},
                              {QStringLiteral("own_work_s_per_step"), extremeJson(spread->ownWorkSPerStep)},
                              {QStringLiteral("straggler_rank"), spread->ownWorkSPerStep.stragglerRank},
                              {QStringLiteral("straggler_definition"), stragglerDefinition()}});
}

} // namespace goblin
