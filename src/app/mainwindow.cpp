#include "mainwindow.h"

#include "aboutinfo.h"
#include "compareview.h"
#include "dashboardexport.h"
#include "formats/registry.h"
#include "diagnosticsmodel.h"
#include "liveanalysis.h"
#include "loadcontroller.h"
#include "runmodel.h"
#include "settings.h"
#include "thresholdeditor.h"
#include "panelwidth.h"
#include "theme.h"
#include "tracehandoff.h"
#include "thresholdpanel.h"
#include "welcomepage.h"
#include "workbenchsession.h"
#include "workbenchview.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDialog>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QListView>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QScreen>
#include <QScrollArea>
#include <QStackedWidget>
#include <QStyle>
#include <QStatusBar>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <QToolBar>
#include <QToolButton>
#include <QUndoStack>
#include <algorithm>

#ifndef GOBLIN_VERSION
#define GOBLIN_VERSION "unknown"
#endif

namespace goblin {

MainWindow::MainWindow(Settings *settings, QWidget *parent)
    : QMainWindow(parent)
    , m_settings(settings)
    , m_session(new WorkbenchSession(this))
    , m_loader(new LoadController(this))
    , m_view(new WorkbenchView(m_session, this))
    , m_welcome(new WelcomePage(this))
    , m_central(new QStackedWidget(this))
    , m_systemPalette(QApplication::palette())
{
    setObjectName(QStringLiteral("MainWindow"));
    // The welcome page while no run is open, the dashboard once one is (updateCentralPage).
    m_central->addWidget(m_welcome);
    m_central->addWidget(m_view);
    setCentralWidget(m_central);
    setAcceptDrops(true);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);

    createActions();
    createDocks();
    createMenus();
    createStatusBar();

    connect(m_loader, &LoadController::started, this, &MainWindow::onLoadStarted);
    connect(m_loader, &LoadController::progressChanged, this, &MainWindow::onLoadProgress);
    connect(m_loader, &LoadController::loaded, this, &MainWindow::onLoaded);
    connect(m_loader, &LoadController::failed, this, &MainWindow::onLoadFailed);
    connect(m_loader, &LoadController::cancelled, this, &MainWindow::onLoadCancelled);
    connect(m_loader, &LoadController::idle, this, &MainWindow::onLoadIdle);
    connect(m_session, &WorkbenchSession::currentRunChanged, this, &MainWindow::onCurrentRunChanged);
    connect(m_session->live(), &LiveAnalysis::profileChanged, this, [this](HeuristicsProfile profile) {
        (profile == HeuristicsProfile::Reference ? m_referenceProfileAction : m_workbenchProfileAction)
            ->setChecked(true);
    });

    connect(m_welcome, &WelcomePage::openFolderRequested, this, &MainWindow::openFolderDialog);
    connect(m_welcome, &WelcomePage::openFileRequested, this, &MainWindow::openFileDialog);
    connect(m_welcome, &WelcomePage::openExampleRequested, this, [this] { openRunDir(exampleRunDir()); });
    connect(m_welcome, &WelcomePage::openRecentRequested, this, &MainWindow::openRunDir);
    connect(m_welcome, &WelcomePage::helpRequested, this, &MainWindow::showHelp);
    m_welcome->setExampleAvailable(!exampleRunDir().isEmpty());
    m_welcome->setRecentRuns(m_settings->recentRunDirs());
    connect(m_settings, &Settings::recentRunDirsChanged, m_welcome, &WelcomePage::setRecentRuns);

    restoreSettings();
    onCurrentRunChanged(-1);
}

MainWindow::~MainWindow()
{
    // Views first: they hold the session's models and are connected to its signals.
    delete m_compareDock;
    delete m_thresholdDock;
    delete m_runDock;
    delete takeCentralWidget();
    // The palette is the application's, not this window's: the next window starts from the desktop's.
    QApplication::setPalette(m_systemPalette);
}

