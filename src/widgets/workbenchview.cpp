#include "workbenchview.h"

#include "advicepanel.h"
#include "budgetchart.h"
#include "budgetformula.h"
#include "diagnosticsmodel.h"
#include "flamegraph.h"
#include "formatting.h"
#include "kernelsview.h"
#include "moduletreeview.h"
#include "operatorview.h"
#include "rooflineview.h"
#include "kernelfilterproxy.h"
#include "liveanalysis.h"
#include "percentbardelegate.h"
#include "plotstyle.h"
#include "rankspanel.h"
#include "runmodel.h"
#include "sweepchart.h"
#include "stepstrip.h"
#include "telemetrymodel.h"
#include "telemetryplot.h"
#include "thresholdeditor.h"
#include "thresholdgauge.h"
#include "timelinepanel.h"
#include "timelineview.h"
#include "traceranks.h"
#include "wastebudgetmodel.h"
#include "workbenchsession.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDataStream>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPainter>
#include <QSplitter>
#include <QStackedWidget>
#include <QStyle>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
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

/// A label of one line that elides its text at the right to the width it gets (the whole text
/// stays text() and the tooltip): a long scope line never wraps, so it takes one line of the
/// view's height and no width of its own at any window size.
class OneLineLabel : public QLabel
{
public:
    explicit OneLineLabel(QWidget *parent) : QLabel(parent) { setWordWrap(false); }

    QSize minimumSizeHint() const override
    {
        const QMargins m = contentsMargins();
        return {fontMetrics().horizontalAdvance(QStringLiteral("\u2026")) + m.left() + m.right() + 2 * margin(),
                QLabel::minimumSizeHint().height()};
    }

protected:
    void paintEvent(QPaintEvent *) override
    {
        QPainter painter(this);
        const QRect room = contentsRect().adjusted(margin(), margin(), -margin(), -margin());
        const QString shown = fontMetrics().elidedText(text(), Qt::ElideRight, room.width());
        style()->drawItemText(&painter, room, int(alignment()), palette(), isEnabled(), shown, foregroundRole());
    }
};

} // namespace

