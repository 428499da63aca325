// Loading off the GUI thread (issue 3, point 1): finished, failed and cancelled outcomes,
// throttled progress, the queue, and dropped paths standing for their folder.

#include "loadcontroller.h"
#include "testsupport.h"
#include "windowfixture.h"

#include <QDir>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <atomic>

using namespace goblin;

Q_DECLARE_METATYPE(std::shared_ptr<const goblin::RunAnalysis>)

namespace {

QString fixtureDir()
{
    return test::dataPath(QStringLiteral("window/run-small"));
}

/// A loader that reports progress until the callback says stop or `release` is signalled.
struct SlowLoader {
    std::shared_ptr<QSemaphore> release = std::make_shared<QSemaphore>();
    std::shared_ptr<std::atomic<int>> calls = std::make_shared<std::atomic<int>>(0);
    std::shared_ptr<std::atomic<bool>> sawCancel = std::make_shared<std::atomic<bool>>(false);

    LoadController::Loader loader() const
    {
        return [release = release, calls = calls, sawCancel = sawCancel](const QString &dir,
                                                                         const LoadProgressCallback &progress) {
            ++*calls;
            for (int i = 0;; ++i) {
                if (!progress(std::min(0.99, i / 1000.0), QStringLiteral("Reading trace.csv"))) {
                    *sawCancel = true;
                    return LoadResult{LoadOutcome::Cancelled, QString(), nullptr, nullptr};
                }
                if (release->tryAcquire(1, 2)) {
                    auto run = test::makeFakeRun(QDir(dir).dirName());
                    run->runDir = dir;
                    return LoadResult{LoadOutcome::Finished, QString(), run, nullptr};
                }
            }
        };
    }
};

} // namespace

class TestLoadController : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { qRegisterMetaType<std::shared_ptr<const goblin::RunAnalysis>>(); }
    void loadsFixtureFolder();
    void missingFolderFailsNamingIt();
    void cancelLeavesNothingLoaded();
    void cancelAfterCompletionIsStillCancel();
    void progressIsThrottledAndOnTheGuiThread();
    void queuesFolders();
    void destroyWhileLoadingCancelsTheWorker();
};

void TestLoadController::loadsFixtureFolder()
{
    LoadController controller;
    QSignalSpy started(&controller, &LoadController::started);
    QSignalSpy loaded(&controller, &LoadController::loaded);
    QSignalSpy failed(&controller, &LoadController::failed);
    QSignalSpy idle(&controller, &LoadController::idle);
    controller.load(fixtureDir());
    QVERIFY(controller.isBusy());
    QCOMPARE(started.count(), 1);
    QVERIFY(idle.wait(60000));
    QCOMPARE(failed.count(), 0);
    QCOMPARE(loaded.count(), 1);
    const auto run = loaded.at(0).at(0).value<std::shared_ptr<const RunAnalysis>>();
    QVERIFY(run);
    QCOMPARE(run->runName, QStringLiteral("run-small"));
    QCOMPARE(run->smi.gpuCount, 2);
    QVERIFY(run->workbench.stepTimeS > 0.0);
    QVERIFY(!controller.isBusy());
}

void TestLoadController::missingFolderFailsNamingIt()
{
    LoadController controller;
    QSignalSpy loaded(&controller, &LoadController::loaded);
    QSignalSpy failed(&controller, &LoadController::failed);
    QTemporaryDir parent;
    const QString missing = parent.filePath(QStringLiteral("no-such-run"));
    controller.load(missing);
    QCOMPARE(failed.count(), 0);  // never from inside load(), however fast the worker is
    QVERIFY(failed.wait(30000));
    QCOMPARE(loaded.count(), 0);
    QCOMPARE(failed.at(0).at(0).toString(), missing);
    QVERIFY2(failed.at(0).at(1).toString().contains(QStringLiteral("no-such-run")),
             qPrintable(failed.at(0).at(1).toString()));
}

void TestLoadController::cancelLeavesNothingLoaded()
{
    SlowLoader slow;
    LoadController controller(nullptr, slow.loader());
    QSignalSpy loaded(&controller, &LoadController::loaded);
    QSignalSpy failed(&controller, &LoadController::failed);
    QSignalSpy cancelled(&controller, &LoadController::cancelled);
    QSignalSpy progress(&controller, &LoadController::progressChanged);
    controller.load(QStringLiteral("/runs/slow"));
    QTRY_VERIFY(progress.count() >= 2);  // the opening notice, then the worker's stage
    controller.cancel();
    QVERIFY(cancelled.wait(10000));
    QCOMPARE(cancelled.at(0).at(0).toString(), QStringLiteral("/runs/slow"));
    QVERIFY(slow.sawCancel->load());
    QCOMPARE(loaded.count(), 0);
    QCOMPARE(failed.count(), 0);
    QVERIFY(!controller.isBusy());
}

