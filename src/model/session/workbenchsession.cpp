#include "workbenchsession.h"

#include "diagnosticsmodel.h"
#include "kernelfilterproxy.h"
#include "liveanalysis.h"
#include "modelroles.h"
#include "runmodel.h"
#include "telemetrymodel.h"
#include "thresholdeditor.h"
#include "wastebudgetmodel.h"

namespace goblin {

WorkbenchSession::WorkbenchSession(QObject *parent)
    : QObject(parent)
    , m_runs(new RunModel(this))
    , m_kernelProxy(new KernelFilterProxy(this))
    , m_telemetry(new TelemetryModel(this))
    , m_telemetryProxy(new QSortFilterProxyModel(this))
    , m_diagnostics(new DiagnosticsModel(this))
    , m_budget(new WasteBudgetModel(this))
    , m_live(new LiveAnalysis(this))
    , m_editor(new ThresholdEditor(m_live, this))
{
    m_kernelProxy->setSourceModel(m_runs);
    m_telemetryProxy->setSourceModel(m_telemetry);
    m_telemetryProxy->setSortRole(SortRole);

    connect(m_live, &LiveAnalysis::profileChanged, m_runs, &RunModel::setProfile);
    connect(m_live, &LiveAnalysis::metricsChanged, this, &WorkbenchSession::updateBudgetModel);
    m_budget->setDerived(&m_live->derived());  // the caveat and the step's source, for every view of it
    // Keep the current row right when a run above it is closed.
    connect(m_runs, &QAbstractItemModel::rowsRemoved, this, [this](const QModelIndex &parent, int first, int last) {
        if (parent.isValid() || m_currentRow < 0)
            return;
        if (m_currentRow > last)
            m_currentRow -= last - first + 1;
    });
    connect(m_runs, &QAbstractItemModel::rowsInserted, this, [this](const QModelIndex &parent, int first, int last) {
        if (!parent.isValid() && m_currentRow >= first)
            m_currentRow += last - first + 1;
    });
}

WorkbenchSession::~WorkbenchSession() = default;

int WorkbenchSession::openRun(std::shared_ptr<const RunAnalysis> run)
{
    if (!run)
        return -1;
    const bool reload = m_runs->rowOfRunDir(run->runDir) >= 0;
    if (reload && m_runs->rowOfRunDir(run->runDir) == m_currentRow)
        m_currentRow = -1;  // the current run is replaced: force setCurrentRow to refresh
    const int row = m_runs->addRun(std::move(run));
    setCurrentRow(row);
    return row;
}

void WorkbenchSession::closeRun(int row)
{
    if (row < 0 || row >= m_runs->runCount())
        return;
    const bool wasCurrent = row == m_currentRow;
    if (wasCurrent)
        m_currentRow = -1;
    m_runs->removeRun(row);
    if (wasCurrent)
        setCurrentRow(std::min(row, m_runs->runCount() - 1));
}

std::shared_ptr<const RunAnalysis> WorkbenchSession::currentRun() const
{
    return m_runs->run(m_currentRow);
}

void WorkbenchSession::setCurrentRow(int row)
{
    if (row < -1 || row >= m_runs->runCount())
        row = -1;
    // Same row and same run object: nothing to do. A row whose run was replaced or closed
    // falls through and refreshes every per-run model.
    if (row == m_currentRow && m_live->run() == m_runs->run(row))
        return;
    m_currentRow = row;
    const std::shared_ptr<const RunAnalysis> run = m_runs->run(row);
    m_telemetry->setRun(run);
    m_diagnostics->setRun(run);
    m_live->setRun(run);
    emit currentRunChanged(row);
}

QModelIndex WorkbenchSession::currentKernelRoot() const
{
    if (m_currentRow < 0)
        return {};
    return m_kernelProxy->mapFromSource(m_runs->runIndex(m_currentRow));
}

void WorkbenchSession::updateBudgetModel()
{
    // The one route from a recompute to the budget views: the table and the chart both view m_budget.
    if (!m_live->analysis()) {
        m_budget->clear();
        return;
    }
    m_budget->setResult(m_live->shownBudget(), m_live->profile());  // the selected step's, or the run's
}

} // namespace goblin
