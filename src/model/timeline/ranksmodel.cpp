#include "ranksmodel.h"

#include "formatting.h"
#include "modelroles.h"

#include <QBrush>
#include <QColor>
#include <QFont>

namespace goblin {

RanksModel::RanksModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void RanksModel::setRun(std::shared_ptr<const RunAnalysis> run, const Thresholds &thresholds)
{
    beginResetModel();
    m_run = std::move(run);
    m_results.clear();
    if (m_run && m_run->workbench.ranks)
        m_results = rankResults(*m_run->workbench.ranks, thresholds);
    m_spread = rankSpread(m_results);
    endResetModel();
}

void RanksModel::setThresholds(const Thresholds &thresholds)
{
    if (!m_run || !m_run->workbench.ranks || m_results.empty())
        return;
    m_results = rankResults(*m_run->workbench.ranks, thresholds);
    m_spread = rankSpread(m_results);
    emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

int RanksModel::stragglerRow() const
{
    if (!m_spread || m_spread->ranks < 2)
        return -1;
    return m_spread->stepTimeS.stragglerIndex;
}

QString RanksModel::spreadText() const
{
    if (!m_spread)
        return tr("No rank has kernels: nothing to compare.");
    if (m_spread->ranks == 1)
        return tr("One rank: the budget above is its own.");
    const QString budget = m_run->workbench.ranks->budgetIsMean
                               ? tr("the workbench budget is their mean")
                               : tr("the workbench budget is the run's, all processes per step per GPU");
    return tr("%1 ranks (%2); %9. Step time %3 – %4, straggler rank %5; "
              "exposed communication %6 – %7 per step, most on rank %8.")
        .arg(m_spread->ranks)
        .arg(m_run->workbench.ranks->kind)
        .arg(formatSeconds(m_spread->stepTimeS.min), formatSeconds(m_spread->stepTimeS.max))
        .arg(m_spread->stepTimeS.stragglerRank)
        .arg(formatSeconds(m_spread->exposedCommSPerStep.min), formatSeconds(m_spread->exposedCommSPerStep.max))
        .arg(m_spread->exposedCommSPerStep.stragglerRank)
        .arg(budget);
}

int RanksModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_results.size());
}

int RanksModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

double RanksModel::rawValue(const RankResult &x, int column) const
{
    const ProfileAnalysis &a = x.inputs->analysis;
    switch (column) {
    case RankColumn:
        return x.inputs->rank;
    case StepTimeColumn:
        return x.stepTimeS;
    case ExposedCommColumn:
        return x.exposedCommSPerStep;
    case GpuUtilColumn:
        return a.gpuUtilPct;
    case HostBusyColumn:
        return a.hostBusyFraction * 100.0;
    case KernelsColumn:
        return double(x.inputs->kernels);
    default:
        if (column >= FirstBucketColumn && column < KernelsColumn)
            return x.budget.bucket(column - FirstBucketColumn);
        return 0.0;
    }
}

QVariant RanksModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const RankResult &x = m_results[std::size_t(index.row())];
    const int column = index.column();
    const bool straggler = index.row() == stragglerRow();
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case RankColumn:
            return straggler ? tr("%1 (straggler)").arg(x.inputs->rank) : QString::number(x.inputs->rank);
        case FileColumn:
            return x.inputs->pid >= 0 ? tr("%1, pid %2").arg(x.inputs->file).arg(x.inputs->pid) : x.inputs->file;
        case GpuUtilColumn:
        case HostBusyColumn:
            return formatPercent(rawValue(x, column));
        case KernelsColumn:
            return QString::number(x.inputs->kernels);
        default:
            return formatSeconds(rawValue(x, column));
        }
    case SortRole:
    case RawValueRole:
        if (column == FileColumn)
            return x.inputs->file;
        return rawValue(x, column);
    case Qt::ToolTipRole:
        switch (column) {
        case StepTimeColumn:
            return x.stepTimeSource;
        case GpuUtilColumn:
            return x.inputs->gpuUtilSource;
        case HostBusyColumn:
            return x.inputs->hostBusySource;
        case ExposedCommColumn:
            return tr("Collective time no compute kernel overlaps on the same device, per step, mean over the "
                      "rank's devices");
        default:
            return straggler ? tr("The rank with the longest step") : QVariant();
        }
    case Qt::TextAlignmentRole:
        return column == FileColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                    : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::FontRole:
        if (straggler) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::BackgroundRole:
        if (straggler)
            return QBrush(QColor(255, 214, 153));
        return {};
    case Qt::ForegroundRole:
        if (straggler)
            return QBrush(QColor(Qt::black));
        return {};
    default:
        return {};
    }
}

QVariant RanksModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::ToolTipRole && section >= FirstBucketColumn && section < KernelsColumn)
        return tr("%1 per step of this rank, its own budget under the current thresholds")
            .arg(WasteBudget::bucketLabel(section - FirstBucketColumn));
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case RankColumn:
        return tr("Rank");
    case FileColumn:
        return tr("File");
    case StepTimeColumn:
        return tr("Step time");
    case ExposedCommColumn:
        return tr("Exposed comm / step");
    case GpuUtilColumn:
        return tr("GPU util");
    case HostBusyColumn:
        return tr("Host busy");
    case KernelsColumn:
        return tr("Kernels");
    default:
        return WasteBudget::bucketLabel(section - FirstBucketColumn);
    }
}

} // namespace goblin
