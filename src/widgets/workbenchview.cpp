#include "workbenchview.h"

#include "advicepanel.h"
#include "budgetchart.h"
#include "budgetformula.h"
#include "diagnosticsmodel.h"
#include "kernelfilterproxy.h"
#include "liveanalysis.h"
#include "percentbardelegate.h"
#include "rankspanel.h"
#include "runmodel.h"
#include "sweepchart.h"
#include "stepstrip.h"
#include "telemetrymodel.h"
#include "telemetryplot.h"
#include "thresholdeditor.h"
#include "thresholdgauge.h"
#include "wastebudgetmodel.h"
#include "workbenchsession.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSplitter>
#include <QTabWidget>
#include "timelinepanel.h"
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <cmath>

namespace goblin {

namespace {

QTableView *makeTable(QWidget *parent)
{
    auto *view = new QTableView(parent);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setAlternatingRowColors(true);
    view->setWordWrap(false);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
    view->horizontalHeader()->setHighlightSections(false);
    view->horizontalHeader()->setStretchLastSection(true);
    return view;
}

} // namespace

WorkbenchView::WorkbenchView(WorkbenchSession *session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_budgetChart(new BudgetChartView(this))
    , m_verdict(new QLabel(this))
    , m_budgetTable(makeTable(this))
    , m_budgetLegend(new QLabel(this))
    , m_telemetryPlot(new TelemetryPlot(this))
    , m_hostGauge(new ThresholdGauge(this))
    , m_gaugeHint(new QLabel(this))
    , m_tabs(new QTabWidget(this))
    , m_search(new QLineEdit(this))
    , m_showUnused(new QCheckBox(tr("Show &unused names"), this))
    , m_searchTimer(new QTimer(this))
    , m_kernelTable(makeTable(this))
    , m_telemetryTable(makeTable(this))
    , m_diagnosticsTable(makeTable(this))
    , m_timeline(new TimelinePanel(this))
    , m_advice(new AdvicePanel(session, this))
    , m_sweep(new SweepChart(session, this))
    , m_steps(new StepStrip(session->live(), this))
{
    const int em = fontMetrics().height();

    // Budget: chart on the left, verdict and numbers on the right.
    m_budgetChart->setMinimumSize(30 * em, 15 * em);
    m_verdict->setWordWrap(true);
    m_verdict->setTextFormat(Qt::PlainText);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont verdictFont = m_verdict->font();
    verdictFont.setBold(true);
    m_verdict->setFont(verdictFont);
    // The run's caveat and the step time's provenance are read from the live results when asked.
    m_budgetChart->setModel(session->budget());
    m_budgetTable->setModel(session->budget());
    m_budgetTable->setItemDelegateForColumn(WasteBudgetModel::PercentColumn, new PercentBarDelegate(m_budgetTable));
    m_budgetTable->setColumnHidden(WasteBudgetModel::FormulaColumn, true);
    m_budgetTable->setSelectionMode(QAbstractItemView::NoSelection);
    m_budgetTable->horizontalHeader()->resizeSection(WasteBudgetModel::BucketColumn, 9 * em);
    m_budgetTable->horizontalHeader()->resizeSection(WasteBudgetModel::StateColumn, 2 * em);
    m_budgetTable->horizontalHeader()->resizeSection(WasteBudgetModel::SecondsColumn, 5 * em);
    m_budgetTable->setToolTip(tr("Hover a row for where its number came from and its formula with the live numbers"));
    m_budgetLegend->setText(tr("Src: M measured · E estimated · ? unknown (—)"));
    m_budgetLegend->setToolTip(valueStateLegend());
    m_budgetLegend->setForegroundRole(QPalette::PlaceholderText);
    auto *budgetSide = new QWidget(this);
    auto *budgetSideLayout = new QVBoxLayout(budgetSide);
    budgetSideLayout->setContentsMargins(0, 0, 0, 0);
    budgetSideLayout->addWidget(m_verdict);
    budgetSideLayout->addWidget(m_budgetTable, 1);
    budgetSideLayout->addWidget(m_budgetLegend);
    auto *budgetRow = new QSplitter(Qt::Horizontal, this);
    budgetRow->addWidget(m_budgetChart);
    budgetRow->addWidget(budgetSide);
    budgetRow->setStretchFactor(0, 1);
    budgetRow->setStretchFactor(1, 0);
    budgetRow->setSizes({60 * em, 26 * em});

    // Telemetry with the draggable lines, host busy gauge below.
    m_hostGauge->setTitle(tr("Host busy"));
    m_hostGauge->setMaximum(1.0);
    m_hostGauge->setDecimals(2);
    m_hostGauge->setWastefulAbove(true);
    m_hostGauge->setThresholdHelp(thresholdFieldInfo(ThresholdField::HostBusyAbove).toolTip
                            + tr(" (drag the line or use the arrow keys)"));
    m_gaugeHint->setWordWrap(true);
    m_gaugeHint->setForegroundRole(QPalette::PlaceholderText);
    m_gaugeHint->setText(tr("Drag the red lines to change the GPU-util threshold and the HBM target; the shaded "
                            "side counts as waste. Wheel zooms time, drag pans, R resets."));
    auto *telemetryBox = new QWidget(this);
    auto *telemetryLayout = new QVBoxLayout(telemetryBox);
    telemetryLayout->setContentsMargins(0, 0, 0, 0);
    telemetryLayout->addWidget(m_telemetryPlot, 1);
    auto *gaugeRow = new QHBoxLayout;
    gaugeRow->addWidget(m_hostGauge, 1);
    gaugeRow->addWidget(m_gaugeHint, 1);
    telemetryLayout->addLayout(gaugeRow);

    // Tables.
    m_search->setPlaceholderText(tr("Filter kernels by name (Ctrl+F)"));
    m_search->setClearButtonEnabled(true);
    m_searchTimer->setSingleShot(true);
    m_searchTimer->setInterval(kSearchDebounceMs);
    connect(m_search, &QLineEdit::textChanged, m_searchTimer, qOverload<>(&QTimer::start));
    connect(m_searchTimer, &QTimer::timeout, this,
            [this] { m_session->kernelProxy()->setNameFilter(m_search->text()); });
    connect(m_showUnused, &QCheckBox::toggled, session->kernelProxy(), &KernelFilterProxy::setShowUnused);
    m_showUnused->setToolTip(tr("Also list names only the other profile's reading used"));

    m_kernelTable->setModel(session->kernelProxy());
    m_kernelTable->setSortingEnabled(true);
    m_kernelTable->setTextElideMode(Qt::ElideMiddle);
    m_kernelTable->setItemDelegateForColumn(RunModel::PercentGpuColumn, new PercentBarDelegate(m_kernelTable));
    QHeaderView *kernelHeader = m_kernelTable->horizontalHeader();
    kernelHeader->setStretchLastSection(false);
    kernelHeader->setSectionResizeMode(RunModel::NameColumn, QHeaderView::Stretch);
    kernelHeader->resizeSection(RunModel::ClassColumn, 7 * em);
    for (int column = RunModel::CallsColumn; column < RunModel::PercentGpuColumn; ++column)
        kernelHeader->resizeSection(column, 6 * em);
    kernelHeader->resizeSection(RunModel::PercentGpuColumn, 8 * em);
    m_kernelTable->sortByColumn(RunModel::TotalTimeColumn, Qt::DescendingOrder);
    auto *kernelPage = new QWidget(this);
    auto *kernelLayout = new QVBoxLayout(kernelPage);
    kernelLayout->setContentsMargins(0, 4, 0, 0);
    auto *searchRow = new QHBoxLayout;
    searchRow->addWidget(m_search, 1);
    searchRow->addWidget(m_showUnused);
    kernelLayout->addLayout(searchRow);
    kernelLayout->addWidget(m_kernelTable, 1);

    m_telemetryTable->setModel(session->telemetryProxy());
    m_telemetryTable->setSortingEnabled(true);
    m_telemetryTable->sortByColumn(-1, Qt::AscendingOrder);  // file order until a header is clicked

    m_diagnosticsTable->setModel(session->diagnostics());
    m_diagnosticsTable->setWordWrap(true);
    QHeaderView *diagHeader = m_diagnosticsTable->horizontalHeader();
    diagHeader->resizeSection(DiagnosticsModel::SeverityColumn, 6 * em);
    diagHeader->resizeSection(DiagnosticsModel::SourceColumn, 9 * em);
    diagHeader->resizeSection(DiagnosticsModel::FileColumn, 11 * em);
    diagHeader->resizeSection(DiagnosticsModel::LineColumn, 4 * em);

    m_tabs->addTab(kernelPage, tr("Kernels"));
    m_tabs->addTab(m_telemetryTable, tr("Telemetry"));
    m_tabs->addTab(m_diagnosticsTable, tr("Diagnostics"));
    // The measured GPU timeline (busy, exposed communication, idle split) beside the heuristic
    // budget; double-click a bar for that step's kernels.
    m_tabs->addTab(m_timeline, tr("Timeline"));
    // Several ranks: per-rank budgets and the spread (straggler), issue 13.
    m_tabs->addTab(new RanksPanel(session->live(), this), tr("Ranks"));
    // What to look at first, and each bucket along one threshold (both follow every drag).
    m_tabs->addTab(m_advice, tr("Advice"));
    m_tabs->addTab(m_sweep, tr("Sweep"));

    auto *splitter = new QSplitter(Qt::Vertical, this);
    // The step strip above the budget: click a step and the whole dashboard shows it.
    auto *budgetArea = new QWidget(this);
    auto *budgetAreaLayout = new QVBoxLayout(budgetArea);
    budgetAreaLayout->setContentsMargins(0, 0, 0, 0);
    budgetAreaLayout->addWidget(m_steps);
    budgetAreaLayout->addWidget(budgetRow, 1);
    splitter->addWidget(budgetArea);
    splitter->addWidget(telemetryBox);
    splitter->addWidget(m_tabs);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 4);
    splitter->setStretchFactor(2, 3);
    splitter->setSizes({27 * em, 22 * em, 12 * em});
    splitter->setChildrenCollapsible(false);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);