void MainWindow::createActions()
{
    const auto make = [this](const QString &text, const QKeySequence &shortcut, const QString &tip) {
        auto *a = new QAction(text, this);
        a->setShortcut(shortcut);
        a->setStatusTip(tip);
        a->setToolTip(QStringLiteral("%1 (%2)").arg(QString(text).remove(QLatin1Char('&')).remove(QStringLiteral("…")),
                                                    shortcut.toString(QKeySequence::NativeText)));
        addAction(a);  // shortcuts work even when the menu bar is hidden
        return a;
    };

    m_openAction = make(tr("&Open Run Folder…"), QKeySequence::Open, tr("Open a run folder"));
    m_openAction->setIcon(QIcon::fromTheme(QStringLiteral("document-open")));
    connect(m_openAction, &QAction::triggered, this, &MainWindow::openFolderDialog);
    m_openFileAction = make(tr("Open &Trace File…"), QKeySequence(tr("Ctrl+Alt+O")),
                            tr("Open one trace file alone (.json, .json.gz, a kernel-trace CSV)"));
    m_openFileAction->setIcon(QIcon::fromTheme(QStringLiteral("document-open")));
    connect(m_openFileAction, &QAction::triggered, this, &MainWindow::openFileDialog);
    m_reloadAction = make(tr("&Reload Run"), QKeySequence(Qt::Key_F5), tr("Read the current run folder again"));
    connect(m_reloadAction, &QAction::triggered, this, &MainWindow::reloadCurrentRun);
    m_closeRunAction = make(tr("&Close Run"), QKeySequence::Close, tr("Close the current run"));
    connect(m_closeRunAction, &QAction::triggered, this, &MainWindow::closeCurrentRun);
    m_exportPngAction = make(tr("Export Report as &PNG…"), QKeySequence(tr("Ctrl+E")),
                             tr("Save an image of the dashboard for the current thresholds"));
    m_exportPngAction->setIcon(QIcon::fromTheme(QStringLiteral("image-x-generic")));
    connect(m_exportPngAction, &QAction::triggered, this, &MainWindow::exportPng);
    m_exportJsonAction = make(tr("Export Report as &JSON…"), QKeySequence(tr("Ctrl+Shift+E")),
                              tr("Save the JSON report (as the report command writes it) for the current thresholds"));
    m_exportJsonAction->setIcon(QIcon::fromTheme(QStringLiteral("document-save-as")));
    connect(m_exportJsonAction, &QAction::triggered, this, &MainWindow::exportJson);
    m_compareAction = make(tr("Co&mpare With…"), QKeySequence(tr("Ctrl+Shift+M")),
                           tr("Open another run and compare the open runs under the same thresholds"));
    connect(m_compareAction, &QAction::triggered, this, [this] {
        showCompareView();
        openFolderDialog();
    });
    m_cancelLoadAction = make(tr("Cancel &Loading"), QKeySequence(Qt::Key_Escape), tr("Stop loading the run folder"));
    m_cancelLoadAction->setEnabled(false);
    connect(m_cancelLoadAction, &QAction::triggered, m_loader, &LoadController::cancel);
    // QKeySequence::Quit is empty where the platform theme names no quit key (e.g. plain X11
    // without a desktop); Ctrl+Q is what Linux desktops use.
    m_quitAction = make(tr("&Quit"),
                        QKeySequence::keyBindings(QKeySequence::Quit).value(0, QKeySequence(tr("Ctrl+Q"))),
                        tr("Quit Goblin Workbench"));
    m_quitAction->setMenuRole(QAction::QuitRole);
    connect(m_quitAction, &QAction::triggered, this, &QWidget::close);

    QUndoStack *stack = m_session->editor()->undoStack();
    m_undoAction = stack->createUndoAction(this, tr("&Undo"));
    m_undoAction->setShortcut(QKeySequence::Undo);
    m_undoAction->setIcon(QIcon::fromTheme(QStringLiteral("edit-undo")));
    addAction(m_undoAction);
    m_redoAction = stack->createRedoAction(this, tr("&Redo"));
    m_redoAction->setShortcuts({QKeySequence(tr("Ctrl+Shift+Z")), QKeySequence(tr("Ctrl+Y"))});
    m_redoAction->setIcon(QIcon::fromTheme(QStringLiteral("edit-redo")));
    addAction(m_redoAction);
    m_resetAction = make(tr("Reset &Thresholds"), QKeySequence(tr("Ctrl+R")),
                         tr("Every threshold and weight back to the defaults (undoable)"));
    connect(m_resetAction, &QAction::triggered, m_session->editor(), &ThresholdEditor::resetToDefaults);
    m_findAction = make(tr("&Find Kernel…"), QKeySequence::Find, tr("Filter the kernel table by name"));
    connect(m_findAction, &QAction::triggered, m_view, &WorkbenchView::focusSearch);

    m_resetZoomAction = make(tr("Reset &Zoom"), QKeySequence(tr("Ctrl+0")), tr("Show the whole telemetry time range"));
    connect(m_resetZoomAction, &QAction::triggered, m_view, &WorkbenchView::resetZoom);
    m_diagnosticsAction = make(tr("Show &Diagnostics"), QKeySequence(tr("Ctrl+D")),
                               tr("List every warning the parsers and the engine reported"));
    connect(m_diagnosticsAction, &QAction::triggered, m_view, &WorkbenchView::showDiagnostics);
    m_profileGroup = new QActionGroup(this);
    // Ctrl+1…9 are the views' (WorkbenchView::viewActions).
    m_workbenchProfileAction = make(tr("&Workbench Profile"), QKeySequence(tr("Ctrl+Alt+1")),
                                    tr("The reference's formulas on data read right"));
    m_referenceProfileAction = make(tr("R&eference Profile"), QKeySequence(tr("Ctrl+Alt+2")),
                                    tr("Bit for bit the reference's RunMetrics, misreadings included"));
    for (QAction *a : {m_workbenchProfileAction, m_referenceProfileAction}) {
        a->setCheckable(true);
        m_profileGroup->addAction(a);
    }
    m_workbenchProfileAction->setChecked(true);
    connect(m_workbenchProfileAction, &QAction::triggered, this,
            [this] { m_session->live()->setProfile(HeuristicsProfile::Workbench); });
    connect(m_referenceProfileAction, &QAction::triggered, this,
            [this] { m_session->live()->setProfile(HeuristicsProfile::Reference); });

    m_nextRunAction = make(tr("&Next Run"), QKeySequence(tr("Ctrl+PgDown")), tr("Show the next open run"));
    connect(m_nextRunAction, &QAction::triggered, this, [this] { selectRelativeRun(1); });
    m_previousRunAction = make(tr("&Previous Run"), QKeySequence(tr("Ctrl+PgUp")), tr("Show the previous open run"));
    connect(m_previousRunAction, &QAction::triggered, this, [this] { selectRelativeRun(-1); });

    // F1 is help (the budget's primer and definitions, the keys), as users expect; About has Ctrl+F1.
    m_helpAction = make(tr("Goblin Workbench &Help"), QKeySequence(QKeySequence::HelpContents),
                        tr("What the waste budget's buckets mean, and the keys"));
    if (m_helpAction->shortcut().isEmpty())
        m_helpAction->setShortcut(QKeySequence(Qt::Key_F1));
    connect(m_helpAction, &QAction::triggered, this, &MainWindow::showHelp);
    m_aboutAction = make(tr("&About Goblin Workbench"), QKeySequence(tr("Ctrl+F1")),
                         tr("Versions, credits and the GPUs of the open run"));
    m_aboutAction->setMenuRole(QAction::AboutRole);
    connect(m_aboutAction, &QAction::triggered, this, &MainWindow::showAbout);
    m_aboutQtAction = make(tr("About &Qt"), QKeySequence(tr("Shift+F1")), tr("About the Qt toolkit"));
    m_openExampleAction = make(tr("Open &Example Run"), QKeySequence(tr("Ctrl+Shift+O")),
                               tr("Open the small data-bound example run that comes with the workbench"));
    m_openExampleAction->setEnabled(!exampleRunDir().isEmpty());
    connect(m_openExampleAction, &QAction::triggered, this, [this] { openRunDir(exampleRunDir()); });
    m_aboutQtAction->setMenuRole(QAction::AboutQtRole);
    connect(m_aboutQtAction, &QAction::triggered, qApp, &QApplication::aboutQt);

    m_themeGroup = new QActionGroup(this);
    const struct {
        Theme theme;
        QString text;
        const char *key;
        QString tip;
    } themes[] = {
        {Theme::System, tr("&System Colours"), "Ctrl+Alt+7", tr("The desktop's palette (secondary text kept readable)")},
        {Theme::Light, tr("&Light"), "Ctrl+Alt+8", tr("A light palette, whatever the desktop uses")},
        {Theme::Dark, tr("&Dark"), "Ctrl+Alt+9", tr("A dark palette, whatever the desktop uses")},
    };
    for (const auto &t : themes) {
        QAction *a = make(t.text, QKeySequence(tr(t.key)), t.tip);
        a->setCheckable(true);
        m_themeGroup->addAction(a);
        const Theme theme = t.theme;
        connect(a, &QAction::triggered, this, [this, theme] { setTheme(theme); });
        m_themeActions << a;
    }
}

