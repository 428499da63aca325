// Tests for rocprofv3's JSON output (`--output-format json`) read as a kernel trace (issue 25).
// Fixtures (tests/data/rocprofv3json, see PROVENANCE.md): the first 3000 dispatches of a real
// MI350X run (908_first3000_results.json.gz) and a synthetic two-GPU run with HIP calls and roctx
// ranges (synthetic_results.json, scripts/make_pftrace.py), each with its kernel_trace.csv twin
// written by scripts/rocprof_json_to_csv.py. The expectation: a JSON gives the kernels of its CSV
// twin; the counts are those of scripts/rocprof_json_count.py (committed below).
#include "apitraceparser.h"
#include "io/runinventory.h"
#include "kernels/accumulator.h"
#include "kernels/namepool.h"
#include "kerneltraceparser.h"
#include "rocprofjson/rocprofjsonreader.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <set>

using namespace goblin;

namespace
{

struct Summary {
    std::map<std::string, std::pair<quint64, qint64>> perName; ///< name -> (calls, total ns)
    qint64 rowsUsed = 0;
    qint64 totalNs = 0;
    qint64 firstStartNs = 0;
    qint64 lastEndNs = 0;
    QStringList agents;
};

Summary summarise(const KernelTrace &t)
{
    Summary s;
    const KernelReading &r = t.workbench;
    for (size_t id = 0; id < r.perName.size() && id < t.names.size(); ++id)
        if (r.perName[id].calls > 0)
            s.perName[t.names[id]] = {r.perName[id].calls, r.perName[id].totalNs};
    s.rowsUsed = r.rowsUsed;
    s.totalNs = r.totalNs;
    s.firstStartNs = r.firstStartNs;
    s.lastEndNs = r.lastEndNs;
    s.agents = r.agents;
    s.agents.sort();
    return s;
}

KernelTrace readAlone(const QString &path)
{
    return parseKernelTraces(RunInventory::scan(RunSource{path, {}, {}}));
}

QString allDiagnostics(const KernelTrace &t)
{
    QStringList out;
    for (const Diagnostic &d : t.diagnostics)
        out << QStringLiteral("%1:%2: %3").arg(d.file).arg(d.line).arg(d.message);
    return out.join(QLatin1Char('\n'));
}

/// One JSON read alone into fresh sinks (the reference accumulator null, as the entry does).
struct Direct {
    KernelTrace trace;
    kernels::NamePool names;
    kernels::Accumulator workbench;
    ReadOutcome outcome = ReadOutcome::Unusable;

    explicit Direct(const QByteArray &bytes, const QString &rel = QStringLiteral("bad_results.json"))
    {
        workbench.reading = &trace.workbench;
        KernelSink sink{names, nullptr, workbench, 0};
        outcome = readRocprofJsonBytes(QByteArrayView(bytes), rel, sink, trace);
    }
};

} // namespace

