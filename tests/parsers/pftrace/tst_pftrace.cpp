// Tests for Perfetto traces (`rocprofv3 --output-format pftrace`) read as a kernel trace (issue 25).
// Fixtures (tests/data/pftrace, see PROVENANCE.md): csc_taylor_results.pftrace is a real rocprofv3
// pftrace from a public course (checked against scripts/pftrace_count.py); the others are written
// by scripts/make_pftrace.py the way rocprofv3's writer writes them (interned names, incremental
// clock, per-agent stream tracks, per-thread tracks): synthetic.pftrace is the run of
// tests/data/rocprofv3json/synthetic_results.json, 908_first3000.pftrace.gz the pftrace of the
// real JSON cut (the expectation: the pftrace gives the kernels of the same run's JSON),
// hip_only.pftrace that run without its dispatches.
#include "apitraceparser.h"
#include "io/runinventory.h"
#include "kernels/accumulator.h"
#include "kernels/namepool.h"
#include "kerneltraceparser.h"
#include "pftrace/pftracereader.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <map>
#include <tuple>

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

struct Direct {
    KernelTrace trace;
    kernels::NamePool names;
    kernels::Accumulator workbench;
    ReadOutcome outcome = ReadOutcome::Unusable;

    explicit Direct(const QByteArray &bytes)
    {
        workbench.reading = &trace.workbench;
        KernelSink sink{names, nullptr, workbench, 0};
        outcome = readPftraceBytes(QByteArrayView(bytes), QStringLiteral("bad.pftrace"), sink, trace);
    }
};

QByteArray varint(quint64 v)
{
    QByteArray out;
    do {
        char b = char(v & 0x7f);
        v >>= 7;
        if (v)
            b = char(b | 0x80);
        out.append(b);
    } while (v);
    return out;
}

/// One Trace.packet field around `body`.
QByteArray packet(const QByteArray &body)
{
    return QByteArray(1, '\x0a') + varint(quint64(body.size())) + body;
}

} // namespace

class TestPftrace : public QObject
{
    Q_OBJECT

private slots:
    /// The synthetic run: the pftrace gives exactly the kernels of its JSON (no overlapping
    /// dispatches, so rocprofv3's overlap fix changes nothing); " [clone .kd]" and ".kd" dropped.
    void sameAsJson()
    {
        const KernelTrace p = readAlone(test::dataPath(QStringLiteral("pftrace/synthetic.pftrace")));
        const KernelTrace j = readAlone(test::dataPath(QStringLiteral("rocprofv3json/synthetic_results.json")));
        QVERIFY2(p.workbench.rowsUsed > 0, qPrintable(allDiagnostics(p)));
        const Summary a = summarise(p), b = summarise(j);
        QVERIFY(a.perName == b.perName);
        QVERIFY(a.perName.count("reduce(float*, int)") == 1);
        QCOMPARE(a.rowsUsed, qint64(54));
        QCOMPARE(a.totalNs, b.totalNs);
        QCOMPARE(a.firstStartNs, b.firstStartNs);
        QCOMPARE(a.lastEndNs, b.lastEndNs);
        QCOMPARE(a.agents, b.agents);
        QCOMPARE(p.files.size(), size_t(1));
        QCOMPARE(p.files[0].format, QStringLiteral("pftrace"));
        QVERIFY(!p.referenceFileFound);
        QCOMPARE(p.reference.rowsUsed, qint64(0));
        QCOMPARE(p.timeline.files.size(), size_t(1));
        QCOMPARE(p.timeline.files[0].devices.size(), size_t(2));
    }