void MainWindow::createDocks()
{
    m_runList = new QListView(this);
    m_runList->setModel(m_session->runs());
    m_runList->setSelectionMode(QAbstractItemView::SingleSelection);
    m_runList->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_runList->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_runList->addAction(m_reloadAction);
    m_runList->addAction(m_closeRunAction);
    connect(m_runList->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid() && !current.parent().isValid())
                    m_session->setCurrentRow(current.row());
            });
    m_runDock = new QDockWidget(tr("Runs"), this);
    m_runDock->setObjectName(QStringLiteral("RunsDock"));
    m_runDock->setWidget(m_runList);
    addDockWidget(Qt::LeftDockWidgetArea, m_runDock);
    m_runDock->toggleViewAction()->setShortcut(QKeySequence(tr("Ctrl+Shift+1")));
    // One run needs no list: the dock appears when a second run opens (onCurrentRunChanged) and
    // the width goes to the views meanwhile.
    m_runDock->hide();

    m_panel = new ThresholdPanel(m_session, this);
    auto *scroll = new QScrollArea(this);
    scroll->setWidget(m_panel);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    // As wide as the panel needs (it scrolls only vertically): a narrower dock cut the spin boxes.
    m_thresholdDock = new QDockWidget(tr("Thresholds"), this);
    m_thresholdDock->setObjectName(QStringLiteral("ThresholdsDock"));
    m_thresholdDock->setWidget(scroll);
    addDockWidget(Qt::RightDockWidgetArea, m_thresholdDock);
    m_thresholdDock->toggleViewAction()->setShortcut(QKeySequence(tr("Ctrl+Shift+2")));
    // At least the panel's own width (its "run:" values beside each title), 20 to 26 em: at
    // 18 em its spin boxes and "run:" values were cut at 1366×768; resizeDocks() alone is undone
    // by the first layout of the window.
    const int em = fontMetrics().height();
    const int scrollBar = scroll->style()->pixelMetric(QStyle::PM_ScrollBarExtent);
    const int panelWidth = std::clamp(m_panel->sizeHint().width() + scrollBar + 8, 20 * em, 26 * em);
    scroll->setMinimumWidth(panelWidth);
    keepScrollAreaWideEnough(scroll, panelWidth, 26 * em);  // and after a run fills the "run:" values
    resizeDocks({m_runDock, m_thresholdDock}, {12 * em, panelWidth}, Qt::Horizontal);
    // On the table views the names need the width: the dock collapses there, unless the user
    // opens it there (remembered), and comes back on the other views.
    connect(m_view, &WorkbenchView::currentViewChanged, this, &MainWindow::fitThresholdDockToView);
    connect(m_thresholdDock->toggleViewAction(), &QAction::triggered, this, [this](bool shown) {
        m_thresholdsCollapsed = false;
        if (isTableView(m_view->currentViewIndex()))
            m_settings->setThresholdsOnTableViews(shown);
    });

    // Runs side by side: the open runs, ticked, under the one set of thresholds.
    m_compareView = new CompareView(m_session, this);
    connect(m_compareView, &CompareView::addRunsRequested, this, &MainWindow::openFolderDialog);
    m_compareDock = new QDockWidget(tr("Compare Runs"), this);
    m_compareDock->setObjectName(QStringLiteral("CompareDock"));
    m_compareDock->setWidget(m_compareView);
    addDockWidget(Qt::BottomDockWidgetArea, m_compareDock);
    // A window of its own at first (docked at the bottom it squeezed the dashboard); it docks back.
    m_compareDock->setFloating(true);
    m_compareDock->resize(1200, 760);
    m_compareDock->hide();  // File ▸ Compare With… or View ▸ Compare Runs shows it
    m_compareDock->toggleViewAction()->setShortcut(QKeySequence(tr("Ctrl+Shift+4")));
}

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_openAction);
    file->addAction(m_openFileAction);
    file->addAction(m_openExampleAction);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
    rebuildRecentMenu();
    file->addAction(m_reloadAction);
    file->addAction(m_closeRunAction);
    file->addSeparator();
    file->addAction(m_exportPngAction);
    file->addAction(m_exportJsonAction);
    addChromeTraceActions(this, file, m_session, m_view->timelinePanel());  // the hand-off to Perfetto
    file->addSeparator();
    file->addAction(m_compareAction);
    file->addSeparator();
    file->addAction(m_cancelLoadAction);
    file->addSeparator();
    file->addAction(m_quitAction);

    QMenu *edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(m_undoAction);
    edit->addAction(m_redoAction);
    edit->addSeparator();
    edit->addAction(m_resetAction);
    edit->addSeparator();
    edit->addAction(m_findAction);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    m_viewsMenu = view->addMenu(tr("&Go to View"));
    rebuildViewsMenu();
    connect(m_view, &WorkbenchView::viewActionsChanged, this, &MainWindow::rebuildViewsMenu);
    QMenu *themeMenu = view->addMenu(tr("T&heme"));
    themeMenu->addActions(m_themeActions);
    view->addSeparator();
    view->addAction(m_workbenchProfileAction);
    view->addAction(m_referenceProfileAction);
    view->addSeparator();
    view->addAction(m_resetZoomAction);
    view->addAction(m_diagnosticsAction);
    view->addSeparator();
    view->addAction(m_previousRunAction);
    view->addAction(m_nextRunAction);
    view->addSeparator();
    view->addAction(m_runDock->toggleViewAction());
    view->addAction(m_thresholdDock->toggleViewAction());
    view->addAction(m_compareDock->toggleViewAction());

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(m_helpAction);
    help->addAction(m_openExampleAction);
    help->addSeparator();
    help->addAction(m_aboutAction);
    help->addAction(m_aboutQtAction);

    QToolBar *toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("MainToolBar"));
    toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    toolbar->addAction(m_openAction);
    toolbar->addAction(m_openFileAction);
    toolbar->addSeparator();
    toolbar->addAction(m_undoAction);
    toolbar->addAction(m_redoAction);
    toolbar->addAction(m_resetAction);
    toolbar->addSeparator();
    toolbar->addAction(m_exportPngAction);
    toolbar->addAction(m_exportJsonAction);
    toolbar->toggleViewAction()->setShortcut(QKeySequence(tr("Ctrl+Shift+3")));
    view->addAction(toolbar->toggleViewAction());
}

