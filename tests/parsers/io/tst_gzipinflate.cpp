// Issue 25 item 4: `.gz` inputs inflated with ISA-L (zlib the fallback), on their own thread ahead
// of the reader. Every backend and every way of reading (inline, on the inflate thread with a
// ring of tiny chunks, with the default ring; from a file or from memory) must give the bytes
// gunzip gives, read concatenated members, and keep today's verdicts: a truncated stream names
// where it stops, bytes after the last member are trailing garbage, a corrupt stream is refused.

#include "io/bytesource.h"
#include "io/gzipinflater.h"
#include "torchtraceparser.h"
#include "testsupport.h"

#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QThread>
#include <QTest>

using namespace goblin;
using namespace goblin::io;
using goblin::test::readAll;
using goblin::test::readGunzipped;

Q_DECLARE_METATYPE(goblin::io::InflateBackend)

namespace {

// A small trace (6.8 KB compressed, one member) with its plain twin beside it, and a large one
// (1.2 MB compressed: past the size from which the default options inflate on a thread).
const char *const kSmallGz = "torch/hta_amd_mi250_minitoy_train_ROCm6_2_kineto.json.gz";
const char *const kSmallPlain = "torch/hta_amd_mi250_minitoy_train_ROCm6_2_kineto.json";
const char *const kLargeGz = "torch/tracelens_mi300_resnet_act_checkpoint_ddp_rank0.json.gz";

enum class Mode { Inline, AheadTiny, AheadDefault };

InflateOptions optionsFor(InflateBackend backend, Mode mode)
{
    InflateOptions o;
    o.backend = backend;
    switch (mode) {
    case Mode::Inline:
        o.aheadFromBytes = -1;
        o.compressedReadBytes = 1000;  // members and headers straddle the input buffer
        break;
    case Mode::AheadTiny:
        // A ring of two 3001-byte chunks: the reader waits for the inflater and the other way
        // round all the time, and reads straddle chunks.
        o.aheadFromBytes = 0;
        o.aheadMinThreads = 0;
        o.aheadChunkBytes = 3001;
        o.aheadChunks = 2;
        o.compressedReadBytes = 777;
        break;
    case Mode::AheadDefault:
        o.aheadFromBytes = 0;
        o.aheadMinThreads = 0;
        break;
    }
    return o;
}

QList<InflateBackend> backends()
{
    QList<InflateBackend> out{InflateBackend::Zlib};
    if (isalAvailable())
        out.prepend(InflateBackend::Isal);
    return out;
}

struct Reading {
    QByteArray bytes;
    QString problem;
    bool trailingGarbage = false;
    qint64 trailingGarbageOffset = -1;
    int members = 0;
    qint64 rawBytesRead = 0;
    bool ahead = false;
};

/// Everything a ByteSource gives for `input`, read `readBytes` at a time.
Reading readAllOf(const QByteArray &input, bool fromFile, InflateBackend backend, Mode mode, size_t readBytes,
                  QTemporaryDir &dir)
{
    Reading r;
    ByteSource source;
    source.setInflateOptions(optionsFor(backend, mode));
    QString error;
    bool opened = false;
    if (fromFile) {
        const QString path = dir.filePath(QStringLiteral("input.json.gz"));
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(input) != input.size())
            return r;
        f.close();
        opened = source.open(ByteOrigin::file(path), &error);
    } else {
        opened = source.open(ByteOrigin::bytes(input), &error);
    }
    if (!opened) {
        r.problem = QStringLiteral("open: ") + error;
        return r;
    }
    r.ahead = source.inflatesAhead();
    std::vector<char> buffer(readBytes);
    for (;;) {
        const size_t n = source.read(buffer.data(), readBytes);
        r.bytes.append(buffer.data(), qsizetype(n));
        if (n < readBytes)
            break;
    }
    if (source.read(buffer.data(), readBytes) != 0)  // the end stays the end
        r.problem += QStringLiteral(" [read after the end gave bytes]");
    r.problem = source.problem() + r.problem;
    r.trailingGarbage = source.trailingGarbage();
    r.trailingGarbageOffset = source.trailingGarbageOffset();
    r.members = source.gzipMembers();
    r.rawBytesRead = source.rawBytesRead();
    return r;
}

