#pragma once
/// \file The run's advice in the window: what to look at, largest bucket first, each with its
/// bucket, seconds per step, share of the step and the evidence numbers; follows the thresholds.

#include "advice.h"

#include <QWidget>
#include <vector>

class QLabel;
class QTreeWidget;

namespace goblin {

class WorkbenchSession;

/// A tree: one top-level row per piece of advice (adviseRun for the live run, profile, thresholds
/// and budget, in its order), its evidence as child rows (key, value). Recomputed after each
/// live recompute (LiveAnalysis::metricsChanged), so a threshold drag updates it.
class AdvicePanel : public QWidget
{
    Q_OBJECT
public:
    enum Column { BucketColumn, SecondsColumn, ShareColumn, TextColumn, ColumnCount };

    explicit AdvicePanel(WorkbenchSession *session, QWidget *parent = nullptr);

    QTreeWidget *tree() const { return m_tree; }
    /// The run's caveat (derived.caveat) above the advice; hidden when there is none.
    QLabel *caveatLabel() const { return m_caveat; }
    QLabel *summaryLabel() const { return m_summary; }
    /// As shown, in row order.
    const std::vector<Advice> &advice() const { return m_advice; }
    /// How an evidence value is written in the tree (numbers to 6 significant digits, kernel
    /// lists one line per kernel).
    static QString evidenceText(const QJsonValue &value);

private:
    void refresh();

    WorkbenchSession *m_session;
    QLabel *m_caveat;
    QLabel *m_summary;
    QTreeWidget *m_tree;
    std::vector<Advice> m_advice;
};

} // namespace goblin
