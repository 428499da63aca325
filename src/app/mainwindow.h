#pragma once
// The main window: menus and shortcuts, file dialogs, recent folders, drag and drop, the load
// progress, the theme, and the docks around the dashboard; the welcome page while no run is open.

#include "runanalysis.h"

#include <QMainWindow>
#include <QPalette>
#include <QPointer>
#include <QSet>
#include <memory>

class QAction;
class QActionGroup;
class QDockWidget;
class QLabel;
class QListView;
class QMenu;
class QProgressBar;
class QStackedWidget;
class QToolButton;

namespace goblin {

class CompareView;
class LoadController;
class Settings;
class ThresholdPanel;
class WelcomePage;
class WorkbenchSession;
class WorkbenchView;
enum class Theme;

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

    WorkbenchView *workbenchView() const { return m_view; }
    WelcomePage *welcomePage() const { return m_welcome; }
    /// True while the welcome page is shown (no run open).
    bool welcomeShown() const;
    /// Applies `theme` to the whole application and remembers it (View ▸ Theme).
    void setTheme(Theme theme);
    /// The desktop's palette as it is now, whatever palette the application has set.
    static QPalette currentDesktopPalette();
    /// The About box's text for the open run (its GPUs named).
    QString aboutBoxText() const;

protected:
    /// A desktop theme change (QEvent::ThemeChange) re-reads the desktop's palette, so "System
    /// Colours" follows it live.
    bool event(QEvent *event) override;
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
    /// Kernels, Operators, Modules, Diagnostics: views of names that need the width.
    static bool isTableView(int index);
    /// Collapses the Thresholds dock on a table view (unless Settings::thresholdsOnTableViews),
    /// and brings it back on the other views when it was collapsed here.
    void fitThresholdDockToView(int index);

    void openFolderDialog();
    /// A single trace file (.json, .json.gz, a kernel-trace CSV): opened alone.
    void openFileDialog();
    /// The bundled example run: installed under share/goblin-workbench, or in the source tree.
    static QString exampleRunDir();
    void rebuildRecentMenu();
    void exportPng();
    void exportJson();
    void closeCurrentRun();
    void reloadCurrentRun();
    void selectRelativeRun(int delta);
    void showAbout();
    void showHelp();
    void rebuildViewsMenu();
    void updateCentralPage();

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
    WelcomePage *m_welcome;
    QStackedWidget *m_central;
    QMenu *m_viewsMenu = nullptr;
    QPointer<QWidget> m_helpWindow;
    /// The desktop's palette at start-up: what View ▸ Theme ▸ System goes back to.
    QPalette m_systemPalette;
    ThresholdPanel *m_panel = nullptr;
    QListView *m_runList = nullptr;
    QDockWidget *m_runDock = nullptr;
    QDockWidget *m_thresholdDock = nullptr;
    bool m_thresholdsCollapsed = false;  ///< hidden by fitThresholdDockToView(), not by the user
    CompareView *m_compareView = nullptr;
    QDockWidget *m_compareDock = nullptr;
    QAction *m_compareAction = nullptr;
    QProgressBar *m_progress = nullptr;
    QLabel *m_stage = nullptr;
    QToolButton *m_cancel = nullptr;
    QMenu *m_recentMenu = nullptr;

    QAction *m_openAction = nullptr;
    QAction *m_openFileAction = nullptr;
    QAction *m_helpAction = nullptr;
    QActionGroup *m_themeGroup = nullptr;
    QList<QAction *> m_themeActions;  ///< in Theme order: System, Light, Dark
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
    /// The Runs dock was shown for a second run once: after that it is the user's to hide.
    bool m_runsDockShown = false;
};

} // namespace goblin
