// The compare view (issue 14, point 2): runs side by side under the session's one set of
// thresholds. Its delta bars are compareDelta's numbers, a threshold drag recomputes every run,
// the user picks the baseline, and `compare --png` / the view's export write a real image that
// carries the reproducing command.

#include "compare.h"
#include "compareplot.h"
#include "compareview.h"
#include "formatting.h"
#include "liveanalysis.h"
#include "plotstyle.h"
#include "testsupport.h"
#include "thresholdeditor.h"
#include "windowfixture.h"
#include "workbenchsession.h"

#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QSet>
#include <QJsonArray>
#include <QJsonDocument>
#include <QListWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>

using namespace goblin;

namespace {

/// The fake run, made slower and busier: util 40 % (so data wait needs a threshold above 40),
/// a 0.6 s step and more communication, so every bucket moves between the two.
std::shared_ptr<RunAnalysis> makeSlowerRun()
{
    auto run = test::makeFakeRun(QStringLiteral("slower-run"));
    for (ProfileAnalysis *a : {&run->workbench, &run->reference}) {
        a->budgetInputs.stepTimeS = a->stepTimeS = 0.6;
        a->budgetInputs.gpuUtilPct = a->gpuUtilPct = 40.0;
        a->budgetInputs.commExcessS *= 3.0;
        a->budgetInputs.hbmPeakGb = a->hbmPeakGb = 150.0;
    }
    run->kernels.workbench.perName[0].totalNs *= 2;  // the tuned GEMM became slower
    return run;
}

QImage checkedPng(const QString &path)
{
    QImage image(path);
    if (image.isNull())
        return image;
    // Not blank: many distinct colours (text, bars, axes), and no all-background image.
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 7)
        for (int x = 0; x < image.width(); x += 7)
            colours.insert(image.pixel(x, y));
    return colours.size() > 20 ? image : QImage();
}

struct Fixture {
    WorkbenchSession session;
    CompareView view{&session};
    std::shared_ptr<RunAnalysis> a = test::makeFakeRun(QStringLiteral("fake-run"));
    std::shared_ptr<RunAnalysis> b = makeSlowerRun();

    Fixture()
    {
        view.resize(1200, 700);
        view.show();
        session.openRun(a);
        session.openRun(b);
        view.flush();
    }

    QJsonObject expected(int baseline) const
    {
        return compareRuns({a.get(), b.get()}, session.live()->profile(), session.live()->thresholds(), baseline,
                           view.command());
    }
};

/// Every drawn bar (both units) against compareDelta's own numbers.
void verifyBars(const CompareView &view, const QJsonObject &expected)
{
    QCOMPARE(view.result(), expected);
    const QJsonObject delta = expected["delta"].toObject();
    int drawn = 0;
    for (const QString &key : compareBucketKeys(expected)) {
        const QJsonValue seconds = delta["waste_budget"][key];
        const double bar = view.drawnBarValue(0, key);
        if (!seconds.isDouble()) {
            QVERIFY2(std::isnan(bar), qPrintable(key));
            continue;
        }
        const double want = view.unit() == DeltaUnit::SecondsPerStep ? seconds.toDouble()
                                                                      : 100.0 * delta["share_of_step"][key].toDouble();
        QCOMPARE(bar, want);
        ++drawn;
    }
    QVERIFY(drawn >= WasteBudget::BucketCount);
}

} // namespace

class TestCompareView : public QObject
{
    Q_OBJECT

private slots:
    void twoRunsDrawCompareDelta()
    {
        Fixture f;
        QCOMPARE(f.view.runList()->count(), 2);
        QCOMPARE(int(f.view.comparedRuns().size()), 2);
        const QJsonObject want = f.expected(0);
        verifyBars(f.view, want);
        // The delta is the other's budget minus the baseline's, as compareDelta computes it.
        const QJsonObject reportA = want["runs"][0].toObject(), reportB = want["runs"][1].toObject();
        const double dStep = want["delta"]["waste_budget"]["useful_gpu"].toDouble();
        QCOMPARE(dStep, reportB["metrics"]["waste_budget"]["useful_gpu"].toDouble()
                            - reportA["metrics"]["waste_budget"]["useful_gpu"].toDouble());
        QVERIFY(dStep != 0.0);
        f.view.unitBox()->setCurrentIndex(1);  // share of step
        verifyBars(f.view, want);
        QCOMPARE(f.view.telemetryTable()->rowCount(), 2);
        QCOMPARE(f.view.kernelTable()->rowCount(), int(compareKernelRows(want).size()));
        QVERIFY(f.view.kernelTable()->rowCount() >= 2);
        // The slower GEMM is listed as slower with its per-step seconds.
        const auto rows = compareKernelRows(want);
        QCOMPARE(rows.front().at(1), QStringLiteral("Cijk_gemm_fp16_tuned"));
        QCOMPARE(rows.front().at(5), QStringLiteral("slower"));
        QCOMPARE(f.view.command().mid(0, 4),
                 (QStringList{"goblin-workbench", "compare", f.a->runDir, f.b->runDir}));
    }