    // Drags on the charts are threshold edits like the panel's.
    ThresholdEditor *editor = session->editor();
    connect(m_telemetryPlot, &TelemetryPlot::thresholdDragged, editor, &ThresholdEditor::changeValue);
    connect(m_telemetryPlot, &TelemetryPlot::dragFinished, editor, &ThresholdEditor::endGesture);
    connect(m_hostGauge, &ThresholdGauge::thresholdDragged, this,
            [editor](double value) { editor->changeValue(ThresholdField::HostBusyAbove, value); });
    connect(m_hostGauge, &ThresholdGauge::dragFinished, editor, &ThresholdEditor::endGesture);

    LiveAnalysis *live = session->live();
    connect(session, &WorkbenchSession::currentRunChanged, this, &WorkbenchView::onRunChanged);
    connect(live, &LiveAnalysis::profileChanged, this, &WorkbenchView::onProfileChanged);
    connect(live, &LiveAnalysis::thresholdsChanged, this, &WorkbenchView::onThresholdsChanged);
    connect(live, &LiveAnalysis::selectedStepChanged, this, &WorkbenchView::onSelectedStepChanged);
    connect(live, &LiveAnalysis::metricsChanged, this, &WorkbenchView::onMetricsChanged);
    // The budget reaches the chart, the table and the verdict by one route: the session's budget model.
    connect(session->budget(), &QAbstractItemModel::dataChanged, this, &WorkbenchView::onBudgetChanged);
    connect(session->diagnostics(), &QAbstractItemModel::modelReset, this, &WorkbenchView::updateTabTitles);
    // Few rows (parsers cap repeated diagnostics), so whole messages can wrap.
    connect(session->diagnostics(), &QAbstractItemModel::modelReset, m_diagnosticsTable,
            &QTableView::resizeRowsToContents);
    connect(session->telemetry(), &QAbstractItemModel::modelReset, this, &WorkbenchView::updateTabTitles);
    connect(session->kernelProxy(), &QAbstractItemModel::rowsInserted, this, &WorkbenchView::updateTabTitles);
    connect(session->kernelProxy(), &QAbstractItemModel::rowsRemoved, this, &WorkbenchView::updateTabTitles);
    connect(session->kernelProxy(), &QAbstractItemModel::layoutChanged, this, &WorkbenchView::updateTabTitles);
    connect(session->kernelProxy(), &QAbstractItemModel::modelReset, this, &WorkbenchView::updateTabTitles);

