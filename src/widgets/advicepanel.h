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
/// and budget, in its order), its evidence as child rows (label, value in words; the raw key under
/// Qt::UserRole). Text wraps within its column: rows grow to the lines they need. Recomputed
/// after each live recompute (LiveAnalysis::metricsChanged), so a threshold drag updates it.
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
    /// An evidence entry in the user's words: its label ("host busy") and its value with unit and
    /// meaning ("57 % of the step", "61.0 ms per step (35 % of the step)"; kernel lists one line
    /// per kernel). `evidence` is the whole object (per-step seconds are also given as a share
    /// of its step_time_seconds). Keys the table does not know are read from their suffix
    /// (_seconds, _pct, _fraction, _gb) and written with 3 significant digits.
    static QString evidenceLabel(const QString &key);
    static QString evidenceText(const QString &key, const QJsonObject &evidence);
    /// "host busy 57 % of the step": label and text as one sentence (tooltips, copies).
    static QString evidenceSentence(const QString &key, const QJsonObject &evidence);
    /// The evidence keys in the order shown: the table's order, then unknown keys by name.
    static QStringList evidenceOrder(const QJsonObject &evidence);

private:
    void refresh();

    WorkbenchSession *m_session;
    QLabel *m_caveat;
    QLabel *m_summary;
    QTreeWidget *m_tree;
    std::vector<Advice> m_advice;
};

} // namespace goblin
