// A member twice in one JSON object (issue 36 item 4): Python's json keeps the last value without
// a word. The scanner notes a second capture of a key on its fast path (a bit per key, no table),
// the simdjson path notes it as it collects the members, and the Kineto and rocprofv3 JSON readers
// say it once per file, naming the first: the file's numbers are those of the file that holds only
// the last value, whichever path and plan read it.
#include "syntax/jsonscanner.h"
#include "kernels/accumulator.h"
#include "kernels/namepool.h"
#include "kerneltraceparser.h"
#include "rocprofjson/rocprofjsonreader.h"
#include "results/hostlanes.h"
#include "testsupport.h"
#include "torchtraceparser.h"

#include <QTest>

#include <functional>
#include <optional>

using namespace goblin;

namespace
{

/// The Kineto document: three steps of CPU ops, launches and kernels, one event a line (line 1
/// opens the array, so event i is on line i + 2). `event(i, text)` may rewrite an event's text.
QByteArray kinetoDocument(const std::function<QByteArray(int, const QByteArray &)> &event = {})
{
    QList<QByteArray> texts;
    double t = 1000.0;
    for (int step = 0; step < 3; ++step) {
        const double start = t;
        for (int k = 0; k < 6; ++k) {
            texts << QByteArray(R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": )") +
                         QByteArray::number(t) + R"(, "dur": 20.0})";
            texts << QByteArray(R"({"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 1, )"
                                       R"("tid": 1, "ts": )") +
                         QByteArray::number(t + 5) + R"(, "dur": 4.0})";
            texts << QByteArray(R"({"ph": "X", "cat": "kernel", "name": ")") +
                         (k % 2 ? "Cijk_gemm_MT128" : "elementwise_kernel") + R"(", "pid": 0, "tid": 7, "ts": )" +
                         QByteArray::number(t + 12) + R"(, "dur": 30.0, "args": {"device": 0, "stream": 7}})";
            t += 40.0;
        }
        texts << QByteArray(R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#)") +
                     QByteArray::number(step) + R"(", "pid": 1, "tid": 1, "ts": )" + QByteArray::number(start) +
                     R"(, "dur": )" + QByteArray::number(t - start) + "}";
        t += 10.0;
    }
    if (event)
        for (int i = 0; i < texts.size(); ++i)
            texts[i] = event(i, texts[i]);
    return QByteArrayLiteral("{\"traceEvents\": [\n") + texts.join(",\n") +
           QByteArrayLiteral("\n], \"metadata\": {\"tokens_per_sec\": 1000.0}}\n");
}

/// `text` with `member` written twice: `first` before the value it has.
QByteArray withFirst(const QByteArray &text, const QByteArray &member, const QByteArray &first)
{
    const QByteArray key = '"' + member + "\": ";
    const qsizetype at = text.indexOf(key);
    Q_ASSERT(at >= 0);
    QByteArray out = text;
    out.insert(at, key + first + ", ");
    return out;
}

/// The numbers a trace yields, both readings and the GPU timeline.
QString numbers(const TorchTrace &t)
{
    auto reading = [](const TorchReading &r) {
        return QStringLiteral("step %1 (%2) host %3 (%4) steps %5")
            .arg(r.stepTimeSeconds ? QString::number(*r.stepTimeSeconds, 'g', 17) : QStringLiteral("-"), r.stepTimeSource)
            .arg(r.hostBusyFraction ? QString::number(*r.hostBusyFraction, 'g', 17) : QStringLiteral("-"),
                 r.hostBusySource)
            .arg(r.profilerSteps);
    };
    QStringList files;
    for (const GpuTimelineFile &f : t.timeline.files)
        files << test::timelineFileDigest(f, false);  // host lanes: their correlations are checked apart
    return QStringLiteral("reference: %1\nworkbench: %2\nevents %3\ntimeline: %4")
        .arg(reading(t.reference), reading(t.workbench))
        .arg(t.eventCount)
        .arg(files.join(QLatin1Char('|')));
}

