// Export (issue 3, point 7): the dashboard PNG at 2× and the JSON report of the current
// thresholds, both written atomically; the JSON is byte-for-byte what `report` writes.

#include "budgetformula.h"
#include "dashboardexport.h"
#include "formatting.h"
#include "liveanalysis.h"
#include "wastebudgetmodel.h"
#include "report.h"
#include "testsupport.h"
#include "thresholdeditor.h"
#include "windowfixture.h"
#include "workbenchsession.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace goblin;

namespace {

QString fixtureDir()
{
    return test::dataPath(QStringLiteral("window/run-small"));
}

/// Share of pixels in `rect` (logical coordinates) that are not the background.
double inkShare(const QImage &image, const QRect &rect, double dpr)
{
    const QColor background = image.pixelColor(1, 1);
    qint64 ink = 0, total = 0;
    const QRect device(QPoint(int(rect.left() * dpr), int(rect.top() * dpr)), rect.size() * dpr);
    for (int y = device.top(); y < device.bottom(); y += 2)
        for (int x = device.left(); x < device.right(); x += 2) {
            ++total;
            ink += image.pixelColor(x, y) != background ? 1 : 0;
        }
    return total ? double(ink) / double(total) : 0.0;
}

} // namespace

class TestDashboardExport : public QObject
{
    Q_OBJECT
private slots:
    void pngHasTwiceTheLogicalSize();
    void pngOfLoadedRun();
    void pngFollowsThresholds();
    void pngUnwritablePathFails();
    void exportsRefuseTheRunFolder_data();
    void exportsRefuseTheRunFolder();
    void pngTextIsRedacted();
    void jsonIsTheReportOfTheCurrentThresholds();
    void jsonEqualsTheReportCommand();
    void exportWritesTheLiveMetricsItIsGiven();
    void pngShowsTheUnmeasuredRest();
    void headerStepIsTheRunSectionStep_data();
    void headerStepIsTheRunSectionStep();
};

void TestDashboardExport::pngHasTwiceTheLogicalSize()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("dashboard.png"));
    QString error;
    const auto run = test::makeFakeRun();
    QVERIFY2(renderDashboardPng(*run, HeuristicsProfile::Workbench, Thresholds{}, path, &error), qPrintable(error));
    QImage image(path);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), kDashboardLogicalSize * 2);
    // Header, budget chart, telemetry and the number column all have something drawn.
    QVERIFY(inkShare(image, QRect(24, 24, 800, 30), 2.0) > 0.02);
    QVERIFY(inkShare(image, QRect(24, 130, 1000, 340), 2.0) > 0.05);
    QVERIFY(inkShare(image, QRect(24, 520, 1000, 400), 2.0) > 0.05);
    QVERIFY(inkShare(image, QRect(1080, 130, 500, 700), 2.0) > 0.02);
    QVERIFY(!QFile::exists(path + QStringLiteral(".tmp")));
}

void TestDashboardExport::pngOfLoadedRun()
{
    const LoadResult loaded = loadRun(fixtureDir());
    QCOMPARE(int(loaded.outcome), int(LoadOutcome::Finished));
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("run-small.png"));
    QString error;
    QVERIFY2(renderDashboardPng(*loaded.run, HeuristicsProfile::Reference, Thresholds{}, path, &error),
             qPrintable(error));
    QCOMPARE(QImage(path).size(), QSize(3200, 2000));
}

void TestDashboardExport::pngFollowsThresholds()
{
    const auto run = test::makeFakeRun();
    Thresholds moved;
    moved.gpuUtilBelowPct = 80.0;
    const QImage a = renderDashboardImage(*run, HeuristicsProfile::Workbench, Thresholds{}, 1.0);
    const QImage b = renderDashboardImage(*run, HeuristicsProfile::Workbench, moved, 1.0);
    const QImage c = renderDashboardImage(*run, HeuristicsProfile::Workbench, Thresholds{}, 1.0);
    QCOMPARE(a.size(), kDashboardLogicalSize);
    QVERIFY(a != b);  // the threshold line and the numbers moved
    QVERIFY(a == c);  // and the image is a function of its inputs
}

void TestDashboardExport::pngUnwritablePathFails()
{
    const auto run = test::makeFakeRun();
    QString error;
    const QString path = QStringLiteral("/nonexistent-folder/dashboard.png");
    QVERIFY(!renderDashboardPng(*run, HeuristicsProfile::Workbench, Thresholds{}, path, &error));
    QVERIFY2(error.contains(path), qPrintable(error));
}

