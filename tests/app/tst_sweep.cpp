// `goblin-workbench sweep`: every point is byte for byte the budget `report` gives at that value;
// switch points, CSV, the value grid, and exit codes. Runs the real executable.

#include "commandline.h"
#include "sweep.h"
#include "testsupport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

using namespace goblin;

namespace {

using Run = test::AppRun;
using test::runApp;

QString runFolder(const QString &name)
{
    return name == QLatin1String("example-run") ? QStringLiteral(GOBLIN_SOURCE_DIR "/resources/example-run")
                                                 : test::dataPath(QStringLiteral("runs/") + name);
}

QByteArray compact(const QJsonObject &o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

} // namespace

class TestSweep : public QObject
{
    Q_OBJECT

private slots:
    void pointsEqualReport_data()
    {
        QTest::addColumn<QString>("run");
        QTest::addColumn<QString>("threshold");
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<QString>("by");
        QTest::addColumn<QStringList>("options");
        QTest::newRow("example gpu-util-below") << "example-run" << "gpu-util-below" << "0" << "100" << "5"
                                                << QStringList{};
        QTest::newRow("datawait host-busy-above") << "busy-host-datawait" << "host-busy-above" << "0" << "1" << "0.1"
                                                  << QStringList{"--gpu-util-below", "80"};
        QTest::newRow("hbm-target, reference") << "rocm63-watch-fp16" << "hbm-target" << "10" << "95" << "7.5"
                                               << QStringList{"--profile", "reference", "--precision", "fp16"};
        QTest::newRow("comm gpu-util-below") << "comm-heavy" << "gpu-util-below" << "20" << "80" << "0.7"
                                             << QStringList{"--hbm-capacity-gb", "64"};
    }
    void pointsEqualReport()
    {
        QFETCH(QString, run);
        QFETCH(QString, threshold);
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(QString, by);
        QFETCH(QStringList, options);
        const Run s = runApp(QStringList{"sweep", runFolder(run), "--threshold", threshold, "--from", from, "--to", to,
                                         "--by", by} +
                             options);
        QCOMPARE(s.exitCode, 0);
        const QJsonObject sweep = QJsonDocument::fromJson(s.out).object();
        QCOMPARE(sweep["threshold"].toString(), threshold);
        const QJsonArray points = sweep["points"].toArray();
        const int expectedCount = int(std::floor((to.toDouble() - from.toDouble()) / by.toDouble() + 1e-9)) + 1;
        QCOMPARE(points.size(), expectedCount);
        QCOMPARE(points.first()["value"].toDouble(), from.toDouble());
        // First, middle and last point: the budget `report` writes at that value, byte for byte.
        for (const qsizetype i : {qsizetype(0), points.size() / 2, points.size() - 1}) {
            const QString value = exactNumberText(points[i]["value"].toDouble());
            const Run r = runApp(QStringList{"report", runFolder(run), "--" + threshold, value} + options);
            QCOMPARE(r.exitCode, 0);
            const QJsonObject report = QJsonDocument::fromJson(r.out).object();
            QCOMPARE(compact(points[i]["waste_budget"].toObject()),
                     compact(report["metrics"]["waste_budget"].toObject()));
        }
        // Every change between zero and above zero from one point to the next has its switch point
        // between them (issue 26: at the exact value, not at the later sample).
        int changes = 0;
        const QJsonArray switchArray = sweep["switch_points"].toArray();
        for (qsizetype i = 1; i < points.size(); ++i)
            for (int b = 0; b < WasteBudget::BucketCount; ++b) {
                const QString key = WasteBudget::bucketKey(b);
                const bool before = points[i - 1]["waste_budget"][key].toDouble() > 0;
                const bool now = points[i]["waste_budget"][key].toDouble() > 0;
                if (before == now)
                    continue;
                ++changes;
                bool listed = false;
                for (const QJsonValue &sp : switchArray)
                    listed = listed || (sp["bucket"] == key && sp["value"].toDouble() >= points[i - 1]["value"].toDouble()
                                        && sp["value"].toDouble() <= points[i]["value"].toDouble()
                                        && sp["switches"].toString() == (now ? "on" : "off"));
                QVERIFY2(listed, qPrintable(key));
            }
        QVERIFY(switchArray.size() >= changes);
        for (const QJsonValue &sp : switchArray) {
            QVERIFY(sp["value"].toDouble() >= from.toDouble());
            QVERIFY(sp["value"].toDouble() <= to.toDouble());
        }
    }

