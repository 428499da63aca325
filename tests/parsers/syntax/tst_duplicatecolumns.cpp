// A CSV header naming a column twice (issue 36 item 4): Python's csv.DictReader keeps the last
// column's value for that name. Both readings read the last column, and one warning per file
// names the header's line, the column, its positions and the rule.
#include "amdsmiparser.h"
#include "apitraceparser.h"
#include "columnresolver.h"
#include "io/runinventory.h"
#include "kerneltraceparser.h"
#include "telemetry/telemetrylogs.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace goblin;

namespace
{

QString allDiagnostics(const Diagnostics &diags)
{
    QStringList out;
    for (const Diagnostic &d : diags)
        out << QStringLiteral("%1:%2: %3").arg(d.file).arg(d.line).arg(d.message);
    return out.join(QLatin1Char('\n'));
}

QList<const Diagnostic *> repeatedColumnWarnings(const Diagnostics &diags)
{
    QList<const Diagnostic *> out;
    for (const Diagnostic &d : diags)
        if (d.message.contains(QLatin1String(") names the column \"")))
            out << &d;
    return out;
}

QString kernelNumbers(const KernelTrace &t, const KernelReading &r)
{
    QStringList out;
    for (size_t id = 0; id < r.perName.size() && id < t.names.size(); ++id)
        if (r.perName[id].calls > 0)
            out << QStringLiteral("%1 %2x %3 ns").arg(QString::fromStdString(t.names[id])).arg(r.perName[id].calls)
                       .arg(r.perName[id].totalNs);
    out << QStringLiteral("used %1 skipped %2/%3/%4 total %5 span %6-%7")
               .arg(r.rowsUsed)
               .arg(r.rowsSkippedNoName)
               .arg(r.rowsSkippedNonPositive)
               .arg(r.rowsSkippedUnreadable)
               .arg(r.totalNs)
               .arg(r.firstStartNs)
               .arg(r.lastEndNs);
    return out.join(QLatin1Char('\n'));
}

QString smiNumbers(const SmiReading &r)
{
    auto n = [](const std::optional<double> &v) { return v ? QString::number(*v, 'g', 17) : QStringLiteral("-"); };
    return QStringLiteral("util %1 (%2) peak %3 avg %4 (%5)")
        .arg(n(r.gpuUtilPct))
        .arg(r.utilSamples)
        .arg(n(r.hbmPeakGb), n(r.hbmAvgGb))
        .arg(r.hbmSamples);
}

QString telemetryNumbers(const SmiTelemetry &t)
{
    QStringList samples;
    for (const TelemetrySample &s : t.samples)
        samples << QStringLiteral("%1/%2/%3").arg(s.gpu).arg(s.utilPct).arg(s.hbmUsedGb);
    return QStringLiteral("reference: %1\nworkbench: %2\nsamples: %3")
        .arg(smiNumbers(t.reference), smiNumbers(t.workbench), samples.join(QLatin1Char(' ')));
}

/// Rows of a CSV with column `dup` (0-based) written again at the end: the first copy from
/// `first(row)`, the last the row's own value.
QByteArray csvWithRepeat(const QList<QStringList> &rows, int dup, const std::function<QString(int)> &first)
{
    QByteArray out;
    for (int i = 0; i < rows.size(); ++i) {
        QStringList r = rows[i];
        const QString last = r[dup];
        if (i > 0)
            r[dup] = first(i);
        r << last;
        out += r.join(QLatin1Char(',')).toUtf8() + "\n";
    }
    return out;
}

QByteArray csvOf(const QList<QStringList> &rows)
{
    QByteArray out;
    for (const QStringList &r : rows)
        out += r.join(QLatin1Char(',')).toUtf8() + "\n";
    return out;
}

QList<QStringList> kernelRows()
{
    QList<QStringList> rows{{"Kind", "Agent_Id", "Queue_Id", "Kernel_Name", "Start_Timestamp", "End_Timestamp",
                             "DurationNs"}};
    const char *names[] = {"Cijk_Alik_Bljk_gemm", "elementwise_kernel", "ncclDevKernel_Generic"};
    qint64 t = 1000000;
    for (int i = 0; i < 30; ++i) {
        const qint64 dur = 5000 + 700 * (i % 5);
        rows << QStringList{"KERNEL_DISPATCH", "2", "1", names[i % 3], QString::number(t), QString::number(t + dur),
                            QString::number(dur)};
        t += dur + 2000;
    }
    return rows;
}

} // namespace

