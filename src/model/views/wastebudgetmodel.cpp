#include "wastebudgetmodel.h"

#include "budgetformula.h"
#include "formatting.h"
#include "modelroles.h"

#include <cmath>

namespace goblin {

QString valueStateMark(ValueState state)
{
    switch (state) {
    case ValueState::Measured:
        return QStringLiteral("M");
    case ValueState::Estimated:
        return QStringLiteral("E");
    case ValueState::Unknown:
        break;
    }
    return QStringLiteral("?");
}

QString valueStateLegend()
{
    return WasteBudgetModel::tr("M measured (on a trace or by telemetry) · E estimated (a heuristic, a name pattern "
                                "or a stand-in) · ? unknown (nothing measured it: shown as —, never as 0)");
}

WasteBudgetModel::WasteBudgetModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void WasteBudgetModel::setResult(const WasteBudget &budget, HeuristicsProfile profile)
{
    m_budget = budget;
    m_profile = profile;
    m_valid = true;
    emit dataChanged(index(0, StateColumn), index(RowCount - 1, ColumnCount - 1));
}

void WasteBudgetModel::clear()
{
    m_budget = {};
    m_valid = false;
    emit dataChanged(index(0, StateColumn), index(RowCount - 1, ColumnCount - 1));
}

void WasteBudgetModel::setDerived(const Derived *derived)
{
    m_derived = derived;
}

bool WasteBudgetModel::rowShown(int row) const
{
    return row != kUnattributedRow || (m_valid && m_budget.hasUnattributed());
}

ValueState WasteBudgetModel::rowState(int row) const
{
    if (!m_valid)
        return ValueState::Unknown;
    if (row == kStepTimeRow) {
        if (m_budget.terms.stepS <= 0.0)
            return ValueState::Unknown;
        return m_derived ? m_derived->quantities[QuantityKey::StepTimeS].state : ValueState::Estimated;
    }
    return m_budget.state(row);
}

QString WasteBudgetModel::rowSource(int row) const
{
    if (!m_valid)
        return {};
    if (row == kStepTimeRow) {
        if (!m_derived)
            return {};
        const Quantity &q = m_derived->quantities[QuantityKey::StepTimeS];
        return q.scope.isEmpty() ? q.source : tr("%1 (%2)").arg(q.source, q.scope);
    }
    if (m_derived && !m_derived->caveat.isEmpty() && row >= 0 && row < int(m_derived->caveated.size())
        && m_derived->caveated[std::size_t(row)])
        return m_derived->caveat;
    return bucketSource(row, m_budget, m_profile);
}

QString WasteBudgetModel::rowToolTip(int row) const
{
    if (!m_valid)
        return {};
    const ValueState state = rowState(row);
    QString html = QStringLiteral("<b>%1</b> — %2 (%3)")
                       .arg(budgetRowLabel(row).toHtmlEscaped(), valueStateName(state), valueStateMark(state));
    const QString source = rowSource(row);
    if (!source.isEmpty())
        html += QStringLiteral("<br/>%1").arg(source.toHtmlEscaped());
    const QString f = formula(row);
    if (!f.isEmpty())
        html += QStringLiteral("<br/><i>%1</i>").arg(f.toHtmlEscaped());
    if (row == kUnattributedRow)  // not a bucket: say what it holds
        html += QStringLiteral("<br/>%1").arg(bucketDefinition(row, m_profile, m_budget.terms.measured).toHtmlEscaped());
    return html;
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
    const bool unknown = m_valid && rowState(row) == ValueState::Unknown;
    const double seconds = unknown ? double(NAN) : budgetRowSeconds(m_budget, row);
    const double pct = unknown ? double(NAN) : stepT > 0.0 ? 100.0 * seconds / stepT : 0.0;
    switch (role) {
    case ShownRole:
        return rowShown(row);
    case FormulaRole:
        return formula(row);
    case StateRole:
        return m_valid ? QVariant(int(rowState(row))) : QVariant();
    case SourceRole:
        return rowSource(row);
    case Qt::ToolTipRole:
        return m_valid ? QVariant(rowToolTip(row)) : QVariant();
    case FractionRole:
        return index.column() == PercentColumn && !unknown ? QVariant(pct / 100.0) : QVariant();
    case Qt::TextAlignmentRole:
        if (index.column() == StateColumn)
            return QVariant::fromValue(Qt::AlignHCenter | Qt::AlignVCenter);
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
    const QString dash = QStringLiteral("—");
    switch (index.column()) {
    case BucketColumn:
        return budgetRowLabel(row);
    case StateColumn:
        if (!m_valid)
            return display ? QVariant(QString()) : QVariant();
        return display ? QVariant(valueStateMark(rowState(row))) : QVariant(int(rowState(row)));
    case SecondsColumn:
        if (!m_valid)
            return display ? QVariant(QString()) : QVariant(0.0);
        if (unknown)
            return display ? QVariant(dash) : QVariant(seconds);
        return display ? QVariant(formatSeconds(seconds)) : QVariant(seconds);
    case PercentColumn:
        if (!m_valid)
            return display ? QVariant(QString()) : QVariant(0.0);
        if (unknown)
            return display ? QVariant(dash) : QVariant(pct);
        return display ? QVariant(formatPercent(pct)) : QVariant(pct);
    case FormulaColumn:
        return formula(row);
    }
    return {};
}

QVariant WasteBudgetModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole)
        return section == StateColumn ? QVariant(valueStateLegend()) : QVariant();
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case BucketColumn:
        return tr("Bucket");
    case StateColumn:
        return tr("Src");
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
