// The sweep chart (issue 14, point 3): each bucket along one threshold. Its points are
// sweepRun()'s for the live run and thresholds, the current value and the switch points are
// marked, it follows threshold drags, a click on it sets the threshold, and `sweep --png` writes a
// real image with the command.

#include "budgetformula.h"
#include "commandline.h"
#include "liveanalysis.h"
#include "sweepchart.h"
#include "testsupport.h"
#include "thresholdeditor.h"
#include "windowfixture.h"
#include "workbenchsession.h"

#include <QComboBox>
#include <QImage>
#include <QLabel>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>

using namespace goblin;

namespace {

struct Fixture {
    WorkbenchSession session;
    SweepChart chart{&session};
    std::shared_ptr<RunAnalysis> run = test::makeFakeRun();

    Fixture()
    {
        chart.resize(900, 500);
        chart.show();
        session.openRun(run);
        chart.plot()->replot();  // lays the axes out, so pixels map to values
    }
};

int itemsWith(const QCustomPlot *plot, const char *property)
{
    int n = 0;
    for (int i = 0; i < plot->itemCount(); ++i)
        n += plot->item(i)->property(property).toBool() ? 1 : 0;
    return n;
}

double currentLineX(const QCustomPlot *plot)
{
    for (int i = 0; i < plot->itemCount(); ++i)
        if (auto *line = qobject_cast<QCPItemStraightLine *>(plot->item(i));
            line && line->property("currentValue").toBool())
            return line->point1->coords().x();
    return qQNaN();
}

/// The chart's points against sweepCurve for the same inputs, and every drawn line against them.
void verifyPoints(const Fixture &f)
{
    const LiveAnalysis *live = f.session.live();
    const std::vector<SweepPoint> want
        = sweepCurve(*live->run(), live->profile(), live->thresholds(), f.chart.threshold(),
                     sweepChartValues(f.chart.threshold()));
    QCOMPARE(f.chart.points().size(), want.size());
    QCOMPARE(int(sampledPoints(want).size()), kSweepChartSteps + 1);
    // The sampled points are sweepRun()'s: what `report` gives at each value.
    const std::vector<SweepPoint> sampled
        = sweepRun(*live->run(), live->profile(), live->thresholds(), f.chart.threshold(),
                   sweepChartValues(f.chart.threshold()));
    for (std::size_t i = 0; i < sampled.size(); ++i)
        QCOMPARE(sampledPoints(want)[i].budget, sampled[i].budget);
    for (std::size_t i = 0; i < want.size(); ++i) {
        QCOMPARE(f.chart.points()[i].value, want[i].value);
        QCOMPARE(f.chart.points()[i].budget, want[i].budget);
    }
    const QCustomPlot *plot = f.chart.plot();
    QVERIFY(plot->graphCount() > 0);
    for (int g = 0; g < plot->graphCount(); ++g) {
        const int row = plot->graph(g)->property("budgetRow").toInt();
        const auto *data = plot->graph(g)->data().data();
        QCOMPARE(data->size(), int(want.size()));
        for (int i = 0; i < data->size(); ++i) {
            QCOMPARE(data->at(i)->key, want[std::size_t(i)].value);
            const double v = row == kUnattributedRow ? want[std::size_t(i)].budget.unattributed
                                                     : want[std::size_t(i)].budget.bucket(row);
            QCOMPARE(data->at(i)->value, v);
        }
    }
    QCOMPARE(itemsWith(plot, "switchPoint"), int(switchPoints(want).size()));
    QCOMPARE(currentLineX(plot), f.chart.currentValue());
}

} // namespace