    onRunChanged();
    onThresholdsChanged();
    onBudgetChanged();
}

void WorkbenchView::focusSearch()
{
    m_tabs->setCurrentIndex(0);
    m_search->setFocus(Qt::ShortcutFocusReason);
    m_search->selectAll();
}

void WorkbenchView::resetZoom()
{
    m_telemetryPlot->resetZoom();
}

void WorkbenchView::showDiagnostics()
{
    m_tabs->setCurrentWidget(m_diagnosticsTable);
}

void WorkbenchView::onRunChanged()
{
    const auto run = m_session->currentRun();
    m_kernelTable->setRootIndex(m_session->currentKernelRoot());
    m_kernelTable->setEnabled(bool(run));
    m_telemetryPlot->setTelemetry(run ? &run->smi : nullptr);
    m_timeline->setRun(run ? run.get() : nullptr);
    m_timelineRun = run;
    onProfileChanged();
    updateTabTitles();
}

void WorkbenchView::onProfileChanged()
{
    updateLevels();
    updateTabTitles();
}

void WorkbenchView::updateLevels()
{
    // The run's (or the shown step's) utilisation, host busy and HBM peak as the budget used
    // them: one value per quantity, NaN (drawn as "—") where nothing measured it, each with its scope.
    const LiveAnalysis *live = m_session->live();
    const auto orNan = [](const std::optional<double> &v) { return v ? *v : double(NAN); };
    const Quantities &q = live->derived().quantities;
    const auto note = [](const Quantity &x) {
        return x.value ? (x.scope.isEmpty() ? x.source : QStringLiteral("%1; %2").arg(x.scope, x.source)) : x.source;
    };
    if (const StepInputs *step = live->selectedStepInputs()) {
        const WasteBudget &b = live->shownBudget();
        const bool measured = b.terms.measured;
        const bool utilKnown = measured || step->utilMeasured;
        const bool hostKnown = measured ? b.terms.hostKnown : step->hostBusyMeasured;
        const QString scope = tr("%1 alone").arg(step->name);
        m_telemetryPlot->setRunLevels(utilKnown ? (measured ? b.terms.gpuUtilPct : step->inputs.gpuUtilPct) : double(NAN),
                                      step->inputs.hbmPeakGb,
                                      utilKnown ? scope : tr("not measured in %1").arg(step->name));
        m_hostGauge->setValue(!hostKnown ? double(NAN) : measured ? b.terms.hostBusy : step->inputs.hostBusyFraction,
                              hostKnown ? scope : QStringLiteral("—"),
                              hostKnown ? tr("%1: CPU operators inside the step window / its length").arg(scope)
                                        : note(q[QuantityKey::HostBusyFraction]));
        return;
    }
    if (!live->run()) {
        m_telemetryPlot->setRunLevels(NAN, std::nullopt);
        m_hostGauge->setValue(NAN);
        return;
    }
    const Quantity &util = q[QuantityKey::GpuUtilPct];
    const Quantity &host = q[QuantityKey::HostBusyFraction];
    m_telemetryPlot->setRunLevels(orNan(util.value), q[QuantityKey::HbmPeakGb].value,
                                  util.value ? util.scope : util.source);
    m_hostGauge->setValue(orNan(host.value), host.value ? host.scope : QString(), note(host));
}

