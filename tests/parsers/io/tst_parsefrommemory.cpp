// Parsing from memory gives what parsing from a file gives, for every CSV fixture of tests/data:
// the kernel-trace and amd-smi entry points (parse*Bytes vs parse*File, both readings, every
// diagnostic, the timeline), and the CSV grammar under every read plan (device or memory, chunk
// sizes from one byte to the whole file): the same records, lines, offsets and flags.

#include "amdsmiparser.h"
#include "kerneltraceparser.h"
#include "syntax/csvreader.h"
#include "testsupport.h"

#include <QBuffer>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QTest>

using namespace goblin;
using goblin::test::readAll;

namespace {

/// Every CSV under tests/data (the fuzz regression inputs included), sorted.
QStringList csvFixtures()
{
    QStringList out;
    QDirIterator it(QStringLiteral(GOBLIN_TEST_DATA), {QStringLiteral("*.csv")}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        out << it.next();
    out.sort();
    return out;
}

QString relative(const QString &path)
{
    return QDir(QStringLiteral(GOBLIN_TEST_DATA)).relativeFilePath(path);
}

QString text(const Diagnostics &diags)
{
    QString s;
    for (const Diagnostic &d : diags)
        s += QStringLiteral("%1|%2|%3|%4\n").arg(int(d.severity)).arg(d.file).arg(d.line).arg(d.message);
    return s;
}

QString text(const InputFileInfo &f)
{
    QString s = QStringLiteral("%1|%2|%3|%4|%5|%6|%7\n")
                    .arg(f.relativePath, QString::number(f.sizeBytes), f.format, f.dialect)
                    .arg(f.compressed)
                    .arg(f.rowsRead)
                    .arg(f.rowsSkipped);
    for (const auto *cols : {&f.workbenchColumns, &f.referenceColumns})
        for (const ColumnChoice &c : *cols)
            s += QStringLiteral("  %1|%2|%3|%4\n").arg(c.role, c.column, c.reason, c.unit);
    return s;
}

QString text(const KernelReading &r)
{
    QString s = QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9 ")
                    .arg(r.rowsUsed)
                    .arg(r.rowsSkippedNoName)
                    .arg(r.rowsSkippedNonPositive)
                    .arg(r.rowsSkippedUnreadable)
                    .arg(r.totalNs)
                    .arg(r.firstStartNs)
                    .arg(r.lastEndNs)
                    .arg(r.hasTimestamps)
                    .arg(r.agentCount);
    s += QStringLiteral("%1|%2|%3|%4|%5\n")
             .arg(r.agents.join(QLatin1Char(',')))
             .arg(r.readFailed)
             .arg(r.readFailure)
             .arg(r.wouldCrash)
             .arg(r.failureLine);
    for (const KernelNameStats &n : r.perName)
        s += QStringLiteral("  %1 %2 %3 %4 %5\n").arg(n.calls).arg(n.totalNs).arg(n.minNs).arg(n.maxNs).arg(n.firstRow);
    return s;
}

QString text(const KernelTrace &t)
{
    QString s = QStringLiteral("found %1 empty %2 cancelled %3\n")
                    .arg(t.referenceFileFound)
                    .arg(t.referenceFileEmpty)
                    .arg(t.cancelled);
    for (const std::string &n : t.names)
        s += QString::fromStdString(n) + QLatin1Char('\n');
    s += QStringLiteral("reference ") + text(t.reference) + QStringLiteral("workbench ") + text(t.workbench);
    for (const InputFileInfo &f : t.files)
        s += text(f);
    s += text(t.diagnostics);
    for (const GpuTimelineFile &f : t.timeline.files) {
        s += QStringLiteral("timeline %1|%2|%3 names\n").arg(f.source, f.file).arg(f.names.size());
        for (const GpuDeviceTimeline &d : f.devices) {
            s += QStringLiteral(" device %1 pid %2 streams %3\n").arg(d.device).arg(d.pid).arg(d.streams.size());
            for (const GpuEvent &e : d.events)
                s += QStringLiteral("  %1 %2 %3 %4\n").arg(e.startNs).arg(e.endNs).arg(e.nameId).arg(e.stream);
        }
    }
    return s;
}

QString text(const SmiReading &r)
{
    auto opt = [](const std::optional<double> &v) { return v ? QString::number(*v, 'g', 17) : QStringLiteral("-"); };
    return QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9 ")
               .arg(opt(r.gpuUtilPct), opt(r.hbmPeakGb), opt(r.hbmAvgGb), r.rocmVersion)
               .arg(r.utilSamples)
               .arg(r.hbmSamples)
               .arg(r.noHeader)
               .arg(r.readFailed)
               .arg(r.fileUnreadable) +
           r.readFailure + QLatin1Char('\n');
}

QString text(const SmiTelemetry &t)
{
    QString s = QStringLiteral("gpus %1 interval %2 outside %3 measured %4 found %5 cancelled %6\n")
                    .arg(t.gpuCount)
                    .arg(t.intervalS, 0, 'g', 17)
                    .arg(t.samplesOutsideJob)
                    .arg(t.measuredIntervalS, 0, 'g', 17)
                    .arg(t.referenceFileFound)
                    .arg(t.cancelled);
    for (const TelemetrySample &x : t.samples)
        s += QStringLiteral("%1 %2 %3 %4 %5\n")
                 .arg(x.timeS, 0, 'g', 17)
                 .arg(x.gpu)
                 .arg(x.utilPct, 0, 'g', 17)
                 .arg(x.hbmUsedGb, 0, 'g', 17)
                 .arg(x.inJobWindow);
    s += QStringLiteral("reference ") + text(t.reference) + QStringLiteral("workbench ") + text(t.workbench);
    s += text(t.file) + text(t.diagnostics);
    return s;
}

/// What a CsvReader read: every record with its lines, offset and quirk, then the flags.
QString records(CsvReader &reader)
{
    QString s;
    std::vector<std::string_view> fields;
    while (reader.readRecord(fields)) {
        s += QStringLiteral("%1-%2 @%3 q%4:").arg(reader.recordStartLine()).arg(reader.recordEndLine())
                 .arg(reader.bytesConsumed()).arg(reader.lastRecordQuoteQuirkField());
        for (std::string_view f : fields)
            s += QLatin1Char('[') + QString::fromUtf8(f.data(), qsizetype(f.size())) + QLatin1Char(']');
        s += QLatin1Char('\n');
    }
    s += QStringLiteral("limit %1 %2 %3 utf8 %4 %5 truncated %6 bom %7 error '%8'\n")
             .arg(reader.exceededPythonFieldLimit())
             .arg(reader.pythonFieldLimitLine())
             .arg(reader.pythonFieldLimitOffset())
             .arg(reader.firstInvalidUtf8Offset())
             .arg(reader.firstInvalidUtf8Line())
             .arg(reader.hadTruncatedField())
             .arg(reader.hadBom())
             .arg(reader.errorString());
    return s;
}

} // namespace

class TestParseFromMemory : public QObject
{
    Q_OBJECT

private slots:
    void fixtures_data()
    {
        QTest::addColumn<QString>("path");
        const QStringList files = csvFixtures();
        QVERIFY2(files.size() > 50, qPrintable(QStringLiteral("only %1 CSV fixtures found").arg(files.size())));
        for (const QString &path : files)
            QTest::newRow(qPrintable(relative(path))) << path;
    }

