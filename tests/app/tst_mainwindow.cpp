// The main window as a user drives it (issue 3, points 1, 7 and 8): a folder given on the command
// line and a file dropped on the window open their run (a file alone, issue 23) and title the
// window; Open Recent leaves out folders that are gone; every menu action has a shortcut; File > Export Report as JSON writes
// exactly what the `report` command prints, and the PNG is the 2x dashboard. Issue 26: the welcome
// page's ways to open a run (a folder, a single trace file, the example, a recent run), F1 opens
// help and About names the open run's GPUs, the theme switch, and the layout remembered.

#include "mainwindow.h"
#include "plotstyle.h"
#include "settings.h"
#include "testsupport.h"
#include "theme.h"
#include "welcomepage.h"
#include "workbenchview.h"

#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QDropEvent>
#include <QFileDialog>
#include <QImageReader>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QPushButton>
#include <QTextBrowser>
#include <QProcess>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUrl>

using namespace goblin;

namespace {

QString fixtureDir()
{
    return test::dataPath(QStringLiteral("window/run-small"));
}

/// A copy of the fixture under another name, so a title can only come from this folder.
QString copyFixture(const QTemporaryDir &parent, const QString &name)
{
    const QString target = parent.filePath(name);
    QDir().mkpath(target);
    const QDir source(fixtureDir());
    for (const QString &file : source.entryList(QDir::Files))
        if (!QFile::copy(source.filePath(file), QDir(target).filePath(file)))
            return {};
    return target;
}

/// Every command of `menu` and its submenus, except the entries of Open Recent (the recent
/// folders themselves, numbered 1 to 0, whose mnemonics are their keys) and the views after the
/// ninth in Go to View (Ctrl+1…9 are all there are; the list and Ctrl+Tab reach the rest).
QList<QAction *> menuActions(QMenu *menu)
{
    QList<QAction *> out;
    const bool views = menu->title() == QStringLiteral("&Go to View");
    for (QAction *action : menu->actions()) {
        if (action->menu() && action->menu()->title() == QStringLiteral("Open &Recent"))
            continue;
        if (action->menu())
            out += menuActions(action->menu());
        else if (!action->isSeparator() && !(views && !action->text().contains(QLatin1Char('&'))))
            out << action;  // a view past the ninth has no number, no mnemonic and no key
    }
    return out;
}

QAction *findMenuAction(QMainWindow &window, const QString &text)
{
    for (QAction *top : window.menuBar()->actions())
        if (top->menu())
            for (QAction *action : menuActions(top->menu()))
                if (action->text() == text)
                    return action;
    return nullptr;
}

/// Answers the next file dialog with `path` (the dialog is modal; this runs inside its loop).
void answerFileDialogWith(const QString &path)
{
    auto *timer = new QTimer;
    timer->setInterval(20);
    QObject::connect(timer, &QTimer::timeout, [timer, path] {
        if (auto *dialog = qobject_cast<QFileDialog *>(QApplication::activeModalWidget())) {
            timer->stop();
            timer->deleteLater();
            // Typed, as a user would: selectFile() loses to the dialog's asynchronous
            // listing of its start folder when that folder holds the suggested name.
            auto *nameEdit = dialog->findChild<QLineEdit *>(QStringLiteral("fileNameEdit"));
            QVERIFY(nameEdit);
            nameEdit->setText(path);
            static_cast<QDialog *>(dialog)->accept();
        }
    });
    timer->start();
}

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT
private slots:
    void init();
    void cleanup();
    void commandLineFolderTitlesTheWindow();
    void droppedFileOpensAlone();
    void fileOnTheCommandLineOpensAlone();
    void separateKernelCaptureOpensInTheRunsList();
    void everyViewSaysItsScope();
    void openRecentLeavesOutMissingFolders();
    void openTraceFileOffersEveryInputAndRecentReopensIt();
    void everyMenuActionHasAShortcut();
    void exportJsonFromMenuEqualsReportCommand();
    void exportPngFromMenuIsTwiceTheSize();
    void welcomePageOpensARun_data();
    void welcomePageOpensARun();
    void f1OpensHelpNotAbout();
    void aboutNamesTheOpenRunsGpus();
    void themeSwitchIsAppliedAndRemembered_data();
    void themeSwitchIsAppliedAndRemembered();
    void desktopThemeChangeIsFollowed();
    void shownViewIsRemembered();

private:
    std::unique_ptr<QTemporaryDir> m_home;
    std::unique_ptr<Settings> m_settings;
    std::unique_ptr<MainWindow> m_window;
};