class TestDuplicateColumns : public QObject
{
    Q_OBJECT

private slots:
    void repeatedColumnsFound_data()
    {
        QTest::addColumn<QStringList>("header");
        QTest::addColumn<QStringList>("found");  // "name:positions:same spelling"
        QTest::newRow("none") << QStringList{"a", "b", "c"} << QStringList{};
        QTest::newRow("one twice") << QStringList{"a", "b", "a"} << QStringList{"a:0,2:1"};
        QTest::newRow("three times and another") << QStringList{"x", "a", "x", "b", "x", "b"}
                                                 << QStringList{"x:0,2,4:1", "b:3,5:1"};
        QTest::newRow("case and blanks") << QStringList{"Start_Timestamp", " start_timestamp"}
                                         << QStringList{" start_timestamp:0,1:0"};
        QTest::newRow("empty names") << QStringList{"", "a", ""} << QStringList{":0,2:1"};
    }
    void repeatedColumnsFound()
    {
        QFETCH(QStringList, header);
        QFETCH(QStringList, found);
        QStringList got;
        for (const RepeatedColumn &c : repeatedColumns(header)) {
            QStringList positions;
            for (int i : c.indexes)
                positions << QString::number(i);
            got << QStringLiteral("%1:%2:%3").arg(c.name, positions.join(QLatin1Char(','))).arg(int(c.sameSpelling));
        }
        QCOMPARE(got, found);
    }

    void exactLookupTakesTheLast()
    {
        const QStringList header{"Kernel_Name", "Start_Timestamp", "End_Timestamp", "start_timestamp"};
        const ResolvedColumn c = resolveExactColumn(header, {QStringLiteral("Start_Timestamp")});
        QCOMPARE(c.index, 3);
        // The reference's lookup: the exact name first (its last position), as before.
        QCOMPARE(resolveReferenceColumn(header, {QStringLiteral("Start_Timestamp")}).index, 1);
        QCOMPARE(repeatedColumnMessage(repeatedColumns(header).front(), 1),
                 QStringLiteral("the header (line 1) names the column \"start_timestamp\" 2 times (columns 2, 4): the "
                                "workbench reads the last one's values (the spellings differ in case or blanks only; "
                                "csv.DictReader keeps each spelling apart)"));
    }

    // trace.csv: a timing or name column twice, its first copy making kernels 360 times longer
    // (or other names): both readings equal the file holding the last column alone.
    void kernelTraceReadsTheLastColumn_data()
    {
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("name");
        QTest::newRow("Start_Timestamp") << 4 << QStringLiteral("Start_Timestamp");
        QTest::newRow("End_Timestamp") << 5 << QStringLiteral("End_Timestamp");
        QTest::newRow("Kernel_Name") << 3 << QStringLiteral("Kernel_Name");
        QTest::newRow("DurationNs") << 6 << QStringLiteral("DurationNs");
    }
    void kernelTraceReadsTheLastColumn()
    {
        QFETCH(int, column);
        QFETCH(QString, name);
        const QList<QStringList> rows = kernelRows();
        const QByteArray dup = csvWithRepeat(rows, column, [&](int i) {
            if (column == 3)
                return QStringLiteral("Cijk_first_%1").arg(i);
            const qint64 v = rows[i][column].toLongLong();
            return QString::number(column == 4 ? v - 360 * 5000 : v + 360 * 5000);
        });
        const KernelTrace got = parseKernelTraceBytes(dup, QStringLiteral("trace.csv"));
        const KernelTrace want = parseKernelTraceBytes(csvOf(rows), QStringLiteral("trace.csv"));
        QCOMPARE(kernelNumbers(got, got.workbench), kernelNumbers(want, want.workbench));
        QCOMPARE(kernelNumbers(got, got.reference), kernelNumbers(want, want.reference));
        const auto warnings = repeatedColumnWarnings(got.diagnostics);
        QVERIFY2(warnings.size() == 1, qPrintable(allDiagnostics(got.diagnostics)));
        QCOMPARE(warnings.front()->line, qint64(1));
        QCOMPARE(warnings.front()->file, QStringLiteral("trace.csv"));
        QCOMPARE(warnings.front()->message,
                 QStringLiteral("the header (line 1) names the column \"%1\" 2 times (columns %2, 8): the last one's "
                                "values are read, as Python's csv.DictReader does")
                     .arg(name)
                     .arg(column + 1));
        QVERIFY(repeatedColumnWarnings(want.diagnostics).isEmpty());
    }

