// `goblin-workbench report`: exit codes, outputs, options, and that it never writes into the run
// folder. Runs the real executable with no display.

#include "report.h"
#include "runanalysis.h"
#include "testsupport.h"

#include <QCryptographicHash>
#include <QDirIterator>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QImageReader>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace goblin;

class TestReportCli : public QObject
{
    Q_OBJECT

private:
    using Run = test::AppRun;
    static Run run(const QStringList &arguments) { return test::runApp(arguments); }

    static QString fixture(const QString &name) { return test::dataPath(QStringLiteral("runs/") + name); }

    static QByteArray folderFingerprint(const QString &dir)
    {
        QCryptographicHash hash(QCryptographicHash::Sha256);
        QStringList files;
        QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
        while (it.hasNext())
            files << it.next();
        files.sort();
        for (const QString &f : files) {
            hash.addData(f.toUtf8());
            hash.addData(test::readAll(f));
        }
        return hash.result();
    }

private slots:
    void exitCodes_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<int>("exitCode");
        const QString ok = fixture(QStringLiteral("v3-metric-1gpu"));
        QTest::newRow("plain report") << QStringList{"report", ok} << 0;
        QTest::newRow("reference profile") << QStringList{"report", ok, "--profile", "reference"} << 0;
        QTest::newRow("every threshold") << QStringList{"report", ok, "--precision", "fp16", "--steps", "3",
                                                        "--gpu-util-below", "60", "--host-busy-above", "0.2",
                                                        "--hbm-target", "80", "--hbm-capacity-gb", "256"}
                                         << 0;
        QTest::newRow("warnings are still success") << QStringList{"report", fixture("bad-nan-negative")} << 0;
        QTest::newRow("missing folder") << QStringList{"report", "/nonexistent/goblin/run"} << 1;
        // Issue 23: a file opens alone (it used to be refused: "not a folder"); a folder or a file
        // with nothing readable is no run.
        QTest::newRow("a file opens alone") << QStringList{"report", fixture("v3-metric-1gpu/trace.csv")} << 0;
        QTest::newRow("nothing in the folder") << QStringList{"report", fixture("bad-missing-all")} << 1;
        QTest::newRow("random bytes only") << QStringList{"report", fixture("bad-garbage")} << 1;
        QTest::newRow("empty files only") << QStringList{"report", fixture("bad-empty-files")} << 1;
        QTest::newRow("a file that is no input") << QStringList{"report", fixture("bad-missing-all/README")} << 1;
        QTest::newRow("no RUN_DIR") << QStringList{"report"} << 2;
        QTest::newRow("unknown option") << QStringList{"report", ok, "--frobnicate"} << 2;
        QTest::newRow("bad profile") << QStringList{"report", ok, "--profile", "fast"} << 2;
        QTest::newRow("bad precision") << QStringList{"report", ok, "--precision", "int4"} << 2;
        QTest::newRow("bad steps") << QStringList{"report", ok, "--steps", "zero"} << 2;
        QTest::newRow("util above 100") << QStringList{"report", ok, "--gpu-util-below", "130"} << 2;
        QTest::newRow("host busy is a fraction") << QStringList{"report", ok, "--host-busy-above", "50"} << 2;
        QTest::newRow("NaN threshold") << QStringList{"report", ok, "--hbm-target", "nan"} << 2;
        QTest::newRow("two folders") << QStringList{"report", ok, ok} << 2;
        QTest::newRow("json into the run folder") << QStringList{"report", ok, "--json", ok + "/report.json"} << 2;
    }

    void exitCodes()
    {
        QFETCH(QStringList, arguments);
        QFETCH(int, exitCode);
        const Run r = run(arguments);
        QCOMPARE(r.exitCode, exitCode);
        if (exitCode != 0) {
            // one clear line on stderr (usage errors add the --help hint)
            QVERIFY(!r.err.isEmpty());
            QVERIFY(r.err.startsWith("goblin-workbench"));
            QVERIFY(r.out.isEmpty());
        } else {
            QJsonParseError error;
            const QJsonDocument doc = QJsonDocument::fromJson(r.out, &error);
            QCOMPARE(error.error, QJsonParseError::NoError);
            QVERIFY(doc.object().contains(QStringLiteral("metrics")));
        }
    }

    void jsonFileEqualsEngineReport()
    {
        QTemporaryDir out;
        const QString dir = fixture(QStringLiteral("rocm62-monitor-2gpu"));
        const QByteArray before = folderFingerprint(dir);
        const QString path = out.filePath(QStringLiteral("report.json"));
        const Run r = run({"report", dir, "--json", path, "--gpu-util-below", "60", "--profile", "workbench"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.isEmpty());
        const QJsonObject written = QJsonDocument::fromJson(test::readAll(path)).object();

        const LoadResult loaded = loadRun(dir);
        Thresholds t;
        t.gpuUtilBelowPct = 60.0;
        QJsonObject expected = buildReport(*loaded.run, HeuristicsProfile::Workbench, t);
        QCOMPARE(written.value("thresholds"), expected.value("thresholds"));
        QCOMPARE(written.value("metrics"), expected.value("metrics"));
        QCOMPARE(written.value("aggregates"), expected.value("aggregates"));
        QCOMPARE(written.value("diagnostics"), expected.value("diagnostics"));
        QCOMPARE(folderFingerprint(dir), before);  // nothing written into the run folder
    }

    void stepsDefaults()
    {
        const QString dir = fixture(QStringLiteral("v3-metric-1gpu"));
        const auto steps = [&](const QStringList &extra) {
            const Run r = run(QStringList{"report", dir} + extra);
            return QJsonDocument::fromJson(r.out).object().value("metrics").toObject().value("steps").toInt();
        };
        QCOMPARE(steps({"--profile", "reference"}), 10);  // as the reference
        QCOMPARE(steps({}), 3);                           // ProfilerStep events in the torch window
        QCOMPARE(steps({"--steps", "25"}), 25);
    }

    /// `report --png` runs in goblin-workbench-gui (goblin-workbench hands it over with exec):
    /// the image is the 2x dashboard, and the JSON written beside it is the plain report's.
    void pngThroughTheGuiHelper()
    {
        QTemporaryDir out;
        const QString png = out.filePath(QStringLiteral("dashboard.png"));
        const QString json = out.filePath(QStringLiteral("report.json"));
        const QString runDir = fixture(QStringLiteral("v3-metric-1gpu"));
        const Run withPng = run({"report", runDir, "--gpu-util-below", "60", "--png", png, "--json", json});
        QCOMPARE(withPng.exitCode, 0);
        QImageReader reader(png);
        QCOMPARE(reader.format(), QByteArray("png"));
        QCOMPARE(reader.size(), QSize(3200, 2000));
        const Run plain = run({"report", runDir, "--gpu-util-below", "60"});
        QCOMPARE(plain.exitCode, 0);
        QCOMPARE(test::readAll(json), plain.out);
    }

    void emptyFolderFails()
    {
        // An empty folder: exit 1, and the one line on stderr says why.
        QTemporaryDir empty;
        const Run r = run({"report", empty.path()});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.contains("no input the workbench reads") && r.err.contains("the folder is empty"), r.err.constData());
    }

    void fileOpensAlone()
    {
        // Issue 23: two unrelated traces in one folder (an MI300X training trace of a 2-rank job,
        // a V100 trace of a 1-rank job, both rank 0): the folder gives one run and names the
        // other trace under separate_runs; either file given alone is that file's run only.
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("mixed"));
        QVERIFY(QDir().mkpath(dir));
        QVERIFY(QFile::copy(test::dataPath(QStringLiteral("torch/gen_two_gpus_seed7.json.gz")), dir + "/job-a.json.gz"));
        QVERIFY(QFile::copy(test::dataPath(QStringLiteral("torch/hta_ns_resolution_rank-0_subset.json.gz")),
                            dir + "/job-b.json.gz"));
        const auto report = [](const QString &path) {
            const Run r = run({"report", path});
            if (r.exitCode != 0)
                qWarning("%s", r.err.constData());
            return QJsonDocument::fromJson(r.out).object();
        };
        const auto files = [](const QJsonObject &rep, const char *key, const char *member) {
            QStringList out;
            for (const QJsonValue &v : rep.value(QLatin1String(key)).toArray())
                out << v.toObject().value(QLatin1String(member)).toString();
            return out;
        };

        const QJsonObject folder = report(dir);
        QCOMPARE(folder["run"]["path"].toString(), dir);
        QCOMPARE(files(folder, "ranks", "file"), QStringList{"job-a.json.gz"});
        const QJsonArray separate = folder["separate_runs"].toArray();
        QCOMPARE(separate.size(), 1);
        QCOMPARE(separate[0]["file"].toString(), QStringLiteral("job-b.json.gz"));
        QVERIFY(!separate[0]["reason"].toString().isEmpty());
        QVERIFY(!files(folder, "inputs", "path").contains("job-b.json.gz"));

        for (const QString &name : {QStringLiteral("job-a.json.gz"), QStringLiteral("job-b.json.gz")}) {
            const QJsonObject alone = report(dir + QLatin1Char('/') + name);
            QCOMPARE(alone["run"]["path"].toString(), dir + QLatin1Char('/') + name);
            QCOMPARE(alone["run"]["name"].toString(), QStringLiteral("mixed/") + name);
            QCOMPARE(files(alone, "ranks", "file"), QStringList{name});
            QVERIFY(alone["separate_runs"].toArray().isEmpty());
            QStringList read = files(alone, "inputs", "path");
            read.removeAll(QStringLiteral("amd_smi.csv"));  // listed as missing
            read.removeAll(QStringLiteral("trace.csv"));
            QCOMPARE(read, QStringList{name});
            // The command that reproduces it names the file.
            QCOMPARE(alone["command"][2].toString(), dir + QLatin1Char('/') + name);
        }
        // The folder's run is job-a's: the same budget as job-a read alone.
        const QJsonObject jobA = report(dir + "/job-a.json.gz");
        QCOMPARE(folder["metrics"]["waste_budget"], jobA["metrics"]["waste_budget"]);
    }

    void helpAndVersion()
    {
        const Run version = run({"--version"});
        QCOMPARE(version.exitCode, 0);
        QVERIFY(version.out.startsWith("goblin-workbench "));
        const Run help = run({"report", "--help"});
        QCOMPARE(help.exitCode, 0);
        QVERIFY(help.out.contains("--gpu-util-below"));
        QVERIFY(help.out.contains("--hbm-capacity-gb"));
        // GNU style: the usage line names the program, not the path it was started from.
        QVERIFY2(help.out.startsWith("Usage: goblin-workbench report [options] RUN_DIR\n"), help.out.left(120).constData());
        const Run mainHelp = run({"--help"});
        QCOMPARE(mainHelp.exitCode, 0);
        QVERIFY2(mainHelp.out.startsWith("Usage: goblin-workbench [options] [RUN_DIR...]\n"),
                 mainHelp.out.left(120).constData());
        QVERIFY(mainHelp.out.contains("--version"));
        QVERIFY(mainHelp.out.contains("report RUN_DIR"));
        const Run bad = run({"--no-such-option"});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.contains("--help"));
    }
};

QTEST_GUILESS_MAIN(TestReportCli)
#include "tst_reportcli.moc"