    void dataWaitSwitchesOn()
    {
        // A real MI300X DDP trace (TraceLens) whose steps run at 85-90 % utilisation with the host busy:
        // once the utilisation threshold passes that, the GPU's idle during host work moves from host
        // gap to data wait. A threshold moves time between waste buckets, never into useful GPU.
        QTemporaryDir dir;
        QVERIFY(QFile::copy(test::dataPath("torch/tracelens_mi300_resnet_act_checkpoint_ddp_rank0.json.gz"),
                            dir.filePath("rank0.json.gz")));
        const Run s = runApp({"sweep", dir.path(), "--threshold", "gpu-util-below", "--from", "0", "--to", "100",
                              "--by", "5", "--host-busy-above", "0.3"});
        QCOMPARE(s.exitCode, 0);
        const QJsonObject sweep = QJsonDocument::fromJson(s.out).object();
        const QJsonArray switches = sweep["switch_points"].toArray();
        QCOMPARE(switches.size(), 1);
        QCOMPARE(switches[0]["bucket"].toString(), QString("data_wait"));
        QCOMPARE(switches[0]["switches"].toString(), QString("on"));
        // Issue 26: the switch is where the first step's measured utilisation lies (a data value
        // between the samples 85 and 90), whatever the grid: a finer sweep names the same number.
        const double at = switches[0]["value"].toDouble();
        QVERIFY2(at > 85.0 && at < 90.0, qPrintable(QString::number(at, 'g', 17)));
        const Run fine = runApp({"sweep", dir.path(), "--threshold", "gpu-util-below", "--from", "80", "--to", "95",
                                 "--by", "0.3", "--host-busy-above", "0.3"});
        QCOMPARE(fine.exitCode, 0);
        const QJsonArray fineSwitches = QJsonDocument::fromJson(fine.out).object()["switch_points"].toArray();
        QCOMPARE(fineSwitches.size(), 1);
        QCOMPARE(fineSwitches[0]["value"].toDouble(), at);
        // Just below the switch the report has no data wait, at a value just above it some.
        const auto dataWaitAt = [&](double value) {
            const Run r = runApp({"report", dir.path(), "--gpu-util-below", exactNumberText(value), "--host-busy-above",
                                  "0.3"});
            const QJsonObject report = QJsonDocument::fromJson(r.out).object();
            return report["metrics"]["waste_budget"]["data_wait"].toDouble();
        };
        QCOMPARE(dataWaitAt(at - 1e-6), 0.0);
        QVERIFY(dataWaitAt(at + 1e-6) > 0.0);
        const QJsonArray points = sweep["points"].toArray();
        const QJsonObject first = points.first()["waste_budget"].toObject();
        const QJsonObject last = points.last()["waste_budget"].toObject();
        QCOMPARE(first["data_wait"].toDouble(), 0.0);
        QVERIFY(last["data_wait"].toDouble() > 0.0);
        for (const QJsonValue &p : points) {
            const QJsonObject b = p["waste_budget"].toObject();
            QCOMPARE(b["useful_gpu"].toDouble(), first["useful_gpu"].toDouble());
            QVERIFY(std::fabs(b["data_wait"].toDouble() + b["host_gap"].toDouble() - first["data_wait"].toDouble()
                              - first["host_gap"].toDouble()) < 1e-12);
        }
    }