void TestDashboardExport::exportsRefuseTheRunFolder_data()
{
    QTest::addColumn<bool>("png");
    QTest::addColumn<QString>("relativePath");
    QTest::newRow("png in the folder") << true << QStringLiteral("dashboard.png");
    QTest::newRow("json in the folder") << false << QStringLiteral("report.json");
    QTest::newRow("png in a subfolder") << true << QStringLiteral("sub/dashboard.png");
    QTest::newRow("json in a subfolder") << false << QStringLiteral("sub/report.json");
}

/// The window's Export PNG/JSON write through these functions: a path inside the run folder is
/// refused with a message naming both, and nothing is written there.
void TestDashboardExport::exportsRefuseTheRunFolder()
{
    QFETCH(bool, png);
    QFETCH(QString, relativePath);
    QTemporaryDir runDir;
    QVERIFY(QDir(runDir.path()).mkpath(QStringLiteral("sub")));
    auto run = test::makeFakeRun();
    run->runDir = runDir.path();
    run->runDirAsGiven = runDir.path();
    const QString path = QDir(runDir.path()).filePath(relativePath);
    QString error;
    const bool written = png ? renderDashboardPng(*run, HeuristicsProfile::Workbench, Thresholds{}, path, &error)
                             : exportReportJson(*run, HeuristicsProfile::Workbench, Thresholds{}, path, &error);
    QVERIFY(!written);
    QVERIFY2(error.contains(QStringLiteral("never writes into a run folder")), qPrintable(error));
    QVERIFY2(error.contains(path), qPrintable(error));
    QVERIFY(!QFileInfo::exists(path));
    // Beside the folder is fine.
    QTemporaryDir elsewhere;
    const QString outside = elsewhere.filePath(QFileInfo(relativePath).fileName());
    QVERIFY2(png ? renderDashboardPng(*run, HeuristicsProfile::Workbench, Thresholds{}, outside, &error)
                 : exportReportJson(*run, HeuristicsProfile::Workbench, Thresholds{}, outside, &error),
             qPrintable(error));
}

/// Text on the PNG passes the export redaction like the JSON: a token in the run's name never
/// reaches the image.
void TestDashboardExport::pngTextIsRedacted()
{
    const QString token = QStringLiteral("hf_abcdefghijklmnopqrstuvwxyzABCDEF12");
    const auto run = test::makeFakeRun(QStringLiteral("run-") + token);
    QStringList painted;
    renderDashboardImage(*run, HeuristicsProfile::Workbench, Thresholds{}, 1.0, &painted);
    QVERIFY(!painted.isEmpty());
    bool namedTheRun = false;
    for (const QString &line : painted) {
        QVERIFY2(!line.contains(token), qPrintable(line));
        namedTheRun = namedTheRun || line.contains(QStringLiteral("Goblin Workbench — run-"));
    }
    QVERIFY(namedTheRun);
}

void TestDashboardExport::jsonIsTheReportOfTheCurrentThresholds()
{
    const LoadResult loaded = loadRun(fixtureDir());
    QCOMPARE(int(loaded.outcome), int(LoadOutcome::Finished));
    WorkbenchSession session;
    session.openRun(loaded.run);
    session.editor()->changeValue(ThresholdField::GpuUtilBelow, 45.0);
    session.editor()->changeValue(ThresholdField::HbmTarget, 60.0);
    session.live()->setProfile(HeuristicsProfile::Reference);
    session.live()->flush();

    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("report.json"));
    QString error;
    QVERIFY2(exportReportJson(*loaded.run, session.live()->profile(), session.live()->thresholds(), path, &error),
             qPrintable(error));
    QJsonParseError parseError;
    const QJsonDocument written = QJsonDocument::fromJson(test::readAll(path), &parseError);
    QCOMPARE(parseError.error, QJsonParseError::NoError);
    const QJsonObject expected =
        buildReport(*loaded.run, HeuristicsProfile::Reference, session.live()->thresholds());
    QString difference;
    QVERIFY2(test::jsonNearlyEqual(expected, written.object(), 0.0, &difference), qPrintable(difference));
    const QJsonObject defaults = buildReport(*loaded.run, HeuristicsProfile::Reference, Thresholds{});
    QVERIFY(!test::jsonNearlyEqual(defaults, written.object(), 0.0, &difference));
}

