// The Chrome-trace hand-off (issue 26, item 8; src/model/report/chrometraceexport): a step (or the
// whole run) as the JSON Perfetto and chrome://tracing open, with that window's events only, in
// µs, names/ts/dur/pid/tid/cat and nothing else; written atomically and never into the run folder.

#include "chrometraceexport.h"
#include "runanalysis.h"
#include "testsupport.h"
#include "timelinespec.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>

using namespace goblin;

namespace {

// Device 2 of rank 0 with two ProfilerSteps of 1 ms: events inside step 0, inside step 1, one across
// the boundary ("long"), one ending exactly on it ("edge": step 0 only), a zero-length one on step
// 1's start ("zero": step 1 only); device 3 has one kernel in step 0.
const char *kTorchSpec =
    "file=rank0.json:0 dev=2 P:0:1000000 P:1000000:2000000 H:0:900000 "
    "K:gemm:0:400000 K:nccl:300000:700000:1 C:800000:900000 K:long:900000:1100000:7 K:edge:500000:1000000 "
    "K:gemm:1000000:1500000 K:nccl:1400000:1600000:1 K:zero:1000000:1000000 "
    "dev=3 K:gemm:0:100000";

std::unique_ptr<RunAnalysis> makeRun(const QString &kernelSpec, const QString &torchSpec)
{
    auto run = std::make_unique<RunAnalysis>();
    run->runDir = run->runDirAsGiven = QStringLiteral("/nonexistent/run");
    run->runName = QStringLiteral("run");
    if (!kernelSpec.isEmpty())
        run->kernels.timeline = test::timelineFromSpec(kernelSpec, QStringLiteral("trace.csv"));
    if (!torchSpec.isEmpty())
        run->torch.timeline = test::timelineFromSpec(torchSpec);
    analyzeRun(*run);
    return run;
}

/// The "ph":"X" events as "name ts dur" (ts and dur as the JSON numbers read back), sorted.
QStringList slicesOf(const QJsonDocument &doc)
{
    QStringList out;
    for (const QJsonValue &e : doc[QLatin1String("traceEvents")].toArray())
        if (e[QLatin1String("ph")] == QLatin1String("X"))
            out << QStringLiteral("%1 %2 %3")
                       .arg(e[QLatin1String("name")].toString())
                       .arg(e[QLatin1String("ts")].toDouble())
                       .arg(e[QLatin1String("dur")].toDouble());
    out.sort();
    return out;
}

} // namespace

class TestChromeTraceExport : public QObject
{
    Q_OBJECT

private slots:
    void windowHoldsItsEventsOnly_data();
    void windowHoldsItsEventsOnly();
    void eventsCarryNoArgsAndNamedTracks();
    void pythonReadsTheSameCount();
    void writesAtomicallyNeverIntoTheRunFolder();
    void problemsAreNamed();
};

void TestChromeTraceExport::windowHoldsItsEventsOnly_data()
{
    QTest::addColumn<QString>("kernelSpec");
    QTest::addColumn<QString>("torchSpec");
    QTest::addColumn<int>("step");  // -1: the whole run
    QTest::addColumn<int>("equalSteps");  // 0: none
    QTest::addColumn<QStringList>("expected");  // "name ts dur", µs

    QTest::newRow("step 0: edge in, zero-length on the next start out, host clipped")
        << QString() << QString(kTorchSpec) << 0 << 0
        << QStringList{"gemm 0 400", "nccl 300 400", "Memcpy HtoD 800 100", "long 900 200", "edge 500 500",
                       "gemm 0 100", "ProfilerStep#0 0 1000", "CPU ops running 0 900"};
    // Step 1 starts at 1 ms; the first event in it ("long", from 0.9 ms, kept whole) is its 0.
    QTest::newRow("step 1: a straddling event whole, ts from the first event")
        << QString() << QString(kTorchSpec) << 1 << 0
        << QStringList{"long 0 200", "gemm 100 500", "nccl 500 200", "zero 100 0", "ProfilerStep#1 100 1000"};
    QTest::newRow("whole run") << QString() << QString(kTorchSpec) << -1 << 0
                               << QStringList{"gemm 0 400",   "nccl 300 400", "Memcpy HtoD 800 100", "long 900 200",
                                              "edge 500 500", "gemm 1000 500", "nccl 1400 200",       "zero 1000 0",
                                              "gemm 0 100",   "ProfilerStep#0 0 1000", "ProfilerStep#1 1000 1000",
                                              "CPU ops running 0 900"};
    // Nanoseconds survive as fractions of a µs.
    QTest::newRow("sub-µs times") << QString() << QStringLiteral("K:a:1000:2500 K:b:3001:3002") << -1 << 0
                                  << QStringList{"a 0 1.5", "b 2.001 0.001"};
    // Each source on its own clock starts at 0.
    QTest::newRow("kernel trace and torch trace each from 0")
        << QStringLiteral("file=trace.csv dev=0 K:ka:5000000:5100000 K:kb:5200000:5300000")
        << QStringLiteral("file=t.json:0 dev=2 K:ta:70000:90000") << -1 << 0
        << QStringList{"ka 0 100", "kb 200 100", "ta 0 20"};
    // The step field cuts an unmarked trace into equal steps, as the Timeline view does.
    QTest::newRow("equal steps: the third quarter")
        << QString() << QStringLiteral("K:a:0:1000000 K:b:2000000:2500000 K:c:3500000:4000000") << 2 << 4
        << QStringList{"b 0 500"};
}

