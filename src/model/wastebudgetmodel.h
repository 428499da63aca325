#pragma once
/// \file The seven waste buckets and the step time as a table that follows the thresholds live.

#include "heuristics.h"

#include <QAbstractTableModel>

namespace goblin {

/// Fixed shape: rows 0..6 are the buckets in WasteBudget order, row kStepTimeRow the step time.
/// setResult() emits dataChanged on the value columns only, so views never reset while a
/// threshold is dragged.
class WasteBudgetModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { BucketColumn, SecondsColumn, PercentColumn, FormulaColumn, ColumnCount };
    static constexpr int RowCount = WasteBudget::BucketCount + 1;

    explicit WasteBudgetModel(QObject *parent = nullptr);

    void setResult(const BudgetInputs &inputs, const Thresholds &thresholds, const WasteBudget &budget,
                   HeuristicsProfile profile);
    void clear();
    const WasteBudget &budget() const { return m_budget; }
    double stepTimeS() const { return m_inputs.stepTimeS; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    double seconds(int row) const;
    QString formula(int row) const;

    BudgetInputs m_inputs;
    Thresholds m_thresholds;
    WasteBudget m_budget;
    HeuristicsProfile m_profile = HeuristicsProfile::Workbench;
    bool m_valid = false;
};

} // namespace goblin