WorkbenchView::WorkbenchView(WorkbenchSession *session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_budgetChart(new BudgetChartView(this))
    , m_verdict(new QLabel(this))
    , m_topAdvice(new QLabel(this))
    , m_scope(new OneLineLabel(this))
    , m_rankLabel(new QLabel(tr("&Rank:"), this))
    , m_rankPicker(new QComboBox(this))
    , m_budgetTable(makeTable(this))
    , m_budgetLegend(new QLabel(this))
    , m_telemetryPlot(new TelemetryPlot(this))
    , m_hostGauge(new ThresholdGauge(this))
    , m_gaugeHint(new QLabel(this))
    , m_viewList(new QListWidget(this))
    , m_pages(new QStackedWidget(this))
    , m_search(new QLineEdit(this))
    , m_showUnused(new QCheckBox(tr("Show &unused names"), this))
    , m_searchTimer(new QTimer(this))
    , m_kernelsView(new KernelsView(this))
    , m_kernelTable(m_kernelsView->table())
    , m_operators(new OperatorView(this))
    , m_flameGraph(new FlameGraph(this))
    , m_modules(new ModuleTreeView(this))
    , m_telemetryTable(makeTable(this))
    , m_diagnosticsTable(makeTable(this))
    , m_timeline(new TimelinePanel(this))
    , m_advice(new AdvicePanel(session, this))
    , m_sweep(new SweepChart(session, this))
    , m_steps(new StepStrip(session->live(), this))
{
    const int em = fontMetrics().height();

    // The headline, shown over every view: the verdict, and the advice that explains most of it.
    m_verdict->setWordWrap(true);
    m_verdict->setTextFormat(Qt::PlainText);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont verdictFont = m_verdict->font();
    verdictFont.setBold(true);
    m_verdict->setFont(verdictFont);
    m_topAdvice->setWordWrap(true);
    m_topAdvice->setTextFormat(Qt::RichText);
    m_topAdvice->setTextInteractionFlags(Qt::TextBrowserInteraction);
    m_topAdvice->setOpenExternalLinks(false);
    keepLinksInPalette(m_topAdvice);  // the link's colour follows a theme switch
    m_topAdvice->setToolTip(tr("The largest piece of advice; the link shows every piece in the Advice view"));
    connect(m_topAdvice, &QLabel::linkActivated, this, [this] { showView(AdvicePage); });

    // Budget: chart on the left, numbers on the right.
    m_budgetChart->setMinimumSize(28 * em, 14 * em);
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
    // Every row of the budget (seven buckets, unattributed, step time, one spare) without a scroll bar.
    m_budgetTable->setMinimumHeight(m_budgetTable->horizontalHeader()->sizeHint().height()
                                    + 10 * m_budgetTable->verticalHeader()->defaultSectionSize() + 4);
    m_budgetTable->setMinimumWidth(22 * em);
    m_budgetLegend->setText(tr("Src: M measured · E estimated · ? unknown (—)"));
    m_budgetLegend->setToolTip(valueStateLegend());
    useSecondaryText(m_budgetLegend);
    m_budgetLegend->setWordWrap(true);
    auto *budgetSide = new QWidget(this);
    auto *budgetSideLayout = new QVBoxLayout(budgetSide);
    budgetSideLayout->setContentsMargins(0, 0, 0, 0);
    budgetSideLayout->addWidget(m_budgetTable, 1);
    budgetSideLayout->addWidget(m_budgetLegend);
    m_budgetSplitter = new QSplitter(Qt::Horizontal, this);
    m_budgetSplitter->setObjectName(QStringLiteral("BudgetSplitter"));
    m_budgetSplitter->addWidget(m_budgetChart);
    m_budgetSplitter->addWidget(budgetSide);
    m_budgetSplitter->setStretchFactor(0, 1);
    m_budgetSplitter->setStretchFactor(1, 0);
    m_budgetSplitter->setChildrenCollapsible(false);
    m_budgetSplitter->setSizes({50 * em, 24 * em});

    // Telemetry with the draggable lines, host busy gauge below.
    m_hostGauge->setTitle(tr("Host busy"));
    m_hostGauge->setMaximum(1.0);
    m_hostGauge->setDecimals(2);
    m_hostGauge->setWastefulAbove(true);
    m_hostGauge->setThresholdHelp(thresholdFieldInfo(ThresholdField::HostBusyAbove).toolTip
                            + tr(" (drag the line or use the arrow keys)"));
    m_hostGauge->setMinimumWidth(22 * em);
    m_gaugeHint->setWordWrap(true);
    // A wrapped label asks for height it does not need; with the plot collapsed to its note the
    // pane would keep a blank band.
    m_gaugeHint->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
    useSecondaryText(m_gaugeHint);
    m_gaugeHint->setText(tr("Drag the red lines to change the GPU-util threshold and the HBM target; the shaded "
                            "side counts as waste. Wheel zooms time, drag pans, R resets."));
    m_telemetryPlot->setMinimumHeight(12 * em);
    auto *telemetryBox = new QWidget(this);
    auto *telemetryLayout = new QVBoxLayout(telemetryBox);
    telemetryLayout->setContentsMargins(0, 0, 0, 0);
    telemetryLayout->setSizeConstraint(QLayout::SetMinAndMaxSize);  // the pane shrinks with a collapsed plot
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

    // The Kernels table sizes its columns to their contents (full names on hover, copy, a
    // context menu that shows the ops that launched a kernel).
    m_kernelsView->setModel(session->kernelProxy());
    m_kernelTable->setItemDelegateForColumn(RunModel::PercentGpuColumn, new PercentBarDelegate(m_kernelTable));
    m_kernelTable->sortByColumn(RunModel::TotalTimeColumn, Qt::DescendingOrder);
    m_kernelPage = new QWidget(this);
    auto *kernelLayout = new QVBoxLayout(m_kernelPage);
    kernelLayout->setContentsMargins(0, 0, 0, 0);
    auto *searchRow = new QHBoxLayout;
    searchRow->addWidget(m_search, 1);
    searchRow->addWidget(m_showUnused);
    kernelLayout->addLayout(searchRow);
    kernelLayout->addWidget(m_kernelsView, 1);

    m_telemetryTable->setModel(session->telemetryProxy());
    m_telemetryTable->setSortingEnabled(true);
    m_telemetryTable->sortByColumn(-1, Qt::AscendingOrder);  // file order until a header is clicked

    m_diagnosticsTable->setModel(session->diagnostics());
    m_diagnosticsTable->setWordWrap(true);
    // Rows as tall as their wrapped message at the width the page has when shown (sized once at
    // load, on a page not yet laid out, they came out several lines too tall). Few rows: the
    // parsers cap repeated diagnostics.
    m_diagnosticsTable->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    QHeaderView *diagHeader = m_diagnosticsTable->horizontalHeader();
    diagHeader->resizeSection(DiagnosticsModel::SeverityColumn, 6 * em);
    diagHeader->resizeSection(DiagnosticsModel::SourceColumn, 9 * em);
    diagHeader->resizeSection(DiagnosticsModel::FileColumn, 11 * em);
    diagHeader->resizeSection(DiagnosticsModel::LineColumn, 4 * em);

    // The Overview: budget over telemetry, both as tall as the user drags them.
    m_overviewSplitter = new QSplitter(Qt::Vertical, this);
    m_overviewSplitter->setObjectName(QStringLiteral("OverviewSplitter"));
    m_overviewSplitter->addWidget(m_budgetSplitter);
    m_overviewSplitter->addWidget(telemetryBox);
    m_overviewSplitter->setStretchFactor(0, 1);
    m_overviewSplitter->setStretchFactor(1, 1);
    m_overviewSplitter->setChildrenCollapsible(false);
    m_overviewSplitter->setSizes({20 * em, 26 * em});

    // Each view a page of its own: it gets the whole area under the headline, and the
    // list on the left names them all (Ctrl+1…9, Ctrl+Tab). In Page order.
    m_viewList->setObjectName(QStringLiteral("ViewList"));
    m_viewList->setSelectionMode(QAbstractItemView::SingleSelection);
    m_viewList->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_viewList->setTextElideMode(Qt::ElideNone);
    m_viewList->setFrameShape(QFrame::NoFrame);
    m_viewList->setSpacing(1);
    m_viewList->setToolTip(tr("Views: Ctrl+1…9 shows one, Ctrl+Tab the next"));
    addAnalysisView(m_overviewSplitter, tr("Overview"));
    addAnalysisView(m_kernelPage, tr("Kernels"));
    // Where the time goes: GPU time by launching op, by launch stack, by module.
    addAnalysisView(m_operators, tr("Operators"));
    addAnalysisView(m_flameGraph, tr("Flame graph"));
    addAnalysisView(m_modules, tr("Modules"));
    connect(m_flameGraph, &FlameGraph::frameSelected, m_operators, &OperatorView::showFrame);
    connect(m_kernelsView, &KernelsView::launchingOpsRequested, this, [this](const QString &kernel) {
        showView(OperatorsPage);
        m_operators->showOpsOfKernel(kernel);
    });
    // The measured GPU timeline (busy, exposed communication, idle split) beside the heuristic
    // budget; double-click a bar for that step's kernels.
    m_timelineView = new TimelineView(m_timeline, this);
    addAnalysisView(m_timelineView, tr("Timeline"));
    // Several ranks: per-rank budgets and the spread (straggler).
    addAnalysisView(new RanksPanel(session->live(), this), tr("Ranks"));
    // What to look at first, and each bucket along one threshold (both follow every drag).
    addAnalysisView(m_advice, tr("Advice"));
    addAnalysisView(m_sweep, tr("Sweep"));
    addAnalysisView(m_telemetryTable, tr("Telemetry"));
    addAnalysisView(m_diagnosticsTable, tr("Diagnostics"));
    // Each op against the GPU's roof (docs/roofline.md); a point selects its op in Operators.
    m_roofline = new RooflineView(this);
    addAnalysisView(m_roofline, tr("Roofline"));
    connect(m_roofline, &RooflineView::opActivated, this, [this](const QString &name, const QString &) {
        showView(OperatorsPage);
        if (!m_operators->selectOp(name)) {
            m_operators->setFilterText(QString());
            m_operators->selectOp(name);
        }
    });
    m_scopeOf = {{m_overviewSplitter, ViewScope::Overview}, {m_kernelPage, ViewScope::Kernels},
                 {m_operators, ViewScope::Operators},       {m_flameGraph, ViewScope::FlameGraph},
                 {m_modules, ViewScope::Modules},           {m_timelineView, ViewScope::Timeline},
                 {m_pages->widget(RanksPage), ViewScope::Ranks}, {m_advice, ViewScope::Advice},
                 {m_sweep, ViewScope::Sweep},               {m_telemetryTable, ViewScope::Telemetry},
                 {m_diagnosticsTable, ViewScope::Diagnostics}, {m_roofline, ViewScope::Operators}};
    connect(m_viewList, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row < 0)
            return;
        m_pages->setCurrentIndex(row);
        updateScope();
        emit currentViewChanged(row);
    });
    m_viewList->setCurrentRow(OverviewPage);

    auto *header = new QWidget(this);
    header->setObjectName(QStringLiteral("Headline"));
    auto *headerLayout = new QVBoxLayout(header);
    headerLayout->setContentsMargins(6, 2, 6, 2);
    headerLayout->setSpacing(2);
    // The step strip over every view: click a step and each view shows it.
    headerLayout->addWidget(m_steps);
    headerLayout->addWidget(m_verdict);
    headerLayout->addWidget(m_topAdvice);
    // What the view below covers (files or ranks, devices, steps): the model says it, per view.
    m_scope->setObjectName(QStringLiteral("ViewScope"));
    m_scope->setTextFormat(Qt::PlainText);
    m_scope->setForegroundRole(QPalette::PlaceholderText);
    // A view that shows one rank's trace (operators, flame graph, modules, trace memory) picks it
    // here, beside the line that names it.
    m_rankPicker->setObjectName(QStringLiteral("RankPicker"));
    m_rankPicker->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_rankPicker->setToolTip(tr("The chrome trace (rank) the Operators, Flame graph and Modules views and the "
                                "trace's memory curves show; the other views cover the whole job"));
    m_rankLabel->setBuddy(m_rankPicker);
    auto *scopeRow = new QHBoxLayout;
    scopeRow->setContentsMargins(0, 0, 0, 0);
    scopeRow->addWidget(m_scope, 1);
    scopeRow->addWidget(m_rankLabel);
    scopeRow->addWidget(m_rankPicker);
    headerLayout->addLayout(scopeRow);
    connect(m_rankPicker, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index < 0)
            return;
        if (const auto run = m_session->currentRun())
            m_rankOfRun[run->runDir] = index;
        showRank(index);
        updateScope();
    });

    auto *body = new QHBoxLayout;
    body->setContentsMargins(0, 0, 0, 0);
    body->setSpacing(4);
    body->addWidget(m_viewList);
    body->addWidget(m_pages, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(header);
    layout->addLayout(body, 1);

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
    connect(session->telemetry(), &QAbstractItemModel::modelReset, this, &WorkbenchView::updateTabTitles);
    connect(session->kernelProxy(), &QAbstractItemModel::rowsInserted, this, &WorkbenchView::updateTabTitles);
    connect(session->kernelProxy(), &QAbstractItemModel::rowsRemoved, this, &WorkbenchView::updateTabTitles);
    connect(session->kernelProxy(), &QAbstractItemModel::layoutChanged, this, &WorkbenchView::updateTabTitles);
    connect(session->kernelProxy(), &QAbstractItemModel::modelReset, this, &WorkbenchView::updateTabTitles);

    onRunChanged();
    onThresholdsChanged();
    onBudgetChanged();
}