    void kernelTraceFileEqualsMemory_data() { fixtures_data(); }
    void kernelTraceFileEqualsMemory()
    {
        QFETCH(QString, path);
        const QString name = QFileInfo(path).fileName();
        const QByteArray bytes = readAll(path);
        const KernelTrace fromFile = parseKernelTraceFile(path, name);
        const KernelTrace fromMemory = parseKernelTraceBytes(bytes, name);
        QCOMPARE(text(fromMemory), text(fromFile));
        QVERIFY(!fromFile.files.empty());
    }

    void amdSmiFileEqualsMemory_data() { fixtures_data(); }
    void amdSmiFileEqualsMemory()
    {
        QFETCH(QString, path);
        const QString name = QFileInfo(path).fileName();
        const QByteArray bytes = readAll(path);
        const SmiTelemetry fromFile = parseAmdSmiFile(path, name);
        const SmiTelemetry fromMemory = parseAmdSmiBytes(bytes, name);
        QCOMPARE(text(fromMemory), text(fromFile));
        QCOMPARE(fromFile.file.sizeBytes, qint64(bytes.size()));
    }

    /// Every read plan of the CSV grammar yields the same records: a device or memory, and chunk
    /// sizes from one byte (every record crosses a chunk end) to the whole file, with and without
    /// the UTF-8 check and BOM stripping.
    void csvEveryPlanSameRecords_data() { fixtures_data(); }
    void csvEveryPlanSameRecords()
    {
        QFETCH(QString, path);
        QByteArray bytes = readAll(path);
        if (bytes.size() > (64 << 10))
            bytes.truncate(64 << 10); // one-byte chunks over megabytes would only cost time
        for (const bool strip : {false, true}) {
            CsvReader::Options options;
            options.stripUtf8Bom = strip;
            options.validateUtf8 = true;
            QBuffer device(&bytes);
            QVERIFY(device.open(QIODevice::ReadOnly));
            CsvReader deviceReader(&device, options);
            const QString expected = records(deviceReader);
            QVERIFY(bytes.size() <= 3 || expected.count(QLatin1Char('\n')) > 1); // records were read
            for (const qint64 chunk : {qint64(1), qint64(2), qint64(3), qint64(7), qint64(64), qint64(4096),
                                       qint64(bytes.size()), qint64(4 << 20)}) {
                options.chunkBytes = chunk;
                CsvReader memoryReader(QByteArrayView(bytes), options);
                QCOMPARE(records(memoryReader), expected);
                QBuffer chunked(&bytes);
                QVERIFY(chunked.open(QIODevice::ReadOnly));
                CsvReader chunkedReader(&chunked, options);
                QCOMPARE(records(chunkedReader), expected);
            }
        }
    }

    /// An empty span and a span of one line read as an empty file and as a header without rows.
    void smallSpans()
    {
        const KernelTrace empty = parseKernelTraceBytes(QByteArrayView(), QStringLiteral("trace.csv"));
        QVERIFY(empty.referenceFileEmpty);
        QCOMPARE(empty.files.size(), size_t(1));
        QCOMPARE(empty.files.front().dialect, QStringLiteral("empty"));
        const KernelTrace header =
            parseKernelTraceBytes(QByteArrayView("Kernel_Name,Start_Timestamp,End_Timestamp\n"), QStringLiteral("trace.csv"));
        QCOMPARE(header.workbench.rowsUsed, 0);
        QVERIFY(text(header.diagnostics).contains(QStringLiteral("but no data rows")));
        const SmiTelemetry smi = parseAmdSmiBytes(QByteArrayView(), QStringLiteral("amd_smi.csv"));
        QVERIFY(smi.referenceFileFound);
        QVERIFY(text(smi.diagnostics).contains(QStringLiteral("the file is empty")));
    }
};

QTEST_GUILESS_MAIN(TestParseFromMemory)
#include "tst_parsefrommemory.moc"