void TestChromeTraceExport::windowHoldsItsEventsOnly()
{
    QFETCH(QString, kernelSpec);
    QFETCH(QString, torchSpec);
    QFETCH(int, step);
    QFETCH(int, equalSteps);
    QFETCH(QStringList, expected);
    const auto run = makeRun(kernelSpec, torchSpec);
    ChromeTraceOptions options;
    if (step >= 0)
        options.step = step;
    if (equalSteps > 0)
        options.equalSteps = equalSteps;
    const ChromeTraceExport trace = buildChromeTrace(*run, options);
    QVERIFY2(trace.ok(), qPrintable(trace.error));
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(trace.json, &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    QVERIFY(doc.isObject());
    QCOMPARE(doc[QLatin1String("displayTimeUnit")].toString(), QStringLiteral("ms"));
    expected.sort();
    QCOMPARE(slicesOf(doc), expected);
    QCOMPARE(trace.sliceCount, int(expected.size()));
}

void TestChromeTraceExport::eventsCarryNoArgsAndNamedTracks()
{
    const auto run = makeRun({}, QString(kTorchSpec));
    const ChromeTraceExport trace = buildChromeTrace(*run, {});
    QVERIFY2(trace.ok(), qPrintable(trace.error));
    const QJsonDocument doc = QJsonDocument::fromJson(trace.json);
    QSet<int> namedPids;
    QSet<QString> namedThreads;
    QStringList processNames;
    for (const QJsonValue &e : doc[QLatin1String("traceEvents")].toArray()) {
        if (e[QLatin1String("ph")] == QLatin1String("M")) {
            if (e[QLatin1String("name")] == QLatin1String("process_name")) {
                namedPids << e[QLatin1String("pid")].toInt();
                processNames << e[QLatin1String("args")][QLatin1String("name")].toString();
            }
            if (e[QLatin1String("name")] == QLatin1String("thread_name"))
                namedThreads << QStringLiteral("%1/%2").arg(e[QLatin1String("pid")].toInt()).arg(e[QLatin1String("tid")].toInteger());
            continue;
        }
        QCOMPARE(e[QLatin1String("ph")].toString(), QStringLiteral("X"));
        // Names, times, process, thread and category: nothing the trace's metadata could carry.
        QStringList keys = e.toObject().keys();
        keys.sort();
        QCOMPARE(keys, (QStringList{"cat", "dur", "name", "ph", "pid", "tid", "ts"}));
        QVERIFY(namedPids.contains(e[QLatin1String("pid")].toInt()));
        QVERIFY(namedThreads.contains(
            QStringLiteral("%1/%2").arg(e[QLatin1String("pid")].toInt()).arg(e[QLatin1String("tid")].toInteger())));
        const QString cat = e[QLatin1String("cat")].toString();
        QVERIFY2(QStringList({"kernel", "gpu_memcpy", "gpu_memset", "step", "host_busy", "data_loading"}).contains(cat),
                 qPrintable(cat));
    }
    // Devices named the short way the Timeline view names them, sorted by rank then device.
    QVERIFY2(processNames.value(0).startsWith(QStringLiteral("r0 · d2 · torch trace")), qPrintable(processNames.join('|')));
    QVERIFY2(processNames.value(1).startsWith(QStringLiteral("r0 · host")), qPrintable(processNames.join('|')));
    QVERIFY2(processNames.value(2).startsWith(QStringLiteral("r0 · d3")), qPrintable(processNames.join('|')));
}

void TestChromeTraceExport::pythonReadsTheSameCount()
{
    const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
    if (python.isEmpty())
        QSKIP("no python3 on PATH");
    const auto run = makeRun({}, QString(kTorchSpec));
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("step0.trace.json"));
    QString error;
    ChromeTraceExport written;
    ChromeTraceOptions options;
    options.step = 0;
    QVERIFY2(writeChromeTrace(*run, options, path, &error, &written), qPrintable(error));
    QProcess p;
    p.start(python, {QStringLiteral("-c"),
                     QStringLiteral("import json,sys\nd=json.load(open(sys.argv[1]))\n"
                                    "x=[e for e in d['traceEvents'] if e['ph']=='X']\n"
                                    "assert all(isinstance(e['ts'],(int,float)) and e['dur']>=0 for e in x)\n"
                                    "print(len(x))"),
                     path});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 0);
    QCOMPARE(p.readAllStandardOutput().trimmed().toInt(), written.sliceCount);
    QCOMPARE(written.sliceCount, 8);
}

