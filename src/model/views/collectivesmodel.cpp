#include "collectivesmodel.h"

#include "formatting.h"
#include "modelroles.h"

#include <cmath>

namespace goblin {

QString formatBytesBinary(double bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (std::fabs(bytes) >= 1024.0 && u < 4) {
        bytes /= 1024.0;
        ++u;
    }
    return u == 0 ? QStringLiteral("%1 B").arg(qint64(bytes))
                  : QStringLiteral("%1 %2").arg(formatNumber(bytes, bytes < 10 ? 2 : 1), QLatin1String(units[u]));
}

namespace {

QString gbps(const std::optional<double> &v)
{
    return v ? formatNumber(*v, *v < 10 ? 2 : 1) : QStringLiteral("—");
}

} // namespace

CollectivesModel::CollectivesModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void CollectivesModel::setAnalysis(const CollectiveAnalysis &analysis)
{
    beginResetModel();
    m_analysis = analysis;
    endResetModel();
}

int CollectivesModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_analysis.rows.size());
}

int CollectivesModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CollectivesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case CollectiveColumn: return tr("Collective");
        case BytesColumn: return tr("Size");
        case DtypeColumn: return tr("dtype");
        case GroupColumn: return tr("Ranks");
        case CallsColumn: return tr("Calls");
        case TimeColumn: return tr("Kernel time");
        case AlgbwColumn: return tr("Alg BW GB/s");
        case BusbwColumn: return tr("Bus BW GB/s");
        case SkewColumn: return tr("Arrival skew");
        case LastRankColumn: return tr("Last rank");
        case KernelColumn: return tr("Kernel");
        default: break;
        }
    } else if (role == Qt::ToolTipRole) {
        switch (section) {
        case BytesColumn: return tr("Bytes per call: the larger of the in and out messages × dtype size (nccl-tests' size)");
        case GroupColumn: return tr("Ranks in the process group (Group size; else the world size, estimated)");
        case TimeColumn: return tr("Summed duration of the NCCL/RCCL kernels the calls launched");
        case AlgbwColumn: return tr("Algorithm bandwidth: bytes × calls / kernel time (10⁹ bytes/s)");
        case BusbwColumn:
            return tr("Bus bandwidth: algorithm bandwidth × the nccl-tests factor (all-reduce 2(n−1)/n; all-gather, "
                      "reduce-scatter, all-to-all (n−1)/n; broadcast, reduce, send/recv 1)");
        case SkewColumn: return tr("Mean over the calls matched across ranks of last arrival − first arrival");
        case LastRankColumn: return tr("The rank that arrived last most often");
        default: break;
        }
    }
    return {};
}

QVariant CollectivesModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const CollectiveRow &r = m_analysis.rows[size_t(index.row())];
    const bool matched = m_analysis.skewKnown && r.matchedCalls > 0;
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case CollectiveColumn:
            return r.processGroup.isEmpty() ? r.collective : QStringLiteral("%1 (pg %2)").arg(r.collective, r.processGroup);
        case BytesColumn:
            return r.bytes ? formatBytesBinary(*r.bytes) + (r.bytesState == ValueState::Estimated ? QStringLiteral(" ~") : QString())
                           : QStringLiteral("—");
        case DtypeColumn: return r.dtype.isEmpty() ? QStringLiteral("—") : r.dtype;
        case GroupColumn:
            return r.groupSize ? QString::number(*r.groupSize) + (r.groupSizeState == ValueState::Estimated ? QStringLiteral(" ~") : QString())
                               : QStringLiteral("—");
        case CallsColumn: return r.calls;
        case TimeColumn: return r.callsTimed > 0 ? formatSeconds(r.timeS) : QStringLiteral("—");
        case AlgbwColumn: return gbps(r.algbwGbps);
        case BusbwColumn: return gbps(r.busbwGbps);
        case SkewColumn: return matched ? formatSeconds(r.meanSkewS()) : QStringLiteral("—");
        case LastRankColumn: return matched && r.lastRank >= 0 ? QVariant(r.lastRank) : QVariant(QStringLiteral("—"));
        case KernelColumn: return r.kernelName.isEmpty() ? QStringLiteral("—") : r.kernelName;
        default: return {};
        }
    }
    if (role == SortRole || role == RawValueRole) {
        switch (index.column()) {
        case CollectiveColumn: return r.collective;
        case BytesColumn: return r.bytes ? QVariant(*r.bytes) : QVariant();
        case DtypeColumn: return r.dtype;
        case GroupColumn: return r.groupSize ? QVariant(double(*r.groupSize)) : QVariant();
        case CallsColumn: return r.calls;
        case TimeColumn: return r.callsTimed > 0 ? QVariant(r.timeS) : QVariant();
        case AlgbwColumn: return r.algbwGbps ? QVariant(*r.algbwGbps) : QVariant();
        case BusbwColumn: return r.busbwGbps ? QVariant(*r.busbwGbps) : QVariant();
        case SkewColumn: return matched ? QVariant(r.meanSkewS()) : QVariant();
        case LastRankColumn: return matched ? QVariant(r.lastRank) : QVariant();
        case KernelColumn: return r.kernelName;
        default: return {};
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() != CollectiveColumn && index.column() != KernelColumn &&
        index.column() != DtypeColumn)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole) {
        switch (index.column()) {
        case BytesColumn:
        case AlgbwColumn:
        case BusbwColumn:
            if (!r.bandwidthReason.isEmpty())
                return r.bandwidthReason;
            return QStringLiteral("%1 [%2]").arg(r.bytes ? QString::number(*r.bytes, 'f', 0) + QStringLiteral(" bytes")
                                                         : QStringLiteral("—"),
                                                 valueStateName(r.bandwidthState));
        case SkewColumn:
            return matched ? tr("%1 calls matched across ranks; largest skew %2")
                                 .arg(r.matchedCalls)
                                 .arg(formatSeconds(r.maxSkewS))
                           : (m_analysis.ranks < 2 ? tr("One rank: no other rank to wait for") : m_analysis.clockNote);
        case KernelColumn: return r.kernelName;
        default: break;
        }
    }
    return {};
}

