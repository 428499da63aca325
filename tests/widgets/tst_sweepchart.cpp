// The sweep chart (issue 14, point 3): each bucket along one threshold. Its points are
// sweepRun()'s for the live run and thresholds, the current value and the switch points are
// marked, it follows threshold drags, a click on it sets the threshold, and `sweep --png` writes a
// real image with the command.

#include "budgetformula.h"
#include "liveanalysis.h"
#include "sweepchart.h"
#include "testsupport.h"
#include "thresholdeditor.h"
#include "windowfixture.h"
#include "workbenchsession.h"

#include <QComboBox>
#include <QImage>
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

/// The chart's points against sweepRun for the same inputs, and every drawn line against them.
void verifyPoints(const Fixture &f)
{
    const LiveAnalysis *live = f.session.live();
    const std::vector<SweepPoint> want
        = sweepRun(*live->run(), live->profile(), live->thresholds(), f.chart.threshold(),
                   sweepChartValues(f.chart.threshold()));
    QCOMPARE(f.chart.points().size(), want.size());
    QCOMPARE(int(want.size()), kSweepChartSteps + 1);
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
        f.session.editor()->changeValue(ThresholdField::GpuUtilBelow, 20.0);
        verifyPoints(f);
        QVERIFY(f.chart.points()[0].budget.dataWait == 0.0 && before[0].budget.dataWait > 0.0);
        // Dragging the swept one moves the marked value.
        f.session.editor()->changeValue(ThresholdField::HostBusyAbove, 0.25);
        QCOMPARE(f.chart.currentValue(), 0.25);
        verifyPoints(f);
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
        const auto points = sweepRun(*loaded.run, HeuristicsProfile::Workbench, Thresholds{}, SweepThreshold::GpuUtilBelow,
                                     sweepValues(0, 100, 5));
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
};

QTEST_MAIN(TestSweepChart)
#include "tst_sweepchart.moc"
