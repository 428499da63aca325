#pragma once
/// \file The Ranks tab: the spread across ranks in one line (step time and exposed communication,
/// min – max and the straggler) and the per-rank budgets in a table, straggler highlighted.
/// Follows the live analysis: a new run resets the table, a threshold change updates the numbers.

#include <QWidget>

class QLabel;
class QTableView;

namespace goblin {

class LiveAnalysis;
class RanksModel;

class RanksPanel : public QWidget
{
    Q_OBJECT
public:
    explicit RanksPanel(LiveAnalysis *live, QWidget *parent = nullptr);

    RanksModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    QString spreadText() const;

private:
    void onRunChanged();
    void onMetricsChanged();

    LiveAnalysis *m_live;
    RanksModel *m_model;
    QLabel *m_spread;
    QTableView *m_table;
};

} // namespace goblin
