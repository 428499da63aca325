#pragma once
/// \file Everything the window's views share: the open runs, the current one, its profile and
/// thresholds, and the models and proxies built on them.

#include "runanalysis.h"

#include <QObject>
#include <QSortFilterProxyModel>
#include <memory>

namespace goblin {

class DiagnosticsModel;
class KernelFilterProxy;
class LiveAnalysis;
class RunModel;
class TelemetryModel;
class ThresholdEditor;
class WasteBudgetModel;

/// Owns the models; widgets take a pointer to it. The current run drives every per-run model;
/// profile and thresholds are shared by all runs (comparing runs under one set of knobs).
class WorkbenchSession : public QObject
{
    Q_OBJECT
public:
    explicit WorkbenchSession(QObject *parent = nullptr);
    ~WorkbenchSession() override;

    RunModel *runs() const { return m_runs; }
    KernelFilterProxy *kernelProxy() const { return m_kernelProxy; }
    TelemetryModel *telemetry() const { return m_telemetry; }
    QSortFilterProxyModel *telemetryProxy() const { return m_telemetryProxy; }
    DiagnosticsModel *diagnostics() const { return m_diagnostics; }
    WasteBudgetModel *budget() const { return m_budget; }
    LiveAnalysis *live() const { return m_live; }
    ThresholdEditor *editor() const { return m_editor; }

    /// Adds (or reloads) a run and makes it current. Returns its row in runs().
    int openRun(std::shared_ptr<const RunAnalysis> run);
    void closeRun(int row);
    int currentRow() const { return m_currentRow; }
    std::shared_ptr<const RunAnalysis> currentRun() const;
    /// -1 shows nothing.
    void setCurrentRow(int row);

    /// Kernel-proxy index of the current run: the root of a kernel table view.
    QModelIndex currentKernelRoot() const;

signals:
    void currentRunChanged(int row);

private:
    void updateBudgetModel();

    RunModel *m_runs;
    KernelFilterProxy *m_kernelProxy;
    TelemetryModel *m_telemetry;
    QSortFilterProxyModel *m_telemetryProxy;
    DiagnosticsModel *m_diagnostics;
    WasteBudgetModel *m_budget;
    LiveAnalysis *m_live;
    ThresholdEditor *m_editor;
    int m_currentRow = -1;
};

} // namespace goblin