int WorkbenchView::addAnalysisView(QWidget *view, const QString &title, int position)
{
    const int count = m_pages->count();
    const int index = position < 0 || position > count ? count : position;
    // The page's own title is kept as its name (saveLayout, updateTabTitles add counts to the text).
    view->setProperty("goblinViewTitle", title);
    m_pages->insertWidget(index, view);
    auto *item = new QListWidgetItem(title);
    item->setData(Qt::UserRole, title);
    m_viewList->insertItem(index, item);
    fitViewList();
    rebuildViewActions();
    return index;
}

int WorkbenchView::viewCount() const
{
    return m_pages->count();
}

int WorkbenchView::currentViewIndex() const
{
    return m_pages->currentIndex();
}

QWidget *WorkbenchView::currentView() const
{
    return m_pages->currentWidget();
}

QString WorkbenchView::viewTitle(int index) const
{
    const QListWidgetItem *item = m_viewList->item(index);
    return item ? item->data(Qt::UserRole).toString() : QString();
}

void WorkbenchView::showView(int index)
{
    if (index >= 0 && index < m_pages->count())
        m_viewList->setCurrentRow(index);
}

void WorkbenchView::showView(QWidget *view)
{
    showView(m_pages->indexOf(view));
}

void WorkbenchView::showNextView()
{
    const int n = viewCount();
    if (n > 0)
        showView((currentViewIndex() + 1) % n);
}