    /// HIP slices are runtime calls, marker slices roctx ranges, with the JSON's times.
    void hostActivity()
    {
        const KernelTrace p = readAlone(test::dataPath(QStringLiteral("pftrace/synthetic.pftrace")));
        const KernelTrace j = readAlone(test::dataPath(QStringLiteral("rocprofv3json/synthetic_results.json")));
        QCOMPARE(p.host.files, QStringList{QStringLiteral("synthetic.pftrace")});
        QCOMPARE(p.host.runtimeCalls.size(), j.host.runtimeCalls.size());
        auto calls = [](const HostActivity &h) {
            std::vector<std::pair<qint64, qint64>> out;
            for (const TimeInterval &i : h.runtimeCalls)
                out.emplace_back(i.startNs, i.endNs);
            std::sort(out.begin(), out.end());
            return out;
        };
        QVERIFY(calls(p.host) == calls(j.host));
        auto ranges = [](const HostActivity &h) {
            std::vector<std::tuple<QString, qint64, qint64, qint64>> out;
            for (const MarkerRange &r : h.ranges)
                out.emplace_back(r.name, r.thread, r.startNs, r.endNs);
            std::sort(out.begin(), out.end());
            return out;
        };
        QCOMPARE(p.host.ranges.size(), size_t(6));
        QVERIFY(ranges(p.host) == ranges(j.host));
        QCOMPARE(apiTracesFrom(p.host).steps.size(), size_t(3));
    }

    /// The real MI350X cut written as rocprofv3's pftrace: every dispatch, the same names and
    /// calls; the busy time is the JSON's less what the writer's overlap fix cut from the 13
    /// overlapping pairs (900867734 ns, computed by the same rule in Python, against 900869261).
    void realCutAsPftrace()
    {
        const KernelTrace p = readAlone(test::dataPath(QStringLiteral("pftrace/908_first3000.pftrace.gz")));
        const KernelTrace j = readAlone(test::dataPath(QStringLiteral("rocprofv3json/908_first3000_results.json.gz")));
        QVERIFY2(p.workbench.rowsUsed > 0, qPrintable(allDiagnostics(p)));
        const Summary a = summarise(p), b = summarise(j);
        QCOMPARE(a.rowsUsed, qint64(3000));
        QCOMPARE(a.perName.size(), b.perName.size());
        for (const auto &[name, stats] : b.perName) {
            QVERIFY2(a.perName.count(name), name.c_str());
            QCOMPARE(a.perName.at(name).first, stats.first);
        }
        QCOMPARE(a.totalNs, qint64(900867734));
        QCOMPARE(a.firstStartNs, b.firstStartNs);
        QCOMPARE(a.lastEndNs, b.lastEndNs);
        QCOMPARE(a.agents, b.agents);
        QVERIFY(p.files[0].compressed);
    }

    /// A real rocprofv3 pftrace (LUMI, MI250X, `rocprofv3 -r --output-format pftrace`; absolute
    /// BOOTTIME stamps, "COMPUTE AGENT [4] QUEUE [0]" tracks): its dispatches as an independent
    /// decoder counts them (python3 scripts/pftrace_count.py), the .kd suffixes dropped.
    void realRocprofv3Pftrace()
    {
        const KernelTrace p = readAlone(test::dataPath(QStringLiteral("pftrace/csc_taylor_results.pftrace")));
        QVERIFY2(p.workbench.rowsUsed > 0, qPrintable(allDiagnostics(p)));
        const Summary a = summarise(p);
        QCOMPARE(a.rowsUsed, qint64(64));
        QCOMPARE(a.totalNs, qint64(7540118525));
        QCOMPARE(a.lastEndNs - a.firstStartNs, qint64(8596051443));
        const std::map<std::string, std::pair<quint64, qint64>> expected{
            {"__amd_rocclr_fillBufferAligned", {3, 1060329}},
            {"__amd_rocclr_initHeap", {1, 9440}},
            {"taylor_base(float*, float*, unsigned long, unsigned long)", {20, 1321201431}},
            {"taylor_for_consecutive(float*, float*, unsigned long, unsigned long)", {20, 3607669238}},
            {"taylor_for_strided(float*, float*, unsigned long, unsigned long)", {20, 2610178087}},
        };
        QVERIFY(a.perName == expected);
        QCOMPARE(a.agents.size(), qsizetype(1));
        QCOMPARE(p.host.runtimeCalls.size(), size_t(791));
        QVERIFY(p.host.ranges.empty());
    }