void TestChromeTraceExport::writesAtomicallyNeverIntoTheRunFolder()
{
    auto run = makeRun({}, QString(kTorchSpec));
    QTemporaryDir runDir, out;
    run->runDir = runDir.path();
    QString error;
    // Inside the run folder (or a folder below it): refused, nothing written.
    QVERIFY(QDir(runDir.path()).mkpath(QStringLiteral("sub")));
    for (const QString &inside : {runDir.filePath(QStringLiteral("t.json")), runDir.filePath(QStringLiteral("sub/t.json"))}) {
        QVERIFY(!writeChromeTrace(*run, {}, inside, &error));
        QVERIFY2(error.contains(QLatin1String("never writes into a run folder")), qPrintable(error));
        QVERIFY(!QFile::exists(inside));
    }
    // An existing file is replaced whole; a failed export (no such step) leaves it untouched.
    const QString path = out.filePath(QStringLiteral("t.json"));
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("old");
    }
    ChromeTraceOptions bad;
    bad.step = 9;
    QVERIFY(!writeChromeTrace(*run, bad, path, &error));
    QCOMPARE(test::readAll(path), QByteArray("old"));
    QVERIFY2(writeChromeTrace(*run, {}, path, &error), qPrintable(error));
    QVERIFY(QJsonDocument::fromJson(test::readAll(path)).isObject());
    QCOMPARE(QDir(out.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"t.json"});  // no temporary left
    QCOMPARE(chromeTraceFileName(*run, 3), QStringLiteral("run-step3.trace.json"));
    QCOMPARE(chromeTraceFileName(*run, std::nullopt), QStringLiteral("run.trace.json"));
}

void TestChromeTraceExport::problemsAreNamed()
{
    const auto empty = makeRun({}, {});
    ChromeTraceExport trace = buildChromeTrace(*empty, {});
    QVERIFY(!trace.ok());
    QVERIFY2(trace.error.contains(QLatin1String("no GPU timeline")), qPrintable(trace.error));
    QVERIFY(trace.json.isEmpty());

    const auto run = makeRun({}, QString(kTorchSpec));
    QCOMPARE(chromeTraceStepCount(*run), 2);
    ChromeTraceOptions options;
    options.step = 2;
    trace = buildChromeTrace(*run, options);
    QVERIFY2(trace.error.contains(QLatin1String("no step 2")) && trace.error.contains(QLatin1String("0 to 1")),
             qPrintable(trace.error));
    options.step = -1;
    QVERIFY(!buildChromeTrace(*run, options).ok());
}

QTEST_MAIN(TestChromeTraceExport)
#include "tst_chrometraceexport.moc"
