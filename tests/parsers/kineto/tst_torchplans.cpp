// The torch trace parsed from memory and by every read plan: every torch fixture of tests/data
// gives the same TorchTrace from its file and from its bytes in memory, and every plan (chunk
// size, byte ranges read on helper threads, the two-thread pipeline that small chunks start)
// yields the same events, in the same order, as one pass in one chunk.

#include "torchtraceparser.h"
#include "testsupport.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <optional>
#include <zlib.h>

using namespace goblin;
using goblin::test::dataPath;

namespace {

/// Every file of tests/data that the torch parser reads: the torch fixtures, the run folders'
/// traces and the fuzz regressions (small ones, so that tiny chunks stay quick).
QStringList torchFixtures(qint64 maxBytes)
{
    QStringList out;
    const QDir root(dataPath(QString()));
    QDirIterator it(root.path(), QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QFileInfo f(it.next());
        const QString name = f.fileName();
        const bool torch = name.startsWith(QLatin1String("torch_profile.json")) || name.contains(QLatin1String(".pt.trace.json")) ||
                           (f.path().endsWith(QLatin1String("/torch")) && name.contains(QLatin1String(".json"))) ||
                           f.path().endsWith(QLatin1String("fuzz-regressions/torchtrace"));
        if (torch && f.size() <= maxBytes)
            out << root.relativeFilePath(f.filePath());
    }
    out.sort();
    return out;
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot open %s", qPrintable(path));
    return f.readAll();
}

/// The document as the parser sees it (gzip undone; bad gzip left as it is).
QByteArray decompressed(const QByteArray &bytes)
{
    if (bytes.size() < 2 || quint8(bytes[0]) != 0x1f || quint8(bytes[1]) != 0x8b)
        return bytes;
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
        return bytes;
    QByteArray out;
    char buffer[65536];
    z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(bytes.constData()));
    z.avail_in = uInt(bytes.size());
    int rc = Z_OK;
    while (rc == Z_OK) {
        z.next_out = reinterpret_cast<Bytef *>(buffer);
        z.avail_out = sizeof buffer;
        rc = inflate(&z, Z_NO_FLUSH);
        out.append(buffer, qsizetype(sizeof buffer - z.avail_out));
    }
    inflateEnd(&z);
    return rc == Z_STREAM_END && z.avail_in == 0 ? out : bytes;
}

QString number(const std::optional<double> &v, bool exact)
{
    if (!v)
        return QStringLiteral("None");
    if (exact || !std::isfinite(*v))
        return QString::number(*v, 'g', 17);
    return QString::number(*v, 'g', 11);  // sums over byte ranges are added range by range
}

QString readingDigest(const TorchReading &r, bool exact)
{
    return QStringLiteral("tokens/s %1, MFU %2, version %3, step %4 (%5, %6 steps), busy %7 (%8), failed %9 %10\n")
        .arg(number(r.tokensPerSec, exact), number(r.mfuPct, exact),
             r.pytorchVersion.isUndefined() ? QStringLiteral("undefined") : r.pytorchVersion.toVariant().toString(),
             number(r.stepTimeSeconds, exact), r.stepTimeSource)
        .arg(r.profilerSteps)
        .arg(number(r.hostBusyFraction, exact), r.hostBusySource)
        .arg(r.readFailed)
        .arg(r.readFailure);
}