void WorkbenchView::showPreviousView()
{
    const int n = viewCount();
    if (n > 0)
        showView((currentViewIndex() - 1 + n) % n);
}

QList<QAction *> WorkbenchView::viewActions() const
{
    return m_viewActions;
}

void WorkbenchView::rebuildViewActions()
{
    for (QAction *a : std::as_const(m_viewActions)) {
        removeAction(a);
        delete a;
    }
    m_viewActions.clear();
    // Added to this widget with a window-wide context: the keys work wherever the focus is in
    // the window, and in this view alone in the tests.
    const auto add = [this](const QString &text, const QList<QKeySequence> &keys, auto slot) {
        auto *a = new QAction(text, this);
        a->setShortcuts(keys);
        a->setShortcutContext(Qt::WindowShortcut);
        connect(a, &QAction::triggered, this, slot);
        addAction(a);
        m_viewActions << a;
    };
    // Ctrl+PgDown/PgUp are the runs' (MainWindow); Ctrl+Tab and Ctrl+Shift+Tab (Ctrl+Backtab as
    // the key arrives) are the views'.
    add(tr("N&ext View"), {QKeySequence(Qt::CTRL | Qt::Key_Tab)}, [this] { showNextView(); });
    add(tr("P&revious View"), {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Backtab), QKeySequence(Qt::CTRL | Qt::Key_Backtab)},
        [this] { showPreviousView(); });
    for (int i = 0; i < viewCount(); ++i) {
        const QString title = viewTitle(i);
        QList<QKeySequence> keys;
        if (i < 9)
            keys << QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i));
        add(i < 9 ? QStringLiteral("&%1 %2").arg(i + 1).arg(title) : title, keys, [this, i] { showView(i); });
    }
    emit viewActionsChanged();
}