void MainWindow::createStatusBar()
{
    m_stage = new QLabel(this);
    m_progress = new QProgressBar(this);
    m_progress->setMaximumWidth(240);
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(false);
    m_cancel = new QToolButton(this);
    // Not setDefaultAction(m_cancelLoadAction): the button would take over the action's status
    // tip, and the empty tip Qt sends when the clicked button hides wipes "Loading … cancelled"
    // off the status bar at once.
    m_cancel->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_cancel->setText(tr("Cancel"));
    m_cancel->setToolTip(tr("Stop loading the run folder (%1)")
                             .arg(m_cancelLoadAction->shortcut().toString(QKeySequence::NativeText)));
    connect(m_cancel, &QToolButton::clicked, m_loader, &LoadController::cancel);
    statusBar()->addPermanentWidget(m_stage);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    m_stage->hide();
    m_progress->hide();
    m_cancel->hide();
}

void MainWindow::restoreSettings()
{
    const QByteArray geometry = m_settings->windowGeometry();
    if (geometry.isEmpty() || !restoreGeometry(geometry)) {
        // 1440×900 where it fits; on a laptop screen (1366×768) the screen's available area.
        QSize size(1440, 900);
        if (const QScreen *screen = this->screen())
            size = size.boundedTo(screen->availableGeometry().size());
        resize(size);
    }
    const QByteArray state = m_settings->windowState();
    if (!state.isEmpty())
        restoreState(state, Settings::kWindowStateVersion);
    m_view->restoreLayout(m_settings->workbenchLayout());
    setTheme(m_settings->theme());
    m_session->live()->setProfile(m_settings->lastProfile());
    if (const auto thresholds = m_settings->lastThresholds())
        m_session->editor()->replaceWithoutUndo(*thresholds);
}

