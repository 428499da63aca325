#pragma once
/// \file The dashboard of the current run: budget, verdict, telemetry with threshold lines,
/// host-busy gauge, and the kernel, telemetry and diagnostics tables.

#include <QWidget>
#include <memory>

class QCheckBox;
class QLabel;
class QLineEdit;
class QSplitter;
class QTabWidget;
class QTableView;
class QTimer;

namespace goblin {

class AdvicePanel;
class BudgetChartView;
class SweepChart;
class StepStrip;
class TelemetryPlot;
class ThresholdGauge;
class TimelinePanel;
struct RunAnalysis;
class WorkbenchSession;

/// Views only: every number comes from the session's models and LiveAnalysis. A threshold
/// change moves the threshold lines at once (thresholdsChanged); its recompute reaches the budget
/// chart, the budget table and the verdict through one route, the WasteBudgetModel's
/// dataChanged; nothing is reset or rebuilt.
class WorkbenchView : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kSearchDebounceMs = 300;

    explicit WorkbenchView(WorkbenchSession *session, QWidget *parent = nullptr);

    BudgetChartView *budgetChartView() const { return m_budgetChart; }
    TelemetryPlot *telemetryPlot() const { return m_telemetryPlot; }
    ThresholdGauge *hostBusyGauge() const { return m_hostGauge; }
    QLabel *verdictLabel() const { return m_verdict; }
    QTableView *budgetTable() const { return m_budgetTable; }
    QLabel *budgetLegend() const { return m_budgetLegend; }
    QTableView *kernelTable() const { return m_kernelTable; }
    QTableView *telemetryTable() const { return m_telemetryTable; }
    QTableView *diagnosticsTable() const { return m_diagnosticsTable; }
    QLineEdit *searchEdit() const { return m_search; }
    QTabWidget *tabs() const { return m_tabs; }
    TimelinePanel *timelinePanel() const { return m_timeline; }
    AdvicePanel *advicePanel() const { return m_advice; }
    SweepChart *sweepChart() const { return m_sweep; }
    StepStrip *stepStrip() const { return m_steps; }

    /// Puts the cursor in the kernel search box (Edit ▸ Find).
    void focusSearch();
    void resetZoom();
    void showDiagnostics();

private:
    void onRunChanged();
    void onProfileChanged();
    void onThresholdsChanged();
    void onBudgetChanged();
    void onSelectedStepChanged();  ///< gauges and the timeline panel show the selected step
    void onMetricsChanged();       ///< the levels and the timeline's cut follow the recompute
    void updateLevels();           ///< utilisation, host busy and HBM levels of the run or the shown step
    void updateTabTitles();

    WorkbenchSession *m_session;
    BudgetChartView *m_budgetChart;
    QLabel *m_verdict;
    QTableView *m_budgetTable;
    QLabel *m_budgetLegend;
    TelemetryPlot *m_telemetryPlot;
    ThresholdGauge *m_hostGauge;
    QLabel *m_gaugeHint;
    QTabWidget *m_tabs;
    QLineEdit *m_search;
    QCheckBox *m_showUnused;
    QTimer *m_searchTimer;
    QTableView *m_kernelTable;
    QTableView *m_telemetryTable;
    QTableView *m_diagnosticsTable;
    TimelinePanel *m_timeline;
    AdvicePanel *m_advice;
    SweepChart *m_sweep;
    StepStrip *m_steps;
    /// Keeps the run the timeline panel points into alive until the next one is shown.
    std::shared_ptr<const RunAnalysis> m_timelineRun;
};

} // namespace goblin
