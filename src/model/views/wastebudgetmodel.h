#pragma once
/// \file The seven waste buckets, the unmeasured rest and the step time as a table that follows
/// the thresholds live. The table and the budget chart are both views of it.

#include "budgetformula.h"
#include "heuristics.h"
#include "modelroles.h"

#include <QAbstractTableModel>

namespace goblin {

/// Fixed shape: rows 0..6 are the buckets in WasteBudget order, then kUnattributedRow (shown only
/// when utilisation was not measured: ShownRole) and kStepTimeRow. setResult() emits dataChanged
/// on the value columns only, so views never reset while a threshold is dragged. Formulas are
/// printed from the budget's terms when asked for (FormulaRole, tooltips), never eagerly.
class WasteBudgetModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { BucketColumn, SecondsColumn, PercentColumn, FormulaColumn, ColumnCount };
    static constexpr int RowCount = kBudgetRowCount;
    /// bool: whether views show the row (false for kUnattributedRow when everything was measured).
    static constexpr int ShownRole = RoleCount;

    explicit WasteBudgetModel(QObject *parent = nullptr);

    /// The live result (LiveAnalysis::metrics().wasteBudget) of `profile`.
    void setResult(const WasteBudget &budget, HeuristicsProfile profile);
    void clear();
    bool hasResult() const { return m_valid; }
    const WasteBudget &budget() const { return m_budget; }
    HeuristicsProfile profile() const { return m_profile; }
    double stepTimeS() const { return m_budget.terms.stepS; }
    bool rowShown(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QString formula(int row) const;

    WasteBudget m_budget;
    HeuristicsProfile m_profile = HeuristicsProfile::Workbench;
    bool m_valid = false;
};

} // namespace goblin
