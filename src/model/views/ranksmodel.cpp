#include "ranksmodel.h"

#include "ranksjson.h"

#include "budgetformula.h"
#include "formatting.h"
#include "modelroles.h"

#include <QBrush>
#include <cmath>
#include <QColor>
#include <QFont>

namespace goblin {

RanksModel::RanksModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void RanksModel::setRun(std::shared_ptr<const RunAnalysis> run, const Derived &derived)
{
    beginResetModel();
    m_run = std::move(run);
    m_results = m_run ? derived.ranks : std::vector<RankResult>{};
    m_spread = m_run ? derived.spread : std::nullopt;
    endResetModel();
}

void RanksModel::setDerived(const Derived &derived)
{
    if (!m_run)
        return;
    if (derived.ranks.size() != m_results.size()) {  // the run's first results (runChanged comes first)
        setRun(m_run, derived);
        return;
    }
    if (m_results.empty())
        return;
    m_results = derived.ranks;
    m_spread = derived.spread;
    emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

int RanksModel::budgetRowOfColumn(int column)
{
    if (column >= FirstBucketColumn && column < UnattributedColumn)
        return column - FirstBucketColumn;
    return column == UnattributedColumn ? kUnattributedRow : -1;
}

QString RanksModel::stragglerDefinition()
{
    return goblin::stragglerDefinition();
}

int RanksModel::stragglerRow() const
{
    if (!m_spread || m_spread->ranks < 2)
        return -1;
    return m_spread->ownWorkSPerStep.stragglerIndex;
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
    return tr("%1 ranks (%2); %3. Straggler: rank %4, the one the others wait for (most own work per step before "
              "the collectives: step − exposed comm), %5. Steps %6 – %7 (the longest is usually a rank that waits), "
              "exposed comm %8 – %9 per step.")
        .arg(m_spread->ranks)
        .arg(m_run->workbench.ranks->kind, budget)
        .arg(m_spread->ownWorkSPerStep.stragglerRank)
        .arg(formatSeconds(m_spread->ownWorkSPerStep.max))
        .arg(formatSeconds(m_spread->stepTimeS.min), formatSeconds(m_spread->stepTimeS.max))
        .arg(formatSeconds(m_spread->exposedCommSPerStep.min), formatSeconds(m_spread->exposedCommSPerStep.max));
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
    case OwnWorkColumn:
        return x.ownWorkSPerStep();
    case GpuUtilColumn:
        return x.measured ? x.budget.terms.gpuUtilPct : a.budgetInputs.gpuUtilKnown ? a.gpuUtilPct : double(NAN);
    case HostBusyColumn:
        return x.measured ? (x.budget.terms.hostKnown ? x.budget.terms.hostBusy * 100.0 : double(NAN))
               : a.budgetInputs.hostBusyKnown ? a.hostBusyFraction * 100.0
                                              : double(NAN);
    case KernelsColumn:
        return double(x.inputs->kernels);
    default:
        if (const int row = budgetRowOfColumn(column); row >= 0)
            return x.budget.state(row) == ValueState::Unknown ? double(NAN) : budgetRowSeconds(x.budget, row);
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
        case HostBusyColumn: {
            const double v = rawValue(x, column);
            return std::isnan(v) ? QStringLiteral("—") : formatPercent(v);  // unknown, never 0
        }
        case KernelsColumn:
            return QString::number(x.inputs->kernels);
        default: {
            const double v = rawValue(x, column);
            return std::isnan(v) ? QStringLiteral("—") : formatSeconds(v);
        }
        }
    case SortRole:
    case RawValueRole:
        if (column == FileColumn)
            return x.inputs->file;
        return rawValue(x, column);
    case StateRole:
        if (const int row = budgetRowOfColumn(column); row >= 0)
            return int(x.budget.state(row));
        return {};
    case Qt::ToolTipRole:
        switch (column) {
        case FileColumn:
            return x.inputs->file;
        case StepTimeColumn:
            return x.stepTimeSource;
        case GpuUtilColumn:
            return x.inputs->gpuUtilSource;
        case HostBusyColumn:
            return x.inputs->hostBusySource;
        case ExposedCommColumn:
            return tr("Collective time no compute kernel overlaps on the same device, per step, mean over the "
                      "rank's devices");
        case OwnWorkColumn:
            return tr("Step time less exposed communication: the time this rank spends on its own work before it "
                      "reaches the collectives");
        default:
            if (const int row = budgetRowOfColumn(column); row >= 0)
                return tr("%1: %2").arg(valueStateName(x.budget.state(row)), bucketSource(row, x.budget, HeuristicsProfile::Workbench));
            return straggler ? stragglerDefinition() : QVariant();
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
    if (role == Qt::ToolTipRole && budgetRowOfColumn(section) >= 0)
        return tr("%1 per step of this rank, its own budget under the current thresholds (— where unknown)")
            .arg(budgetRowLabel(budgetRowOfColumn(section)));
    if (role == Qt::ToolTipRole && section == OwnWorkColumn)
        return stragglerDefinition();
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
    case OwnWorkColumn:
        return tr("Own work / step");
    case GpuUtilColumn:
        return tr("GPU util");
    case HostBusyColumn:
        return tr("Host busy");
    case KernelsColumn:
        return tr("Kernels");
    default:
        return budgetRowLabel(budgetRowOfColumn(section));
    }
}

} // namespace goblin
