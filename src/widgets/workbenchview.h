#pragma once
/// \file The current run's window area: a headline (step strip, verdict, top advice) always
/// shown, and the views as pages beside a list — the Overview (budget, verdict, telemetry with
/// threshold lines, host-busy gauge), Kernels, Timeline, Ranks, Advice, Sweep, Telemetry,
/// Diagnostics — so each view gets the whole area.

#include <QByteArray>
#include <QList>
#include <QWidget>
#include "viewscope.h"

#include <map>
#include <memory>

class QAction;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QSplitter;
class QStackedWidget;
class QTableView;
class QTimer;

namespace goblin {

class AdvicePanel;
class FlameGraph;
class KernelsView;
class ModuleTreeView;
class OperatorView;
class RooflineView;
class BudgetChartView;
class SweepChart;
class StepStrip;
class TelemetryPlot;
class ThresholdGauge;
class TimelinePanel;
class TimelineView;
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
    /// The pages this view makes itself, in list order; addAnalysisView() appends after them.
    enum Page { OverviewPage, KernelsPage, OperatorsPage, FlameGraphPage, ModulesPage, TimelinePage, RanksPage,
                AdvicePage, SweepPage, TelemetryPage, DiagnosticsPage, RooflinePage, BuiltInPageCount };

    explicit WorkbenchView(WorkbenchSession *session, QWidget *parent = nullptr);

    BudgetChartView *budgetChartView() const { return m_budgetChart; }
    TelemetryPlot *telemetryPlot() const { return m_telemetryPlot; }
    ThresholdGauge *hostBusyGauge() const { return m_hostGauge; }
    QLabel *verdictLabel() const { return m_verdict; }
    /// The current view's scope in one line (files or ranks, devices, steps: viewscope.h).
    QLabel *scopeLabel() const { return m_scope; }
    /// Which chrome trace (rank) the one-rank views show: beside the scope line, shown on those
    /// views when the run has several traces; remembered per run.
    QComboBox *rankPicker() const { return m_rankPicker; }
    /// The first piece of advice under the headline; its link shows the Advice view.
    QLabel *topAdviceLabel() const { return m_topAdvice; }
    QTableView *budgetTable() const { return m_budgetTable; }
    QLabel *budgetLegend() const { return m_budgetLegend; }
    QTableView *kernelTable() const { return m_kernelTable; }
    QTableView *telemetryTable() const { return m_telemetryTable; }
    QTableView *diagnosticsTable() const { return m_diagnosticsTable; }
    QLineEdit *searchEdit() const { return m_search; }
    TimelinePanel *timelinePanel() const { return m_timeline; }
    TimelineView *timelineView() const { return m_timelineView; }
    AdvicePanel *advicePanel() const { return m_advice; }
    SweepChart *sweepChart() const { return m_sweep; }
    StepStrip *stepStrip() const { return m_steps; }
    /// The list of views (left) and the pages it shows.
    QListWidget *viewList() const { return m_viewList; }
    QStackedWidget *pages() const { return m_pages; }

    /// Adds a view as a page of its own at the end of the list (or at `position`): the later
    /// analysis views (Operators, Modules, Flame graph, Memory) come in with one call. Ctrl+N
    /// reaches the first nine pages in list order. Returns the page's index.
    int addAnalysisView(QWidget *view, const QString &title, int position = -1);
    int viewCount() const;
    int currentViewIndex() const;
    QWidget *currentView() const;
    QString viewTitle(int index) const;
    void showView(int index);
    void showView(QWidget *view);
    /// Ctrl+Tab, Ctrl+Shift+Tab: the next / previous view, wrapping.
    void showNextView();
    void showPreviousView();
    /// Next view, previous view, then one action per view (Ctrl+1…9 for the first nine), for the
    /// View menu; their shortcuts work anywhere in the window. Rebuilt when a view is added.
    QList<QAction *> viewActions() const;

    /// The shown view (by title, so an added view keeps its place) and the splitter sizes.
    QByteArray saveLayout() const;
    /// False (layout unchanged) when `layout` is empty or unreadable.
    bool restoreLayout(const QByteArray &layout);

    /// Puts the cursor in the kernel search box (Edit ▸ Find).
    void focusSearch();
    void resetZoom();
    void showDiagnostics();

signals:
    void currentViewChanged(int index);
    /// The view actions were rebuilt (a view was added).
    void viewActionsChanged();

private:
    void onRunChanged();
    void onProfileChanged();
    void onThresholdsChanged();
    void onBudgetChanged();
    void onSelectedStepChanged();  ///< gauges and the timeline panel show the selected step
    void onMetricsChanged();       ///< the levels and the timeline's cut follow the recompute
    void updateLevels();           ///< utilisation, host busy and HBM levels of the run or the shown step
    void updateTopAdvice();
    void updateScope();  ///< the scope line of the current view and run
    void fillRankPicker();  ///< the current run's chrome traces, the one remembered for it picked
    void showRank(int rankIndex);  ///< the one-rank views show that trace
    int currentRankIndex() const;
    void updateTabTitles();
    void setViewTitle(int index, const QString &title);
    void rebuildViewActions();
    void fitViewList();

    WorkbenchSession *m_session;
    BudgetChartView *m_budgetChart;
    QLabel *m_verdict;
    QLabel *m_topAdvice;
    QLabel *m_scope;
    std::map<const QWidget *, ViewScope> m_scopeOf;  ///< the built-in pages' scopes
    QLabel *m_rankLabel;
    QComboBox *m_rankPicker;
    std::map<QString, int> m_rankOfRun;  ///< the rank picked per run folder (runDir)
    QTableView *m_budgetTable;
    QLabel *m_budgetLegend;
    TelemetryPlot *m_telemetryPlot;
    ThresholdGauge *m_hostGauge;
    QLabel *m_gaugeHint;
    QListWidget *m_viewList;
    QStackedWidget *m_pages;
    QSplitter *m_overviewSplitter = nullptr;
    QSplitter *m_budgetSplitter = nullptr;
    QLineEdit *m_search;
    QCheckBox *m_showUnused;
    QTimer *m_searchTimer;
    KernelsView *m_kernelsView;
    QTableView *m_kernelTable;  ///< m_kernelsView's table
    OperatorView *m_operators;
    RooflineView *m_roofline = nullptr;
    FlameGraph *m_flameGraph;
    ModuleTreeView *m_modules;
    QTableView *m_telemetryTable;
    QTableView *m_diagnosticsTable;
    TimelinePanel *m_timeline;
    TimelineView *m_timelineView;  ///< the bars (m_timeline) above the host and GPU lanes
    AdvicePanel *m_advice;
    SweepChart *m_sweep;
    StepStrip *m_steps;
    QWidget *m_kernelPage = nullptr;
    QList<QAction *> m_viewActions;
    /// Keeps the run the timeline panel points into alive until the next one is shown.
    std::shared_ptr<const RunAnalysis> m_timelineRun;
};

} // namespace goblin