    void thresholdDragRecomputesEveryRun()
    {
        Fixture f;
        const QJsonObject before = f.view.result();
        // Data wait: run a (util 25 %) counts at 30; at 45, run b (util 40 %) counts too.
        QVERIFY(before["delta"]["waste_budget"]["data_wait"].toDouble() < 0.0);
        const quint64 recomputes = f.view.recomputeCount();
        ThresholdEditor *editor = f.session.editor();
        for (double v : {35.0, 40.0, 45.0})  // a drag: several frames
            editor->changeValue(ThresholdField::GpuUtilBelow, v);
        editor->endGesture();
        QVERIFY(f.view.recomputePending());
        QTRY_VERIFY(!f.view.recomputePending());
        QCOMPARE(f.view.recomputeCount(), recomputes + 1);  // coalesced into one recompute
        QCOMPARE(f.session.live()->thresholds().gpuUtilBelowPct, 45.0);
        const QJsonObject after = f.expected(0);
        verifyBars(f.view, after);
        QVERIFY(after["delta"]["waste_budget"]["data_wait"].toDouble()
                > before["delta"]["waste_budget"]["data_wait"].toDouble());
        QVERIFY(after != before);
        QCOMPARE(after["runs"][1]["thresholds"]["gpu_util_below_pct"].toDouble(), 45.0);
    }

    void userPicksBaselineAndRuns()
    {
        Fixture f;
        f.view.baselineBox()->setCurrentIndex(1);
        f.view.flush();
        QCOMPARE(f.view.baseline(), 1);
        QCOMPARE(f.view.result()["baseline"].toInt(), 1);
        verifyBars(f.view, f.expected(1));
        QCOMPARE(f.view.result()["delta"]["other"].toInt(), 0);
        QVERIFY(f.view.command().contains("--baseline"));
        QCOMPARE(f.view.command().at(f.view.command().indexOf("--baseline") + 1), QStringLiteral("1"));

        // A third run joins ticked: deltas[] for two others; unticking it goes back to delta.
        auto c = makeSlowerRun();
        c->runDir += QStringLiteral("-c");
        c->runName = QStringLiteral("third-run");
        f.session.openRun(c);
        f.view.flush();
        QCOMPARE(int(f.view.comparedRuns().size()), 3);
        QCOMPARE(f.view.result()["deltas"].toArray().size(), 2);
        QCOMPARE(f.view.baseline(), 1);  // the baseline stays the run the user picked
        QCOMPARE(f.view.result(), compareRuns({f.a.get(), f.b.get(), c.get()}, f.session.live()->profile(),
                                              f.session.live()->thresholds(), 1, f.view.command()));
        f.view.setRunChecked(2, false);
        f.view.flush();
        QCOMPARE(int(f.view.comparedRuns().size()), 2);
        verifyBars(f.view, f.expected(1));
        f.view.setRunChecked(0, false);
        f.view.flush();
        QVERIFY(f.view.result().isEmpty());
        QVERIFY(!f.view.exportPngButton()->isEnabled());
    }

    void realRunsMatchTheCommand()
    {
        // The fixtures through the loader, compared in the view and by the executable.
        const QString dirA = test::dataPath("runs/comm-heavy"), dirB = test::dataPath("runs/untuned-gemm");
        WorkbenchSession session;
        CompareView view(&session);
        for (const QString &dir : {dirA, dirB}) {
            const LoadResult r = loadRun(dir);
            QVERIFY(r.run);
            session.openRun(r.run);
        }
        session.editor()->changeValue(ThresholdField::HbmTarget, 85.0);
        session.live()->flush();
        view.flush();
        QTemporaryDir tmp;
        const QString png = tmp.filePath("compare.png");
        const test::AppRun cli = test::runApp(QStringList{"compare", dirA, dirB, "--hbm-target", "85", "--png", png,
                                                          "--json", tmp.filePath("compare.json")});
        QCOMPARE(cli.exitCode, 0);
        const QJsonObject fromCli = QJsonDocument::fromJson(test::readAll(tmp.filePath("compare.json"))).object();
        QString difference;
        QVERIFY2(test::jsonNearlyEqual(fromCli["delta"], view.result()["delta"], 0.0, &difference),
                 qPrintable(difference));
        QCOMPARE(fromCli["command"], view.result()["command"]);
        const QImage image = checkedPng(png);
        QVERIFY2(!image.isNull(), "compare --png wrote no or a blank image");
        QCOMPARE(image.width(), 2 * 1600);
        QVERIFY(image.height() > 2 * 900);

        // The view's own export writes the same kind of image.
        QString error;
        QVERIFY2(view.exportPng(tmp.filePath("view.png"), &error), qPrintable(error));
        QCOMPARE(checkedPng(tmp.filePath("view.png")).size(), image.size());
    }