class TestSweepChart : public QObject
{
    Q_OBJECT

private slots:
    void pointsAreSweepRun_data()
    {
        QTest::addColumn<int>("which");
        QTest::newRow("gpu-util-below") << int(SweepThreshold::GpuUtilBelow);
        QTest::newRow("host-busy-above") << int(SweepThreshold::HostBusyAbove);
        QTest::newRow("hbm-target") << int(SweepThreshold::HbmTarget);
    }
    void pointsAreSweepRun()
    {
        QFETCH(int, which);
        Fixture f;
        f.chart.thresholdBox()->setCurrentIndex(f.chart.thresholdBox()->findData(which));
        QCOMPARE(int(f.chart.threshold()), which);
        verifyPoints(f);
        // The fake run (util 25 %, host busy 0.6, HBM 100 of 192 GB) switches a bucket on each.
        const std::vector<SwitchPoint> sw = f.chart.switches();
        QVERIFY(!sw.empty());
        const QString expectedBucket = which == int(SweepThreshold::HbmTarget) ? "memory_headroom" : "data_wait";
        QVERIFY(std::any_of(sw.begin(), sw.end(), [&](const SwitchPoint &s) { return s.bucket == expectedBucket; }));
    }

    void followsThresholdDrags()
    {
        Fixture f;
        f.chart.setThreshold(SweepThreshold::HostBusyAbove);
        const std::vector<SweepPoint> before = f.chart.points();
        // Dragging another threshold reshapes the curve: above util 25 % data wait never counts.
        // The line follows at once; the curve with the coalesced recompute (Derived's).
        f.session.editor()->changeValue(ThresholdField::GpuUtilBelow, 20.0);
        f.session.live()->flush();
        verifyPoints(f);
        QVERIFY(f.chart.points()[0].budget.dataWait == 0.0 && before[0].budget.dataWait > 0.0);
        // Dragging the swept one moves the marked value.
        f.session.editor()->changeValue(ThresholdField::HostBusyAbove, 0.25);
        QCOMPARE(f.chart.currentValue(), 0.25);
        f.session.live()->flush();
        verifyPoints(f);
    }

    /// Derived owns the sweep curve: the chart draws Derived's, which a fresh derivation for the
    /// same run, profile, thresholds and swept threshold gives too, point by point.
    void curveIsDerivedsOwn_data() { pointsAreSweepRun_data(); }
    void curveIsDerivedsOwn()
    {
        QFETCH(int, which);
        Fixture f;
        f.chart.setThreshold(SweepThreshold(which));
        f.session.editor()->changeValue(ThresholdField::HbmTarget, 40.0);
        LiveAnalysis *live = f.session.live();
        live->flush();
        QCOMPARE(live->sweepThreshold(), std::optional<SweepThreshold>(SweepThreshold(which)));
        const Derived fresh = deriveResults(*live->run(), live->profile(), live->thresholds(), nullptr,
                                            SweepThreshold(which));
        QVERIFY(!fresh.sweep.empty());
        for (const std::vector<SweepPoint> *shown : {&f.chart.points(), &live->derived().sweep}) {
            QCOMPARE(shown->size(), fresh.sweep.size());
            for (std::size_t i = 0; i < fresh.sweep.size(); ++i) {
                QCOMPARE((*shown)[i].value, fresh.sweep[i].value);
                QCOMPARE((*shown)[i].side, fresh.sweep[i].side);
                QCOMPARE((*shown)[i].budget, fresh.sweep[i].budget);
            }
        }
    }

    void clickSetsTheThreshold()
    {
        Fixture f;
        QCustomPlot *plot = f.chart.plot();
        const int x = int(std::lround(plot->xAxis->coordToPixel(50.0)));
        const int y = int(std::lround(plot->axisRect()->center().y()));
        QTest::mousePress(plot, Qt::LeftButton, {}, QPoint(x, y));
        QTest::mouseRelease(plot, Qt::LeftButton, {}, QPoint(x, y));
        const double set = f.session.live()->thresholds().gpuUtilBelowPct;
        const double pixel = plot->xAxis->pixelToCoord(x + 1) - plot->xAxis->pixelToCoord(x);
        QVERIFY2(std::abs(set - 50.0) <= std::abs(pixel), qPrintable(QString::number(set)));
        QCOMPARE(f.chart.currentValue(), set);
        QCOMPARE(f.session.editor()->undoStack()->count(), 1);  // one undoable edit
    }

    void emptyWithoutRun()
    {
        WorkbenchSession session;
        SweepChart chart(&session);
        QVERIFY(chart.points().empty());
        QCOMPARE(chart.plot()->graphCount(), 0);
    }

