#pragma once
/// \file The waste budget of a step as a horizontal waterfall (Qt Charts).

#include "wastebudgetmodel.h"

#include <QChart>
#include <QChartView>
#include <array>
#include <vector>

class QBarCategoryAxis;
class QBarSet;
class QHorizontalStackedBarSeries;
class QValueAxis;

namespace goblin {

/// A view of a WasteBudgetModel: one row per bucket (Useful GPU at the top) stacked end to end,
/// the unmeasured rest when the model shows it, then the whole step time at the bottom, in
/// seconds (bottom axis) and % of the step (top axis). Each row is its own bar set over an
/// invisible base set, so every bucket keeps its colour. On dataChanged the values are replaced
/// in place: no series or axis is rebuilt while a threshold is dragged (only when the set of
/// shown rows changes, i.e. with the run or profile), and animations are off. Formulas are read
/// from the model (FormulaRole) on hover, never stored here.
class BudgetChart : public QChart
{
    Q_OBJECT
public:
    static constexpr int RowCount = WasteBudgetModel::RowCount;

    explicit BudgetChart(QGraphicsItem *parent = nullptr);

    /// The model this chart views (not owned); nullptr shows the empty chart.
    void setModel(WasteBudgetModel *model);
    WasteBudgetModel *model() const { return m_model; }
    void applyPalette(const QPalette &palette);

    /// Bar length and start of `row` (bucket index, kUnattributedRow or kStepTimeRow) in seconds,
    /// as drawn; 0 for a row not shown.
    double valueSeconds(int row) const;
    double baseSeconds(int row) const;
    bool rowShown(int row) const { return categoryOf(row) >= 0; }
    /// The formula of `row` with the live numbers (the hover text), asked of the model.
    QString formula(int row) const;
    QString categoryLabel(int row) const;
    /// How often the bars were refreshed from the model (tests: one per recompute).
    quint64 refreshCount() const { return m_refreshes; }

signals:
    void rowHovered(int row, bool entered);

private:
    int categoryOf(int row) const;
    void refresh();
    void showEmpty();
    void setShownRows(const std::vector<int> &rows);
    void updateCategories(const std::array<QString, RowCount> &labels);

    WasteBudgetModel *m_model = nullptr;
    QMetaObject::Connection m_changed, m_reset, m_destroyed;
    QHorizontalStackedBarSeries *m_series;
    QBarSet *m_base;
    std::array<QBarSet *, RowCount> m_sets{};
    QBarCategoryAxis *m_categoryAxis;
    QValueAxis *m_timeAxis;
    QValueAxis *m_percentAxis;
    std::vector<int> m_shownRows;  ///< top to bottom
    std::array<QString, RowCount> m_labels;
    double m_unitPerSecond = 1e3;  ///< bars are drawn in ms below one second of step time, else s
    quint64 m_refreshes = 0;
};

/// The interactive view: shows a bucket's formula as a tooltip while the mouse is over it.
class BudgetChartView : public QChartView
{
    Q_OBJECT
public:
    explicit BudgetChartView(QWidget *parent = nullptr);
    void setModel(WasteBudgetModel *model) { m_chart->setModel(model); }
    BudgetChart *budgetChart() const { return m_chart; }

protected:
    void changeEvent(QEvent *event) override;

private:
    BudgetChart *m_chart;
};

} // namespace goblin