    /// Issue 23: a run without telemetry (no HBM peak, no tokens/s or MFU in its metadata) reads
    /// "—" in the telemetry table, never 0.0 GB or 0.0 %; a bucket unknown in either run has no
    /// delta bar; "Each run" draws every run's own buckets side by side, none where unknown.
    void unknownReadsAsDash()
    {
        WorkbenchSession session;
        CompareView view(&session);
        view.resize(1200, 700);
        view.show();
        auto a = test::makeFakeRun(QStringLiteral("with-telemetry"));
        a->smi.workbench.hbmPeakGb = 100.0;
        a->torch.workbench.tokensPerSec = 1234.0;
        a->torch.workbench.mfuPct = 41.5;
        auto b = makeSlowerRun();
        b->runName = QStringLiteral("no-telemetry");
        b->smi.workbench.hbmPeakGb.reset();
        b->workbench.budgetInputs.hbmPeakGb.reset();  // memory headroom unknown
        session.openRun(a);
        session.openRun(b);
        view.flush();
        const QJsonObject result = view.result();
        QVERIFY(!result.isEmpty());
        const std::vector<QStringList> rows = compareTelemetryRows(result);
        QCOMPARE(int(rows.size()), 2);
        const QStringList header = compareTelemetryHeader();
        const auto cell = [&](int run, const char *column) { return rows[std::size_t(run)].at(header.indexOf(column)); };
        QCOMPARE(cell(0, "HBM peak"), formatGb(100.0));
        QCOMPARE(cell(0, "Tokens/s"), QStringLiteral("1234"));
        QCOMPARE(cell(0, "MFU"), QStringLiteral("41.5 %"));
        for (const char *column : {"HBM peak", "HBM mean", "Tokens/s", "MFU"})
            QCOMPARE(cell(1, column), QStringLiteral("—"));
        QCOMPARE(view.telemetryTable()->item(1, int(header.indexOf("HBM peak")))->text(), QStringLiteral("—"));
        // The step time is the run's quantity, as the window shows it.
        QCOMPARE(cell(1, "Step time"),
                 formatSeconds(result["runs"][1]["quantities"]["step_time_s"]["value"].toDouble()));

        QCOMPARE(result["runs"][1]["budget"]["buckets"]["memory_headroom"]["state"].toString(), QStringLiteral("unknown"));
        QVERIFY(result["delta"]["waste_budget"]["memory_headroom"].isNull());
        QVERIFY(result["delta"]["share_of_step"]["memory_headroom"].isNull());
        QVERIFY(std::isnan(view.drawnBarValue(0, "memory_headroom")));
        QVERIFY(result["delta"]["waste_budget"]["data_wait"].isDouble());

        view.unitBox()->setCurrentIndex(view.unitBox()->findData(int(DeltaUnit::EachRunSecondsPerStep)));
        QCOMPARE(view.unit(), DeltaUnit::EachRunSecondsPerStep);
        int drawn = 0;
        for (int run = 0; run < 2; ++run)
            for (const QString &key : compareBucketKeys(result)) {
                const QJsonValue bucket =
                    result["runs"][run]["budget"]["buckets"][key == "unattributed_s" ? QStringLiteral("unattributed") : key];
                const double bar = view.drawnBarValue(run, key);
                if (bucket["state"].toString() == QLatin1String("unknown")) {
                    QVERIFY2(std::isnan(bar), qPrintable(key));
                    continue;
                }
                QCOMPARE(bar, bucket["seconds_per_step"].toDouble());
                ++drawn;
            }
        QCOMPARE(drawn, 2 * int(compareBucketKeys(result).size()) - 1);  // all but run b's memory headroom
    }

