#pragma once
/// \file The waste budget of a step as a horizontal waterfall (Qt Charts).

#include "wastebudgetmodel.h"

#include <QChart>
#include <QChartView>
#include <array>
#include <vector>

class QBarCategoryAxis;
class QBarSet;
class QDialog;
class QGraphicsSimpleTextItem;
class QToolButton;
class QHorizontalStackedBarSeries;
class QValueAxis;

namespace goblin {

/// A view of a WasteBudgetModel: one row per bucket (Useful GPU at the top) stacked end to end,
/// the unattributed rest when the model shows it, then the whole step time at the bottom, in
/// seconds (bottom axis) and % of the step (top axis). Each row is its own bar set over an
/// invisible base set, so every bucket keeps its colour. On dataChanged the values are replaced
/// in place: no series or axis is rebuilt while a threshold is dragged (only when the set of
/// shown rows changes, i.e. with the run or profile), and animations are off. Formulas are read
/// from the model (FormulaRole) on hover, never stored here. Each row has its
/// state mark (M measured, E estimated, ? unknown) drawn in a column right of the bars; an unknown
/// row has no bar and its label reads "—".
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
    /// Fonts of every axis (exports); the category labels shrink from `labels` when the chart is
    /// too short for them (Qt Charts would elide them to "…").
    void setAxisFonts(const QFont &labels, const QFont &titles);

    /// Bar length and start of `row` (bucket index, kUnattributedRow or kStepTimeRow) in seconds,
    /// as drawn; 0 for a row not shown.
    double valueSeconds(int row) const;
    double baseSeconds(int row) const;
    bool rowShown(int row) const { return categoryOf(row) >= 0; }
    /// The formula of `row` with the live numbers, asked of the model.
    QString formula(int row) const;
    /// The hover text of `row`: its state, where its number came from, its formula (the model's).
    QString toolTip(int row) const;
    /// Every row's definition in the profile shown (bucketDefinition), and the marks: the "?" help.
    QString definitionsHtml() const;
    QString categoryLabel(int row) const;
    /// The state mark drawn right of `row`'s bar ("M", "E", "?"); empty for a row not shown.
    QString markText(int row) const;
    /// How often the bars were refreshed from the model (tests: one per recompute).
    quint64 refreshCount() const { return m_refreshes; }

signals:
    void rowHovered(int row, bool entered);

protected:
    void resizeEvent(QGraphicsSceneResizeEvent *event) override;

private:
    int categoryOf(int row) const;
    void refresh();
    void showEmpty();
    void setShownRows(const std::vector<int> &rows);
    /// Places the row labels and state marks beside the plot area (and sets the left margin).
    void placeOverlay();
    /// Tick intervals and title that fit the chart's width.
    void fitTicksAndTitle();

    WasteBudgetModel *m_model = nullptr;
    QMetaObject::Connection m_changed, m_reset, m_destroyed;
    QHorizontalStackedBarSeries *m_series;
    QBarSet *m_base;
    std::array<QBarSet *, RowCount> m_sets{};
    QBarCategoryAxis *m_categoryAxis;
    QValueAxis *m_timeAxis;
    QValueAxis *m_percentAxis;
    std::vector<int> m_shownRows;  ///< top to bottom
    std::array<QString, RowCount> m_labels;  ///< as drawn
    QFont m_baseLabelFont;  ///< the labels' font; placeOverlay() shrinks from it for short rows
    std::array<QString, RowCount> m_fullLabels;  ///< name and share of each shown row
    std::array<QString, RowCount> m_marks;
    std::array<QGraphicsSimpleTextItem *, RowCount> m_labelItems{};
    std::array<QGraphicsSimpleTextItem *, RowCount> m_markItems{};
    QGraphicsSimpleTextItem *m_markHeader = nullptr;
    double m_unitPerSecond = 1e3;
    double m_maxUnits = 1.0;    ///< the time axis' extent, in its unit
    double m_maxPct = 100.0;    ///< the % axis' extent
    QString m_title, m_shortTitle;  ///< bars are drawn in ms below one second of step time, else s
    quint64 m_refreshes = 0;
};

/// The interactive view: shows a bucket's state, source and formula as a tooltip while the
/// mouse is over it; a "?" button at the top right opens the bucket definitions.
class BudgetChartView : public QChartView
{
    Q_OBJECT
public:
    explicit BudgetChartView(QWidget *parent = nullptr);
    void setModel(WasteBudgetModel *model) { m_chart->setModel(model); }
    BudgetChart *budgetChart() const { return m_chart; }
    QToolButton *helpButton() const { return m_help; }
    /// The definitions window the "?" opens (nullptr until first opened).
    QDialog *definitionsDialog() const { return m_definitions; }
    void showDefinitions();

protected:
    void changeEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    BudgetChart *m_chart;
    QToolButton *m_help;
    QDialog *m_definitions = nullptr;
};

} // namespace goblin
