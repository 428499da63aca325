// `goblin-workbench compare` and `table`, and the `command` of every JSON export: deltas are the
// difference of the two `report`s (default and changed thresholds), top-kernel changes, exit
// codes, and that running the recorded command gives the same metrics. Runs the real executable.

#include "compare.h"
#include "testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace goblin;

namespace {

using Run = test::AppRun;
using test::runApp;

QString fixture(const QString &name)
{
    return test::dataPath(QStringLiteral("runs/") + name);
}

QJsonObject jsonOf(const Run &r)
{
    return QJsonDocument::fromJson(r.out).object();
}

QByteArray compact(const QJsonValue &v)
{
    return v.isObject() ? QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact)
                        : QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact);
}

/// Runs a recorded `command` (argv with "goblin-workbench" first).
Run runCommand(const QJsonArray &command)
{
    QStringList argv;
    for (const QJsonValue &v : command)
        argv << v.toString();
    if (argv.isEmpty() || argv.front() != QLatin1String("goblin-workbench"))
        return {};
    argv.removeFirst();
    return runApp(argv);
}

} // namespace

class TestCompare : public QObject
{
    Q_OBJECT

private slots:
    void deltasAreReportDifferences_data()
    {
        QTest::addColumn<QString>("a");
        QTest::addColumn<QString>("b");
        QTest::addColumn<QStringList>("options");
        QTest::newRow("defaults") << "v3-metric-1gpu" << "busy-host-datawait" << QStringList{};
        QTest::newRow("changed thresholds")
            << "v3-metric-1gpu" << "busy-host-datawait"
            << QStringList{"--gpu-util-below", "60", "--host-busy-above", "0.2", "--hbm-target", "85"};
        QTest::newRow("reference profile, fp16")
            << "comm-heavy" << "untuned-gemm" << QStringList{"--profile", "reference", "--precision", "fp16"};
        QTest::newRow("baseline second") << "rocm62-monitor-2gpu" << "comm-heavy"
                                         << QStringList{"--baseline", "1", "--gpu-util-below", "45"};
    }
    void deltasAreReportDifferences()
    {
        QFETCH(QString, a);
        QFETCH(QString, b);
        QFETCH(QStringList, options);
        const Run c = runApp(QStringList{"compare", fixture(a), fixture(b)} + options);
        QCOMPARE(c.exitCode, 0);
        const QJsonObject cmp = jsonOf(c);
        const int baseline = options.contains("--baseline") ? 1 : 0;
        QCOMPARE(cmp["baseline"].toInt(-1), baseline);
        QVERIFY(!cmp.contains("deltas"));
        QStringList reportOptions = options;
        if (const qsizetype i = reportOptions.indexOf("--baseline"); i >= 0)
            reportOptions.remove(i, 2);
        const Run ra = runApp(QStringList{"report", fixture(a)} + reportOptions);
        const Run rb = runApp(QStringList{"report", fixture(b)} + reportOptions);
        QCOMPARE(ra.exitCode, 0);
        QCOMPARE(rb.exitCode, 0);
        const QJsonObject reports[2] = {jsonOf(ra), jsonOf(rb)};
        // The embedded reports are the reports.
        for (int i = 0; i < 2; ++i)
            QCOMPARE(compact(cmp["runs"][i]["metrics"]), compact(reports[i]["metrics"]));
        const QJsonObject base = reports[baseline]["metrics"]["waste_budget"].toObject();
        const QJsonObject other = reports[1 - baseline]["metrics"]["waste_budget"].toObject();
        const QJsonObject delta = cmp["delta"]["waste_budget"].toObject();
        QCOMPARE(delta.size(), base.size()); // the seven buckets, and unattributed_s in the workbench profile
        for (auto it = base.begin(); it != base.end(); ++it) {
            QVERIFY2(delta[it.key()].isDouble(), qPrintable(it.key()));
            QCOMPARE(delta[it.key()].toDouble(), other[it.key()].toDouble() - it.value().toDouble());
        }
        // Every kernel row is consistent, and the union of both top-kernel lists is there.
        const QJsonArray kernels = cmp["delta"]["kernels"].toArray();
        QVERIFY(!kernels.isEmpty());
        for (const QJsonValue &k : kernels) {
            const double bs = k["baseline_s_per_step"].toDouble(-1), os = k["other_s_per_step"].toDouble(-1);
            QVERIFY(bs >= 0 && os >= 0);
            QCOMPARE(k["delta_s_per_step"].toDouble(), os - bs);
            const QString change = k["change"].toString();
            QCOMPARE(change, bs == 0 ? QString("new") : os == 0 ? QString("gone") : os < bs ? QString("faster")
                                                               : os > bs ? QString("slower") : QString("same"));
        }
        for (const QJsonObject &r : reports)
            for (const QJsonValue &t : r["metrics"]["top_kernels"].toArray()) {
                bool found = false;
                for (const QJsonValue &k : kernels)
                    found = found || k["name"] == t["name"];
                QVERIFY2(found, qPrintable(t["name"].toString()));
            }
    }