void WorkbenchView::fitViewList()
{
    // As wide as the longest title with its count, so no name is cut to "…".
    const QFontMetrics fm = m_viewList->fontMetrics();
    int widest = 0;
    for (int i = 0; i < m_viewList->count(); ++i)
        widest = std::max(widest, fm.horizontalAdvance(m_viewList->item(i)->text()));
    widest = std::max(widest, fm.horizontalAdvance(tr("Diagnostics (9999)")));
    m_viewList->setFixedWidth(widest + 3 * fm.height());
}

void WorkbenchView::setViewTitle(int index, const QString &title)
{
    if (QListWidgetItem *item = m_viewList->item(index))
        item->setText(title);
}

QByteArray WorkbenchView::saveLayout() const
{
    QByteArray out;
    QDataStream stream(&out, QIODevice::WriteOnly);
    stream << quint32(1) << viewTitle(currentViewIndex()) << m_overviewSplitter->saveState()
           << m_budgetSplitter->saveState();
    return out;
}

bool WorkbenchView::restoreLayout(const QByteArray &layout)
{
    if (layout.isEmpty())
        return false;
    QDataStream stream(layout);
    quint32 version = 0;
    QString current;
    QByteArray overview, budget;
    stream >> version >> current >> overview >> budget;
    if (stream.status() != QDataStream::Ok || version != 1)
        return false;
    m_overviewSplitter->restoreState(overview);
    m_budgetSplitter->restoreState(budget);
    for (int i = 0; i < viewCount(); ++i)
        if (viewTitle(i) == current)
            showView(i);
    return true;
}

void WorkbenchView::focusSearch()
{
    showView(KernelsPage);
    m_search->setFocus(Qt::ShortcutFocusReason);
    m_search->selectAll();
}

void WorkbenchView::resetZoom()
{
    m_telemetryPlot->resetZoom();
}

void WorkbenchView::showDiagnostics()
{
    showView(DiagnosticsPage);
}

void WorkbenchView::onRunChanged()
{
    const auto run = m_session->currentRun();
    m_kernelTable->setRootIndex(m_session->currentKernelRoot());
    m_kernelTable->setEnabled(bool(run));
    fillRankPicker();
    const int rank = currentRankIndex();
    m_telemetryPlot->setRun(run.get(), rank);
    m_operators->setRun(run, rank);
    m_roofline->setRun(run);
    m_flameGraph->setRun(run, rank);
    m_modules->setRun(run, rank);
    // The plot's panels are made anew for each run's GPUs, with QCustomPlot's white default;
    // the palette (a dark theme chosen before the run opened) is put back on them.
    m_telemetryPlot->applyPalette(m_telemetryPlot->palette());
    m_timelineView->setRun(run ? run.get() : nullptr);
    m_timelineRun = run;
    onProfileChanged();
    updateTabTitles();
    updateTopAdvice();
    updateScope();
}