bool MainWindow::isTableView(int index)
{
    return index == WorkbenchView::KernelsPage || index == WorkbenchView::OperatorsPage ||
           index == WorkbenchView::ModulesPage || index == WorkbenchView::DiagnosticsPage;
}

void MainWindow::fitThresholdDockToView(int index)
{
    if (m_thresholdDock->isFloating())
        return;  // a floating dock takes no width from the view
    const bool collapse = isTableView(index) && !m_settings->thresholdsOnTableViews();
    if (collapse && m_thresholdDock->isVisibleTo(this)) {
        m_thresholdDock->hide();
        m_thresholdsCollapsed = true;
    } else if (!collapse && m_thresholdsCollapsed) {
        m_thresholdDock->show();
        m_thresholdsCollapsed = false;
    }
}

void MainWindow::saveSettings()
{
    m_settings->setWindowGeometry(saveGeometry());
    // The window's state keeps the dock the user left, not the one a table view collapsed.
    const bool collapsed = m_thresholdsCollapsed;
    if (collapsed)
        m_thresholdDock->show();
    m_settings->setWindowState(saveState(Settings::kWindowStateVersion));
    if (collapsed)
        m_thresholdDock->hide();
    m_settings->setWorkbenchLayout(m_view->saveLayout());
    m_session->live()->flush();
    m_settings->setLastThresholds(m_session->live()->thresholds());
    m_settings->setLastProfile(m_session->live()->profile());
    m_settings->sync();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    m_loader->cancel();
    saveSettings();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (!event->mimeData()->hasUrls())
        return;
    const QList<QUrl> urls = event->mimeData()->urls();
    for (const QUrl &url : urls)
        if (url.isLocalFile()) {
            event->acceptProposedAction();
            return;
        }
}