    /// Issue 26: both runs' budgets stacked side by side, in the budget chart's colours and order,
    /// beside the deltas; an unknown bucket has no visible segment.
    void bothRunsStackedBesideTheDeltas()
    {
        WorkbenchSession session;
        CompareView view(&session);
        view.resize(1366, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        auto a = test::makeFakeRun(QStringLiteral("fake-run"));
        auto b = makeSlowerRun();
        b->smi.workbench.hbmPeakGb.reset();
        b->workbench.budgetInputs.hbmPeakGb.reset();  // memory headroom unknown in b
        session.openRun(a);
        session.openRun(b);
        view.flush();
        const QJsonObject result = view.result();
        QVERIFY(!result.isEmpty());
        QCustomPlot *stack = view.budgetPlot();
        const QStringList keys = compareBucketKeys(result);
        // One stacked QCPBars per budget row, bottom to top in the budget's order and colours.
        int barsSeen = 0;
        QCPBars *below = nullptr;
        for (int i = 0; i < stack->plottableCount(); ++i) {
            auto *bars = qobject_cast<QCPBars *>(stack->plottable(i));
            QVERIFY(bars);
            const QString key = bars->property("bucketKey").toString();
            QCOMPARE(key, keys.at(barsSeen));
            const int row = key == QLatin1String("unattributed_s") ? kUnattributedRow : barsSeen;
            QCOMPARE(bars->brush().color(), bucketColor(row, view.palette()));
            QCOMPARE(bars->barBelow(), below);
            QCOMPARE(bars->data()->size(), 2);  // one segment per run
            below = bars;
            ++barsSeen;
        }
        QCOMPARE(barsSeen, int(keys.size()));
        for (int run = 0; run < 2; ++run) {
            double stacked = 0.0;
            for (const QString &key : keys) {
                const QJsonValue bucket =
                    result["runs"][run]["budget"]["buckets"][key == "unattributed_s" ? QStringLiteral("unattributed") : key];
                const double drawn = view.drawnStackValue(run, key);
                if (bucket["state"].toString() == QLatin1String("unknown")) {
                    QCOMPARE(drawn, 0.0);  // no visible segment, never a measured-looking one
                    QVERIFY(run == 1 && key == QLatin1String("memory_headroom"));
                    continue;
                }
                QCOMPARE(drawn, std::max(0.0, bucket["seconds_per_step"].toDouble()));
                stacked += drawn;
            }
            QVERIFY(stacked > 0.0);
            QVERIFY(stack->yAxis->range().upper >= stacked);
        }
        // The runs are named under their bars, the baseline marked.
        auto ticker = stack->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
        QVERIFY(ticker);
        QVERIFY(ticker->ticks().value(0).contains(QLatin1String("baseline")));
        QVERIFY(ticker->ticks().value(1).startsWith(b->runName));
        // Side by side with the deltas, neither hidden.
        QVERIFY(stack->isVisible() && view.deltaPlot()->isVisible());
        const QRect stackRect(stack->mapTo(&view, QPoint()), stack->size());
        const QRect deltaRect(view.deltaPlot()->mapTo(&view, QPoint()), view.deltaPlot()->size());
        QVERIFY(!stackRect.intersects(deltaRect));
        QVERIFY(stackRect.right() < deltaRect.left());
        QVERIFY(stack->width() > 200 && view.deltaPlot()->width() > 200);
        // The PNG draws the stacked budgets too (its first chart): a real image.
        QTemporaryDir tmp;
        QString error;
        QVERIFY2(view.exportPng(tmp.filePath("c.png"), &error), qPrintable(error));
        QVERIFY(!checkedPng(tmp.filePath("c.png")).isNull());
    }

    void pngOptionErrors()
    {
        QTemporaryDir tmp;
        const QString dirA = test::dataPath("runs/comm-heavy"), dirB = test::dataPath("runs/untuned-gemm");
        const test::AppRun inside = test::runApp({"compare", dirA, dirB, "--png", dirA + "/x.png"});
        QCOMPARE(inside.exitCode, 2);
        QVERIFY(inside.err.contains("inside the run folder"));
        QVERIFY(!QFile::exists(dirA + "/x.png"));
        const test::AppRun unwritable = test::runApp({"compare", dirA, dirB, "--png", tmp.filePath("no/such/dir.png")});
        QCOMPARE(unwritable.exitCode, 1);
        QVERIFY(unwritable.err.contains("cannot write the PNG"));
        const test::AppRun missing = test::runApp({"compare", dirA, tmp.filePath("missing"), "--png", tmp.filePath("m.png")});
        QCOMPARE(missing.exitCode, 1);
        QVERIFY(missing.err.contains("missing"));
        QVERIFY(!QFile::exists(tmp.filePath("m.png")));
    }
};

QTEST_MAIN(TestCompareView)
#include "tst_compareview.moc"
