// The main window as a user drives it (issue 3, points 1, 7 and 8): a folder given on the command
// line and a file dropped on the window open their run (a file alone, issue 23) and title the
// window; Open Recent leaves out folders that are gone; every menu action has a shortcut; File > Export Report as JSON writes
// exactly what the `report` command prints, and the PNG is the 2x dashboard.

#include "mainwindow.h"
#include "settings.h"
#include "testsupport.h"

#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QDropEvent>
#include <QFileDialog>
#include <QImageReader>
#include <QLineEdit>
#include <QListView>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
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
/// folders themselves, numbered 1 to 0, whose mnemonics are their keys).
QList<QAction *> menuActions(QMenu *menu)
{
    QList<QAction *> out;
    for (QAction *action : menu->actions()) {
        if (action->menu() && action->menu()->title() == QStringLiteral("Open &Recent"))
            continue;
        if (action->menu())
            out += menuActions(action->menu());
        else if (!action->isSeparator())
            out << action;
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
    void openRecentLeavesOutMissingFolders();
    void everyMenuActionHasAShortcut();
    void exportJsonFromMenuEqualsReportCommand();
    void exportPngFromMenuIsTwiceTheSize();

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
    QCOMPARE(entries.size(), 2);  // the folder that is left, then "Clear Recent Folders"
    QVERIFY2(entries.at(0).endsWith(QDir::toNativeSeparators(kept)), qPrintable(entries.join(QLatin1Char('|'))));
    QVERIFY(!entries.join(QLatin1Char('|')).contains(QStringLiteral("gone-run")));
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

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