/// The rows every verdict test runs: each backend × each way of reading × file or memory.
void addReadingRows(const char *what)
{
    QTest::addColumn<InflateBackend>("backend");
    QTest::addColumn<int>("mode");
    QTest::addColumn<bool>("fromFile");
    const std::pair<Mode, const char *> modes[] = {
        {Mode::Inline, "inline"}, {Mode::AheadTiny, "ahead, tiny ring"}, {Mode::AheadDefault, "ahead, default ring"}};
    for (InflateBackend backend : backends())
        for (const auto &[mode, modeName] : modes)
            for (bool fromFile : {true, false})
                QTest::addRow("%s: %s, %s, %s", what, qPrintable(inflateBackendName(backend)), modeName,
                              fromFile ? "file" : "memory")
                    << backend << int(mode) << fromFile;
}

QString diagnosticsText(const TorchTrace &t)
{
    QString s;
    for (const Diagnostic &d : t.diagnostics)
        s += QStringLiteral("%1|%2|%3|%4\n").arg(int(d.severity)).arg(d.file).arg(d.line).arg(d.message);
    return s;
}

} // namespace

class TestGzipInflate : public QObject
{
    Q_OBJECT

private slots:
    void backendsAreKnown();
    void inflatesAsGunzipDoes_data();
    void inflatesAsGunzipDoes();
    void readsConcatenatedMembers_data() { addReadingRows("members"); }
    void readsConcatenatedMembers();
    void truncatedStreamSaysWhereItStops_data() { addReadingRows("truncated"); }
    void truncatedStreamSaysWhereItStops();
    void bytesAfterTheLastMemberAreTrailingGarbage_data() { addReadingRows("garbage"); }
    void bytesAfterTheLastMemberAreTrailingGarbage();
    void corruptStreamIsRefused_data() { addReadingRows("corrupt"); }
    void corruptStreamIsRefused();
    void smallInputsAreInflatedInline();
    void destroyingTheSourceStopsTheInflateThread();
    void parserReadsTheSameEventsFromPlainAndGzip_data();
    void parserReadsTheSameEventsFromPlainAndGzip();
    void parserNamesTheFileAndTheByteOfATruncation();
};

void TestGzipInflate::backendsAreKnown()
{
    // The build says which library it has; without ISA-L everything asks for it gets zlib.
    QCOMPARE(bestInflateBackend(), isalAvailable() ? InflateBackend::Isal : InflateBackend::Zlib);
    GzipInflater inflater(InflateBackend::Isal);
    QCOMPARE(inflater.backend(), bestInflateBackend());
    QCOMPARE(GzipInflater(InflateBackend::Zlib).backend(), InflateBackend::Zlib);
}

void TestGzipInflate::inflatesAsGunzipDoes_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<InflateBackend>("backend");
    QTest::addColumn<int>("mode");
    QTest::addColumn<bool>("fromFile");
    QTest::addColumn<int>("readBytes");
    const std::pair<Mode, const char *> modes[] = {
        {Mode::Inline, "inline"}, {Mode::AheadTiny, "ahead, tiny ring"}, {Mode::AheadDefault, "ahead, default ring"}};
    for (const char *fixture : {kSmallGz, kLargeGz})
        for (InflateBackend backend : backends())
            for (const auto &[mode, modeName] : modes)
                for (bool fromFile : {true, false})
                    for (int readBytes : {1, 4093, 2 << 20}) {
                        if (readBytes == 1 && QByteArray(fixture) == kLargeGz)
                            continue;  // 17 MB a byte at a time adds seconds, not coverage
                        QTest::addRow("%s: %s, %s, %s, reads of %d", fixture, qPrintable(inflateBackendName(backend)),
                                      modeName, fromFile ? "file" : "memory", readBytes)
                            << QString::fromLatin1(fixture) << backend << int(mode) << fromFile << readBytes;
                    }
}