/// A timeline file's traits (tracetraits.h, issue 23 item 3): counts, each replay's GPU events in
/// launch order, and the identity, so that every plan must give them exactly.
QString traitsDigest(const TraceTraits &t)
{
    QStringList perLaunch, memory, units;
    for (const std::uint32_t n : t.graphs.gpuEventsPerLaunch)
        perLaunch << QString::number(n);
    for (const qint64 m : t.identity.deviceMemoryBytes)
        memory << QString::number(m);
    for (const int u : t.identity.deviceComputeUnits)
        units << QString::number(u);
    const TraceIdentity &id = t.identity;
    return QStringLiteral("traits: graphs %1 %2 %3 %4 [%5] %6; phases %7 %8 %9 %10 %11 %12; rank %13 of %14 %15 '%16' "
                          "[%17] [%18] [%19] %20\n")
        .arg(t.graphs.launches)
        .arg(t.graphs.launchesWithGpuEvents)
        .arg(t.graphs.gpuEventsInGraphs)
        .arg(t.graphs.captures)
        .arg(perLaunch.join(QLatin1Char(',')))
        .arg(t.graphs.launchName)
        .arg(t.phases.cpuOps)
        .arg(t.phases.backwardOps)
        .arg(t.phases.optimizerOps)
        .arg(t.phases.optimizerSteps)
        .arg(t.phases.dataLoaderOps)
        .arg(t.phases.forwardModules)
        .arg(id.rank ? QString::number(*id.rank) : QStringLiteral("-"))
        .arg(id.worldSize ? QString::number(*id.worldSize) : QStringLiteral("-"))
        .arg(id.backend, id.processGroup, id.deviceNames.join(QLatin1Char(',')), memory.join(QLatin1Char(',')),
             units.join(QLatin1Char(',')), id.runtimeApi);
}

/// Everything a TorchTrace holds, events of the GPU timeline one per line in their order.
/// `exact`: numbers to the last bit and diagnostics in order (same plan); otherwise sums to 11
/// digits and diagnostics as a set (a round's structural warnings may precede its events').
QString digest(const TorchTrace &t, bool exact)
{
    QString out = QStringLiteral("reference ") + readingDigest(t.reference, exact) + QStringLiteral("workbench ") +
                  readingDigest(t.workbench, exact);
    const InputFileInfo &f = t.file;
    out += QStringLiteral("file %1 %2 %3 bytes, compressed %4, rows %5 read %6 skipped, dialect %7\n")
               .arg(f.relativePath, f.format)
               .arg(f.sizeBytes)
               .arg(f.compressed)
               .arg(f.rowsRead)
               .arg(f.rowsSkipped)
               .arg(f.dialect);
    out += QStringLiteral("events %1, reference file %2, cancelled %3\n").arg(t.eventCount).arg(t.referenceFileFound).arg(t.cancelled);
    QStringList diagnostics;
    for (const Diagnostic &d : t.diagnostics)
        diagnostics << QStringLiteral("[%1] %2:%3: %4").arg(severityName(d.severity), d.file).arg(d.line).arg(d.message);
    if (!exact)
        diagnostics.sort();
    out += diagnostics.join(QLatin1Char('\n')) + QLatin1Char('\n');
    for (const GpuTimelineFile &file : t.timeline.files)
        out += test::timelineFileDigest(file) + traitsDigest(file.traits);
    return out;
}

/// Where two digests first differ, for the failure message.
QString firstDifference(const QString &a, const QString &b)
{
    const QStringList x = a.split(QLatin1Char('\n')), y = b.split(QLatin1Char('\n'));
    for (qsizetype i = 0; i < std::max(x.size(), y.size()); ++i) {
        const QString l = i < x.size() ? x[i] : QStringLiteral("<end>");
        const QString r = i < y.size() ? y[i] : QStringLiteral("<end>");
        if (l != r)
            return QStringLiteral("line %1:\n  %2\n  %3").arg(i + 1).arg(l, r);
    }
    return {};
}

} // namespace

class TestTorchPlans : public QObject
{
    Q_OBJECT

private slots:
    // The window's reading: the host lanes are kept (torchtraceparser.h, setKeepHostLanes).
    void initTestCase() { setKeepHostLanes(true); }
    void memoryReadsLikeTheFile_data();
    void memoryReadsLikeTheFile();
    void everyPlanYieldsTheSameEvents_data();
    void everyPlanYieldsTheSameEvents();
    void smallInputsNeedNoBigBuffers();
    void cleanupTestCase();

private:
    int m_planRows = 0;
    int m_rowsReadInRanges = 0;
    int m_gzipRowsReadInRanges = 0;  // gzip documents cut into segments of the inflated stream
};

