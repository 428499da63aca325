#include "wastebudgetmodel.h"

#include "budgetformula.h"
#include "formatting.h"
#include "modelroles.h"

namespace goblin {

WasteBudgetModel::WasteBudgetModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void WasteBudgetModel::setResult(const WasteBudget &budget, HeuristicsProfile profile)
{
    m_budget = budget;
    m_profile = profile;
    m_valid = true;
    emit dataChanged(index(0, SecondsColumn), index(RowCount - 1, ColumnCount - 1));
}

void WasteBudgetModel::clear()
{
    m_budget = {};
    m_valid = false;
    emit dataChanged(index(0, SecondsColumn), index(RowCount - 1, ColumnCount - 1));
}

bool WasteBudgetModel::rowShown(int row) const
{
    return row != kUnattributedRow || (m_valid && m_budget.hasUnattributed());
}

QString WasteBudgetModel::formula(int row) const
{
    return m_valid ? bucketFormula(row, m_budget, m_profile) : QString();
}

int WasteBudgetModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : RowCount;
}

int WasteBudgetModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant WasteBudgetModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const int row = index.row();
    const double stepT = stepTimeS();
    const double seconds = budgetRowSeconds(m_budget, row);
    const double pct = stepT > 0.0 ? 100.0 * seconds / stepT : 0.0;
    switch (role) {
    case ShownRole:
        return rowShown(row);
    case FormulaRole:
        return formula(row);
    case Qt::ToolTipRole:
        return m_valid ? QVariant(formula(row)) : QVariant();
    case FractionRole:
        return index.column() == PercentColumn ? QVariant(pct / 100.0) : QVariant();
    case Qt::TextAlignmentRole:
        return index.column() == SecondsColumn || index.column() == PercentColumn
            ? QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter)
            : QVariant();
    case Qt::DisplayRole:
    case SortRole:
    case RawValueRole:
        break;
    default:
        return {};
    }
    const bool display = role == Qt::DisplayRole;
    switch (index.column()) {
    case BucketColumn:
        return budgetRowLabel(row);
    case SecondsColumn:
        if (!m_valid)
            return display ? QVariant(QString()) : QVariant(0.0);
        return display ? QVariant(formatSeconds(seconds)) : QVariant(seconds);
    case PercentColumn:
        if (!m_valid)
            return display ? QVariant(QString()) : QVariant(0.0);
        return display ? QVariant(formatPercent(pct)) : QVariant(pct);
    case FormulaColumn:
        return formula(row);
    }
    return {};
}

QVariant WasteBudgetModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case BucketColumn:
        return tr("Bucket");
    case SecondsColumn:
        return tr("Per step");
    case PercentColumn:
        return tr("% of step");
    case FormulaColumn:
        return tr("Formula");
    }
    return {};
}

} // namespace goblin