QList<const Diagnostic *> matching(const Diagnostics &diags, const QString &text)
{
    QList<const Diagnostic *> out;
    for (const Diagnostic &d : diags)
        if (d.message.contains(text))
            out << &d;
    return out;
}

QString allDiagnostics(const Diagnostics &diags)
{
    QStringList out;
    for (const Diagnostic &d : diags)
        out << QStringLiteral("%1:%2: %3").arg(d.file).arg(d.line).arg(d.message);
    return out.join(QLatin1Char('\n'));
}

/// Captures the members of the depth-1 objects of `[...]`.
struct CaptureSink : JsonScanner::Sink {
    JsonScanner *scanner = nullptr;
    std::vector<JsonScanner::CapturedMembers> members;
    void rootKey(std::string_view, qint64, qint64) override {}
    bool valueBegin(int depth, char, qint64, qint64) override { return depth == 0; }
    void valueEnd(int depth, qint64, bool) override
    {
        if (depth == 1 && scanner->capturedMembers())
            members.push_back(*scanner->capturedMembers());
    }
};

/// rocprofv3 JSON around dispatch records given as text.
QByteArray rocprofDocument(const QList<QByteArray> &dispatches)
{
    return QByteArray(R"({"rocprofiler-sdk-tool": [{"metadata": {"pid": 4242}, )"
                             R"("agents": [{"id": {"handle": 11}, "logical_node_id": 2, "type": 2}], )"
                             R"("kernel_symbols": [{"kernel_id": 1, "formatted_kernel_name": "Cijk_gemm"}, )"
                             R"({"kernel_id": 2, "formatted_kernel_name": "elementwise_kernel"}], )"
                             R"("buffer_records": {"kernel_dispatch": [)") +
           "\n" + dispatches.join(",\n") + "\n]}}]}\n";
}

QByteArray dispatchText(qint64 start, qint64 end, int kernel, const QByteArray &extra = {})
{
    return QByteArray(R"({"start_timestamp": )") + QByteArray::number(start) + R"(, "end_timestamp": )" +
           QByteArray::number(end) + R"(, "thread_id": 4242, "correlation_id": {"internal": 1, "external": 0}, )"
           R"("dispatch_info": {"agent_id": {"handle": 11}, "queue_id": {"handle": 1}, "kernel_id": )" +
           QByteArray::number(kernel) + "}" + extra + "}";
}

struct RocprofRead {
    KernelTrace trace;
    kernels::NamePool names;
    kernels::Accumulator workbench;
    explicit RocprofRead(const QByteArray &bytes)
    {
        workbench.reading = &trace.workbench;
        KernelSink sink{names, nullptr, workbench, 0};
        readRocprofJsonBytes(QByteArrayView(bytes), QStringLiteral("4242_results.json"), sink, trace);
    }
    QString summary() const
    {
        QStringList out;
        const KernelReading &r = trace.workbench;
        for (size_t id = 0; id < r.perName.size() && id < trace.names.size(); ++id)
            if (r.perName[id].calls > 0)
                out << QStringLiteral("%1 %2x %3 ns").arg(QString::fromStdString(trace.names[id])).arg(r.perName[id].calls)
                           .arg(r.perName[id].totalNs);
        out << QStringLiteral("used %1 total %2 span %3-%4 agents %5")
                   .arg(r.rowsUsed)
                   .arg(r.totalNs)
                   .arg(r.firstStartNs)
                   .arg(r.lastEndNs)
                   .arg(r.agents.join(QLatin1Char(',')));
        return out.join(QLatin1Char('\n'));
    }
};

} // namespace