    void kernelChanges()
    {
        // Two hand-made reports: A's top kernels x, y, z; B's x, y, w.
        const auto report = [](const QStringList &top) {
            QJsonArray tops;
            for (const QString &n : top)
                tops.append(QJsonObject{{"name", n}, {"pct_time", 10.0}});
            QJsonObject budget;
            for (int i = 0; i < WasteBudget::BucketCount; ++i)
                budget.insert(WasteBudget::bucketKey(i), 0.01 * (i + 1));
            return QJsonObject{{"metrics", QJsonObject{{"top_kernels", tops}, {"waste_budget", budget}}},
                               {"aggregates", QJsonObject{{"step_time_seconds", 0.5}}}};
        };
        const QJsonObject a = report({"x", "y", "z"}), b = report({"x", "y", "w"});
        const QHash<QString, double> ka{{"x", 0.2}, {"y", 0.1}, {"z", 0.05}, {"w", 0.0}};
        const QHash<QString, double> kb{{"x", 0.1}, {"y", 0.3}, {"z", 0.0}, {"w", 0.02}};
        const QJsonObject d = compareDelta(a, b, ka, kb, 1);
        QHash<QString, QString> change;
        for (const QJsonValue &k : d["kernels"].toArray())
            change.insert(k["name"].toString(), k["change"].toString());
        QCOMPARE(change.value("x"), QString("faster"));
        QCOMPARE(change.value("y"), QString("slower"));
        QCOMPARE(change.value("z"), QString("gone"));
        QCOMPARE(change.value("w"), QString("new"));
        QCOMPARE(d["kernels"][0]["name"].toString(), QString("y"));  // largest |delta| first
        for (int i = 0; i < WasteBudget::BucketCount; ++i)
            QCOMPARE(d["waste_budget"][WasteBudget::bucketKey(i)].toDouble(), 0.0);
    }

    void threeRuns()
    {
        const Run c = runApp({"compare", fixture("v3-metric-1gpu"), fixture("comm-heavy"), fixture("untuned-gemm"),
                              "--baseline", "2"});
        QCOMPARE(c.exitCode, 0);
        const QJsonObject cmp = jsonOf(c);
        QVERIFY(!cmp.contains("delta"));
        QCOMPARE(cmp["runs"].toArray().size(), 3);
        QCOMPARE(cmp["deltas"].toArray().size(), 2);
        QCOMPARE(cmp["deltas"][0]["other"].toInt(), 0);
        QCOMPARE(cmp["deltas"][1]["other"].toInt(), 1);
        const QJsonObject base = cmp["runs"][2]["metrics"]["waste_budget"].toObject();
        for (int o = 0; o < 2; ++o) {
            const QJsonObject other = cmp["runs"][o]["metrics"]["waste_budget"].toObject();
            for (auto it = base.begin(); it != base.end(); ++it)
                QCOMPARE(cmp["deltas"][o]["waste_budget"][it.key()].toDouble(),
                         other[it.key()].toDouble() - it.value().toDouble());
        }
    }

