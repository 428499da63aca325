#pragma once
/// \file The seven waste buckets, the unattributed rest and the step time as a table that follows
/// the thresholds live. The table and the budget chart are both views of it.

#include "budgetformula.h"
#include "derived.h"
#include "heuristics.h"
#include "modelroles.h"

#include <QAbstractTableModel>

namespace goblin {

/// The mark beside a number that says where it came from: "M" measured, "E" estimated, "?"
/// unknown. One letter, so that it reads the same in light and dark palettes and in print.
QString valueStateMark(ValueState state);
/// The marks explained in one line (legends, header tooltips, the exported image).
QString valueStateLegend();

/// Fixed shape: rows 0..6 are the buckets in WasteBudget order, then kUnattributedRow (shown only
/// when part of the step is unattributed: ShownRole) and kStepTimeRow. setResult() emits
/// dataChanged on the state and value columns only, so views never reset while a threshold is
/// dragged. Formulas are printed from the budget's terms when asked for (FormulaRole, tooltips),
/// never eagerly. A bucket whose state is unknown has no number: its cells read "—" and its
/// RawValueRole/SortRole are NaN (views draw no bar), never 0.
class WasteBudgetModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { BucketColumn, StateColumn, SecondsColumn, PercentColumn, FormulaColumn, ColumnCount };
    static constexpr int RowCount = kBudgetRowCount;
    /// bool: whether views show the row (false for kUnattributedRow when everything was measured).
    static constexpr int ShownRole = RoleCount;

    explicit WasteBudgetModel(QObject *parent = nullptr);

    /// The live result (LiveAnalysis::metrics().wasteBudget, or the selected step's) of `profile`.
    void setResult(const WasteBudget &budget, HeuristicsProfile profile);
    void clear();
    /// Where the run's caveat, the rows it lowered and the step time's provenance are read from,
    /// when asked (nothing is copied, so a recompute needs no second signal). Not owned; it must
    /// outlive the model or be unset (nullptr): LiveAnalysis::derived() lives as long as the
    /// session that owns both.
    void setDerived(const Derived *derived);
    bool hasResult() const { return m_valid; }
    const WasteBudget &budget() const { return m_budget; }
    HeuristicsProfile profile() const { return m_profile; }
    double stepTimeS() const { return m_budget.terms.stepS; }
    bool rowShown(int row) const;
    /// The state of `row` (a bucket, the unattributed rest, or the step time); Unknown without a result.
    ValueState rowState(int row) const;
    /// Where `row`'s number came from: the caveat for a row it lowered, else bucketSource(); the
    /// step time's source and scope. Empty without a result.
    QString rowSource(int row) const;
    /// The hover text of `row`: label and state, the source, the formula, and for the
    /// unattributed rest its meaning (rich text).
    QString rowToolTip(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QString formula(int row) const;

    WasteBudget m_budget;
    HeuristicsProfile m_profile = HeuristicsProfile::Workbench;
    const Derived *m_derived = nullptr;
    bool m_valid = false;
};

} // namespace goblin