class TestDuplicateKeys : public QObject
{
    Q_OBJECT

private slots:
    // The window's reading: the host lanes are kept (torchtraceparser.h, setKeepHostLanes).
    void initTestCase() { setKeepHostLanes(true); }
    void scannerNotesASecondCapture_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<int>("duplicated");        // CapturedMembers::duplicated
        QTest::addColumn<QByteArray>("durValue");   // the value located for "dur": the last one
        QTest::newRow("clean") << QByteArray(R"([{"ts": 1, "dur": 2, "args": {"device": 0}}])") << 0
                               << QByteArray("2");
        QTest::newRow("dur twice") << QByteArray(R"([{"dur": 360, "ts": 1, "dur": 2}])") << 0x10 << QByteArray("2");
        QTest::newRow("dur twice, escaped key") << QByteArray(R"([{"dur": 360, "ts": 1, "d\u0075r": 2}])") << 0x10
                                                << QByteArray("2");
        QTest::newRow("ts and name twice") << QByteArray(R"([{"ts": 5, "name": "a", "ts": 1, "name": "b", "dur": 2}])")
                                           << 0x0c << QByteArray("2");
        QTest::newRow("args twice") << QByteArray(R"([{"args": {"device": 1}, "dur": 2, "args": {"device": 0}}])")
                                    << 0x20 << QByteArray("2");
        QTest::newRow("device twice in args: nested, not an event member")
            << QByteArray(R"([{"dur": 2, "args": {"device": 1, "device": 0}}])") << 0 << QByteArray("2");
        QTest::newRow("same key in a nested object is no duplicate")
            << QByteArray(R"([{"dur": 2, "args": {"x": {"dur": 5}}}])") << 0 << QByteArray("2");
    }
    void scannerNotesASecondCapture()
    {
        QFETCH(QByteArray, json);
        QFETCH(int, duplicated);
        QFETCH(QByteArray, durValue);
        static constexpr std::string_view keys[] = {"ph", "cat", "name", "ts", "dur", "args", "pid", "tid"};
        static constexpr std::string_view argKeys[] = {"device", "stream"};
        CaptureSink sink;
        JsonScanner scanner(sink);
        sink.scanner = &scanner;
        scanner.setCapturedKeys(keys, 8);
        scanner.setNestedCapturedKeys(5, argKeys, 2);
        QCOMPARE(scanner.feed(json.constData(), size_t(json.size())), JsonScanner::Status::Ok);
        QCOMPARE(scanner.finish(), JsonScanner::Status::Ok);
        QCOMPARE(sink.members.size(), size_t(1));
        const JsonScanner::CapturedMembers &m = sink.members.front();
        QCOMPARE(int(m.duplicated), duplicated);
        QVERIFY(m.have & 0x10);
        QCOMPARE(json.mid(m.begin[4], m.end[4] - m.begin[4]), durValue);
    }

    // A Kineto event with a member twice reads as the event with the last value only, on every
    // path (fast path, simdjson after chunk cuts and in the pipeline, byte ranges), and the
    // warning names the first such event, once, with the count.
    void kinetoEventReadsTheLastValue_data()
    {
        QTest::addColumn<QByteArray>("member");
        QTest::addColumn<QByteArray>("first");
        QTest::addColumn<int>("event");  // which event gets it (each of its kind from there on)
        QTest::addColumn<int>("chunkBytes");
        QTest::addColumn<int>("rangeBytes");
        struct Member {
            const char *name, *first;
            int event;
        };
        // Event 2 is the first kernel, 0 the first CPU op, 18 + ... ProfilerStep#0 is event 18.
        const Member members[] = {{"dur", "10800.0", 2},  {"ts", "99999.0", 2},   {"name", "\"Cijk_first\"", 2},
                                  {"cat", "\"kernel\"", 0}, {"ph", "\"B\"", 18},   {"dur", "2.0", 18},
                                  {"pid", "3", 0},        {"tid", "9", 0}};
        const struct {
            const char *name;
            int chunk, range;
        } plans[] = {{"one pass", 2 << 20, 0}, {"61-byte chunks", 61, 0}, {"ranges", 4096, 600}};
        for (const Member &m : members)
            for (const auto &p : plans)
                QTest::addRow("%s twice in event %d, %s", m.name, m.event, p.name)
                    << QByteArray(m.name) << QByteArray(m.first) << m.event << p.chunk << p.range;
    }
    void kinetoEventReadsTheLastValue()
    {
        QFETCH(QByteArray, member);
        QFETCH(QByteArray, first);
        QFETCH(int, event);
        QFETCH(int, chunkBytes);
        QFETCH(int, rangeBytes);
        // Every event of that kind from `event` on (kernels every third, steps every 19th).
        const int period = event == 18 ? 19 : 3;
        int touched = 0;
        const QByteArray dup = kinetoDocument([&](int i, const QByteArray &text) {
            if (i < event || (i - event) % period != 0)
                return text;
            ++touched;
            return withFirst(text, member, first);
        });
        const QByteArray clean = kinetoDocument();
        const TorchReadPlan plan{size_t(chunkBytes), rangeBytes};
        const TorchTrace got = parseTorchTraceBytes(dup, QStringLiteral("torch_profile.json"), {}, plan);
        const TorchTrace want = parseTorchTraceBytes(clean, QStringLiteral("torch_profile.json"), {}, plan);
        QCOMPARE(numbers(got), numbers(want));
        const auto warnings = matching(got.diagnostics, QStringLiteral("has the member \"%1\" more than once")
                                                            .arg(QString::fromLatin1(member)));
        QVERIFY2(warnings.size() == 1, qPrintable(allDiagnostics(got.diagnostics)));
        const Diagnostic &d = *warnings.front();
        QCOMPARE(d.severity, Severity::Warning);
        QCOMPARE(d.file, QStringLiteral("torch_profile.json"));
        QCOMPARE(d.line, qint64(event + 2));
        QVERIFY(d.message.startsWith(QStringLiteral("the event at line %1 (byte ").arg(event + 2)));
        QVERIFY(d.message.contains(QStringLiteral("the last value is used, as Python's json does")));
        QVERIFY2(d.message.endsWith(QStringLiteral("; %1 events in all have a member more than once").arg(touched)),
                 qPrintable(d.message));
        QVERIFY(matching(want.diagnostics, QStringLiteral("more than once")).isEmpty());
    }

    // A member of "args" twice: every reader of args takes the first value, on every path, so
    // the kernel stays on the first "device"; one warning per file says so, whichever path read it.
    void argsMemberTwiceReadsTheFirst_data()
    {
        QTest::addColumn<QByteArray>("clean");
        QTest::addColumn<QByteArray>("repeated");
        QTest::addColumn<QString>("key");
        QTest::addColumn<int>("chunkBytes");
        QTest::addColumn<int>("rangeBytes");
        const struct {
            const char *key, *clean, *repeated;
        } members[] = {
            {"device", R"("device": 0)", R"("device": 0, "device": 5)"},
            {"stream", R"("stream": 7)", R"("stream": 7, "stream": 3)"},
            {"device", R"("device": 0)", R"("d\u0065vice": 0, "device": 5)"},  // an escaped first key
            {"correlation", R"("stream": 7)", R"("stream": 7, "correlation": 1, "correlation": 2)"},
        };
        const struct {
            const char *name;
            int chunk, range;
        } plans[] = {{"one pass", 2 << 20, 0}, {"61-byte chunks", 61, 0}, {"ranges", 4096, 600}};
        for (const auto &m : members)
            for (const auto &p : plans)
                QTest::addRow("%s, %s", m.repeated, p.name) << QByteArray(m.clean) << QByteArray(m.repeated)
                                                             << QString::fromLatin1(m.key) << p.chunk << p.range;
    }
    void argsMemberTwiceReadsTheFirst()
    {
        QFETCH(QByteArray, clean);
        QFETCH(QByteArray, repeated);
        QFETCH(QString, key);
        QFETCH(int, chunkBytes);
        QFETCH(int, rangeBytes);
        int touched = 0;
        // Every kernel (the events holding args).
        const QByteArray dup = kinetoDocument([&](int, const QByteArray &text) {
            if (!text.contains(clean))
                return text;
            ++touched;
            return QByteArray(text).replace(clean, repeated);
        });
        const TorchReadPlan plan{size_t(chunkBytes), rangeBytes};
        const TorchTrace got = parseTorchTraceBytes(dup, QStringLiteral("torch_profile.json"), {}, plan);
        const TorchTrace want = parseTorchTraceBytes(kinetoDocument(), QStringLiteral("torch_profile.json"), {}, plan);
        QCOMPARE(numbers(got), numbers(want));
        if (key == QLatin1String("correlation")) {  // the host lanes' launch join reads the first too
            const HostLanes *lanes = got.timeline.files.at(0).hostLanes.get();
            QVERIFY(lanes && !lanes->gpuByPlace.empty());
            for (const GpuCorrelation &g : lanes->gpuByPlace)
                QCOMPARE(g.correlation, qint64(1));
        }
        const auto warnings =
            matching(got.diagnostics, QStringLiteral("has the args member \"%1\" more than once").arg(key));
        QVERIFY2(warnings.size() == 1, qPrintable(allDiagnostics(got.diagnostics)));
        const Diagnostic &d = *warnings.front();
        QCOMPARE(d.severity, Severity::Warning);
        QCOMPARE(d.file, QStringLiteral("torch_profile.json"));
        QCOMPARE(d.line, qint64(4));
        QVERIFY(d.message.contains(QStringLiteral("the workbench reads the first value")));
        QVERIFY2(d.message.endsWith(QStringLiteral("; %1 events in all repeat an args member").arg(touched)),
                 qPrintable(d.message));
        QVERIFY(matching(want.diagnostics, QStringLiteral("more than once")).isEmpty());
    }

    // The run fixture: every file with keys or columns twice; the reference equals the oracle
    // there (tst_referencewing, tst_referenceentries, tst_runfolders), and each file warns once.
    void runFixtureWarnsOncePerFile()
    {
        const QString dir = test::dataPath(QStringLiteral("runs/duplicates-last-wins"));
        const TorchTrace torch = parseTorchTrace(dir);
        QCOMPARE(matching(torch.diagnostics, QStringLiteral("more than once")).size(), 1);
        QCOMPARE(torch.reference.tokensPerSec, std::optional<double>(1234.5));  // the metadata's last value
        const KernelTrace kernels = parseKernelTraces(dir);
        QCOMPARE(matching(kernels.diagnostics, QStringLiteral("names the column \"Start_Timestamp\" 2 times (columns 5, 7)"))
                     .size(),
                 1);
    }

    // rocprofv3 JSON records: a member twice is read as its last value (a dispatch 360 times
    // longer first, the right one last), the one warning names the record's line and the member.
    void rocprofRecordReadsTheLastValue_data()
    {
        QTest::addColumn<QByteArray>("second");       // the second dispatch record, a member twice
        QTest::addColumn<QByteArray>("member");
        QTest::addColumn<QByteArray>("cleanSecond");  // what json.loads makes of it
        const QByteArray info1 = R"("dispatch_info": {"agent_id": {"handle": 11}, "queue_id": {"handle": 3}, "kernel_id": 1})";
        const QByteArray info2 = R"("dispatch_info": {"agent_id": {"handle": 11}, "kernel_id": 2})";
        const QByteArray corr = R"("correlation_id": {"internal": 1, "external": 0})";
        // The first copies make the kernel 360 times longer, or another kernel on another queue.
        QTest::newRow("end_timestamp")
            << QByteArray(R"({"start_timestamp": 20000, "end_timestamp": 1820000, "thread_id": 4242, )" + corr + ", " +
                          info1 + R"(, "end_timestamp": 25000})")
            << QByteArray("end_timestamp")
            << QByteArray(R"({"start_timestamp": 20000, "thread_id": 4242, )" + corr + ", " + info1 +
                          R"(, "end_timestamp": 25000})");
        QTest::newRow("dispatch_info: the last object whole")
            << QByteArray(R"({"start_timestamp": 20000, "end_timestamp": 25000, "thread_id": 4242, )" + corr + ", " +
                          info1 + ", " + info2 + "}")
            << QByteArray("dispatch_info")
            << QByteArray(R"({"start_timestamp": 20000, "end_timestamp": 25000, "thread_id": 4242, )" + corr + ", " +
                          info2 + "}");
        QTest::newRow("agent_id inside dispatch_info")
            << QByteArray(R"({"start_timestamp": 20000, "end_timestamp": 25000, "thread_id": 4242, )" + corr +
                          R"(, "dispatch_info": {"agent_id": {"handle": 99}, "kernel_id": 2, "agent_id": {"handle": 11}}})")
            << QByteArray("dispatch_info.agent_id")
            << QByteArray(R"({"start_timestamp": 20000, "end_timestamp": 25000, "thread_id": 4242, )" + corr + ", " +
                          info2 + "}");
        QTest::newRow("external inside correlation_id")
            << QByteArray(R"({"start_timestamp": 20000, "end_timestamp": 25000, "thread_id": 4242, )"
                          R"("correlation_id": {"internal": 1, "external": 7, "external": 0}, )" + info2 + "}")
            << QByteArray() << QByteArray(R"({"start_timestamp": 20000, "end_timestamp": 25000, "thread_id": 4242, )" +
                                          corr + ", " + info2 + "}");
    }
    void rocprofRecordReadsTheLastValue()
    {
        QFETCH(QByteArray, second);
        QFETCH(QByteArray, member);
        QFETCH(QByteArray, cleanSecond);
        const QByteArray first = dispatchText(10000, 15000, 1), third = dispatchText(30000, 36000, 1);
        const RocprofRead got(rocprofDocument({first, second, third}));
        const RocprofRead want(rocprofDocument({first, cleanSecond, third}));
        QCOMPARE(got.summary(), want.summary());
        QVERIFY(matching(want.trace.diagnostics, QStringLiteral("more than once")).isEmpty());
        if (member.isEmpty())
            return;  // a member the reader does not count (one level further down): read as the last
        const auto warnings = matching(got.trace.diagnostics, QStringLiteral("has the member \"%1\" more than once")
                                                                  .arg(QString::fromLatin1(member)));
        QVERIFY2(warnings.size() == 1, qPrintable(allDiagnostics(got.trace.diagnostics)));
        QCOMPARE(warnings.front()->line, qint64(3));  // the second record's line
        QVERIFY(warnings.front()->message.startsWith(
            QStringLiteral("a buffer_records.kernel_dispatch record at line 3, column 1")));
        QVERIFY(warnings.front()->message.contains(QStringLiteral("the last value is used, as Python's json does")));
    }

    void rocprofCountsRecordsOnce()
    {
        QList<QByteArray> records;
        for (int i = 0; i < 4; ++i) {
            QByteArray r = dispatchText(10000 * (i + 1), 10000 * (i + 1) + 4000, 1);
            r.chop(1);
            records << r + R"(, "thread_id": 7, "thread_id": 4242})";
        }
        const RocprofRead got(rocprofDocument(records));
        const auto warnings = matching(got.trace.diagnostics, QStringLiteral("more than once"));
        QCOMPARE(warnings.size(), 1);
        QVERIFY2(warnings.front()->message.endsWith(QStringLiteral("; 4 records in all have a member more than once")),
                 qPrintable(warnings.front()->message));
    }
};

QTEST_GUILESS_MAIN(TestDuplicateKeys)
#include "tst_duplicatekeys.moc"