void WorkbenchView::onSelectedStepChanged()
{
    updateLevels();
    const StepInputs *step = m_session->live()->selectedStepInputs();
    if (step && step->timelineDevice >= 0)
        m_timeline->showStrip(step->timelineDevice, step->timelineStep);
}

void WorkbenchView::onThresholdsChanged()
{
    const Thresholds &t = m_session->live()->thresholds();
    m_telemetryPlot->setThresholds(t.gpuUtilBelowPct, t.hbmTargetPct, t.hbmCapacityGb);
    m_hostGauge->setThreshold(t.hostBusyAbove);
}

void WorkbenchView::onMetricsChanged()
{
    // The step plan decides whether unmarked spans are cut into N (derived.h): the timeline follows it.
    const int cut = m_session->live()->derived().timelineCutSteps;
    m_timeline->setEqualSteps(cut > 0 ? std::optional<int>(cut) : std::nullopt);
    updateLevels();
}

void WorkbenchView::onBudgetChanged()
{
    const WasteBudgetModel *model = m_session->budget();
    m_budgetTable->setRowHidden(kUnattributedRow, !model->rowShown(kUnattributedRow));
    if (!model->hasResult()) {
        m_verdict->setText(tr("Open a run folder (File ▸ Open, or drop it here)."));
        return;
    }
    const LiveAnalysis *live = m_session->live();
    if (live->selectedStep() < 0) {
        m_verdict->setText(runVerdict(live->derived()));  // what the report and the PNG say
        return;
    }
    // A step shown alone: the run's caveat still holds, the verdict is the step's.
    const QString caveat = live->derived().caveat;
    const QString verdict = budgetVerdict(model->budget(), model->stepTimeS());
    m_verdict->setText(caveat.isEmpty() ? verdict : caveat + QStringLiteral(". ") + verdict);
}

void WorkbenchView::updateTabTitles()
{
    const QModelIndex root = m_session->currentKernelRoot();
    const int kernels = root.isValid() ? m_session->kernelProxy()->rowCount(root) : 0;
    m_tabs->setTabText(0, tr("Kernels (%1)").arg(kernels));
    m_tabs->setTabText(1, tr("Telemetry (%1)").arg(m_session->telemetry()->rowCount()));
    const int problems = m_session->diagnostics()->rowCount();
    m_tabs->setTabText(2, tr("Diagnostics (%1)").arg(problems));
}

} // namespace goblin