    void sweepPngIsWritten()
    {
        QTemporaryDir tmp;
        const QString dir = test::dataPath("runs/busy-host-datawait");
        const QString png = tmp.filePath("sweep.png");
        const test::AppRun r = test::runApp({"sweep", dir, "--threshold", "gpu-util-below", "--from", "0", "--to",
                                             "100", "--by", "5", "--png", png, "--json", tmp.filePath("s.json")});
        QCOMPARE(r.exitCode, 0);
        QImage image(png);
        QVERIFY(!image.isNull());
        QCOMPARE(image.width(), 2 * 1600);
        QVERIFY(image.height() > 2 * 700);
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 7)
            for (int x = 0; x < image.width(); x += 7)
                colours.insert(image.pixel(x, y));
        QVERIFY(colours.size() > 20);
        const QJsonObject json = QJsonDocument::fromJson(test::readAll(tmp.filePath("s.json"))).object();
        QCOMPARE(json["points"].toArray().size(), 21);

        // In-process: the same renderer, size follows the switch points listed.
        const LoadResult loaded = loadRun(dir);
        QVERIFY(loaded.run);
        const auto points = sweepCurve(*loaded.run, HeuristicsProfile::Workbench, Thresholds{},
                                       SweepThreshold::GpuUtilBelow, sweepValues(0, 100, 5));
        QStringList command;
        for (const QJsonValue &a : json["command"].toArray())
            command << a.toString();
        QCOMPARE(command.mid(0, 2), (QStringList{"goblin-workbench", "sweep"}));
        QString error;
        QVERIFY2(renderSweepPng(loaded.run->runName, SweepThreshold::GpuUtilBelow, points, 30.0, command,
                                tmp.filePath("b.png"), &error),
                 qPrintable(error));
        QCOMPARE(QImage(tmp.filePath("b.png")).size(), image.size());