    void exitCodes_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("stderrHas");
        const QString ok = fixture("v3-metric-1gpu");
        QTest::newRow("compare ok") << QStringList{"compare", ok, ok} << 0 << "";
        QTest::newRow("compare help") << QStringList{"compare", "--help"} << 0 << "";
        QTest::newRow("compare missing folder")
            << QStringList{"compare", ok, "/nonexistent/goblin/runB"} << 1 << "/nonexistent/goblin/runB";
        // A file opens alone (issue 23; it used to be refused as "not a folder"); one with nothing
        // readable is no run.
        QTest::newRow("compare a file") << QStringList{"compare", fixture("v3-metric-1gpu/trace.csv"), ok} << 0 << "";
        QTest::newRow("compare nothing readable") << QStringList{"compare", ok, fixture("bad-garbage")} << 1
                                                  << "no input the workbench reads";
        QTest::newRow("table nothing readable") << QStringList{"table", ok, fixture("bad-missing-all")} << 1
                                                << "bad-missing-all";
        QTest::newRow("compare one run") << QStringList{"compare", ok} << 2 << "at least two";
        QTest::newRow("compare bad baseline") << QStringList{"compare", ok, ok, "--baseline", "2"} << 2 << "--baseline";
        QTest::newRow("compare bad threshold") << QStringList{"compare", ok, ok, "--gpu-util-below", "120"} << 2
                                               << "--gpu-util-below";
        QTest::newRow("compare unknown option") << QStringList{"compare", ok, ok, "--pdf", "x.pdf"} << 2 << "pdf";
        QTest::newRow("compare into a run folder")
            << QStringList{"compare", ok, ok, "--json", fixture("v3-metric-1gpu/out.json")} << 2 << "inside";
        QTest::newRow("table ok") << QStringList{"table", ok} << 0 << "";
        QTest::newRow("table missing folder") << QStringList{"table", ok, "/nonexistent/goblin/runT"} << 1
                                              << "/nonexistent/goblin/runT";
        QTest::newRow("table no folder") << QStringList{"table"} << 2 << "missing RUN_DIR";
        QTest::newRow("table bad profile") << QStringList{"table", ok, "--profile", "fast"} << 2 << "--profile";
    }
    void exitCodes()
    {
        QFETCH(QStringList, arguments);
        QFETCH(int, exitCode);
        QFETCH(QString, stderrHas);
        const Run r = runApp(arguments);
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(r.err.contains(stderrHas.toUtf8()), r.err.constData());
        if (exitCode == 0 && arguments.at(0) == "compare" && !arguments.contains("--help"))
            QVERIFY(jsonOf(r).contains("delta"));
    }

    void commandReproduces_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("metricsPath");  // what must match: "report" or "compare"
        const QString a = fixture("busy-host-datawait"), b = fixture("comm-heavy");
        QTest::newRow("report defaults") << QStringList{"report", a} << "report";
        QTest::newRow("report thresholds") << QStringList{"report", a, "--gpu-util-below", "61.5", "--host-busy-above",
                                                          "0.3", "--steps", "5", "--profile", "reference"}
                                           << "report";
        QTest::newRow("compare") << QStringList{"compare", a, b, "--hbm-target", "90", "--baseline", "1"} << "compare";
        QTest::newRow("sweep") << QStringList{"sweep", a, "--threshold", "host-busy-above", "--from", "0", "--to",
                                              "1", "--by", "0.1", "--gpu-util-below", "70"}
                               << "sweep";
    }
    void commandReproduces()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, metricsPath);
        const Run first = runApp(arguments);
        QCOMPARE(first.exitCode, 0);
        const QJsonObject out = jsonOf(first);
        const QJsonArray command = out["command"].toArray();
        QVERIFY(command.size() > 2);
        QCOMPARE(command[0].toString(), QString("goblin-workbench"));
        QCOMPARE(command[1].toString(), arguments[0]);
        for (const char *flag : {"--profile", "--gpu-util-below", "--host-busy-above", "--hbm-target"})
            QVERIFY2(command.contains(QJsonValue(QString::fromLatin1(flag))), flag);
        const Run again = runCommand(command);
        QCOMPARE(again.exitCode, 0);
        const QJsonObject second = jsonOf(again);
        if (metricsPath == "report") {
            QCOMPARE(compact(second["metrics"]), compact(out["metrics"]));
            QCOMPARE(compact(second["thresholds"]), compact(out["thresholds"]));
        } else if (metricsPath == "compare") {
            QCOMPARE(compact(second["delta"]), compact(out["delta"]));
            for (int i = 0; i < 2; ++i)
                QCOMPARE(compact(second["runs"][i]["metrics"]), compact(out["runs"][i]["metrics"]));
        } else {
            QCOMPARE(compact(second["points"]), compact(out["points"]));
        }
        QCOMPARE(compact(second["command"]), compact(command));
    }

    void table()
    {
        // A folder with broken inputs beside readable ones (bad-garbage, all random bytes, is no run
        // since issue 23: `table` would exit 1 on it).
        const QStringList names{"v3-metric-1gpu", "busy-host-datawait", "comm-heavy", "untuned-gemm", "bad-truncated-json"};
        QStringList args{"table"};
        for (const QString &n : names)
            args << fixture(n);
        args << "--gpu-util-below" << "55";
        QTemporaryDir tmp;
        const QString csvPath = tmp.filePath("table.csv");
        const Run t = runApp(args + QStringList{"--csv", csvPath});
        QCOMPARE(t.exitCode, 0);
        const QStringList lines = QString::fromUtf8(test::readAll(csvPath)).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), names.size() + 1);
        const QStringList header = lines[0].split(',');
        QCOMPARE(header, tableHeader());
        for (int i = 0; i < names.size(); ++i) {
            const Run r = runApp({"report", fixture(names[i]), "--gpu-util-below", "55"});
            const QJsonObject report = jsonOf(r);
            // The run's row is its report's (names in these fixtures carry no commas in the first columns).
            const QStringList expected = tableRow(report);
            QCOMPARE(lines[i + 1], csvLine(expected));
            QCOMPARE(expected[0], names[i]);
            const QJsonObject budget = report["metrics"]["waste_budget"].toObject();
            for (int b = 0; b < WasteBudget::BucketCount; ++b)
                QCOMPARE(expected[3 + b].toDouble(), budget[WasteBudget::bucketKey(b)].toDouble());
            QCOMPARE(expected.last().toInt(), report["diagnostics"].toArray().size());
        }
    }

    /// Issue 23: a value nothing measured is "—" in the CSV, never 0 or an empty cell: each
    /// bucket (and unattributed_s) as its report's `budget.buckets` state says, GPU utilisation and
    /// step time from its `quantities`. A compare delta of a bucket unknown in either run is null.
    void tableUnknownIsDash_data()
    {
        QTest::addColumn<QString>("run");
        QTest::addColumn<int>("dashes");  // cells expected as "—" (at least)
        QTest::newRow("kernel trace alone, no telemetry") << "real-rocm63-2021" << 3;  // data wait, host gap, headroom
        QTest::newRow("no CPU ops in the trace") << "v1-monrocm6-nometa/trace.csv" << 2;           // data wait, host gap
        QTest::newRow("everything known") << "v3-metric-1gpu" << 0;
    }
    void tableUnknownIsDash()
    {
        QFETCH(QString, run);
        QFETCH(int, dashes);
        QTemporaryDir tmp;
        const QString csvPath = tmp.filePath("table.csv");
        const Run t = runApp({"table", fixture(run), "--csv", csvPath});
        QCOMPARE(t.exitCode, 0);
        const QStringList lines = QString::fromUtf8(test::readAll(csvPath)).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 2);
        const QStringList header = lines[0].split(',');
        QCOMPARE(header, tableHeader());
        const Run r = runApp({"report", fixture(run)});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject report = jsonOf(r);
        // The line is the report's row (kernel names may hold commas: compare whole lines), then
        // the row's cells against the report.
        const QStringList cells = tableRow(report);
        QCOMPARE(lines[1], csvLine(cells));
        QCOMPARE(cells.size(), header.size());
        int seen = 0;
        for (int b = 0; b <= WasteBudget::BucketCount; ++b) {
            const QString column = b < WasteBudget::BucketCount ? WasteBudget::bucketKey(b) : QStringLiteral("unattributed_s");
            const QString key = b < WasteBudget::BucketCount ? column : QStringLiteral("unattributed");
            const QJsonValue bucket = report["budget"]["buckets"][key];
            const QString cell = cells.at(header.indexOf(column));
            if (bucket["state"].toString() == QLatin1String("unknown")) {
                QCOMPARE(cell, QStringLiteral("—"));
                ++seen;
            } else {
                QCOMPARE(cell.toDouble(), bucket["seconds_per_step"].toDouble());
            }
        }
        for (const char *q : {"gpu_util_pct", "step_time_s"}) {
            const QJsonValue value = report["quantities"][q]["value"];
            const QString cell = cells.at(header.indexOf(q == QByteArray("step_time_s") ? "step_time_seconds" : q));
            if (value.isNull()) {
                QCOMPARE(cell, QStringLiteral("—"));
                ++seen;
            } else {
                QCOMPARE(cell.toDouble(), value.toDouble());
            }
        }
        QVERIFY2(seen >= dashes, qPrintable(lines[1]));
        QCOMPARE(int(cells.count(QStringLiteral("—"))), seen);

        // The same run against a fully known one: its unknown buckets have no delta.
        const Run c = runApp({"compare", fixture("v3-metric-1gpu"), fixture(run)});
        QCOMPARE(c.exitCode, 0);
        const QJsonObject delta = jsonOf(c).value("delta")["waste_budget"].toObject();
        for (int b = 0; b < WasteBudget::BucketCount; ++b) {
            const bool unknown =
                report["budget"]["buckets"][WasteBudget::bucketKey(b)]["state"].toString() == QLatin1String("unknown");
            QCOMPARE(delta[WasteBudget::bucketKey(b)].isNull(), unknown);
        }
    }

    void csvQuoting()
    {
        QCOMPARE(csvLine({"a", "b,c", "say \"hi\"", ""}), QString("a,\"b,c\",\"say \"\"hi\"\"\","));
    }
};

QTEST_GUILESS_MAIN(TestCompare)
#include "tst_compare.moc"