void MainWindow::dropEvent(QDropEvent *event)
{
    // A dropped folder opens as a run, a dropped file alone, as on the command line.
    const QList<QUrl> urls = event->mimeData()->urls();
    QStringList paths;
    for (const QUrl &url : urls)
        if (url.isLocalFile()) {
            const QString path = QDir::cleanPath(url.toLocalFile());
            if (!paths.contains(path))
                paths << path;
        }
    for (const QString &path : std::as_const(paths))
        openRunDir(path);
    event->acceptProposedAction();
}

void MainWindow::openRunDir(const QString &path)
{
    // A file opens alone, as `report FILE` reads it (loadRun() takes folders and files alike).
    m_loader->load(path);
}

QString MainWindow::exampleRunDir()
{
    const QStringList candidates{
        QDir::cleanPath(QCoreApplication::applicationDirPath() + QStringLiteral("/" GOBLIN_EXAMPLE_RUN_RELDIR)),
        QStringLiteral(GOBLIN_SOURCE_EXAMPLE_RUN_DIR),
    };
    for (const QString &dir : candidates)
        if (QFileInfo::exists(dir + QStringLiteral("/trace.csv")))
            return dir;
    return {};
}

void MainWindow::showCompareView()
{
    m_compareDock->show();
    m_compareDock->raise();
}

void MainWindow::openFolderDialog()
{
    const auto current = m_session->currentRun();
    const QString start = current ? QFileInfo(current->runDir).absolutePath() : QDir::homePath();
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open Run Folder"), start);
    if (!dir.isEmpty())
        openRunDir(dir);
}

void MainWindow::openFileDialog()
{
    // A folder dialog cannot pick a file: a torch-only trace (.json.gz) is the commonest run.
    const auto current = m_session->currentRun();
    const QString start = current ? QFileInfo(current->runDir).absolutePath() : QDir::homePath();
    const QString file = QFileDialog::getOpenFileName(
        this, tr("Open Trace File"), start,
        openDialogNameFilters().join(QStringLiteral(";;")));
    if (!file.isEmpty())
        openRunDir(file);
}

bool MainWindow::welcomeShown() const
{
    return m_central->currentWidget() == m_welcome;
}

void MainWindow::updateCentralPage()
{
    m_central->setCurrentWidget(m_session->runs()->runCount() > 0 ? static_cast<QWidget *>(m_view) : m_welcome);
}

void MainWindow::rebuildViewsMenu()
{
    m_viewsMenu->clear();
    const QList<QAction *> actions = m_view->viewActions();
    // Next and previous first, then the views by number.
    for (int i = 0; i < actions.size(); ++i) {
        m_viewsMenu->addAction(actions.at(i));
        if (i == 1)
            m_viewsMenu->addSeparator();
    }
}

void MainWindow::setTheme(Theme theme)
{
    QApplication::setPalette(paletteFor(theme, m_systemPalette));
    const int index = int(theme);
    if (index >= 0 && index < m_themeActions.size())
        m_themeActions.at(index)->setChecked(true);
    m_settings->setTheme(theme);
}

QPalette MainWindow::currentDesktopPalette()
{
    // An empty palette resolves every role against the platform theme's: the desktop's palette
    // now, which our own application palette hides. It is put back at once.
    const QPalette ours = QApplication::palette();
    QApplication::setPalette(QPalette());
    const QPalette desktop = QApplication::palette();
    QApplication::setPalette(ours);
    return desktop;
}