void TestTorchPlans::memoryReadsLikeTheFile_data()
{
    QTest::addColumn<QString>("relative");
    const QStringList fixtures = torchFixtures(qint64(8) << 20);
    QVERIFY(fixtures.size() >= 40);  // torch/, runs/, timeline/, window/, fuzz-regressions/
    for (const QString &f : fixtures)
        QTest::newRow(qPrintable(f)) << f;
}

void TestTorchPlans::memoryReadsLikeTheFile()
{
    QFETCH(QString, relative);
    const QString path = dataPath(relative);
    const QString name = QFileInfo(relative).fileName();
    const QByteArray bytes = readAll(path);
    const TorchTrace fromFile = parseTorchTraceFile(path, name);
    const TorchTrace fromMemory = parseTorchTraceBytes(bytes, name);
    const QString want = digest(fromFile, true);
    const QString got = digest(fromMemory, true);
    QVERIFY2(got == want, qPrintable(firstDifference(want, got)));
    QCOMPARE(fromMemory.parallelRanges, fromFile.parallelRanges);
}

void TestTorchPlans::everyPlanYieldsTheSameEvents_data()
{
    QTest::addColumn<QString>("relative");
    QTest::addColumn<bool>("decompress");
    // Up to 256 kB each (1-byte chunks cost a round per byte); gzip fixtures also decompressed
    // (a gzip document's ranges are segments of its inflated stream, a plain one's are seeked to).
    // The decompressed form too only within that size: the small gzip bomb inflates to megabytes
    // of which every plan would take 18 s (half the test, and past the timeout under ASan).
    for (const QString &f : torchFixtures(256 << 10)) {
        QTest::newRow(qPrintable(f)) << f << false;
        if (f.endsWith(QLatin1String(".gz")) && decompressed(readAll(dataPath(f))).size() <= (256 << 10))
            QTest::newRow(qPrintable(f + QStringLiteral(" (decompressed)"))) << f << true;
    }
}

void TestTorchPlans::everyPlanYieldsTheSameEvents()
{
    QFETCH(QString, relative);
    QFETCH(bool, decompress);
    QByteArray bytes = readAll(dataPath(relative));
    if (decompress)
        bytes = decompressed(bytes);
    const QString name = QStringLiteral("torch_profile.json");
    // One pass, one chunk, one thread.
    const TorchTrace base = parseTorchTraceBytes(bytes, name, {}, TorchReadPlan{size_t(1) << 30, 0});
    QCOMPARE(base.parallelRanges, 0);
    const QString want = digest(base, false);
    int mostRanges = 0;
    // Chunks of 1 and 7 bytes start the two-thread pipeline after 64 and 448 bytes (of the
    // inflated document, so for gzip too); 1021-byte chunks hand over to it after 65 kB, in the
    // middle of the larger documents; 4093 and more stay on one thread.
    const TorchReadPlan plans[] = {{1, 0},     {7, 0},    {1021, 0},   {4093, 0},
                                   {65536, 0}, {size_t(2) << 20, qint64(32) << 20},
                                   {7, 300},   {64, 1000}, {4096, 2500}, {size_t(1) << 20, 7000}};
    for (const TorchReadPlan &plan : plans) {
        if (plan.chunkBytes == 1 && bytes.size() > (64 << 10))
            continue;
        const TorchTrace t = parseTorchTraceBytes(bytes, name, {}, plan);
        mostRanges = std::max(mostRanges, t.parallelRanges);
        if (qEnvironmentVariableIsSet("GOBLIN_TEST_VERBOSE") && t.parallelRanges > 0)
            qInfo() << relative << decompress << plan.chunkBytes << plan.rangeBytes << t.parallelRanges;
        const QString got = digest(t, false);
        QVERIFY2(got == want, qPrintable(QStringLiteral("chunk %1, ranges %2: %3")
                                             .arg(plan.chunkBytes)
                                             .arg(plan.rangeBytes)
                                             .arg(firstDifference(want, got))));
    }
    // The same from the file, by the file's own plans: byte ranges of the file, and the pipeline
    // fed from the file (a gzip file inflated in small chunks).
    QTemporaryDir dir;
    const QString path = dir.filePath(name);
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    QCOMPARE(f.write(bytes), bytes.size());
    f.close();
    for (auto [chunk, range] : {std::pair<size_t, qint64>{4093, 2500}, {61, 0}}) {
        const TorchTrace file = parseTorchTraceFile(path, name, {}, chunk, range);
        mostRanges = std::max(mostRanges, file.parallelRanges);
        const QString got = digest(file, false);
        QVERIFY2(got == want, qPrintable(QStringLiteral("file, chunk %1, ranges %2: %3")
                                             .arg(chunk)
                                             .arg(range)
                                             .arg(firstDifference(want, got))));
    }
    ++m_planRows;
    if (mostRanges > 0)
        ++m_rowsReadInRanges;
    if (mostRanges > 0 && !decompress && relative.endsWith(QLatin1String(".gz")))
        ++m_gzipRowsReadInRanges;
}