void TestDashboardExport::jsonEqualsTheReportCommand()
{
    const QString app = QStringLiteral(GOBLIN_APP_BINARY);
    if (!QFile::exists(app))
        QSKIP("goblin-workbench is not built");
    QTemporaryDir dir;
    const QString cliPath = dir.filePath(QStringLiteral("cli.json"));
    QProcess process;
    process.start(app, {QStringLiteral("report"), fixtureDir(), QStringLiteral("--json"), cliPath,
                        QStringLiteral("--gpu-util-below"), QStringLiteral("45"), QStringLiteral("--hbm-target"),
                        QStringLiteral("60"), QStringLiteral("--precision"), QStringLiteral("fp16")});
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitCode(), 0);

    const LoadResult loaded = loadRun(fixtureDir());
    QCOMPARE(int(loaded.outcome), int(LoadOutcome::Finished));
    Thresholds t;
    t.gpuUtilBelowPct = 45.0;
    t.hbmTargetPct = 60.0;
    t.precision = Precision::Fp16;
    const QString guiPath = dir.filePath(QStringLiteral("gui.json"));
    QString error;
    QVERIFY2(exportReportJson(*loaded.run, HeuristicsProfile::Workbench, t, guiPath, &error), qPrintable(error));
    const QByteArray gui = test::readAll(guiPath);
    const QByteArray cli = test::readAll(cliPath);
    if (gui != cli) {
        QString difference;
        test::jsonNearlyEqual(QJsonDocument::fromJson(cli).object(), QJsonDocument::fromJson(gui).object(), 0.0,
                              &difference);
        QFAIL(qPrintable(QStringLiteral("the window's JSON differs from `report`'s: %1").arg(difference)));
    }
}

void TestDashboardExport::exportWritesTheLiveMetricsItIsGiven()
{
    // The window passes LiveAnalysis::metrics(); the exporter writes them as given, computing
    // nothing again. A budget no threshold could produce shows that.
    const auto run = test::makeFakeRun();
    WorkbenchSession session;
    session.openRun(run);
    session.editor()->changeValue(ThresholdField::GpuUtilBelow, 45.0);
    session.live()->flush();
    Derived live = session.live()->derived();
    QCOMPARE(live.metrics.wasteBudget, computeWasteBudget(run->workbench.budgetInputs, session.live()->thresholds()));
    live.metrics.wasteBudget.dataWait = 0.123456;
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("report.json"));
    QString error;
    QVERIFY2(exportReportJson(*run, live, path, &error), qPrintable(error));
    const QJsonObject written = QJsonDocument::fromJson(test::readAll(path)).object();
    QCOMPARE(written.value("metrics").toObject().value("waste_budget").toObject().value("data_wait").toDouble(),
             0.123456);
    QCOMPARE(written.value("thresholds").toObject().value("gpu_util_below_pct").toDouble(), 45.0);

    const QImage given = renderDashboardImage(*run, live, 1.0);
    const QImage computed = renderDashboardImage(*run, HeuristicsProfile::Workbench, session.live()->thresholds(), 1.0);
    QVERIFY(given != computed);
}

void TestDashboardExport::pngShowsTheUnmeasuredRest()
{
    auto run = test::makeFakeRun();
    const QImage measured = renderDashboardImage(*run, HeuristicsProfile::Workbench, Thresholds{}, 1.0);
    run->workbench.budgetInputs.gpuUtilKnown = false;
    const QImage unmeasured = renderDashboardImage(*run, HeuristicsProfile::Workbench, Thresholds{}, 1.0);
    QCOMPARE(unmeasured.size(), measured.size());
    QVERIFY(unmeasured != measured);
    // The budget chart area (left, below the header) changes: a bar moved from useful to not measured.
    QVERIFY(inkShare(unmeasured, QRect(24, 110, 1000, 360), 1.0) > 0.05);
}