void TestGzipInflate::inflatesAsGunzipDoes()
{
    QFETCH(QString, fixture);
    QFETCH(InflateBackend, backend);
    QFETCH(int, mode);
    QFETCH(bool, fromFile);
    QFETCH(int, readBytes);
    const QByteArray gz = readAll(test::dataPath(fixture));
    const QByteArray expected = readGunzipped(test::dataPath(fixture));
    QVERIFY(gz.size() > 1000);
    QVERIFY(expected.size() > gz.size());
    if (fixture == QLatin1String(kSmallGz))  // the fixture's plain twin: gunzip is not judging itself
        QCOMPARE(expected, readAll(test::dataPath(QString::fromLatin1(kSmallPlain))));
    QTemporaryDir dir;
    const Reading r = readAllOf(gz, fromFile, backend, Mode(mode), size_t(readBytes), dir);
    QCOMPARE(r.problem, QString());
    QCOMPARE(r.ahead, Mode(mode) != Mode::Inline);
    QCOMPARE(r.bytes.size(), expected.size());
    QVERIFY(r.bytes == expected);
    QCOMPARE(r.members, 1);
    QVERIFY(!r.trailingGarbage);
    QCOMPARE(r.trailingGarbageOffset, qint64(-1));
    QCOMPARE(r.rawBytesRead, qint64(gz.size()));
}

void TestGzipInflate::readsConcatenatedMembers()
{
    QFETCH(InflateBackend, backend);
    QFETCH(int, mode);
    QFETCH(bool, fromFile);
    // Three members, as `cat a.gz b.gz a.gz` makes (and gzip -c >> appends): the data is theirs
    // in order, whatever member boundary falls in whatever buffer.
    const QByteArray a = readAll(test::dataPath(QString::fromLatin1(kSmallGz)));
    const QByteArray b = readAll(test::dataPath(QStringLiteral("torch/gen_kineto.json.gz")));
    const QByteArray expected = readGunzipped(test::dataPath(QString::fromLatin1(kSmallGz))) +
                                readGunzipped(test::dataPath(QStringLiteral("torch/gen_kineto.json.gz"))) +
                                readGunzipped(test::dataPath(QString::fromLatin1(kSmallGz)));
    QTemporaryDir dir;
    const Reading r = readAllOf(a + b + a, fromFile, backend, Mode(mode), 65536, dir);
    QCOMPARE(r.problem, QString());
    QCOMPARE(r.members, 3);
    QVERIFY(!r.trailingGarbage);
    QCOMPARE(r.bytes.size(), expected.size());
    QVERIFY(r.bytes == expected);
}

void TestGzipInflate::truncatedStreamSaysWhereItStops()
{
    QFETCH(InflateBackend, backend);
    QFETCH(int, mode);
    QFETCH(bool, fromFile);
    const QByteArray gz = readAll(test::dataPath(QString::fromLatin1(kSmallGz)));
    const QByteArray plain = readGunzipped(test::dataPath(QString::fromLatin1(kSmallGz)));
    QTemporaryDir dir;
    // In the header, in the deflate data, in the 8-byte trailer; and a second member cut short.
    for (qsizetype keep : {qsizetype(5), gz.size() / 2, gz.size() - 3, gz.size() + 6}) {
        const QByteArray input = keep <= gz.size() ? gz.left(keep) : gz + gz.left(keep - gz.size());
        const Reading r = readAllOf(input, fromFile, backend, Mode(mode), 4096, dir);
        QVERIFY2(r.problem.startsWith(QStringLiteral("the compressed stream ends early (truncated .gz file)")),
                 qPrintable(QStringLiteral("cut at %1: %2").arg(keep).arg(r.problem)));
        QVERIFY2(r.problem.contains(QStringLiteral("stops at byte %1 of the file").arg(input.size())),
                 qPrintable(r.problem));
        QVERIFY2(r.problem.contains(QStringLiteral("after %1 decompressed bytes").arg(r.bytes.size())),
                 qPrintable(r.problem));
        // What came out before the cut is the file's beginning, nothing made up.
        const QByteArray whole = keep <= gz.size() ? plain : plain + plain;
        QVERIFY(r.bytes.size() <= whole.size() - (keep <= gz.size() ? 0 : 1));
        QVERIFY(whole.startsWith(r.bytes));
        if (keep == gz.size() / 2)
            QVERIFY(r.bytes.size() > 0);
        QVERIFY(!r.trailingGarbage);
        // Read a byte at a time, the cut gives the same bytes: what the decompressor had decoded
        // but not handed out when the input ran out is not lost (ISA-L decodes ahead).
        const Reading bytewise = readAllOf(input, fromFile, backend, Mode(mode), 1, dir);
        QCOMPARE(bytewise.bytes.size(), r.bytes.size());
        QCOMPARE(bytewise.problem, r.problem);
    }
}