    void csvMatchesJson()
    {
        QTemporaryDir tmp;
        const QString csvPath = tmp.filePath("sweep.csv"), jsonPath = tmp.filePath("sweep.json");
        const Run s = runApp({"sweep", runFolder("busy-host-datawait"), "--threshold", "hbm-target", "--from", "50",
                              "--to", "90", "--by", "10", "--csv", csvPath, "--json", jsonPath});
        QCOMPARE(s.exitCode, 0);
        QVERIFY(s.out.isEmpty());
        const QJsonArray points = QJsonDocument::fromJson(test::readAll(jsonPath)).object()["points"].toArray();
        const QStringList lines = QString::fromUtf8(test::readAll(csvPath)).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), points.size() + 1);
        QCOMPARE(lines[0], QString("value,useful_gpu,data_wait,host_gap,comm_excess,memory_headroom,precision_path,"
                                   "kernel_shape"));
        for (qsizetype i = 0; i < points.size(); ++i) {
            const QStringList cells = lines[i + 1].split(',');
            QCOMPARE(cells.size(), 8);
            QCOMPARE(cells[0].toDouble(), points[i]["value"].toDouble());
            for (int b = 0; b < WasteBudget::BucketCount; ++b)
                QCOMPARE(cells[1 + b].toDouble(), points[i]["waste_budget"][WasteBudget::bucketKey(b)].toDouble());
        }
    }

    void values_data()
    {
        QTest::addColumn<double>("from");
        QTest::addColumn<double>("to");
        QTest::addColumn<double>("by");
        QTest::addColumn<int>("count");
        QTest::addColumn<double>("last");
        QTest::newRow("tenths") << 0.0 << 1.0 << 0.1 << 11 << 1.0;
        QTest::newRow("not reaching to") << 10.0 << 95.0 << 7.5 << 12 << 92.5;
        QTest::newRow("one point") << 30.0 << 30.0 << 1.0 << 1 << 30.0;
        QTest::newRow("by zero") << 0.0 << 1.0 << 0.0 << 0 << 0.0;
        QTest::newRow("backwards") << 1.0 << 0.0 << 0.1 << 0 << 0.0;
        QTest::newRow("too many") << 0.0 << 100.0 << 1e-6 << 0 << 0.0;
    }
    void values()
    {
        QFETCH(double, from);
        QFETCH(double, to);
        QFETCH(double, by);
        QFETCH(int, count);
        QFETCH(double, last);
        const std::vector<double> v = sweepValues(from, to, by);
        QCOMPARE(int(v.size()), count);
        if (count > 0) {
            QCOMPARE(v.front(), from);
            QCOMPARE(v.back(), last);
        }
    }

    void exitCodes_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<int>("exitCode");
        const QString ok = runFolder("v3-metric-1gpu");
        const QStringList range{"--from", "0", "--to", "100", "--by", "25"};
        QTest::newRow("ok") << QStringList{"sweep", ok, "--threshold", "gpu-util-below"} + range << 0;
        QTest::newRow("help") << QStringList{"sweep", "--help"} << 0;
        QTest::newRow("missing folder") << QStringList{"sweep", "/nonexistent/goblin/run", "--threshold",
                                                       "gpu-util-below"} + range
                                        << 1;
        QTest::newRow("unknown threshold") << QStringList{"sweep", ok, "--threshold", "hbm-capacity-gb"} + range << 2;
        QTest::newRow("no threshold") << QStringList{"sweep", ok} + range << 2;
        QTest::newRow("by zero") << QStringList{"sweep", ok, "--threshold", "hbm-target", "--from", "0", "--to", "10",
                                                "--by", "0"}
                                 << 2;
        QTest::newRow("to below from") << QStringList{"sweep", ok, "--threshold", "hbm-target", "--from", "50", "--to",
                                                      "10", "--by", "1"}
                                       << 2;
        QTest::newRow("out of range") << QStringList{"sweep", ok, "--threshold", "host-busy-above", "--from", "0",
                                                     "--to", "2", "--by", "0.5"}
                                      << 2;
        QTest::newRow("two folders") << QStringList{"sweep", ok, ok, "--threshold", "gpu-util-below"} + range << 2;
        QTest::newRow("csv into run folder") << QStringList{"sweep", ok, "--threshold", "gpu-util-below", "--csv",
                                                            ok + "/sweep.csv"} + range
                                             << 2;
    }
    void exitCodes()
    {
        QFETCH(QStringList, arguments);
        QFETCH(int, exitCode);
        const Run r = runApp(arguments);
        QCOMPARE(r.exitCode, exitCode);
        if (exitCode != 0)
            QVERIFY(!r.err.isEmpty());
        if (exitCode == 1)
            QVERIFY(r.err.contains("/nonexistent/goblin/run"));
    }
};

QTEST_GUILESS_MAIN(TestSweep)
#include "tst_sweep.moc"