void WorkbenchView::updateScope()
{
    const auto run = m_session->currentRun();
    const auto it = m_scopeOf.find(m_pages->currentWidget());
    const QString text = it == m_scopeOf.end() ? QString() : viewScopeText(run.get(), it->second, currentRankIndex());
    m_scope->setText(text);
    m_scope->setToolTip(text);  // the line elides to the view's width; the tooltip has it whole
    m_scope->setVisible(!text.isEmpty());
    const bool picker = it != m_scopeOf.end() && viewShowsOneRank(run.get(), it->second);
    m_rankLabel->setVisible(picker);
    m_rankPicker->setVisible(picker);
}

void WorkbenchView::fillRankPicker()
{
    const auto run = m_session->currentRun();
    const QSignalBlocker block(m_rankPicker);
    m_rankPicker->clear();
    if (!run)
        return;
    for (const TraceRankChoice &c : traceRankChoices(*run))
        m_rankPicker->addItem(c.label, c.file);
    const auto remembered = m_rankOfRun.find(run->runDir);
    const int index = remembered == m_rankOfRun.end() ? 0 : remembered->second;
    m_rankPicker->setCurrentIndex(index >= 0 && index < m_rankPicker->count() ? index : 0);
}

int WorkbenchView::currentRankIndex() const
{
    return std::max(0, m_rankPicker->currentIndex());
}

void WorkbenchView::showRank(int rankIndex)
{
    const auto run = m_session->currentRun();
    m_operators->setRun(run, rankIndex);
    m_flameGraph->setRun(run, rankIndex);
    m_modules->setRun(run, rankIndex);
    // The memory curves: the plot is rebuilt, so the palette and the run's levels go back on it.
    m_telemetryPlot->setRun(run.get(), rankIndex);
    m_telemetryPlot->applyPalette(m_telemetryPlot->palette());
    onProfileChanged();
}

void WorkbenchView::onProfileChanged()
{
    onThresholdsChanged();  // the applied HBM capacity depends on the profile
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
    const Thresholds t = m_session->live()->appliedThresholds();
    m_telemetryPlot->setThresholds(t.gpuUtilBelowPct, t.hbmTargetPct, t.hbmCapacityGb);
    m_hostGauge->setThreshold(t.hostBusyAbove);
}

void WorkbenchView::onMetricsChanged()
{
    // The step plan decides whether unmarked spans are cut into N (derived.h): the timeline follows it.
    m_timeline->setTimelineCut(m_session->live()->derived().timelineCut);
    const LiveAnalysis *live = m_session->live();
    m_telemetryPlot->setSwitchesFrom(live->analysis() ? live->run().get() : nullptr, live->derived());
    updateLevels();
    updateTopAdvice();
}

void WorkbenchView::updateTopAdvice()
{
    // Derived's advice, as the Advice view and the report show it: the largest piece first.
    const std::vector<Advice> &advice = m_session->live()->derived().advice;
    if (!m_session->currentRun() || advice.empty()) {
        m_topAdvice->setText(m_session->currentRun() ? tr("No advice: no waste bucket above zero is known.") : QString());
        m_topAdvice->setVisible(!m_topAdvice->text().isEmpty());
        return;
    }
    const Advice &top = advice.front();
    QString bucket = top.bucket;
    for (int b = 0; b < WasteBudget::BucketCount; ++b)
        if (WasteBudget::bucketKey(b) == top.bucket)
            bucket = WasteBudget::bucketLabel(b);
    const QString more = advice.size() > 1 ? tr("all %n pieces of advice", nullptr, int(advice.size()))
                                           : tr("the evidence");
    m_topAdvice->setText(tr("<b>First:</b> %1 (%2, %3 per step, %4 of the step). <a href=\"advice\">Show %5 ▸</a>")
                             .arg(top.text.toHtmlEscaped(), bucket.toHtmlEscaped(), formatSeconds(top.secondsPerStep),
                                  formatPercent(100.0 * top.shareOfStep), more));
    m_topAdvice->setVisible(true);
}

void WorkbenchView::onBudgetChanged()
{
    const WasteBudgetModel *model = m_session->budget();
    m_budgetTable->setRowHidden(kUnattributedRow, !model->rowShown(kUnattributedRow));
    if (!model->hasResult()) {
        m_verdict->setText(tr("Open a run folder or a trace file (File ▸ Open, or drop it here)."));
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
    setViewTitle(KernelsPage, tr("Kernels (%1)").arg(kernels));
    setViewTitle(TelemetryPage, tr("Telemetry (%1)").arg(m_session->telemetry()->rowCount()));
    const int problems = m_session->diagnostics()->rowCount();
    setViewTitle(DiagnosticsPage, tr("Diagnostics (%1)").arg(problems));
    fitViewList();
}

} // namespace goblin