        const test::AppRun bad = test::runApp({"sweep", dir, "--threshold", "gpu-util-below", "--from", "0", "--to",
                                               "100", "--by", "5", "--png", "-"});
        QCOMPARE(bad.exitCode, 2);
    }

    // Issue 26: a switch is a vertical step at its exact value — a step's or device's measured
    // value — and the window, `sweep --json` and `sweep --png` name the same number whatever
    // their grids.
    void switchesAreExactStepsAndAgreeWithTheCli_data()
    {
        QTest::addColumn<QString>("run");  // under tests/data
        QTest::addColumn<int>("which");
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<QString>("bucket");
        QTest::addColumn<bool>("dataValue");  // the switch is a step's or device's own value
        const QString ddp = "torch/tracelens_mi300_resnet_act_checkpoint_ddp_rank0.json.gz";
        QTest::newRow("MI300X DDP, gpu-util-below") << ddp << int(SweepThreshold::GpuUtilBelow)
                                                    << QStringList{"--host-busy-above", "0.3"} << "data_wait" << true;
        QTest::newRow("MI300X DDP, host-busy-above") << ddp << int(SweepThreshold::HostBusyAbove)
                                                     << QStringList{"--gpu-util-below", "100"} << "data_wait" << true;
        QTest::newRow("busy-host-datawait, hbm-target") << "runs/busy-host-datawait" << int(SweepThreshold::HbmTarget)
                                                        << QStringList{} << "memory_headroom" << true;
        // Memory headroom grows until it has taken the whole host gap: no data value says where,
        // bisection finds the double, the same from either grid.
        QTest::newRow("busy-host-datawait, host gap emptied") << "runs/busy-host-datawait"
                                                              << int(SweepThreshold::HbmTarget) << QStringList{}
                                                              << "host_gap" << false;
    }
    void switchesAreExactStepsAndAgreeWithTheCli()
    {
        QFETCH(QString, run);
        QFETCH(int, which);
        QFETCH(QStringList, options);
        QFETCH(QString, bucket);
        QFETCH(bool, dataValue);
        const QString dir = test::dataPath(run);
        const LoadResult loaded = loadRun(dir);
        QVERIFY(loaded.run);
        Thresholds thresholds;
        for (qsizetype i = 0; i + 1 < options.size(); i += 2)
            for (const ThresholdDescriptor &d : thresholdDescriptors())
                if ("--" + d.cliNameText() == options[i])
                    thresholds.*(d.member) = options[i + 1].toDouble();

        WorkbenchSession session;
        session.live()->setThresholds(thresholds);
        SweepChart chart(&session);
        chart.resize(900, 500);
        chart.show();
        session.openRun(loaded.run);
        chart.setThreshold(SweepThreshold(which));
        const std::vector<SwitchPoint> window = chart.switches();
        const auto found = std::find_if(window.begin(), window.end(), [&](const SwitchPoint &s) { return s.bucket == bucket; });
        QVERIFY2(found != window.end(), qPrintable(run));

        // The switch is a data value (or bisected), not a sample of the window's grid.
        const std::vector<double> breaks = sweepBreakpoints(*loaded.run, HeuristicsProfile::Workbench, thresholds,
                                                            SweepThreshold(which));
        QCOMPARE(std::find(breaks.begin(), breaks.end(), found->value) != breaks.end(), dataValue);
        const std::vector<double> grid = sweepChartValues(SweepThreshold(which));
        QVERIFY(std::find(grid.begin(), grid.end(), found->value) == grid.end());

        // Drawn as a vertical step: the bucket's graph has two points at that value, below and above.
        int row = -1;
        for (int b = 0; b < WasteBudget::BucketCount; ++b)
            row = WasteBudget::bucketKey(b) == bucket ? b : row;
        const QCPGraph *graph = nullptr;
        for (int g = 0; g < chart.plot()->graphCount(); ++g)
            if (chart.plot()->graph(g)->property("budgetRow").toInt() == row)
                graph = chart.plot()->graph(g);
        QVERIFY(graph);
        QList<double> valuesAtSwitch;
        for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
            if (it->key == found->value)
                valuesAtSwitch << it->value;
        QVERIFY(valuesAtSwitch.size() >= 2);
        QCOMPARE(valuesAtSwitch.first() > 0.0, !found->on);
        QCOMPARE(valuesAtSwitch.last() > 0.0, found->on);

        // The CLI on a coarser grid of another step: the same switch, the same double.
        double minimum = 0, maximum = 0;
        sweepThresholdRange(SweepThreshold(which), &minimum, &maximum);
        QTemporaryDir tmp;
        const test::AppRun r = test::runApp(QStringList{"sweep", dir, "--threshold", sweepThresholdName(SweepThreshold(which)),
                                                        "--from", exactNumberText(minimum), "--to",
                                                        exactNumberText(maximum), "--by",
                                                        exactNumberText((maximum - minimum) / 7), "--json",
                                                        tmp.filePath("s.json"), "--png", tmp.filePath("s.png")}
                                            + options);
        QCOMPARE(r.exitCode, 0);
        const QJsonArray cli = QJsonDocument::fromJson(test::readAll(tmp.filePath("s.json"))).object()["switch_points"].toArray();
        bool same = false;
        for (const QJsonValue &s : cli)
            same = same || (s["bucket"].toString() == bucket && s["value"].toDouble() == found->value
                            && (s["switches"].toString() == "on") == found->on);
        QVERIFY2(same, qPrintable(QString::number(found->value, 'g', 17)));
        QVERIFY(!QImage(tmp.filePath("s.png")).isNull());

        // The image lists it in the words the window's summary uses.
        QStringList painted;
        const std::vector<SweepPoint> curve = sweepCurve(*loaded.run, HeuristicsProfile::Workbench, thresholds,
                                                         SweepThreshold(which),
                                                         sweepValues(minimum, maximum, (maximum - minimum) / 7));
        renderSweepImage(loaded.run->runName, SweepThreshold(which), curve, std::nullopt, {}, 1.0, &painted);
        const QString text = switchPointText(*found);
        QVERIFY(std::any_of(painted.begin(), painted.end(), [&](const QString &l) { return l.startsWith(text); }));
        QVERIFY(chart.findChild<QLabel *>("sweepSummary")->text().contains(text));
    }
};

QTEST_MAIN(TestSweepChart)
#include "tst_sweepchart.moc"