    void inventory_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("role");
        const QByteArray synthetic = test::readAll(test::dataPath(QStringLiteral("pftrace/synthetic.pftrace")));
        const QByteArray gz = test::readAll(test::dataPath(QStringLiteral("pftrace/908_first3000.pftrace.gz")));
        QTest::newRow(".pftrace") << QStringLiteral("run.pftrace") << synthetic << int(InputRole::Pftrace);
        QTest::newRow(".perfetto-trace") << QStringLiteral("run.perfetto-trace") << synthetic << int(InputRole::Pftrace);
        QTest::newRow(".pb") << QStringLiteral("trace.pb") << synthetic << int(InputRole::Pftrace);
        QTest::newRow(".pftrace.gz") << QStringLiteral("run.pftrace.gz") << gz << int(InputRole::Pftrace);
        QTest::newRow("random bytes named .pftrace")
            << QStringLiteral("junk.pftrace") << QByteArray("\x7f" "ELF\x02\x01\x01\x00", 8) << int(InputRole::Other);
        QTest::newRow("text named .pftrace") << QStringLiteral("notes.pftrace") << QByteArray("hello\n")
                                             << int(InputRole::Other);
        QTest::newRow("pftrace bytes, other name") << QStringLiteral("trace.bin") << synthetic << int(InputRole::Other);
    }

    /// Known by its first bytes (tag 0x0a and a plausible length) under its usual names.
    void inventory()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, bytes);
        QFETCH(int, role);
        QTemporaryDir tmp;
        QFile f(QDir(tmp.path()).filePath(name));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes);
        f.close();
        const RunInventory inv = RunInventory::scanFolder(tmp.path());
        QVERIFY(inv.find(name));
        QCOMPARE(int(inv.find(name)->role), role);
        QCOMPARE(inv.find(name)->read, role == int(InputRole::Pftrace));
        QCOMPARE(inv.pftraces().size(), size_t(role == int(InputRole::Pftrace) ? 1 : 0));
    }

    void badFiles_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("severity");
        QTest::addColumn<QString>("says");
        QTest::addColumn<qint64>("kernels");
        const QByteArray good = test::readAll(test::dataPath(QStringLiteral("pftrace/synthetic.pftrace")));
        QTest::newRow("empty") << QByteArray() << int(Severity::Warning) << QStringLiteral("empty") << qint64(0);
        QTest::newRow("random bytes") << QByteArray("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", 16) << int(Severity::Warning)
                                      << QStringLiteral("not a Perfetto trace") << qint64(0);
        QTest::newRow("a JSON named .pftrace") << QByteArray("{\"traceEvents\": []}") << int(Severity::Warning)
                                               << QStringLiteral("not a Perfetto trace") << qint64(0);
        QTest::newRow("cut inside the first packet") << good.left(10) << int(Severity::Error)
                                                     << QStringLiteral("truncated") << qint64(0);
        QTest::newRow("truncated") << good.left(good.size() - 7) << int(Severity::Error)
                                   << QStringLiteral("cut short") << qint64(53);
        QTest::newRow("garbage after the packets") << good + QByteArray("\x12\x03" "abc", 5) << int(Severity::Error)
                                                   << QStringLiteral("breaks off") << qint64(54);
        // Valid framing, a packet body that is no protobuf (a varint that never ends).
        QTest::newRow("malformed packet") << packet(QByteArray("\x08\xff\xff", 3)) + good << int(Severity::Warning)
                                          << QStringLiteral("malformed") << qint64(54);
        // One HIP slice, inline names: no kernels, a runtime call.
        const QByteArray hip = QByteArray("\xb2\x01\x07hip_api", 10) + QByteArray("\x48\x01\x58\x05", 4) +
                               QByteArray("\xba\x01\x0bhipMemcpyAs", 14);
        QTest::newRow("no kernel slices") << packet(QByteArray("\x40\x64\x5a", 3) + varint(quint64(hip.size())) + hip) +
                                                 packet(QByteArray("\x40\xc8\x01\x5a\x04\x48\x02\x58\x05", 9))
                                          << int(Severity::Warning) << QStringLiteral("no kernel slices") << qint64(0);
        const QByteArray gz = test::readAll(test::dataPath(QStringLiteral("pftrace/908_first3000.pftrace.gz")));
        QTest::newRow("truncated gzip") << gz.left(gz.size() / 2) << int(Severity::Error) << QStringLiteral("read error")
                                        << qint64(-1);
    }

    /// Bad files: a diagnostic naming the file and the byte offset; never a crash.
    void badFiles()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(int, severity);
        QFETCH(QString, says);
        QFETCH(qint64, kernels);
        Direct d(bytes);
        QVERIFY(!d.trace.diagnostics.empty());
        int worst = 0;
        bool said = false;
        for (const Diagnostic &diag : d.trace.diagnostics) {
            QCOMPARE(diag.file, QStringLiteral("bad.pftrace"));
            worst = std::max(worst, int(diag.severity));
            said = said || diag.message.contains(says);
        }
        QVERIFY2(said, qPrintable(allDiagnostics(d.trace)));
        QCOMPARE(worst, severity);
        QCOMPARE(d.trace.files.size(), size_t(1));
        if (kernels >= 0)
            QCOMPARE(d.trace.workbench.rowsUsed, kernels);
        else
            QVERIFY(d.trace.workbench.rowsUsed > 0);
    }

    /// TracePacket.compressed_packets (a zlib stream of packets, as Kineto's sessions write it):
    /// the same kernels as the plain file.
    void compressedPackets()
    {
        const QByteArray good = test::readAll(test::dataPath(QStringLiteral("pftrace/synthetic.pftrace")));
        const QByteArray zlib = qCompress(good, 9).mid(4); // qCompress: 4-byte length, then zlib
        const QByteArray wrapped = varint(50 << 3 | 2) + varint(quint64(zlib.size())) + zlib;
        Direct plain(good), compressed(packet(wrapped));
        QVERIFY2(compressed.trace.workbench.rowsUsed > 0, qPrintable(allDiagnostics(compressed.trace)));
        QCOMPARE(compressed.trace.workbench.rowsUsed, plain.trace.workbench.rowsUsed);
        QCOMPARE(compressed.trace.workbench.totalNs, plain.trace.workbench.totalNs);
        QCOMPARE(compressed.trace.host.runtimeCalls.size(), plain.trace.host.runtimeCalls.size());
        // A block that does not inflate: said, not a crash.
        Direct broken(packet(varint(50 << 3 | 2) + varint(4) + QByteArray("abcd")) + good);
        QCOMPARE(broken.trace.workbench.rowsUsed, plain.trace.workbench.rowsUsed);
        QVERIFY(allDiagnostics(broken.trace).contains(QStringLiteral("do not inflate")));
    }

    /// All BEGINs of a group before its ENDs (PyTorch's encoder): paired in time order.
    void beginsThenEnds()
    {
        auto field = [](int num, const QByteArray &payload) {
            return varint(quint64(num) << 3 | 2) + varint(quint64(payload.size())) + payload;
        };
        auto num = [](int n, quint64 v) { return varint(quint64(n) << 3) + varint(v); };
        QByteArray trace;
        const char *names[] = {"a", "b", "c"};
        for (int i = 0; i < 3; ++i)
            trace += packet(num(8, quint64(1000 + 100 * i)) +
                            field(11, field(22, "kernel") + num(9, 1) + field(23, names[i]) + num(11, 9)));
        for (int i = 0; i < 3; ++i)
            trace += packet(num(8, quint64(1010 + 100 * i + 10 * i)) + field(11, num(9, 2) + num(11, 9)));
        Direct d(trace);
        QCOMPARE(d.trace.workbench.rowsUsed, qint64(3));
        QCOMPARE(d.trace.workbench.totalNs, qint64(10 + 20 + 30));
        // Each name kept its own duration: "a" 10, "b" 20, "c" 30.
        const std::vector<std::string> names2 = d.names.take();
        for (size_t id = 0; id < names2.size(); ++id)
            QCOMPARE(d.trace.workbench.perName[id].totalNs, qint64(10 * (names2[id][0] - 'a' + 1)));
    }

    /// Packets that need their sequence's interned data before the sequence set it are left out.
    void needsIncrementalState()
    {
        auto field = [](int num, const QByteArray &payload) {
            return varint(quint64(num) << 3 | 2) + varint(quint64(payload.size())) + payload;
        };
        auto num = [](int n, quint64 v) { return varint(quint64(n) << 3) + varint(v); };
        const QByteArray begin = num(10, 3) + num(13, 2) + num(8, 100) +
                                 field(11, field(22, "kernel_dispatch") + num(9, 1) + field(23, "k") + num(11, 1));
        const QByteArray end = num(10, 3) + num(13, 2) + num(8, 200) + field(11, num(9, 2) + num(11, 1));
        Direct before(packet(begin) + packet(end));
        QCOMPARE(before.trace.workbench.rowsUsed, qint64(0));
        QVERIFY(allDiagnostics(before.trace).contains(QStringLiteral("2 packets need interned data")));
        Direct after(packet(num(10, 3) + num(13, 1)) + packet(begin) + packet(end));
        QCOMPARE(after.trace.workbench.rowsUsed, qint64(1));
    }

    /// 300 damaged copies (a byte overwritten, or the file cut there): one file entry each, no
    /// crash.
    void damagedCopiesNeverCrash()
    {
        const QByteArray good = test::readAll(test::dataPath(QStringLiteral("pftrace/synthetic.pftrace")));
        const qint64 intact = Direct(good).trace.workbench.rowsUsed;
        const char replacements[] = {'\0', '"', '}', '\x0a', '\xff', '9'};
        for (int i = 0; i < 300; ++i) {
            const qsizetype at = qsizetype((quint64(i) * 7919u) % quint64(good.size()));
            QByteArray bad = i % 5 == 4 ? good.left(at) : good;
            if (i % 5 != 4)
                bad[at] = replacements[i % 6];
            Direct d(bad);
            QCOMPARE(d.trace.files.size(), size_t(1));
            // A changed byte may turn a HIP slice's category id into the kernels' one: kernels may
            // differ either way, but each damaged packet stream is said.
            QVERIFY(d.trace.workbench.rowsUsed < intact + 10);
        }
    }

    /// Inline (not interned) names and categories, absolute timestamps, no track descriptors:
    /// what another writer may do. The agent comes from the "agent" annotation.
    void inlineNames()
    {
        auto field = [](int num, const QByteArray &payload) {
            return varint(quint64(num) << 3 | 2) + varint(quint64(payload.size())) + payload;
        };
        auto num = [](int n, quint64 v) { return varint(quint64(n) << 3) + varint(v); };
        const QByteArray agent = field(4, field(10, "agent") + field(6, "GPU 3"));
        const QByteArray begin = num(8, 5000) + field(11, field(22, "kernel_dispatch") + num(9, 1) + field(23, "k.kd") +
                                                              num(11, 77) + agent);
        const QByteArray end = num(8, 5600) + field(11, num(9, 2) + num(11, 77));
        Direct d(packet(begin) + packet(end));
        QCOMPARE(d.trace.workbench.rowsUsed, qint64(1));
        QCOMPARE(d.trace.workbench.totalNs, qint64(600));
        QCOMPARE(d.trace.names.size(), size_t(0)); // names are handed over by the entry's finish()
        QCOMPARE(d.names.view(0), std::string_view("k"));
        QCOMPARE(d.workbench.agents.agents.size(), size_t(1));
        QCOMPARE(d.workbench.agents.agents[0].label, std::string("Agent 3"));
    }
};

QTEST_GUILESS_MAIN(TestPftrace)
#include "tst_pftrace.moc"