/// Issue 23: the PNG's header and its Run section print one step time (the run's StepTimeS
/// quantity), the Run section reads the quantities ("—" and the reason where unknown), the
/// budget rows carry their marks and "—", and the verdict is runVerdict(). Checked on the texts
/// the image paints.
void TestDashboardExport::headerStepIsTheRunSectionStep_data()
{
    QTest::addColumn<QString>("runDir");  // empty: the hand-built fake run
    QTest::addColumn<bool>("hostUnknown");
    QTest::newRow("fake run (no timeline)") << QString() << false;
    QTest::newRow("example run (measured budget)")
        << QStringLiteral(GOBLIN_SOURCE_DIR "/resources/example-run") << false;
    QTest::newRow("kernel trace alone (host unknown)") << test::dataPath(QStringLiteral("runs/real-rocm63-2021")) << true;
    QTest::newRow("graph replay (caveat)") << test::dataPath(QStringLiteral("runs/graph-replay-decode")) << false;
}

void TestDashboardExport::headerStepIsTheRunSectionStep()
{
    QFETCH(QString, runDir);
    QFETCH(bool, hostUnknown);
    std::shared_ptr<const RunAnalysis> run;
    if (runDir.isEmpty()) {
        run = test::makeFakeRun();
    } else {
        const LoadResult loaded = loadRun(runDir);
        QCOMPARE(int(loaded.outcome), int(LoadOutcome::Finished));
        run = loaded.run;
    }
    const Derived derived = deriveResults(*run, HeuristicsProfile::Workbench, Thresholds{});
    QStringList painted;
    renderDashboardImage(*run, derived, 1.0, &painted);
    QVERIFY(!painted.isEmpty());

    // The header line with the step time, and the Run section's step row.
    const Quantity &step = derived.quantities[QuantityKey::StepTimeS];
    QVERIFY(step.value);
    const QString stepText = formatSeconds(*step.value);
    QString header;
    for (const QString &line : painted)
        if (line.contains(QStringLiteral("profile")) && line.contains(QStringLiteral("step time ")))
            header = line;
    QVERIFY2(!header.isEmpty(), qPrintable(painted.join(QLatin1Char('\n'))));
    QVERIFY2(header.contains(QStringLiteral("step time %1").arg(stepText)), qPrintable(header));
    QVERIFY2(header.contains(step.scope), qPrintable(header));  // with what it covers
    const std::vector<DashboardRunLine> lines = dashboardRunLines(derived);
    QCOMPARE(lines.front().label, Quantities::label(QuantityKey::StepTimeS));
    QCOMPARE(lines.front().value, stepText);
    const int runHeading = int(painted.indexOf(QStringLiteral("Run")));
    QVERIFY(runHeading > 0);
    const int stepLabel = int(painted.indexOf(lines.front().label, runHeading));
    QVERIFY(stepLabel > runHeading);
    QVERIFY2(painted.mid(stepLabel, 3).contains(stepText), qPrintable(painted.mid(stepLabel, 3).join(QLatin1Char('|'))));
    // The budget's step row is the same number.
    QVERIFY(painted.contains(stepText));
    QCOMPARE(dashboardStepTimeText(derived).left(stepText.size()), stepText);

    // Host busy: the quantity, or "—" with the reason and the mark "?".
    const DashboardRunLine &host = lines[2];
    QCOMPARE(host.label, Quantities::label(QuantityKey::HostBusyFraction));
    QCOMPARE(host.value == QStringLiteral("—"), hostUnknown);
    QCOMPARE(host.mark == QStringLiteral("?"), hostUnknown);
    QCOMPARE(host.note.startsWith(QStringLiteral("unknown: ")), hostUnknown);
    const int hostLabel = int(painted.indexOf(host.label, runHeading));
    QVERIFY(hostLabel > runHeading);
    QVERIFY(painted.mid(hostLabel, 3).contains(host.value));

    // The verdict with its caveat, and every unknown bucket as "—".
    QVERIFY2(painted.contains(runVerdict(derived)), qPrintable(runVerdict(derived)));
    const WasteBudget &b = derived.metrics.wasteBudget;
    for (int row = 0; row < WasteBudget::BucketCount; ++row) {
        const int at = int(painted.indexOf(budgetRowLabel(row)));
        QVERIFY2(at >= 0, qPrintable(budgetRowLabel(row)));
        const QStringList cells = painted.mid(at + 1, 3);  // mark, seconds, share
        QCOMPARE(cells.at(0), valueStateMark(b.state(row)));
        if (b.state(row) == ValueState::Unknown)
            QCOMPARE(cells.mid(1), (QStringList{QStringLiteral("—"), QStringLiteral("—")}));
        else
            QCOMPARE(cells.at(1), formatSeconds(b.bucket(row)));
    }
}

QTEST_MAIN(TestDashboardExport)
#include "tst_dashboardexport.moc"
