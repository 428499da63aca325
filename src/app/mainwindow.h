#pragma once
// The main window: menus and shortcuts, file dialogs, recent folders, drag and drop, the load
// progress, and the docks around the dashboard.

#include "runanalysis.h"

#include <QMainWindow>
#include <QSet>
#include <memory>

class QAction;
class QActionGroup;
class QDockWidget;
class QLabel;
class QListView;
class QMenu;
class QProgressBar;
class QToolButton;

namespace goblin {

class CompareView;
class LoadController;
class Settings;
class ThresholdPanel;
class WorkbenchSession;
class WorkbenchView;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(Settings *settings, QWidget *parent = nullptr);
    ~MainWindow() override;

    /// Loads `path` as given — a run folder, or a file alone — queued behind a running load.
    void openRunDir(const QString &path);
    /// Shows the compare view (the open runs side by side); `goblin-workbench --compare A B`.
    void showCompareView();

protected:
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void createActions();
    void createMenus();
    void createDocks();
    void createStatusBar();
    void restoreSettings();
    void saveSettings();

    void openFolderDialog();
    /// The bundled example run: installed under share/goblin-workbench, or in the source tree.
    static QString exampleRunDir();
    void rebuildRecentMenu();
    void exportPng();
    void exportJson();
    void closeCurrentRun();
    void reloadCurrentRun();
    void selectRelativeRun(int delta);
    void showAbout();

    void onLoadStarted(const QString &runDir);
    void onLoadProgress(double fraction, const QString &stage);
    void onLoaded(std::shared_ptr<const RunAnalysis> run);
    void onLoadFailed(const QString &runDir, const QString &message);
    void onLoadCancelled(const QString &runDir);
    void onLoadIdle();
    void onCurrentRunChanged(int row);
    void updateTitle();

    Settings *m_settings;
    WorkbenchSession *m_session;
    LoadController *m_loader;
    WorkbenchView *m_view;
    ThresholdPanel *m_panel = nullptr;
    QListView *m_runList = nullptr;
    QDockWidget *m_runDock = nullptr;
    QDockWidget *m_thresholdDock = nullptr;
    CompareView *m_compareView = nullptr;
    QDockWidget *m_compareDock = nullptr;
    QAction *m_compareAction = nullptr;
    QProgressBar *m_progress = nullptr;
    QLabel *m_stage = nullptr;
    QToolButton *m_cancel = nullptr;
    QMenu *m_recentMenu = nullptr;

    QAction *m_openAction = nullptr;
    QAction *m_closeRunAction = nullptr;
    QAction *m_reloadAction = nullptr;
    QAction *m_exportPngAction = nullptr;
    QAction *m_exportJsonAction = nullptr;
    QAction *m_quitAction = nullptr;
    QAction *m_undoAction = nullptr;
    QAction *m_redoAction = nullptr;
    QAction *m_resetAction = nullptr;
    QAction *m_findAction = nullptr;
    QAction *m_resetZoomAction = nullptr;
    QAction *m_diagnosticsAction = nullptr;
    QAction *m_nextRunAction = nullptr;
    QAction *m_previousRunAction = nullptr;
    QAction *m_cancelLoadAction = nullptr;
    QAction *m_workbenchProfileAction = nullptr;
    QAction *m_referenceProfileAction = nullptr;
    QAction *m_aboutAction = nullptr;
    QAction *m_aboutQtAction = nullptr;
    QAction *m_openExampleAction = nullptr;
    QActionGroup *m_profileGroup = nullptr;
    /// Separate runs of a folder queued after its run (rankgroups.h): listed, not made current.
    QSet<QString> m_backgroundLoads;
};

} // namespace goblin