void TestMainWindow::init()
{
    m_home = std::make_unique<QTemporaryDir>();
    m_settings = std::make_unique<Settings>(
        new QSettings(m_home->filePath(QStringLiteral("settings.ini")), QSettings::IniFormat));
    m_window = std::make_unique<MainWindow>(m_settings.get());
    m_window->resize(1400, 900);
    m_window->show();
}

void TestMainWindow::cleanup()
{
    m_window.reset();
    m_settings.reset();
    m_home.reset();
}

void TestMainWindow::commandLineFolderTitlesTheWindow()
{
    QCOMPARE(m_window->windowTitle(), QStringLiteral("Goblin Workbench"));
    m_window->openRunDir(fixtureDir());
    QTRY_COMPARE_WITH_TIMEOUT(m_window->windowTitle(), QStringLiteral("Goblin Workbench — run-small"), 30000);
    QCOMPARE(m_settings->recentRunDirs().value(0), QDir::cleanPath(fixtureDir()));
}

void TestMainWindow::droppedFileOpensAlone()
{
    // A dropped file opens alone, as on the command line and in `report FILE` (issue 23; it used
    // to open its folder); a dropped folder opens the folder.
    const QString run = copyFixture(*m_home, QStringLiteral("dropped-run"));
    QVERIFY(!run.isEmpty());
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(QDir(run).filePath(QStringLiteral("trace.csv")))});
    const QPoint centre = m_window->rect().center();
    QDragEnterEvent enter(centre, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(m_window.get(), &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(centre), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(m_window.get(), &drop);
    QTRY_COMPARE_WITH_TIMEOUT(m_window->windowTitle(), QStringLiteral("Goblin Workbench — dropped-run/trace.csv"), 30000);
    QMimeData folder;
    folder.setUrls({QUrl::fromLocalFile(run)});
    QDragEnterEvent enterFolder(centre, Qt::CopyAction, &folder, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(m_window.get(), &enterFolder);
    QVERIFY(enterFolder.isAccepted());
    QDropEvent dropFolder(QPointF(centre), Qt::CopyAction, &folder, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(m_window.get(), &dropFolder);
    QTRY_COMPARE_WITH_TIMEOUT(m_window->windowTitle(), QStringLiteral("Goblin Workbench — dropped-run"), 30000);

    // Text that is not a local file is refused at the door.
    QMimeData text;
    text.setText(QStringLiteral("hello"));
    QDragEnterEvent refused(centre, Qt::CopyAction, &text, Qt::LeftButton, Qt::NoModifier);
    refused.setAccepted(false);
    QCoreApplication::sendEvent(m_window.get(), &refused);
    QVERIFY(!refused.isAccepted());
}

void TestMainWindow::fileOnTheCommandLineOpensAlone()
{
    // Issue 23: two unrelated traces in one folder. Given one file, the window shows that file's
    // run alone (not its folder's); given the folder, the run of its first trace, and the other
    // trace as a separate run of its own in the Runs list, which does not take the view.
    const QString dir = m_home->filePath(QStringLiteral("mixed"));
    QVERIFY(QDir().mkpath(dir));
    QVERIFY(QFile::copy(test::dataPath(QStringLiteral("torch/gen_two_gpus_seed7.json.gz")), dir + "/job-a.json.gz"));
    QVERIFY(QFile::copy(test::dataPath(QStringLiteral("torch/hta_ns_resolution_rank-0_subset.json.gz")),
                        dir + "/job-b.json.gz"));
    auto *runsDock = m_window->findChild<QDockWidget *>(QStringLiteral("RunsDock"));
    QVERIFY(runsDock);
    auto *runs = qobject_cast<QListView *>(runsDock->widget());
    QVERIFY(runs && runs->model());
    const auto names = [runs] {
        QStringList out;
        for (int row = 0; row < runs->model()->rowCount(); ++row)
            out << runs->model()->index(row, 0).data().toString();
        return out;
    };

    m_window->openRunDir(dir + QStringLiteral("/job-b.json.gz"));
    QTRY_COMPARE_WITH_TIMEOUT(m_window->windowTitle(), QStringLiteral("Goblin Workbench — mixed/job-b.json.gz"), 30000);
    QCOMPARE(names(), QStringList{QStringLiteral("mixed/job-b.json.gz")});

    m_window->openRunDir(dir);
    QTRY_COMPARE_WITH_TIMEOUT(names().size(), 2, 30000);
    QTRY_COMPARE_WITH_TIMEOUT(m_window->windowTitle(), QStringLiteral("Goblin Workbench — mixed"), 30000);
    // job-b.json.gz is the folder's separate run: loaded alone again, in place of the same run.
    QTest::qWait(500);
    QCOMPARE(names().size(), 2);
    QVERIFY(names().contains(QStringLiteral("mixed")));
    QVERIFY(names().contains(QStringLiteral("mixed/job-b.json.gz")));
    QCOMPARE(m_window->windowTitle(), QStringLiteral("Goblin Workbench — mixed"));

    // Given alone, an empty folder is no run: the list is unchanged.
    QTemporaryDir empty;
    m_window->openRunDir(empty.path());
    QTest::qWait(500);
    QCOMPARE(names().size(), 2);
}

namespace {

/// rocprofv3's kernel trace of one process: `kernels` dispatches 20 µs apart from `firstNs`.
QByteArray kernelCsv(qint64 firstNs, int kernels)
{
    QByteArray out = "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\","
                     "\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\","
                     "\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\","
                     "\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n";
    const char *names[] = {"mul_mat_q4_K", "rms_norm_f32", "rope_f32"};
    for (int i = 0; i < kernels; ++i) {
        const qint64 start = firstNs + qint64(i) * 20'000;
        out += QStringLiteral("\"KERNEL_DISPATCH\",\"Agent 2\",1,0,100,%1,%2,\"%3\",%1,%4,%5,0,0,24,0,96,256,1,1,1024,1,1\n")
                   .arg(i + 1)
                   .arg(i % 3)
                   .arg(QLatin1String(names[i % 3]))
                   .arg(start)
                   .arg(start + 10'000)
                   .toUtf8();
    }
    return out;
}

} // namespace

void TestMainWindow::separateKernelCaptureOpensInTheRunsList()
{
    // A folder of two rocprofv3 captures of one program 70 hours apart: the later one is no rank
    // of the first (rankgroups.h) and opens as a run of its own in the Runs list, without taking
    // the view.
    const QString dir = m_home->filePath(QStringLiteral("captures"));
    QVERIFY(QDir().mkpath(dir + QStringLiteral("/host")));
    const qint64 t0 = 2'745'731'104'856'364;
    for (const auto &[file, first] : {std::pair{"/host/100_kernel_trace.csv", t0},
                                      std::pair{"/host/900_kernel_trace.csv", t0 + 70LL * 3600 * 1'000'000'000}}) {
        QFile f(dir + QLatin1String(file));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(kernelCsv(first, 200));
    }
    auto *runsDock = m_window->findChild<QDockWidget *>(QStringLiteral("RunsDock"));
    QVERIFY(runsDock);
    auto *runs = qobject_cast<QListView *>(runsDock->widget());
    QVERIFY(runs && runs->model());
    const auto names = [runs] {
        QStringList out;
        for (int row = 0; row < runs->model()->rowCount(); ++row)
            out << runs->model()->index(row, 0).data().toString();
        return out;
    };
    m_window->openRunDir(dir);
    QTRY_COMPARE_WITH_TIMEOUT(names().size(), 2, 30000);
    QVERIFY2(names().contains(QStringLiteral("captures")), qPrintable(names().join(QLatin1Char('|'))));
    QVERIFY2(names().contains(QStringLiteral("host/900_kernel_trace.csv")), qPrintable(names().join(QLatin1Char('|'))));
    QCOMPARE(m_window->windowTitle(), QStringLiteral("Goblin Workbench — captures"));
}

void TestMainWindow::everyViewSaysItsScope()
{
    // The example run: its Kernels come from trace.csv (2 GPUs), its Operators from the torch
    // trace (1 process, 3 ProfilerSteps); each view's scope line says which, so the two totals
    // never sit side by side unlabelled.
    m_window->openRunDir(QStringLiteral(GOBLIN_SOURCE_DIR "/resources/example-run"));
    QTRY_COMPARE_WITH_TIMEOUT(m_window->windowTitle(), QStringLiteral("Goblin Workbench — example-run"), 30000);
    auto *view = m_window->findChild<WorkbenchView *>();
    QVERIFY(view);
    QLabel *scope = view->scopeLabel();
    QCOMPARE(scope->objectName(), QStringLiteral("ViewScope"));
    view->showView(WorkbenchView::KernelsPage);
    QVERIFY2(scope->text().startsWith(QStringLiteral("Kernels of trace.csv: 2 devices × 7.")), qPrintable(scope->text()));
    QVERIFY(scope->isVisibleTo(view));
    view->showView(WorkbenchView::OperatorsPage);
    QVERIFY2(scope->text().startsWith(QStringLiteral("GPU time of torch_profile.json by launching op: 1 process, 1 device, "
                                                     "3 ProfilerSteps")),
             qPrintable(scope->text()));
    QVERIFY2(scope->text().contains(QStringLiteral("the Kernels view counts trace.csv instead")), qPrintable(scope->text()));
    view->showView(WorkbenchView::FlameGraphPage);
    QVERIFY(scope->text().startsWith(QStringLiteral("GPU time of torch_profile.json")));
    view->showView(WorkbenchView::TimelinePage);
    QVERIFY2(scope->text().startsWith(QStringLiteral("Every device of trace.csv (2 devices) and torch_profile.json (1 device)")),
             qPrintable(scope->text()));
    view->showView(WorkbenchView::TelemetryPage);
    QVERIFY2(scope->text().startsWith(QStringLiteral("Telemetry of amd_smi.csv: 2 GPUs")), qPrintable(scope->text()));
    view->showView(WorkbenchView::RanksPage);
    QVERIFY2(scope->text().startsWith(QStringLiteral("The job: 1 process")), qPrintable(scope->text()));
}

void TestMainWindow::openRecentLeavesOutMissingFolders()
{
    const QString kept = copyFixture(*m_home, QStringLiteral("kept-run"));
    const QString gone = copyFixture(*m_home, QStringLiteral("gone-run"));
    m_settings->addRecentRunDir(gone);
    m_settings->addRecentRunDir(kept);
    QVERIFY(QDir(gone).removeRecursively());

    QMenu *recent = nullptr;
    for (QMenu *menu : m_window->findChildren<QMenu *>())
        if (menu->title() == QStringLiteral("Open &Recent"))
            recent = menu;
    QVERIFY(recent);
    QMetaObject::invokeMethod(recent, "aboutToShow");  // what opening the menu does
    QStringList entries;
    for (QAction *action : recent->actions())
        if (!action->isSeparator())
            entries << action->text();
    QCOMPARE(entries.size(), 2);  // the folder that is left, then "Clear Recent Runs"
    QVERIFY2(entries.at(0).endsWith(QDir::toNativeSeparators(kept)), qPrintable(entries.join(QLatin1Char('|'))));
    QVERIFY(!entries.join(QLatin1Char('|')).contains(QStringLiteral("gone-run")));
}

void TestMainWindow::openTraceFileOffersEveryInputAndRecentReopensIt()
{
    // The Open Trace File dialog offers every kind the workbench reads (the format registry's
    // names, All files last); an array-form chrome trace picked there opens alone, joins Recent
    // runs as a file, and reopens from there.
    const QString dir = m_home->filePath(QStringLiteral("legacy"));
    QVERIFY(QDir().mkpath(dir));
    const QString file = dir + QStringLiteral("/worker0.json.gz");
    QVERIFY(QFile::copy(test::dataPath(QStringLiteral("torch/kineto_2021_resnet50_steps6to8_array_form.json.gz")), file));
    QStringList filters;
    auto *timer = new QTimer;
    timer->setInterval(20);
    QObject::connect(timer, &QTimer::timeout, [timer, file, &filters] {
        if (auto *dialog = qobject_cast<QFileDialog *>(QApplication::activeModalWidget())) {
            timer->stop();
            timer->deleteLater();
            filters = dialog->nameFilters();
            auto *nameEdit = dialog->findChild<QLineEdit *>(QStringLiteral("fileNameEdit"));
            QVERIFY(nameEdit);
            nameEdit->setText(file);
            static_cast<QDialog *>(dialog)->accept();
        }
    });
    timer->start();
    QAction *open = findMenuAction(*m_window, QStringLiteral("Open &Trace File…"));
    QVERIFY(open);
    open->trigger();
    QVERIFY(filters.size() >= 3);
    QVERIFY2(filters.first().startsWith(QLatin1String("Everything the workbench reads (")), qPrintable(filters.first()));
    for (const char *name : {"*.rpd", "*.sqlite", "*.db", "*.pftrace", "*.json", "*.json.gz", "*.csv"})
        QVERIFY2(filters.first().contains(QLatin1String(name)), qPrintable(filters.first()));
    QCOMPARE(filters.last(), QStringLiteral("All files (*)"));
    QTRY_COMPARE_WITH_TIMEOUT(m_window->windowTitle(), QStringLiteral("Goblin Workbench — legacy/worker0.json.gz"),
                              30000);
    QCOMPARE(m_settings->recentRunDirs().value(0), QDir::cleanPath(file));
    QCOMPARE(m_window->welcomePage()->recentRuns().value(0), QDir::cleanPath(file));

    // Closed, then reopened from File ▸ Open Recent.
    QAction *close = findMenuAction(*m_window, QStringLiteral("&Close Run"));
    QVERIFY(close);
    close->trigger();
    QTRY_VERIFY(m_window->welcomeShown());
    QMenu *recent = nullptr;
    for (QMenu *menu : m_window->findChildren<QMenu *>())
        if (menu->title() == QStringLiteral("Open &Recent"))
            recent = menu;
    QVERIFY(recent);
    QMetaObject::invokeMethod(recent, "aboutToShow");
    QAction *entry = nullptr;
    for (QAction *action : recent->actions())
        if (action->text().endsWith(QDir::toNativeSeparators(file)))
            entry = action;
    QVERIFY(entry);
    entry->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(m_window->windowTitle(), QStringLiteral("Goblin Workbench — legacy/worker0.json.gz"),
                              30000);
}

void TestMainWindow::everyMenuActionHasAShortcut()
{
    int checked = 0;
    for (QAction *top : m_window->menuBar()->actions()) {
        QVERIFY(top->menu());
        QVERIFY2(top->text().contains(QLatin1Char('&')), qPrintable(top->text()));  // Alt+letter
        for (QAction *action : menuActions(top->menu())) {
            QVERIFY2(!action->shortcut().isEmpty(), qPrintable(action->text()));
            ++checked;
        }
    }
    QVERIFY(checked >= 20);
}

void TestMainWindow::exportJsonFromMenuEqualsReportCommand()
{
    m_window->openRunDir(fixtureDir());
    QTRY_COMPARE_WITH_TIMEOUT(m_window->windowTitle(), QStringLiteral("Goblin Workbench — run-small"), 30000);
    QAction *exportJson = findMenuAction(*m_window, QStringLiteral("Export Report as &JSON…"));
    QVERIFY(exportJson);
    QVERIFY(exportJson->isEnabled());
    const QString path = m_home->filePath(QStringLiteral("from-menu.json"));
    answerFileDialogWith(path);
    exportJson->trigger();
    QVERIFY(QFileInfo::exists(path));

    QProcess cli;
    cli.start(QStringLiteral(GOBLIN_APP_BINARY), {QStringLiteral("report"), fixtureDir()});
    QVERIFY(cli.waitForFinished(60000));
    QCOMPARE(cli.exitCode(), 0);
    QCOMPARE(test::readAll(path), cli.readAllStandardOutput());
}

void TestMainWindow::exportPngFromMenuIsTwiceTheSize()
{
    m_window->openRunDir(fixtureDir());
    QTRY_COMPARE_WITH_TIMEOUT(m_window->windowTitle(), QStringLiteral("Goblin Workbench — run-small"), 30000);
    QAction *exportPng = findMenuAction(*m_window, QStringLiteral("Export Report as &PNG…"));
    QVERIFY(exportPng);
    const QString path = m_home->filePath(QStringLiteral("from-menu.png"));
    answerFileDialogWith(path);
    exportPng->trigger();
    QImageReader reader(path);
    QCOMPARE(reader.format(), QByteArray("png"));
    QCOMPARE(reader.size(), QSize(3200, 2000));
}

/// With no run open the window shows the welcome page; each of its ways to open a run opens one
/// (the file dialogs answered as a user would), and the dashboard takes its place.
void TestMainWindow::welcomePageOpensARun_data()
{
    QTest::addColumn<QString>("way");
    QTest::addColumn<QString>("title");
    QTest::newRow("open folder") << "folder" << "Goblin Workbench — picked-run";
    QTest::newRow("open a single .json.gz") << "file" << "Goblin Workbench — traces/job.json.gz";
    QTest::newRow("open example") << "example" << "Goblin Workbench — example-run";
    QTest::newRow("recent run") << "recent" << "Goblin Workbench — recent-run";
}

void TestMainWindow::welcomePageOpensARun()
{
    QFETCH(QString, way);
    QFETCH(QString, title);
    QVERIFY(m_window->welcomeShown());
    WelcomePage *welcome = m_window->welcomePage();
    QVERIFY(welcome->isVisible());
    QVERIFY(!m_window->workbenchView()->isVisible());
    if (way == QLatin1String("folder")) {
        const QString run = copyFixture(*m_home, QStringLiteral("picked-run"));
        answerFileDialogWith(run);
        QTest::mouseClick(welcome->openFolderButton(), Qt::LeftButton);
    } else if (way == QLatin1String("file")) {
        const QString dir = m_home->filePath(QStringLiteral("traces"));
        QVERIFY(QDir().mkpath(dir));
        const QString file = dir + QStringLiteral("/job.json.gz");
        QVERIFY(QFile::copy(test::dataPath(QStringLiteral("torch/gen_two_gpus_seed7.json.gz")), file));
        answerFileDialogWith(file);
        QTest::mouseClick(welcome->openFileButton(), Qt::LeftButton);
    } else if (way == QLatin1String("example")) {
        QVERIFY(welcome->openExampleButton()->isEnabled());
        QTest::mouseClick(welcome->openExampleButton(), Qt::LeftButton);
    } else {
        const QString run = copyFixture(*m_home, QStringLiteral("recent-run"));
        m_settings->addRecentRunDir(run);
        QCOMPARE(welcome->recentRuns(), QStringList{QDir::cleanPath(run)});
        QListWidget *list = welcome->recentList();
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualItemRect(list->item(0)).center());
    }
    QTRY_COMPARE_WITH_TIMEOUT(m_window->windowTitle(), title, 30000);
    QVERIFY(!m_window->welcomeShown());
    QVERIFY(m_window->workbenchView()->isVisible());
    // Closing the last run brings the welcome back.
    QAction *close = findMenuAction(*m_window, QStringLiteral("&Close Run"));
    QVERIFY(close);
    close->trigger();
    QTRY_VERIFY(m_window->welcomeShown());
}

void TestMainWindow::f1OpensHelpNotAbout()
{
    QAction *f1 = nullptr;
    for (QAction *a : m_window->actions())
        if (a->shortcuts().contains(QKeySequence(Qt::Key_F1)))
            f1 = a;
    QVERIFY(f1);
    QVERIFY2(!f1->text().contains(QLatin1String("About")), qPrintable(f1->text()));
    f1->trigger();
    auto *help = m_window->findChild<QDialog *>(QStringLiteral("HelpWindow"));
    QVERIFY(help && help->isVisible());
    const QString text = help->findChild<QTextBrowser *>()->toPlainText();
    QVERIFY(text.contains(QLatin1String("waste budget")));
    QVERIFY(text.contains(QLatin1String("Ctrl+Tab")));
    help->close();
}

void TestMainWindow::aboutNamesTheOpenRunsGpus()
{
    QVERIFY(m_window->aboutBoxText().contains(QLatin1String("no run open")));
    // An MI250 trace (its deviceProperties name four "AMD Radeon Graphics"): no MI300X anywhere.
    m_window->openRunDir(test::dataPath(QStringLiteral("torch/hta_amd_mi250_minitoy_train_ROCm6_2_kineto.json.gz")));
    QTRY_VERIFY_WITH_TIMEOUT(m_window->windowTitle().contains(QLatin1String("minitoy")), 30000);
    const QString text = m_window->aboutBoxText();
    QVERIFY2(text.contains(QStringLiteral("AMD Radeon Graphics ×4")), qPrintable(text));
    QVERIFY2(!text.contains(QLatin1String("MI300X")), qPrintable(text));
}

Q_DECLARE_METATYPE(goblin::Theme)

void TestMainWindow::themeSwitchIsAppliedAndRemembered_data()
{
    QTest::addColumn<Theme>("theme");
    QTest::addColumn<QString>("action");
    QTest::newRow("dark") << Theme::Dark << "&Dark";
    QTest::newRow("light") << Theme::Light << "&Light";
    QTest::newRow("system") << Theme::System << "&System Colours";
}

void TestMainWindow::themeSwitchIsAppliedAndRemembered()
{
    QFETCH(Theme, theme);
    QFETCH(QString, action);
    const QPalette desktop = QApplication::palette();
    // From the other end, so the switch is seen.
    m_window->setTheme(theme == Theme::Dark ? Theme::Light : Theme::Dark);
    QAction *a = findMenuAction(*m_window, action);
    QVERIFY(a && a->isCheckable());
    a->trigger();
    QVERIFY(a->isChecked());
    const QPalette expected = paletteFor(theme, desktop);
    QCOMPARE(QApplication::palette().color(QPalette::Window), expected.color(QPalette::Window));
    // Widgets take the application palette with the change event Qt delivers to each of them.
    QTRY_COMPARE(m_window->workbenchView()->palette().color(QPalette::Window), expected.color(QPalette::Window));
    QCOMPARE(QApplication::palette().color(QPalette::PlaceholderText), expected.color(QPalette::PlaceholderText));
    QCOMPARE(m_settings->theme(), theme);
    // A new window starts in it; closing the last one gives the desktop's palette back.
    m_window.reset();
    QCOMPARE(QApplication::palette().color(QPalette::Window), desktop.color(QPalette::Window));
    m_window = std::make_unique<MainWindow>(m_settings.get());
    QCOMPARE(QApplication::palette().color(QPalette::Window), expected.color(QPalette::Window));
    QVERIFY(findMenuAction(*m_window, action)->isChecked());
}

void TestMainWindow::desktopThemeChangeIsFollowed()
{
    const QPalette desktop = QApplication::palette();
    // Whatever palette the application set, the desktop's is read afresh.
    m_window->setTheme(Theme::Dark);
    QCOMPARE(QApplication::palette().color(QPalette::Window), darkPalette().color(QPalette::Window));
    QCOMPARE(MainWindow::currentDesktopPalette().color(QPalette::Window), desktop.color(QPalette::Window));
    QCOMPARE(MainWindow::currentDesktopPalette().color(QPalette::Base), desktop.color(QPalette::Base));
    QCOMPARE(QApplication::palette().color(QPalette::Window), darkPalette().color(QPalette::Window));
    // A desktop change leaves a fixed theme alone, and gives "System" the desktop's palette.
    QEvent change(QEvent::ThemeChange);
    QApplication::sendEvent(m_window.get(), &change);
    QCOMPARE(QApplication::palette().color(QPalette::Window), darkPalette().color(QPalette::Window));
    m_window->setTheme(Theme::System);
    QApplication::sendEvent(m_window.get(), &change);
    QCOMPARE(QApplication::palette().color(QPalette::Window), paletteFor(Theme::System, desktop).color(QPalette::Window));
    QCOMPARE(m_settings->theme(), Theme::System);
}

void TestMainWindow::shownViewIsRemembered()
{
    m_window->workbenchView()->showView(WorkbenchView::SweepPage);
    m_window->close();  // saves the settings
    m_window = std::make_unique<MainWindow>(m_settings.get());
    QCOMPARE(m_window->workbenchView()->currentViewIndex(), int(WorkbenchView::SweepPage));
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
