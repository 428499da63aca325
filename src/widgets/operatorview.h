#pragma once
/// \file The Operator view: per CPU op of a scope, its calls, host and device times and share of
/// GPU time; the selected op's kernels, and the ops that launched the selected kernel.

#include "run.h"
#include "results/traceattribution.h"

#include <QWidget>
#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;
class QTreeView;
class QTimer;

namespace goblin
{

class KernelOpLinkModel;
class OpsModel;

/// Scope combo ("All steps (whole trace)" / "ProfilerStep#N") and a name filter above the ops
/// table; a line saying how much of the scope's GPU time went to no op and why; below, the
/// selected op's kernels and, beside them, the ops that launched the selected kernel.
/// Thread affinity: GUI thread.
class OperatorView : public QWidget
{
    Q_OBJECT
public:
    explicit OperatorView(QWidget *parent = nullptr);
    ~OperatorView() override;

    /// Null or a run with nothing to attribute: empty tables and a one-line note saying why.
    /// The run's chrome trace `rankIndex` (traceRankChoices(): 0 is the primary trace).
    void setRun(std::shared_ptr<const RunAnalysis> run, int rankIndex = 0);
    void setAttribution(std::shared_ptr<const TraceAttribution> attribution, const QString &emptyNote = {});
    /// 0 = whole trace, i >= 1 = step i (attributiontext.h).
    void setScopeIndex(int index);
    /// Filters the ops by a case-insensitive substring of the name, at once (typing debounces).
    void setFilterText(const QString &text);
    /// Selects the first op row named `name` (after the filter); false if none is shown.
    bool selectOp(const QString &name);
    /// Lists the ops that launched `kernelName` (the Kernels table's "Show launching ops").
    void showOpsOfKernel(const QString &kernelName);
    /// A flame graph frame: an op filters the table to it and selects it; a GPU event lists the
    /// ops that launched it; a module or annotation clears the filter.
    void showFrame(const QString &name, goblin::FrameKind kind);

    QComboBox *scopeCombo() const { return m_scope; }
    /// "Operator" (0, the default) or "Operator + input shapes" (1): rows per name with its shapes
    /// as children, or flat rows per name and shapes.
    QComboBox *groupCombo() const { return m_group; }
    QLineEdit *filterEdit() const { return m_filter; }
    QLabel *summaryLabel() const { return m_summary; }
    /// The ops: a tree (an op name, its input shapes below it) whose name column takes the spare width.
    QTreeView *opsTable() const { return m_opsTable; }
    QTableView *kernelsTable() const { return m_kernelsTable; }
    QTableView *launchingOpsTable() const { return m_launchingTable; }
    OpsModel *opsModel() const { return m_ops; }

private:
    void opSelected();
    void kernelSelected();
    void updateSummary();

    std::shared_ptr<const TraceAttribution> m_attribution;
    QString m_note;
    OpsModel *m_ops;
    QSortFilterProxyModel *m_opsProxy;
    KernelOpLinkModel *m_kernels;
    QSortFilterProxyModel *m_kernelsProxy;
    KernelOpLinkModel *m_launching;
    QSortFilterProxyModel *m_launchingProxy;
    QComboBox *m_scope;
    QComboBox *m_group;
    QLineEdit *m_filter;
    QTimer *m_filterTimer;
    QLabel *m_summary;
    QTreeView *m_opsTable;
    QLabel *m_kernelsTitle;
    QTableView *m_kernelsTable;
    QLabel *m_launchingTitle;
    QTableView *m_launchingTable;
};

} // namespace goblin