void TestGzipInflate::bytesAfterTheLastMemberAreTrailingGarbage()
{
    QFETCH(InflateBackend, backend);
    QFETCH(int, mode);
    QFETCH(bool, fromFile);
    const QByteArray gz = readAll(test::dataPath(QString::fromLatin1(kSmallGz)));
    const QByteArray plain = readGunzipped(test::dataPath(QString::fromLatin1(kSmallGz)));
    QTemporaryDir dir;
    // Text, tar's zero padding, one stray byte, and a gzip magic with an unknown method: none is a
    // member, so the data before is complete and the rest is reported, not read.
    const QByteArray tails[] = {QByteArray("garbage after the stream\n"), QByteArray(512, '\0'), QByteArray("x"),
                                QByteArray("\x1f\x8b\x63junkjunkjunk", 14)};
    for (const QByteArray &tail : tails) {
        const Reading r = readAllOf(gz + tail, fromFile, backend, Mode(mode), 4096, dir);
        QVERIFY2(r.problem.isEmpty(), qPrintable(r.problem));
        QVERIFY2(r.trailingGarbage, qPrintable(QString::fromLatin1(tail.toHex())));
        QCOMPARE(r.trailingGarbageOffset, qint64(gz.size()));
        QCOMPARE(r.members, 1);
        QVERIFY(r.bytes == plain);
    }
    // The same after a second member: the offset is the end of the last one.
    const Reading two = readAllOf(gz + gz + "tail", fromFile, backend, Mode(mode), 4096, dir);
    QVERIFY(two.trailingGarbage);
    QCOMPARE(two.trailingGarbageOffset, qint64(2 * gz.size()));
    QCOMPARE(two.members, 2);
    QVERIFY(two.bytes == plain + plain);
}

void TestGzipInflate::corruptStreamIsRefused()
{
    QFETCH(InflateBackend, backend);
    QFETCH(int, mode);
    QFETCH(bool, fromFile);
    const QByteArray gz = readAll(test::dataPath(QString::fromLatin1(kSmallGz)));
    QTemporaryDir dir;
    QByteArray badCrc = gz;
    badCrc[badCrc.size() - 6] = char(badCrc[badCrc.size() - 6] ^ 0x5a);  // the CRC-32 in the trailer
    QByteArray badLength = gz;
    badLength[badLength.size() - 1] = char(badLength[badLength.size() - 1] ^ 0x01);  // ISIZE
    QByteArray badBlock = gz;
    QCOMPARE(int(gz[3]), 0x08);  // FNAME: the deflate data starts after the name's NUL
    badBlock[gz.indexOf('\0', 10) + 1] = char(0x07);  // the first block header: BTYPE 11, reserved
    const std::pair<QByteArray, const char *> inputs[] = {
        {badCrc, "CRC"}, {badLength, "length"}, {badBlock, "block type"},
        {QByteArray("\x1f\x8b\x08\x00junkjunkjunk", 16), "header then junk"},
        {QByteArray("\x1f\x8b\x07\x00\x00\x00\x00\x00\x00\x03xyz", 13), "unknown method"}};
    for (const auto &[input, what] : inputs) {
        const Reading r = readAllOf(input, fromFile, backend, Mode(mode), 4096, dir);
        QVERIFY2(r.problem.startsWith(QStringLiteral("corrupt compressed data (%1: ").arg(inflateBackendName(backend))),
                 qPrintable(QStringLiteral("%1: %2").arg(QLatin1String(what), r.problem)));
        QVERIFY2(r.problem.contains(QStringLiteral(" of the file, after ")), qPrintable(r.problem));
        QVERIFY(!r.trailingGarbage);
        QCOMPARE(r.members, 0);
    }
}