class TestRocprofJson : public QObject
{
    Q_OBJECT

private slots:
    void csvTwin_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("csv");
        QTest::newRow("real MI350X run, first 3000 dispatches (gz)")
            << QStringLiteral("rocprofv3json/908_first3000_results.json.gz")
            << QStringLiteral("rocprofv3json/908_first3000_kernel_trace.csv");
        QTest::newRow("synthetic two GPUs") << QStringLiteral("rocprofv3json/synthetic_results.json")
                                            << QStringLiteral("rocprofv3json/synthetic_kernel_trace.csv");
    }

    /// A rocprofv3 JSON gives the kernels of its CSV twin: names, calls, summed durations,
    /// span and agents.
    void csvTwin()
    {
        QFETCH(QString, json);
        QFETCH(QString, csv);
        const KernelTrace j = readAlone(test::dataPath(json));
        const KernelTrace c = readAlone(test::dataPath(csv));
        QVERIFY2(j.workbench.rowsUsed > 0, qPrintable(allDiagnostics(j)));
        const Summary a = summarise(j), b = summarise(c);
        QCOMPARE(a.perName.size(), b.perName.size());
        QVERIFY(a.perName == b.perName);
        QCOMPARE(a.rowsUsed, b.rowsUsed);
        QCOMPARE(a.totalNs, b.totalNs);
        QCOMPARE(a.firstStartNs, b.firstStartNs);
        QCOMPARE(a.lastEndNs, b.lastEndNs);
        QCOMPARE(a.agents, b.agents);
        QCOMPARE(j.workbench.agentCount, c.workbench.agentCount);
        // The reference reads no JSON; one file, one InputFileInfo, one timeline file.
        QCOMPARE(j.reference.rowsUsed, qint64(0));
        QVERIFY(!j.referenceFileFound);
        QCOMPARE(j.files.size(), size_t(1));
        QCOMPARE(j.files[0].format, QStringLiteral("rocprofv3-json"));
        QCOMPARE(j.files[0].rowsRead, a.rowsUsed);
        QCOMPARE(j.timeline.files.size(), size_t(1));
        QCOMPARE(j.timeline.files[0].devices.size(), size_t(a.agents.size()));
        qint64 events = 0;
        for (const auto &d : j.timeline.files[0].devices)
            events += qint64(d.events.size());
        QCOMPARE(events, a.rowsUsed);
    }

    void independentCounts_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<qint64>("kernels");
        QTest::addColumn<int>("names");
        QTest::addColumn<qint64>("busyNs");
        QTest::addColumn<qint64>("firstNs");
        QTest::addColumn<qint64>("lastNs");
        QTest::addColumn<QStringList>("agents");
        // python3 scripts/rocprof_json_count.py <file>
        QTest::newRow("real cut") << QStringLiteral("rocprofv3json/908_first3000_results.json.gz") << qint64(3000) << 24
                                  << qint64(900869261) << qint64(63857982592000) << qint64(63866409185924)
                                  << QStringList{QStringLiteral("Agent 2")};
        QTest::newRow("synthetic") << QStringLiteral("rocprofv3json/synthetic_results.json") << qint64(54) << 3
                                   << qint64(2763000) << qint64(1000004000) << qint64(1003205000)
                                   << QStringList{QStringLiteral("Agent 1"), QStringLiteral("Agent 2")};
    }

    /// The counts of an independent Python count of the same file.
    void independentCounts()
    {
        QFETCH(QString, json);
        QFETCH(qint64, kernels);
        QFETCH(int, names);
        QFETCH(qint64, busyNs);
        QFETCH(qint64, firstNs);
        QFETCH(qint64, lastNs);
        QFETCH(QStringList, agents);
        const Summary s = summarise(readAlone(test::dataPath(json)));
        QCOMPARE(s.rowsUsed, kernels);
        QCOMPARE(int(s.perName.size()), names);
        QCOMPARE(s.totalNs, busyNs);
        QCOMPARE(s.firstStartNs, firstNs);
        QCOMPARE(s.lastEndNs, lastNs);
        QCOMPARE(s.agents, agents);
    }

    /// HIP calls and roctx ranges fill KernelTrace::host; the loader's steps come from them.
    void hostActivity()
    {
        const KernelTrace t = readAlone(test::dataPath(QStringLiteral("rocprofv3json/synthetic_results.json")));
        QCOMPARE(t.host.files, QStringList{QStringLiteral("synthetic_results.json")});
        QCOMPARE(t.host.runtimeCalls.size(), size_t(57));
        QCOMPARE(t.host.ranges.size(), size_t(6));
        std::multiset<QString> names;
        for (const MarkerRange &r : t.host.ranges) {
            names.insert(r.name);
            QCOMPARE(r.process, qint64(4242));
            QCOMPARE(r.thread, qint64(4242));
        }
        QCOMPARE(names.count(QStringLiteral("checkpoint")), size_t(3));
        QCOMPARE(names.count(QStringLiteral("step 2")), size_t(1));
        const ApiTraces api = apiTracesFrom(t.host);
        QCOMPARE(api.steps.size(), size_t(3));
        QCOMPARE(api.hipCalls, qint64(57));
        QVERIFY(!api.hostApiBusy.empty());
    }

    /// Recognised by content, plain or gzip, read only without a CSV kernel trace.
    void inventory()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QDir dir(tmp.path());
        QVERIFY(QFile::copy(test::dataPath(QStringLiteral("rocprofv3json/synthetic_results.json")),
                            dir.filePath(QStringLiteral("4242_results.json"))));
        QDir().mkpath(dir.filePath(QStringLiteral("host")));
        QVERIFY(QFile::copy(test::dataPath(QStringLiteral("rocprofv3json/908_first3000_results.json.gz")),
                            dir.filePath(QStringLiteral("host/908_results.json.gz"))));
        QFile foreign(dir.filePath(QStringLiteral("config.json")));
        QVERIFY(foreign.open(QIODevice::WriteOnly));
        foreign.write("{\"rocprofiler\": 1, \"tool\": [] }");
        foreign.close();

        RunInventory inv = RunInventory::scanFolder(tmp.path());
        QCOMPARE(inv.rocprofJsons().size(), size_t(2));
        QVERIFY(inv.find(QStringLiteral("4242_results.json"))->read);
        QCOMPARE(inv.find(QStringLiteral("config.json"))->role, InputRole::Other);
        QCOMPARE(inputRoleName(InputRole::RocprofJson), QStringLiteral("rocprofv3 JSON"));
        const KernelTrace both = parseKernelTraces(inv);
        QCOMPARE(both.files.size(), size_t(2));
        QCOMPARE(both.workbench.rowsUsed, qint64(3054));
        QCOMPARE(both.workbench.agentCount, 3); // hosts differ: "Agent 2" of host/ is another GPU
        QCOMPARE(both.timeline.files.size(), size_t(2));

        // Beside a CSV kernel trace it is listed, not read.
        QVERIFY(QFile::copy(test::dataPath(QStringLiteral("rocprofv3json/synthetic_kernel_trace.csv")),
                            dir.filePath(QStringLiteral("4242_kernel_trace.csv"))));
        inv = RunInventory::scanFolder(tmp.path());
        QVERIFY(!inv.find(QStringLiteral("4242_results.json"))->read);
        const KernelTrace csv = parseKernelTraces(inv);
        QCOMPARE(csv.workbench.rowsUsed, qint64(54));
        QVERIFY(csv.host.empty());
    }

    void badFiles_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("severity"); // of the worst diagnostic
        QTest::addColumn<bool>("hasLine"); // a diagnostic names a line
        QTest::addColumn<QString>("says");
        QTest::addColumn<qint64>("kernels");
        const QByteArray good = test::readAll(test::dataPath(QStringLiteral("rocprofv3json/synthetic_results.json")));
        QTest::newRow("empty") << QByteArray() << int(Severity::Warning) << false << QStringLiteral("empty") << qint64(0);
        QTest::newRow("blank") << QByteArray(" \n\n ") << int(Severity::Warning) << false << QStringLiteral("empty")
                               << qint64(0);
        QTest::newRow("foreign JSON object") << QByteArray("{\"traceEvents\": [], \"rocprofiler\": 3}")
                                             << int(Severity::Warning) << false << QStringLiteral("not rocprofv3's")
                                             << qint64(0);
        QTest::newRow("root array") << QByteArray("[{\"rocprofiler-sdk-tool\": []}]") << int(Severity::Warning) << false
                                    << QStringLiteral("not rocprofv3's") << qint64(0);
        QTest::newRow("random bytes") << QByteArray("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", 16) << int(Severity::Error)
                                      << true << QStringLiteral("not valid JSON") << qint64(0);
        // Cut in the middle of the dispatch records: what came before is read, an error says where.
        const qsizetype cut = good.indexOf("\"kernel_dispatch\"") + 4000;
        QTest::newRow("truncated") << good.left(cut) << int(Severity::Error) << true
                                   << QStringLiteral("cut short or damaged") << qint64(-1);
        QByteArray damaged = good;
        damaged[good.indexOf("\"hip_api\"") + 2] = '\x01';
        QTest::newRow("control byte in a key") << damaged << int(Severity::Error) << true
                                               << QStringLiteral("not valid JSON") << qint64(54);
        QByteArray badRecord = good;
        const qsizetype ts = badRecord.indexOf("\"start_timestamp\"", good.indexOf("\"kernel_dispatch\""));
        badRecord.replace(ts, 17, "\"start_timestampX\"");
        QTest::newRow("dispatch without start_timestamp") << badRecord << int(Severity::Warning) << true
                                                          << QStringLiteral("record left out") << qint64(53);
        // NaN: Python's grammar (the scanner accepts it), not simdjson's: that record alone is left out.
        QByteArray nan = good;
        const qsizetype tid = nan.indexOf("\"thread_id\": 4242", good.indexOf("\"kernel_dispatch\"") + 3000);
        nan.replace(tid, 17, "\"thread_id\": NaN ");
        QTest::newRow("NaN in a dispatch") << nan << int(Severity::Warning) << true
                                           << QStringLiteral("simdjson cannot parse") << qint64(53);
        QByteArray unknownKernel = good;
        const qsizetype kid = unknownKernel.indexOf("\"kernel_id\": 1", good.indexOf("\"kernel_dispatch\""));
        unknownKernel.replace(kid, 14, "\"kernel_id\": 9");
        QTest::newRow("dispatch of an unknown kernel_id") << unknownKernel << int(Severity::Warning) << false
                                                          << QStringLiteral("does not list") << qint64(53);
        const QByteArray gz = test::readAll(test::dataPath(QStringLiteral("rocprofv3json/908_first3000_results.json.gz")));
        // The inflated text ends mid-document: the gzip problem and the JSON's end are both said.
        QTest::newRow("truncated gzip") << gz.left(gz.size() / 2) << int(Severity::Error) << true
                                        << QStringLiteral("read error") << qint64(-1);
    }

    /// Bad files: a diagnostic naming the file (and for JSON syntax, the line); never a crash.
    void badFiles()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(int, severity);
        QFETCH(bool, hasLine);
        QFETCH(QString, says);
        QFETCH(qint64, kernels);
        Direct d(bytes);
        QVERIFY(!d.trace.diagnostics.empty());
        int worst = 0;
        bool line = false, said = false;
        for (const Diagnostic &diag : d.trace.diagnostics) {
            QCOMPARE(diag.file, QStringLiteral("bad_results.json"));
            worst = std::max(worst, int(diag.severity));
            line = line || diag.line > 0;
            said = said || diag.message.contains(says);
        }
        QVERIFY2(said, qPrintable(allDiagnostics(d.trace)));
        QCOMPARE(worst, severity);
        QCOMPARE(line, hasLine);
        QCOMPARE(d.trace.files.size(), size_t(1));
        if (kernels >= 0)
            QCOMPARE(d.trace.workbench.rowsUsed, kernels);
        else
            QVERIFY(d.trace.workbench.rowsUsed > 0); // the records before the cut
    }

    /// The line of a syntax error is the line of the document (the synthetic file is indented).
    void syntaxErrorLine()
    {
        QByteArray good = test::readAll(test::dataPath(QStringLiteral("rocprofv3json/synthetic_results.json")));
        const qsizetype at = good.indexOf("\"hip_api\"");
        const qint64 line = good.left(at).count('\n') + 1;
        good.insert(at, "]");
        Direct d(good);
        bool found = false;
        for (const Diagnostic &diag : d.trace.diagnostics)
            found = found || (diag.severity == Severity::Error && diag.line == line);
        QVERIFY2(found, qPrintable(allDiagnostics(d.trace) + QStringLiteral(" (expected line %1)").arg(line)));
    }

    /// 300 damaged copies (a byte overwritten, or the file cut there): one file entry each, no
    /// crash, and never more kernels than the intact file.
    void damagedCopiesNeverCrash()
    {
        const QByteArray good = test::readAll(test::dataPath(QStringLiteral("rocprofv3json/synthetic_results.json")));
        const qint64 intact = Direct(good).trace.workbench.rowsUsed;
        const char replacements[] = {'\0', '"', '}', '\x0a', '\xff', '9'};
        for (int i = 0; i < 300; ++i) {
            const qsizetype at = qsizetype((quint64(i) * 7919u) % quint64(good.size()));
            QByteArray bad = i % 5 == 4 ? good.left(at) : good;
            if (i % 5 != 4)
                bad[at] = replacements[i % 6];
            Direct d(bad);
            QCOMPARE(d.trace.files.size(), size_t(1));
            QVERIFY(d.trace.workbench.rowsUsed <= intact);
        }
    }

    void cancel()
    {
        KernelTrace trace;
        kernels::NamePool names;
        kernels::Accumulator wb;
        wb.reading = &trace.workbench;
        KernelSink sink{names, nullptr, wb, 0};
        const ReadOutcome outcome =
            readRocprofJson(test::dataPath(QStringLiteral("rocprofv3json/synthetic_results.json")),
                            QStringLiteral("x.json"), sink, trace, [](qint64) { return false; });
        QVERIFY(outcome == ReadOutcome::Cancelled);
    }

    /// The full real sample, when its path is given (GOBLIN_ROCPROF_JSON_SAMPLE=…/908_results.json.gz):
    /// the counts of scripts/rocprof_json_count.py on it. Not part of the suite (tests read no
    /// /work/shared); a measurement aid.
    void fullSample()
    {
        const QString path = qEnvironmentVariable("GOBLIN_ROCPROF_JSON_SAMPLE");
        if (path.isEmpty())
            QSKIP("GOBLIN_ROCPROF_JSON_SAMPLE not set");
        const Summary s = summarise(readAlone(path));
        QCOMPARE(s.rowsUsed, qint64(43915));
        QCOMPARE(int(s.perName.size()), 80);
        QCOMPARE(s.totalNs, qint64(4441741378));
        QCOMPARE(s.lastEndNs - s.firstStartNs, qint64(15122023494));
        QCOMPARE(s.agents, QStringList{QStringLiteral("Agent 2")});
    }
};

QTEST_GUILESS_MAIN(TestRocprofJson)
#include "tst_rocprofjson.moc"