void TestTorchPlans::smallInputsNeedNoBigBuffers()
{
    // A small input read from memory works in chunks of its own size: bytes at the end of the
    // input (an unfinished UTF-8 sequence, a truncated event) are still seen, and a gzip input
    // of a few bytes that inflates to more than its chunk is read whole.
    const QByteArray doc = "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"ts\": 1, \"dur\": 5},\n"
                           "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"b\xe4\xb8\", \"ts\": 9, \"dur\": 1}]}";
    const TorchTrace t = parseTorchTraceBytes(doc, QStringLiteral("small.json"));
    QCOMPARE(t.eventCount, qint64(2));
    QVERIFY(t.reference.readFailed);
    QVERIFY2(t.reference.readFailure.contains(QLatin1String("UnicodeDecodeError")), qPrintable(t.reference.readFailure));

    QByteArray big = "{\"traceEvents\": [";
    for (int i = 0; i < 20000; ++i)
        big += "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op\", \"ts\": " + QByteArray::number(i * 10) +
               ", \"dur\": 5},\n";
    big += "{}]}";
    QByteArray gz(big.size(), '\0');
    z_stream z{};
    QCOMPARE(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    z.next_in = reinterpret_cast<Bytef *>(big.data());
    z.avail_in = uInt(big.size());
    z.next_out = reinterpret_cast<Bytef *>(gz.data());
    z.avail_out = uInt(gz.size());
    QCOMPARE(deflate(&z, Z_FINISH), Z_STREAM_END);
    gz.resize(qsizetype(z.total_out));
    deflateEnd(&z);
    QVERIFY(big.size() > 4 * gz.size() + (64 << 10));  // more than one chunk once inflated
    const TorchTrace g = parseTorchTraceBytes(gz, QStringLiteral("small.json.gz"));
    QCOMPARE(g.eventCount, qint64(20001));
    QVERIFY(g.file.compressed);
    QCOMPARE(g.file.sizeBytes, qint64(gz.size()));
    QCOMPARE(digest(g, true).section(QLatin1Char('\n'), 0, 1),
             digest(parseTorchTraceBytes(big, QStringLiteral("small.json.gz")), true).section(QLatin1Char('\n'), 0, 1));
}

void TestTorchPlans::cleanupTestCase()
{
    // The ranged plans did cut documents into ranges read in parallel (not one pass each time).
    if (m_planRows >= 40) {  // (when the whole test ran)
        QVERIFY2(m_rowsReadInRanges >= 10, qPrintable(QString::number(m_rowsReadInRanges)));
        QVERIFY2(m_gzipRowsReadInRanges >= 3, qPrintable(QString::number(m_gzipRowsReadInRanges)));
    }
}

QTEST_GUILESS_MAIN(TestTorchPlans)
#include "tst_torchplans.moc"