void TestGzipInflate::smallInputsAreInflatedInline()
{
    // The default options: a thread for a large input only (a run folder of many small rank traces,
    // or the fuzzer, would pay a thread hand-over per file for nothing), and only on three cores
    // or more (on two, the reader's own two threads fill them).
    const InflateOptions defaults;
    QCOMPARE(defaults.aheadMinThreads, 3);
    const bool enoughCores = QThread::idealThreadCount() >= defaults.aheadMinThreads;
    QCOMPARE(defaults.backend, bestInflateBackend());
    QVERIFY(defaults.aheadFromBytes > 6785);
    QVERIFY(defaults.aheadFromBytes < 1160542);
    QVERIFY(defaults.aheadChunkBytes * size_t(defaults.aheadChunks) <= size_t(8) << 20);  // memory stays flat
    const QByteArray small = readAll(test::dataPath(QString::fromLatin1(kSmallGz)));
    const QByteArray large = readAll(test::dataPath(QString::fromLatin1(kLargeGz)));
    for (const auto &[bytes, ahead] : {std::pair{small, false}, std::pair{large, enoughCores}}) {
        ByteSource source;
        source.setInflateOptions(defaults);
        QString error;
        QVERIFY(source.open(ByteOrigin::bytes(bytes), &error));
        QVERIFY(source.compressed());
        QCOMPARE(source.inflatesAhead(), ahead);
        QCOMPARE(source.inflateBackend(), bestInflateBackend());
    }
}

void TestGzipInflate::destroyingTheSourceStopsTheInflateThread()
{
    // A cancelled load destroys its ByteSource after a few reads: the inflate thread must stop
    // (after at most the chunk it is filling) and be joined, never left running or waiting.
    const QByteArray large = readAll(test::dataPath(QString::fromLatin1(kLargeGz)));
    const QByteArray expected = readGunzipped(test::dataPath(QString::fromLatin1(kLargeGz)));
    for (InflateBackend backend : backends()) {
        QElapsedTimer timer;
        timer.start();
        for (int round = 0; round < 40; ++round) {
            ByteSource source;
            source.setInflateOptions(optionsFor(backend, round % 2 ? Mode::AheadTiny : Mode::AheadDefault));
            QString error;
            QVERIFY(source.open(ByteOrigin::bytes(large), &error));
            QVERIFY(source.inflatesAhead());
            std::vector<char> buffer(size_t(round) * 1000 + 1);
            const size_t n = source.read(buffer.data(), buffer.size());
            QCOMPARE(n, buffer.size());
            QVERIFY(expected.startsWith(QByteArrayView(buffer.data(), qsizetype(n))));
            if (round % 4 == 3)  // the ring full, the inflate thread waiting for room
                QTest::qWait(5);
        }
        // 40 cancelled reads of a 17 MB stream: each stops at once rather than inflating to the end.
        QVERIFY2(timer.elapsed() < 20'000, qPrintable(QString::number(timer.elapsed())));
    }
}

void TestGzipInflate::parserReadsTheSameEventsFromPlainAndGzip_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<QByteArray>("inflate");
    // Every way on the small trace; on the large one (a few seconds a row in a debug build) the
    // default (ISA-L ahead), zlib ahead and ISA-L inline.
    for (const char *inflate : {"", "zlib", "isal,ahead", "zlib,ahead", "isal,inline", "zlib,inline"})
        QTest::addRow("%s, GOBLIN_INFLATE=%s", kSmallGz, inflate) << QString::fromLatin1(kSmallGz) << QByteArray(inflate);
    for (const char *inflate : {"", "zlib", "isal,inline"})
        QTest::addRow("%s, GOBLIN_INFLATE=%s", kLargeGz, inflate) << QString::fromLatin1(kLargeGz) << QByteArray(inflate);
}

