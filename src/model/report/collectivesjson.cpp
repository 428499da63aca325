// The report's collective keys (docs/collectives.md).
#include "collectivesjson.h"

#include "collectives.h"

#include <QJsonArray>

#include <cmath>

namespace goblin {

namespace {

QJsonObject valueJson(const std::optional<double> &value, ValueState state, const QString &sourceOrReason)
{
    if (value && std::isfinite(*value) && state != ValueState::Unknown)
        return QJsonObject{{QStringLiteral("value"), *value},
                           {QStringLiteral("state"), valueStateName(state)},
                           {QStringLiteral("source"), sourceOrReason}};
    return QJsonObject{{QStringLiteral("value"), QJsonValue()},
                       {QStringLiteral("state"), valueStateName(ValueState::Unknown)},
                       {QStringLiteral("source"), sourceOrReason}};
}

QJsonObject rankJson(const CollectiveRankWait &w, bool skewKnown, const QString &why)
{
    const ValueState state = skewKnown && w.matchedCalls > 0 ? ValueState::Measured : ValueState::Unknown;
    return QJsonObject{
        {QStringLiteral("rank"), w.rank},
        {QStringLiteral("file"), w.file},
        {QStringLiteral("matched_calls"), w.matchedCalls},
        {QStringLiteral("arrival_skew_s"),
         valueJson(w.meanLateS(), state,
                   state == ValueState::Measured ? QStringLiteral("mean of own arrival - first arrival") : why)},
        {QStringLiteral("wait_s"),
         valueJson(w.waitS, state,
                   state == ValueState::Measured ? QStringLiteral("sum of last arrival - own arrival") : why)},
        {QStringLiteral("last_count"), w.lastCount},
    };
}

QString skewWhy(const CollectiveAnalysis &a)
{
    if (a.ranks < 2)
        return QStringLiteral("one rank: no other rank to wait for");
    return a.clockNote;
}

} // namespace

QJsonObject collectivesSummaryJson(const CollectiveAnalysis &a)
{
    QJsonArray ranks;
    for (const CollectiveRankWait &w : a.rankTotals)
        ranks.append(rankJson(w, a.skewKnown, skewWhy(a)));
    return QJsonObject{
        {QStringLiteral("calls"), a.calls},
        {QStringLiteral("comm_kernels"), a.commKernels},
        {QStringLiteral("kernels_linked"), a.kernelsLinked},
        {QStringLiteral("primary_file"), a.primaryFile},
        {QStringLiteral("primary_rank"), a.primaryRank ? QJsonValue(*a.primaryRank) : QJsonValue()},
        {QStringLiteral("world_size"), a.worldSize ? QJsonValue(double(*a.worldSize)) : QJsonValue()},
        {QStringLiteral("ranks_with_calls"), a.ranks},
        {QStringLiteral("matched_by"), a.matchedBy.isEmpty() ? QJsonValue() : QJsonValue(a.matchedBy)},
        {QStringLiteral("arrival_basis"), a.arrivalBasis.isEmpty() ? QJsonValue() : QJsonValue(a.arrivalBasis)},
        {QStringLiteral("clock"), a.ranks < 2 ? QJsonValue() : QJsonValue(a.clockNote)},
        {QStringLiteral("skew_state"), valueStateName(a.skewKnown ? ValueState::Measured : ValueState::Unknown)},
        {QStringLiteral("matched_calls"), a.matchedCalls},
        {QStringLiteral("unmatched_groups"), a.unmatchedGroups},
        {QStringLiteral("ranks"), ranks},
        {QStringLiteral("docs"), QStringLiteral("docs/collectives.md")},
    };
}

void addCollectivesToReport(QJsonObject &report, const RunAnalysis &run)
{
    const CollectiveAnalysis a = analyzeCollectives(run);
    QJsonArray rows;
    const QString why = skewWhy(a);
    for (const CollectiveRow &row : a.rows) {
        const QString bytesSource = row.bytesState == ValueState::Estimated
                                        ? QStringLiteral("elements x dtype size, group size = world size")
                                        : QStringLiteral("max(in, out elements) x dtype size");
        const QString rateSource = row.bandwidthReason.isEmpty() ? QStringLiteral("bytes x timed calls / time_s")
                                                                 : row.bandwidthReason;
        const QString busSource = row.bandwidthReason.isEmpty()
                                      ? QStringLiteral("algbw x nccl-tests factor (%1, n = %2)")
                                            .arg(collectiveKindName(row.kind))
                                            .arg(row.groupSize ? QString::number(*row.groupSize) : QStringLiteral("?"))
                                      : row.bandwidthReason;
        const bool matched = a.skewKnown && row.matchedCalls > 0;
        QJsonArray ranks;
        for (const CollectiveRankWait &w : row.ranks)
            ranks.append(rankJson(w, a.skewKnown, why));
        rows.append(QJsonObject{
            {QStringLiteral("name"), row.collective},
            {QStringLiteral("kind"), collectiveKindName(row.kind)},
            {QStringLiteral("dtype"), row.dtype.isEmpty() ? QJsonValue() : QJsonValue(row.dtype)},
            {QStringLiteral("process_group"), row.processGroup.isEmpty() ? QJsonValue() : QJsonValue(row.processGroup)},
            {QStringLiteral("group_size"),
             valueJson(row.groupSize ? std::optional<double>(double(*row.groupSize)) : std::nullopt, row.groupSizeState,
                       row.groupSizeState == ValueState::Estimated ? QStringLiteral("distributedInfo world_size")
                       : row.groupSize                              ? QStringLiteral("Group size")
                                                                    : QStringLiteral("not in the trace"))},
            {QStringLiteral("kernel"), row.kernelName.isEmpty() ? QJsonValue() : QJsonValue(row.kernelName)},
            {QStringLiteral("bytes"), valueJson(row.bytes, row.bytesState, row.bytes ? bytesSource : row.bytesReason)},
            {QStringLiteral("calls"), row.calls},
            {QStringLiteral("calls_timed"), row.callsTimed},
            {QStringLiteral("time_s"),
             valueJson(row.timeS, row.callsTimed > 0 ? ValueState::Measured : ValueState::Unknown,
                       row.callsTimed > 0 ? QStringLiteral("summed NCCL/RCCL kernel time")
                                          : QStringLiteral("no kernel found for its calls"))},
            {QStringLiteral("algbw_gbps"), valueJson(row.algbwGbps, row.bandwidthState, rateSource)},
            {QStringLiteral("busbw_gbps"), valueJson(row.busbwGbps, row.busbwGbps ? row.bandwidthState : ValueState::Unknown, busSource)},
            {QStringLiteral("matched_calls"), row.matchedCalls},
            {QStringLiteral("arrival_skew_s"),
             valueJson(row.meanSkewS(), matched ? ValueState::Measured : ValueState::Unknown,
                       matched ? QStringLiteral("mean of last arrival - first arrival") : why)},
            {QStringLiteral("max_arrival_skew_s"),
             valueJson(row.maxSkewS, matched ? ValueState::Measured : ValueState::Unknown,
                       matched ? QStringLiteral("largest last arrival - first arrival") : why)},
            {QStringLiteral("last_rank"), row.lastRank >= 0 && matched ? QJsonValue(row.lastRank) : QJsonValue()},
            {QStringLiteral("ranks"), ranks},
        });
    }
    report.insert(QStringLiteral("collectives"), rows);
    report.insert(QStringLiteral("collectives_summary"), collectivesSummaryJson(a));
}

} // namespace goblin
