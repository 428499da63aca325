#pragma once
/// \file The waste budget of a step as a horizontal waterfall (Qt Charts).

#include "heuristics.h"

#include <QChart>
#include <QChartView>
#include <array>

class QBarCategoryAxis;
class QBarSet;
class QHorizontalStackedBarSeries;
class QValueAxis;

namespace goblin {

/// One row per bucket (Useful GPU at the top) stacked end to end, then the whole step time at
/// the bottom, in seconds (bottom axis) and % of the step (top axis). Each row is its own bar
/// set over an invisible base set, so every bucket keeps its colour. setBudget() replaces values
/// in place: no series or axis is rebuilt while a threshold is dragged, and animations are off.
class BudgetChart : public QChart
{
    Q_OBJECT
public:
    static constexpr int RowCount = WasteBudget::BucketCount + 1;  ///< buckets + step time

    explicit BudgetChart(QGraphicsItem *parent = nullptr);

    void setBudget(const WasteBudget &budget, const BudgetInputs &inputs, const Thresholds &thresholds,
                   HeuristicsProfile profile);
    void clearBudget();
    void applyPalette(const QPalette &palette);

    /// Bar length and start of `row` (bucket index, or kStepTimeRow) in seconds, as drawn.
    double valueSeconds(int row) const;
    double baseSeconds(int row) const;
    /// The formula of `row` with the live numbers (the hover text).
    QString formula(int row) const { return m_formulas[std::size_t(row)]; }
    QString categoryLabel(int row) const;

signals:
    void rowHovered(int row, bool entered);

private:
    static int categoryOf(int row) { return RowCount - 1 - row; }
    void updateCategories(const std::array<QString, RowCount> &labels);

    QHorizontalStackedBarSeries *m_series;
    QBarSet *m_base;
    std::array<QBarSet *, RowCount> m_sets{};
    QBarCategoryAxis *m_categoryAxis;
    QValueAxis *m_timeAxis;
    QValueAxis *m_percentAxis;
    std::array<QString, RowCount> m_labels;
    std::array<QString, RowCount> m_formulas;
    double m_unitPerSecond = 1e3;  ///< bars are drawn in ms below one second of step time, else s
};

/// The interactive view: shows a bucket's formula as a tooltip while the mouse is over it.
class BudgetChartView : public QChartView
{
    Q_OBJECT
public:
    explicit BudgetChartView(QWidget *parent = nullptr);
    BudgetChart *budgetChart() const { return m_chart; }

protected:
    void changeEvent(QEvent *event) override;

private:
    BudgetChart *m_chart;
};

} // namespace goblin