void TestGzipInflate::parserReadsTheSameEventsFromPlainAndGzip()
{
    QFETCH(QString, fixture);
    QFETCH(QByteArray, inflate);
    // The whole reader over the gzip file and over its gunzipped twin: the same events, readings,
    // timeline and diagnostics, whichever backend and way of inflating the environment asks for.
    QTemporaryDir dir;
    const QString plainPath = dir.filePath(QStringLiteral("trace.json"));
    {
        QFile f(plainPath);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(readGunzipped(test::dataPath(fixture)));
    }
    qputenv("GOBLIN_INFLATE", inflate);
    const TorchTrace gz = parseTorchTraceFile(test::dataPath(fixture), QStringLiteral("trace"));
    qunsetenv("GOBLIN_INFLATE");
    const TorchTrace plain = parseTorchTraceFile(plainPath, QStringLiteral("trace"));
    QVERIFY(gz.file.compressed);
    QVERIFY(!plain.file.compressed);
    QVERIFY(plain.eventCount > 100);
    QCOMPARE(gz.eventCount, plain.eventCount);
    QCOMPARE(gz.cancelled, false);
    QCOMPARE(diagnosticsText(gz), diagnosticsText(plain));
    QCOMPARE(gz.workbench.stepTimeSeconds, plain.workbench.stepTimeSeconds);
    QCOMPARE(gz.workbench.hostBusyFraction, plain.workbench.hostBusyFraction);
    QCOMPARE(gz.workbench.profilerSteps, plain.workbench.profilerSteps);
    QCOMPARE(gz.reference.stepTimeSeconds, plain.reference.stepTimeSeconds);
    QCOMPARE(gz.timeline.files.size(), plain.timeline.files.size());
    for (size_t i = 0; i < gz.timeline.files.size(); ++i)
        QCOMPARE(test::timelineFileDigest(gz.timeline.files[i]), test::timelineFileDigest(plain.timeline.files[i]));
}

void TestGzipInflate::parserNamesTheFileAndTheByteOfATruncation()
{
    // The large trace cut in the middle, read on the inflate thread: the diagnostic names the file
    // and where its compressed stream stops, and the events before the cut are used.
    const QByteArray gz = readAll(test::dataPath(QString::fromLatin1(kLargeGz)));
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("cut.pt.trace.json.gz"));
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(gz.left(gz.size() / 2));
    }
    for (const char *inflate : {"isal,ahead", "zlib,ahead", "isal,inline"}) {
        qputenv("GOBLIN_INFLATE", inflate);
        const TorchTrace t = parseTorchTraceFile(path, QStringLiteral("cut.pt.trace.json.gz"));
        qunsetenv("GOBLIN_INFLATE");
        const Diagnostic *found = nullptr;
        for (const Diagnostic &d : t.diagnostics)
            if (d.message.contains(QStringLiteral("compressed stream ends early")))
                found = &d;
        QVERIFY2(found, qPrintable(diagnosticsText(t)));
        QCOMPARE(found->severity, Severity::Error);
        QCOMPARE(found->file, QStringLiteral("cut.pt.trace.json.gz"));
        QVERIFY2(found->message.contains(QStringLiteral("stops at byte %1 of the file").arg(gz.size() / 2)),
                 qPrintable(found->message));
        QVERIFY(t.eventCount > 0);
        QVERIFY(t.file.compressed);
    }
}

QTEST_GUILESS_MAIN(TestGzipInflate)
#include "tst_gzipinflate.moc"