void TestLoadController::cancelAfterCompletionIsStillCancel()
{
    // The worker finished just as Cancel was pressed: the result is dropped all the same.
    LoadController controller(nullptr, [](const QString &dir, const LoadProgressCallback &) {
        QThread::msleep(200);
        auto run = test::makeFakeRun();
        run->runDir = dir;
        return LoadResult{LoadOutcome::Finished, QString(), run, nullptr};
    });
    QSignalSpy loaded(&controller, &LoadController::loaded);
    QSignalSpy cancelled(&controller, &LoadController::cancelled);
    controller.load(QStringLiteral("/runs/quick"));
    controller.cancel();
    QVERIFY(cancelled.wait(10000));
    QCOMPARE(loaded.count(), 0);
}

void TestLoadController::progressIsThrottledAndOnTheGuiThread()
{
    SlowLoader slow;
    LoadController controller(nullptr, slow.loader());
    QSignalSpy progress(&controller, &LoadController::progressChanged);
    QSignalSpy loaded(&controller, &LoadController::loaded);
    QThread *guiThread = QThread::currentThread();
    bool allOnGuiThread = true;
    connect(&controller, &LoadController::progressChanged, this,
            [&] { allOnGuiThread = allOnGuiThread && QThread::currentThread() == guiThread; });
    controller.load(QStringLiteral("/runs/throttled"));
    QTest::qWait(600);
    slow.release->release();
    QVERIFY(loaded.wait(10000));
    QVERIFY(allOnGuiThread);
    // The worker reported hundreds of times; the bar is updated every 100 ms at most.
    QVERIFY2(progress.count() >= 2 && progress.count() <= 1 + 600 / LoadController::kProgressIntervalMs + 2,
             qPrintable(QString::number(progress.count())));
    QCOMPARE(progress.at(0).at(0).toDouble(), -1.0);  // indeterminate until the first value
    for (int i = 1; i < progress.count(); ++i) {
        const double fraction = progress.at(i).at(0).toDouble();
        QVERIFY(fraction >= 0.0 && fraction <= 1.0);
        QCOMPARE(progress.at(i).at(1).toString(), QStringLiteral("Reading trace.csv"));
    }
}

void TestLoadController::queuesFolders()
{
    SlowLoader slow;
    LoadController controller(nullptr, slow.loader());
    QSignalSpy loaded(&controller, &LoadController::loaded);
    QSignalSpy idle(&controller, &LoadController::idle);
    controller.load(QStringLiteral("/runs/a"));
    controller.load(QStringLiteral("/runs/b"));
    controller.load(QStringLiteral("/runs/b"));  // not twice
    controller.load(QStringLiteral("/runs/a"));  // already loading
    QCOMPARE(controller.currentRunDir(), QStringLiteral("/runs/a"));
    QCOMPARE(controller.queued(), QStringList{QStringLiteral("/runs/b")});
    slow.release->release(2);
    QVERIFY(idle.wait(10000));
    QCOMPARE(loaded.count(), 2);
    QCOMPARE(loaded.at(0).at(0).value<std::shared_ptr<const RunAnalysis>>()->runDir, QStringLiteral("/runs/a"));
    QCOMPARE(loaded.at(1).at(0).value<std::shared_ptr<const RunAnalysis>>()->runDir, QStringLiteral("/runs/b"));
    QCOMPARE(slow.calls->load(), 2);
}

void TestLoadController::destroyWhileLoadingCancelsTheWorker()
{
    SlowLoader slow;
    auto controller = std::make_unique<LoadController>(nullptr, slow.loader());
    QSignalSpy progress(controller.get(), &LoadController::progressChanged);
    controller->load(QStringLiteral("/runs/closing"));
    QTRY_VERIFY(progress.count() >= 2);
    controller.reset();  // the window closes mid-load: must not hang or leave the worker running
    QVERIFY(slow.sawCancel->load());
}

QTEST_GUILESS_MAIN(TestLoadController)
#include "tst_loadcontroller.moc"
