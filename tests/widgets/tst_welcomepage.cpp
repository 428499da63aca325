// The welcome page (issue 26, item 3): each way to open a run is a button or a list entry that
// emits its own request (the window answers them; tst_mainwindow drives the whole path), the
// recent runs are listed most recent first, and the primer names every bucket of the budget
// and the three states of a number.

#include "heuristics.h"
#include "welcomepage.h"

#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

using namespace goblin;

class TestWelcomePage : public QObject
{
    Q_OBJECT
private slots:
    void buttonEmitsItsRequest_data();
    void buttonEmitsItsRequest();
    void recentEntryOpensItsPath_data();
    void recentEntryOpensItsPath();
    void noRecentRunsIsNotAnEntry();
    void exampleButtonFollowsAvailability();
    void primerNamesEveryBucketAndState();
};

void TestWelcomePage::buttonEmitsItsRequest_data()
{
    QTest::addColumn<QString>("button");
    QTest::addColumn<QString>("signal");
    QTest::newRow("open folder") << "folder" << QString::fromLatin1(SIGNAL(openFolderRequested()));
    QTest::newRow("open trace file") << "file" << QString::fromLatin1(SIGNAL(openFileRequested()));
    QTest::newRow("open example") << "example" << QString::fromLatin1(SIGNAL(openExampleRequested()));
}

void TestWelcomePage::buttonEmitsItsRequest()
{
    QFETCH(QString, button);
    QFETCH(QString, signal);
    WelcomePage page;
    page.resize(1000, 700);
    page.show();
    QSignalSpy folder(&page, &WelcomePage::openFolderRequested);
    QSignalSpy file(&page, &WelcomePage::openFileRequested);
    QSignalSpy example(&page, &WelcomePage::openExampleRequested);
    QSignalSpy recent(&page, &WelcomePage::openRecentRequested);
    QPushButton *b = button == QLatin1String("folder") ? page.openFolderButton()
                     : button == QLatin1String("file") ? page.openFileButton()
                                                        : page.openExampleButton();
    QVERIFY(b->isVisible() && b->isEnabled());
    QTest::mouseClick(b, Qt::LeftButton);
    // Exactly the one request, once.
    QCOMPARE(folder.count(), signal.contains(QLatin1String("Folder")) ? 1 : 0);
    QCOMPARE(file.count(), signal.contains(QLatin1String("File")) ? 1 : 0);
    QCOMPARE(example.count(), signal.contains(QLatin1String("Example")) ? 1 : 0);
    QCOMPARE(recent.count(), 0);
}

void TestWelcomePage::recentEntryOpensItsPath_data()
{
    QTest::addColumn<QStringList>("paths");
    QTest::addColumn<int>("row");
    QTest::newRow("first folder") << QStringList{"/runs/b", "/runs/a"} << 0;
    QTest::newRow("second folder") << QStringList{"/runs/b", "/runs/a"} << 1;
    QTest::newRow("a trace file alone") << QStringList{"/traces/rank0.json.gz"} << 0;
}

void TestWelcomePage::recentEntryOpensItsPath()
{
    QFETCH(QStringList, paths);
    QFETCH(int, row);
    WelcomePage page;
    page.resize(1000, 700);
    page.show();
    page.setRecentRuns(paths);
    QCOMPARE(page.recentList()->count(), paths.size());
    QSignalSpy recent(&page, &WelcomePage::openRecentRequested);
    QListWidgetItem *item = page.recentList()->item(row);
    QVERIFY(item->text().contains(paths.at(row).section(QLatin1Char('/'), -1)));
    // Clicked (the start-page way), then activated with the keyboard: one request each.
    QTest::mouseClick(page.recentList()->viewport(), Qt::LeftButton, {},
                      page.recentList()->visualItemRect(item).center());
    QCOMPARE(recent.count(), 1);
    QCOMPARE(recent.at(0).at(0).toString(), paths.at(row));
    page.recentList()->setCurrentItem(item);
    page.recentList()->setFocus();
    QTest::keyClick(page.recentList(), Qt::Key_Return);
    QCOMPARE(recent.count(), 2);
    QCOMPARE(recent.at(1).at(0).toString(), paths.at(row));
}

void TestWelcomePage::noRecentRunsIsNotAnEntry()
{
    WelcomePage page;
    page.show();
    page.setRecentRuns({});
    QCOMPARE(page.recentList()->count(), 1);
    QListWidgetItem *placeholder = page.recentList()->item(0);
    QVERIFY(!(placeholder->flags() & Qt::ItemIsEnabled));
    QSignalSpy recent(&page, &WelcomePage::openRecentRequested);
    QTest::mouseClick(page.recentList()->viewport(), Qt::LeftButton, {},
                      page.recentList()->visualItemRect(placeholder).center());
    QCOMPARE(recent.count(), 0);
}

void TestWelcomePage::exampleButtonFollowsAvailability()
{
    WelcomePage page;
    page.setExampleAvailable(false);
    QVERIFY(!page.openExampleButton()->isEnabled());
    page.setExampleAvailable(true);
    QVERIFY(page.openExampleButton()->isEnabled());
}

void TestWelcomePage::primerNamesEveryBucketAndState()
{
    WelcomePage page;
    const QString primer = page.primerLabel()->text();
    for (int b = 0; b < WasteBudget::BucketCount; ++b)
        QVERIFY2(primer.contains(WasteBudget::bucketLabel(b)), qPrintable(WasteBudget::bucketLabel(b)));
    for (const char *word : {"Unattributed", "measured", "estimated", "unknown"})
        QVERIFY2(primer.contains(QLatin1String(word)), word);
    // The Help window's version adds the full definitions: longer, same names.
    QVERIFY(budgetPrimerHtml(true).size() > primer.size());
}

QTEST_MAIN(TestWelcomePage)
#include "tst_welcomepage.moc"