bool MainWindow::event(QEvent *event)
{
    if (event->type() == QEvent::ThemeChange) {
        m_systemPalette = currentDesktopPalette();
        if (m_settings->theme() == Theme::System)
            setTheme(Theme::System);
    }
    return QMainWindow::event(event);
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList dirs = m_settings->recentRunDirs();
    int number = 1;
    for (const QString &dir : dirs) {
        // Mnemonics 1…9, 0 give every entry a keyboard shortcut inside the menu.
        const QString label = QStringLiteral("&%1  %2").arg(number % 10).arg(QDir::toNativeSeparators(dir));
        QAction *a = m_recentMenu->addAction(label);
        a->setToolTip(dir);
        connect(a, &QAction::triggered, this, [this, dir] { openRunDir(dir); });
        ++number;
    }
    if (dirs.isEmpty())
        m_recentMenu->addAction(tr("No recent runs"))->setEnabled(false);
    m_recentMenu->addSeparator();
    QAction *clear = m_recentMenu->addAction(tr("&Clear Recent Runs"));
    clear->setEnabled(!dirs.isEmpty());
    connect(clear, &QAction::triggered, m_settings, &Settings::clearRecentRunDirs);
}

void MainWindow::exportPng()
{
    const auto run = m_session->currentRun();
    if (!run)
        return;
    const QString suggested = QDir(QDir::homePath()).filePath(run->runName + QStringLiteral("-dashboard.png"));
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Report as PNG"), suggested,
                                                      tr("PNG images (*.png)"));
    if (path.isEmpty())
        return;
    // The live metrics, brought up to date (a drag's last frame may still be pending): what the
    // window shows is what is exported, computed once.
    LiveAnalysis *live = m_session->live();
    live->flush();
    QApplication::setOverrideCursor(Qt::WaitCursor);
    QString error;
    const bool ok = renderDashboardPng(*run, live->derived(), path, &error);
    QApplication::restoreOverrideCursor();
    if (ok)
        statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(path)), 5000);
    else
        QMessageBox::warning(this, tr("Export failed"), error);
}

void MainWindow::exportJson()
{
    const auto run = m_session->currentRun();
    if (!run)
        return;
    const QString suggested = QDir(QDir::homePath()).filePath(run->runName + QStringLiteral("-report.json"));
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Report as JSON"), suggested,
                                                      tr("JSON files (*.json)"));
    if (path.isEmpty())
        return;
    LiveAnalysis *live = m_session->live();
    live->flush();  // the live metrics up to date; exported as they are, not recomputed
    QString error;
    if (exportReportJson(*run, live->derived(), path, &error))
        statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(path)), 5000);
    else
        QMessageBox::warning(this, tr("Export failed"), error);
}

void MainWindow::closeCurrentRun()
{
    m_session->closeRun(m_session->currentRow());
}

void MainWindow::reloadCurrentRun()
{
    // A file opened alone is known by its path; a folder by the path as the user gave it.
    if (const auto run = m_session->currentRun())
        m_loader->load(run->runDirAsGiven.isEmpty() || !QFileInfo(run->runDir).isDir() ? run->runDir
                                                                                         : run->runDirAsGiven);
}

void MainWindow::selectRelativeRun(int delta)
{
    const int count = m_session->runs()->runCount();
    if (count == 0)
        return;
    m_session->setCurrentRow((m_session->currentRow() + delta + count) % count);
}

QString MainWindow::aboutBoxText() const
{
    const auto run = m_session->currentRun();
    return aboutText(QStringLiteral(GOBLIN_VERSION), run.get());
}

void MainWindow::showAbout()
{
    QMessageBox::about(this, tr("About Goblin Workbench"), aboutBoxText());
}

void MainWindow::showHelp()
{
    if (!m_helpWindow) {
        auto *dialog = new QDialog(this);
        dialog->setObjectName(QStringLiteral("HelpWindow"));
        dialog->setWindowTitle(tr("Goblin Workbench Help"));
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        auto *browser = new QTextBrowser(dialog);
        browser->setOpenExternalLinks(true);
        browser->setHtml(budgetPrimerHtml(true)
                         + tr("<h3>Keys</h3><table>"
                              "<tr><td>Ctrl+1 … Ctrl+9</td><td>show a view (the list on the left, in order)</td></tr>"
                              "<tr><td>Ctrl+Tab, Ctrl+Shift+Tab</td><td>next, previous view</td></tr>"
                              "<tr><td>Ctrl+PgDown, Ctrl+PgUp</td><td>next, previous open run</td></tr>"
                              "<tr><td>Ctrl+O, Ctrl+Alt+O</td><td>open a run folder, a trace file</td></tr>"
                              "<tr><td>Ctrl+Z, Ctrl+Shift+Z, Ctrl+R</td><td>undo, redo, reset the thresholds</td></tr>"
                              "<tr><td>Ctrl+F, Ctrl+D</td><td>find a kernel, show the diagnostics</td></tr>"
                              "</table><p>More: <tt>docs/budget.md</tt> in the source (every formula and "
                              "source) and <tt>goblin-workbench --help</tt> for the command line.</p>"));
        auto *layout = new QVBoxLayout(dialog);
        layout->addWidget(browser);
        const int em = fontMetrics().height();
        dialog->resize(46 * em, 40 * em);
        m_helpWindow = dialog;
    }
    m_helpWindow->show();
    m_helpWindow->raise();
    m_helpWindow->activateWindow();
}

