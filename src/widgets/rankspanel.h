#pragma once
/// \file The Ranks tab: the spread across ranks in one line (who the straggler is and why, step
/// time and exposed communication min – max), one stacked bar per rank (its seven buckets and the
/// unattributed rest, in the budget chart's colours, the straggler outlined and named) and the
/// per-rank budgets in a table, straggler highlighted. Below, the collectives: one row per
/// collective and size (bytes, kernel time, algorithm and bus bandwidth, arrival skew, the last
/// rank) beside each rank's lateness and wait (docs/collectives.md). Follows the live analysis: a
/// new run resets the tables, a threshold change updates the numbers.

#include <QWidget>

class QCustomPlot;
class QLabel;
class QTableView;

namespace goblin {

class CollectiveRanksModel;
class CollectivesModel;
class LiveAnalysis;
class RanksModel;

class RanksPanel : public QWidget
{
    Q_OBJECT
public:
    explicit RanksPanel(LiveAnalysis *live, QWidget *parent = nullptr);

    RanksModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    QCustomPlot *chart() const { return m_chart; }
    CollectivesModel *collectivesModel() const { return m_collectives; }
    CollectiveRanksModel *collectiveRanksModel() const { return m_collectiveRanks; }
    QTableView *collectivesTable() const { return m_collectivesTable; }
    QString collectivesText() const;
    QString spreadText() const;
    /// The straggler's definition (the spread line's tooltip; the line says it in short).
    QString definitionText() const;
    /// The chart's hover text at a position: the rank, its step and own work, each segment.
    QString toolTipAt(const QPointF &pos) const;

    /// Bars drawn (one per rank), the seconds of budget row `budgetRow` (a bucket or
    /// kUnattributedRow) in bar `bar` as drawn (0 where unknown: no segment), the bar marked as
    /// the straggler (-1: none) and the label under bar `bar`.
    int barCount() const { return m_barCount; }
    double barSeconds(int bar, int budgetRow) const;
    int markedStragglerBar() const { return m_stragglerBar; }
    QString barLabel(int bar) const;

protected:
    void changeEvent(QEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void onRunChanged();
    void onMetricsChanged();
    void redrawChart();
    void fitColumns();

    LiveAnalysis *m_live;
    RanksModel *m_model;
    QLabel *m_spread;
    QCustomPlot *m_chart;
    QTableView *m_table;
    CollectivesModel *m_collectives;
    CollectiveRanksModel *m_collectiveRanks;
    QLabel *m_collectivesLine;
    QTableView *m_collectivesTable;
    QTableView *m_collectiveRanksTable;
    int m_barCount = 0;
    int m_stragglerBar = -1;
    double m_unitPerSecond = 1e3;
    QStringList m_barLabels;
};

} // namespace goblin
