#pragma once
/// \file The nn.Module hierarchy and record_function ranges of a scope, with host and device time.

#include "run.h"
#include "results/traceattribution.h"

#include <QWidget>
#include <memory>

class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QTreeView;

namespace goblin
{

class ModuleTreeModel;

/// Scope combo, a one-line note (why the tree is empty, or what the times are) and the tree,
/// sorted by device time. Thread affinity: GUI thread.
class ModuleTreeView : public QWidget
{
    Q_OBJECT
public:
    explicit ModuleTreeView(QWidget *parent = nullptr);
    ~ModuleTreeView() override;

    /// Null or a run with nothing to attribute: an empty tree and a note saying why.
    /// The run's chrome trace `rankIndex` (traceRankChoices(): 0 is the primary trace).
    void setRun(std::shared_ptr<const RunAnalysis> run, int rankIndex = 0);
    void setAttribution(std::shared_ptr<const TraceAttribution> attribution, const QString &emptyNote = {});
    /// 0 = whole trace, i >= 1 = step i (attributiontext.h).
    void setScopeIndex(int index);

    QComboBox *scopeCombo() const { return m_scope; }
    QTreeView *tree() const { return m_tree; }
    QLabel *noteLabel() const { return m_note; }
    ModuleTreeModel *model() const { return m_model; }

private:
    void updateNote();

    std::shared_ptr<const TraceAttribution> m_attribution;
    QString m_emptyNote;
    ModuleTreeModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QComboBox *m_scope;
    QLabel *m_note;
    QTreeView *m_tree;
};

} // namespace goblin