void MainWindow::onLoadStarted(const QString &runDir)
{
    m_stage->setText(tr("Loading %1").arg(QDir::toNativeSeparators(runDir)));
    m_progress->setRange(0, 0);  // indeterminate until the first value
    m_stage->show();
    m_progress->show();
    m_cancel->show();
    m_cancelLoadAction->setEnabled(true);
}

void MainWindow::onLoadProgress(double fraction, const QString &stage)
{
    if (fraction < 0.0) {
        m_progress->setRange(0, 0);
    } else {
        m_progress->setRange(0, 1000);
        m_progress->setValue(int(fraction * 1000.0));
    }
    m_stage->setText(stage);
}

void MainWindow::onLoaded(std::shared_ptr<const RunAnalysis> run)
{
    const QString runDir = run->runDir;
    const QString name = run->runName;
    // The traces of the folder that are not ranks of this run open as runs of their own (each
    // its file alone), listed after it and comparable with it.
    QStringList separate;
    if (QFileInfo(runDir).isDir())
        for (const SeparateRun &s : run->facts.job.separate)
            separate << QDir(runDir).filePath(s.file);
    // A separate run loaded after its folder's run joins the list without taking the view.
    const bool background = m_backgroundLoads.remove(runDir);
    const int current = m_session->currentRow();
    const int row = m_session->openRun(std::move(run));
    if (background && current >= 0 && current != row)
        m_session->setCurrentRow(current);
    // A run opened by the user, folder or file alone, is reopened from the recent list; a
    // separate run a folder opened by itself is not one the user picked.
    if (!background)
        m_settings->addRecentRunDir(runDir);
    for (const QString &file : std::as_const(separate)) {
        m_backgroundLoads.insert(file);
        m_loader->load(file);
    }
    const int problems = m_session->diagnostics()->countAtLeast(Severity::Warning);
    QString message = problems > 0 ? tr("Loaded %1 with %n warning(s) (Ctrl+D shows them)", nullptr, problems).arg(name)
                                   : tr("Loaded %1").arg(name);
    if (!separate.isEmpty())
        message += tr("; %n trace(s) of the folder are not ranks of this run and open as separate runs", nullptr,
                      int(separate.size()));
    statusBar()->showMessage(message, 8000);
    Q_UNUSED(row)
}

void MainWindow::onLoadFailed(const QString &runDir, const QString &message)
{
    m_backgroundLoads.remove(runDir);
    auto *box = new QMessageBox(QMessageBox::Warning, tr("Could not open the run"), message, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::onLoadCancelled(const QString &runDir)
{
    m_backgroundLoads.clear();  // a cancel drops the queue
    statusBar()->showMessage(tr("Loading %1 cancelled").arg(QDir::toNativeSeparators(runDir)), 5000);
}

void MainWindow::onLoadIdle()
{
    m_stage->hide();
    m_progress->hide();
    m_cancel->hide();
    m_cancelLoadAction->setEnabled(false);
}

void MainWindow::onCurrentRunChanged(int row)
{
    const bool hasRun = row >= 0;
    for (QAction *a : {m_closeRunAction, m_reloadAction, m_exportPngAction, m_exportJsonAction})
        a->setEnabled(hasRun);
    const bool several = m_session->runs()->runCount() > 1;
    m_nextRunAction->setEnabled(several);
    m_previousRunAction->setEnabled(several);
    const QModelIndex index = m_session->runs()->runIndex(row);
    if (m_runList->currentIndex() != index)
        m_runList->setCurrentIndex(index);
    // The list appears with the second run (hidden at first: one run needs no list).
    if (several && !m_runDock->isVisible() && !m_runDock->isFloating() && !m_runsDockShown) {
        m_runsDockShown = true;
        m_runDock->show();
    }
    updateCentralPage();
    updateTitle();
}

void MainWindow::updateTitle()
{
    const auto run = m_session->currentRun();
    setWindowTitle(run ? tr("Goblin Workbench — %1").arg(run->runName) : tr("Goblin Workbench"));
}

} // namespace goblin