    // amd_smi.csv: utilisation or used VRAM twice; the reference (bit for bit Python's) and the
    // workbench read the last.
    void amdSmiReadsTheLastColumn_data()
    {
        QTest::addColumn<int>("column");
        QTest::newRow("gfx_activity") << 1;
        QTest::newRow("used_vram") << 2;
    }
    void amdSmiReadsTheLastColumn()
    {
        QFETCH(int, column);
        QList<QStringList> rows{{"gpu", "gfx_activity", "used_vram", "total_vram"}};
        for (int i = 0; i < 20; ++i)
            rows << QStringList{"0", QString::number(30 + (i * 7) % 60), QString::number(100000 + 2000 * i), "196592"};
        const QByteArray dup = csvWithRepeat(rows, column, [&](int i) {
            return QString::number(rows[i][column].toLongLong() * (column == 1 ? 1 : 3) / (column == 1 ? 5 : 1));
        });
        const SmiTelemetry got = parseAmdSmiBytes(dup, QStringLiteral("amd_smi.csv"));
        const SmiTelemetry want = parseAmdSmiBytes(csvOf(rows), QStringLiteral("amd_smi.csv"));
        QCOMPARE(telemetryNumbers(got), telemetryNumbers(want));
        const auto warnings = repeatedColumnWarnings(got.diagnostics);
        QVERIFY2(warnings.size() == 1, qPrintable(allDiagnostics(got.diagnostics)));
        QCOMPARE(warnings.front()->line, qint64(1));
        QVERIFY(warnings.front()->message.contains(QStringLiteral("(columns %1, 5)").arg(column + 1)));
    }

    void nvidiaSmiReadsTheLastColumn()
    {
        QByteArray dup = "timestamp, index, utilization.gpu [%], memory.used [MiB], utilization.gpu [%]\n";
        QByteArray clean = "timestamp, index, utilization.gpu [%], memory.used [MiB]\n";
        for (int i = 0; i < 10; ++i) {
            const QByteArray time = "2024/05/01 12:00:" + QByteArray::number(10 + i) + ".000";
            const QByteArray util = QByteArray::number(20 + 7 * i) + " %";
            dup += time + ", 0, " + QByteArray::number(90 - i) + " %, " + QByteArray::number(1000 + i) + " MiB, " +
                   util + "\n";
            clean += time + ", 0, " + util + ", " + QByteArray::number(1000 + i) + " MiB\n";
        }
        SmiTelemetry got, want;
        telemetry::readNvidiaSmi(dup, QStringLiteral("nvidia-smi.csv"), got);
        telemetry::readNvidiaSmi(clean, QStringLiteral("nvidia-smi.csv"), want);
        QCOMPARE(telemetryNumbers(got), telemetryNumbers(want));
        const auto warnings = repeatedColumnWarnings(got.diagnostics);
        QVERIFY2(warnings.size() == 1, qPrintable(allDiagnostics(got.diagnostics)));
        QVERIFY(warnings.front()->message.contains(QStringLiteral("\"utilization.gpu\" 2 times (columns 3, 5)")));
    }

    void hipApiTraceReadsTheLastColumn()
    {
        const QByteArray header = R"("Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp",)"
                                  R"("End_Timestamp")";
        QByteArray dup = header + ",\"End_Timestamp\"\n", clean = header + "\n";
        qint64 t = 1000000;
        for (int i = 0; i < 10; ++i) {
            const QByteArray row = "\"HIP_RUNTIME_API_EXT\",\"hipLaunchKernel\",4242,4242," + QByteArray::number(i + 1) +
                                   "," + QByteArray::number(t) + ",";
            dup += row + QByteArray::number(t + 3000 * 360) + "," + QByteArray::number(t + 3000) + "\n";
            clean += row + QByteArray::number(t + 3000) + "\n";
            t += 9000;
        }
        auto read = [](const QByteArray &bytes) {
            QTemporaryDir dir;
            QFile f(dir.filePath(QStringLiteral("4242_hip_api_trace.csv")));
            f.open(QIODevice::WriteOnly);
            f.write(bytes);
            f.close();
            return parseApiTraces(RunInventory::scanFolder(dir.path()));
        };
        const ApiTraces got = read(dup), want = read(clean);
        QCOMPARE(got.hipCalls, want.hipCalls);
        QCOMPARE(got.hipCalls, qint64(10));
        QCOMPARE(got.hostApiBusy.size(), want.hostApiBusy.size());
        for (size_t i = 0; i < got.hostApiBusy.size(); ++i) {
            QCOMPARE(got.hostApiBusy[i].startNs, want.hostApiBusy[i].startNs);
            QCOMPARE(got.hostApiBusy[i].endNs, want.hostApiBusy[i].endNs);
        }
        const auto warnings = repeatedColumnWarnings(got.diagnostics);
        QVERIFY2(warnings.size() == 1, qPrintable(allDiagnostics(got.diagnostics)));
        QCOMPARE(warnings.front()->line, qint64(1));
        QVERIFY(warnings.front()->message.contains(QStringLiteral("\"End_Timestamp\" 2 times (columns 7, 8)")));
    }
};

QTEST_GUILESS_MAIN(TestDuplicateColumns)
#include "tst_duplicatecolumns.moc"