QString CollectivesModel::summaryText() const
{
    const CollectiveAnalysis &a = m_analysis;
    if (!a.available())
        return tr("No collective calls in the torch trace (no record_param_comms, nccl: ranges or NCCL/RCCL kernels).");
    if (a.ranks <= 1 && a.kernelsLinked == 0 && a.primaryFile == QLatin1String("the kernel trace"))
        return tr("%1 NCCL/RCCL kernels in the kernel trace, by name: no torch trace, so their sizes and "
                  "bandwidths are unknown.")
            .arg(a.commKernels);
    QString text = tr("%1 collective calls on %2 (%3 of %4 NCCL/RCCL kernels linked to their op)")
                       .arg(a.calls)
                       .arg(a.primaryRank ? tr("rank %1").arg(*a.primaryRank) : a.primaryFile)
                       .arg(a.kernelsLinked)
                       .arg(a.commKernels);
    if (a.ranks >= 2) {
        text += tr("; across %1 ranks matched by %2, arrival = %3: ").arg(a.ranks).arg(a.matchedBy, a.arrivalBasis);
        text += a.skewKnown ? tr("%1 calls matched").arg(a.matchedCalls) : a.clockNote;
        if (a.unmatchedGroups > 0)
            text += tr(" (%1 collectives left out: their call counts differ across ranks)").arg(a.unmatchedGroups);
    } else {
        text += tr("; one rank with collectives: no arrival skew");
    }
    return text + QLatin1Char('.');
}

// ------------------------------------------------------------------------------------------------

CollectiveRanksModel::CollectiveRanksModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void CollectiveRanksModel::setAnalysis(const CollectiveAnalysis &analysis)
{
    beginResetModel();
    m_ranks = analysis.rankTotals;
    m_skewKnown = analysis.skewKnown;
    m_why = analysis.clockNote;
    endResetModel();
}

int CollectiveRanksModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_ranks.size());
}

int CollectiveRanksModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CollectiveRanksModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case RankColumn: return tr("Rank");
        case MatchedColumn: return tr("Matched calls");
        case LateColumn: return tr("Mean lateness");
        case WaitColumn: return tr("Wait for last");
        case LastColumn: return tr("Last (calls)");
        case FileColumn: return tr("File");
        default: break;
        }
    } else if (role == Qt::ToolTipRole) {
        switch (section) {
        case LateColumn: return tr("Mean over matched calls of own arrival − first arrival");
        case WaitColumn: return tr("Summed over matched calls: last arrival − own arrival (time spent waiting for the last rank)");
        case LastColumn: return tr("Matched calls at which this rank arrived last");
        default: break;
        }
    }
    return {};
}

QVariant CollectiveRanksModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const CollectiveRankWait &w = m_ranks[size_t(index.row())];
    const bool known = m_skewKnown && w.matchedCalls > 0;
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case RankColumn: return w.rank;
        // Clocks that cannot be compared match nothing in time: "—", not a measured 0.
        case MatchedColumn: return m_skewKnown ? QVariant(w.matchedCalls) : QVariant(QStringLiteral("—"));
        case LateColumn: return known ? formatSeconds(w.meanLateS()) : QStringLiteral("—");
        case WaitColumn: return known ? formatSeconds(w.waitS) : QStringLiteral("—");
        case LastColumn: return known ? QVariant(w.lastCount) : QVariant(QStringLiteral("—"));
        case FileColumn: return w.file;
        default: return {};
        }
    }
    if (role == SortRole || role == RawValueRole) {
        switch (index.column()) {
        case RankColumn: return w.rank;
        case MatchedColumn: return m_skewKnown ? QVariant(w.matchedCalls) : QVariant();
        case LateColumn: return known ? QVariant(w.meanLateS()) : QVariant();
        case WaitColumn: return known ? QVariant(w.waitS) : QVariant();
        case LastColumn: return known ? QVariant(w.lastCount) : QVariant();
        case FileColumn: return w.file;
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole)
        return known ? w.file : m_why;
    if (role == Qt::TextAlignmentRole && index.column() != FileColumn)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

} // namespace goblin
