// Telemetry logs other than amd-smi's (issue 25): nvidia-smi --query-gpu CSV, dcgmi dmon and
// rocm-smi --csv, recognised by their content and read into SmiTelemetry. The means are checked
// against scripts/telemetry_mean.py's independent count (tests/data/telemetry/expected.csv).

#include "amdsmiparser.h"
#include "io/runinventory.h"
#include "telemetry/telemetrylogs.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace goblin;
using goblin::test::dataPath;
using goblin::test::readAll;
using telemetry::LogKind;

namespace {

SmiTelemetry readLog(const QString &name)
{
    const QByteArray bytes = readAll(dataPath(QStringLiteral("telemetry/") + name));
    SmiTelemetry out;
    out.file.relativePath = name;
    telemetry::readTelemetryLog(telemetry::sniffTelemetryLog(QByteArrayView(bytes).first(std::min<qsizetype>(bytes.size(), 4096))),
                                bytes, name, out);
    return out;
}

struct Expected {
    double utilMeanPct = NAN;
    int utilValues = 0;
    int rows = 0;
    double hbmPeakGb = NAN;
    double powerMeanW = NAN;
};

/// tests/data/telemetry/expected.csv, written by scripts/telemetry_mean.py.
Expected expectedFor(const QString &name)
{
    QFile f(dataPath(QStringLiteral("telemetry/expected.csv")));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    for (const QByteArray &line : f.readAll().split('\n')) {
        const QList<QByteArray> c = line.trimmed().split(',');
        if (c.size() != 6 || QString::fromUtf8(c[0]) != name)
            continue;
        return {c[1].toDouble(), c[2].toInt(), c[3].toInt(), c[4].toDouble(), c[5].toDouble()};
    }
    return {};
}

bool hasDiagnostic(const SmiTelemetry &t, Severity severity, const QString &part, qint64 line = -1)
{
    for (const Diagnostic &d : t.diagnostics)
        if (d.severity == severity && d.message.contains(part) && (line < 0 || d.line == line) && !d.file.isEmpty())
            return true;
    return false;
}

QString allDiagnostics(const SmiTelemetry &t)
{
    QStringList out;
    for (const Diagnostic &d : t.diagnostics)
        out << QStringLiteral("%1:%2 %3").arg(d.file).arg(d.line).arg(d.message);
    return out.join(QLatin1Char('\n'));
}

bool near(double a, double b, double rel = 1e-12)
{
    if (std::isnan(a) || std::isnan(b))
        return std::isnan(a) && std::isnan(b);
    return std::fabs(a - b) <= rel * std::max(1.0, std::fabs(b));
}

void writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
}

} // namespace

class TestTelemetryLogs : public QObject
{
    Q_OBJECT

private slots:
    void sniff_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("kind");
        QTest::newRow("nvidia-smi with units") << "nvsmi_lms500_2gpu.csv" << int(LogKind::NvidiaSmi);
        QTest::newRow("nvidia-smi nounits") << "nvsmi_nounits_h100.csv" << int(LogKind::NvidiaSmi);
        QTest::newRow("nvidia-smi noheader") << "nvsmi_noheader.csv" << int(LogKind::NvidiaSmi);
        QTest::newRow("nvidia-smi shell loop") << "nvsmi_shell_loop_bus.csv" << int(LogKind::NvidiaSmi);
        QTest::newRow("dcgmi dmon") << "dcgm_dmon.log" << int(LogKind::Dcgm);
        QTest::newRow("dcgmi dmon, profiling fields") << "dcgm_profiling_only.log" << int(LogKind::Dcgm);
        QTest::newRow("rocm-smi loop with warnings") << "rocm_smi_loop.csv" << int(LogKind::RocmSmi);
        QTest::newRow("real nvidia-smi loop") << "real_slowfast_nvsmi_util.csv" << int(LogKind::NvidiaSmi);
        QTest::newRow("real nvidia-smi, 4 T4") << "real_vc_nvsmi_4xT4.csv" << int(LogKind::NvidiaSmi);
        QTest::newRow("real dcgmi dmon") << "real_vc_dcgmi_dmon.txt" << int(LogKind::Dcgm);
        QTest::newRow("foreign text") << "foreign.txt" << int(LogKind::None);
        QTest::newRow("empty") << "empty.log" << int(LogKind::None);
    }
    void sniff()
    {
        QFETCH(QString, file);
        QFETCH(int, kind);
        QCOMPARE(int(telemetry::sniffTelemetryLog(readAll(dataPath(QStringLiteral("telemetry/") + file)))), kind);
    }

    // Done-when: a log's mean utilisation equals its column's mean (independent Python count).
    void meansMatchIndependentCount_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("tool");
        QTest::addColumn<int>("gpus");
        for (const auto &[file, tool, gpus] :
             {std::tuple{"nvsmi_lms500_2gpu.csv", "nvidia-smi", 2}, {"nvsmi_nounits_h100.csv", "nvidia-smi", 1},
              {"nvsmi_noheader.csv", "nvidia-smi", 2}, {"nvsmi_shell_loop_bus.csv", "nvidia-smi", 2},
              {"nvsmi_truncated.csv", "nvidia-smi", 1}, {"dcgm_dmon.log", "dcgmi dmon", 2},
              {"rocm_smi_loop.csv", "rocm-smi", 2},
              // real captures (PROVENANCE.md): a utilisation loop with its header every row, 4 T4s
              {"real_slowfast_nvsmi_util.csv", "nvidia-smi", 1}, {"real_vc_nvsmi_4xT4.csv", "nvidia-smi", 4}})
            QTest::newRow(file) << QString::fromLatin1(file) << QString::fromLatin1(tool) << gpus;
    }
    void meansMatchIndependentCount()
    {
        QFETCH(QString, file);
        QFETCH(QString, tool);
        QFETCH(int, gpus);
        const Expected e = expectedFor(file);
        QVERIFY2(e.rows > 0, "no expected values: run scripts/telemetry_mean.py");
        const SmiTelemetry t = readLog(file);
        QCOMPARE(t.tool, tool);
        QCOMPARE(t.gpuCount, gpus);
        QCOMPARE(int(t.samples.size()), e.rows);
        double utilSum = 0.0, powerSum = 0.0, peak = NAN;
        int utilN = 0, powerN = 0;
        for (const TelemetrySample &s : t.samples) {
            if (!std::isnan(s.utilPct)) {
                utilSum += s.utilPct;
                ++utilN;
            }
            if (!std::isnan(s.powerW)) {
                powerSum += s.powerW;
                ++powerN;
            }
            if (!std::isnan(s.hbmUsedGb))
                peak = std::isnan(peak) ? s.hbmUsedGb : std::max(peak, s.hbmUsedGb);
        }
        QCOMPARE(utilN, e.utilValues);  // N/A cells are skipped, never zero
        QVERIFY2(near(utilSum / utilN, e.utilMeanPct, 1e-9),
                 qPrintable(QStringLiteral("%1 vs %2").arg(utilSum / utilN, 0, 'g', 17).arg(e.utilMeanPct, 0, 'g', 17)));
        QVERIFY(near(peak, e.hbmPeakGb, 1e-9));
        QVERIFY(near(t.workbench.hbmPeakGb.value_or(NAN), e.hbmPeakGb, 1e-9));
        QVERIFY(near(powerN ? powerSum / powerN : NAN, e.powerMeanW, 1e-9));
        // Without idle samples the job-window mean is the column's mean too.
        if (t.samplesOutsideJob == 0)
            QVERIFY(near(t.workbench.gpuUtilPct.value_or(NAN), e.utilMeanPct, 1e-9));
    }

    void nvidiaSmiDetails()
    {
        const SmiTelemetry t = readLog(QStringLiteral("nvsmi_lms500_2gpu.csv"));
        QVERIFY(t.wallClockLocal);
        QCOMPARE(t.timestampResolutionS, 0.001);
        // 2024/01/31 12:00:00.123 read as UTC.
        QCOMPARE(t.startEpochS, 1706702400.123);
        QVERIFY(std::fabs(t.measuredIntervalS - 0.5) < 1e-6);
        QCOMPARE(t.hbmTotalGb.value_or(0), 80.0);
        QVERIFY(t.hbmTotalSource.contains(QLatin1String("memory.total")));
        // [N/A] and [Not Supported] are missing values.
        int missingPower = 0;
        for (const TelemetrySample &s : t.samples)
            missingPower += std::isnan(s.powerW) ? 1 : 0;
        QCOMPARE(missingPower, 1);
        QVERIFY2(hasDiagnostic(t, Severity::Info, QStringLiteral("'utilization.gpu [%]' is N/A in 1 of 80")),
                 qPrintable(allDiagnostics(t)));
    }

    /// A log without a total column only reports the GPU names it writes; what memory a name means
    /// is the run's devices' decision (the one table, tst_runfactsdevicesprogram gpuTable).
    void gpuNamesReportedNoCapacityGuessed()
    {
        const SmiTelemetry t = readLog(QStringLiteral("nvsmi_nounits_h100.csv"));
        QVERIFY2(!t.hbmTotalGb, qPrintable(t.hbmTotalSource));
        QVERIFY(!t.gpuNames.empty());
        QCOMPARE(t.gpuNames.begin()->second, QStringLiteral("NVIDIA H100 80GB HBM3"));
    }

    void noheaderGuessesColumnsWithAWarning()
    {
        const SmiTelemetry t = readLog(QStringLiteral("nvsmi_noheader.csv"));
        QVERIFY(hasDiagnostic(t, Severity::Warning, QStringLiteral("no header"), 1));
        QCOMPARE(t.hbmTotalGb.value_or(0), 40.0);
        QVERIFY(t.file.dialect.contains(QLatin1String("noheader")));
    }

    void shellLoopKeysByBusId()
    {
        const SmiTelemetry t = readLog(QStringLiteral("nvsmi_shell_loop_bus.csv"));
        QCOMPARE(t.gpuCount, 2);
        QVERIFY(hasDiagnostic(t, Severity::Info, QStringLiteral("11 repeated header")));
        // GPUs numbered in order of appearance of their bus ids.
        QCOMPARE(t.samples[0].gpu, 0);
        QCOMPARE(t.samples[1].gpu, 1);
        QVERIFY(std::fabs(t.measuredIntervalS - 2.0) < 1e-6);
    }

    void dcgmDetails()
    {
        const SmiTelemetry t = readLog(QStringLiteral("dcgm_dmon.log"));
        QVERIFY(std::isnan(t.startEpochS));  // dmon writes no time
        QCOMPARE(t.intervalS, 1.0);
        QVERIFY(hasDiagnostic(t, Severity::Info, QStringLiteral("no clock in the log")));
        QVERIFY(hasDiagnostic(t, Severity::Info, QStringLiteral("20 row(s) of other entities")));
        QVERIFY(hasDiagnostic(t, Severity::Info, QStringLiteral("repeated #Entity header")));
        QVERIFY(hasDiagnostic(t, Severity::Info, QStringLiteral("stopped by a signal")));
        // FBUSD + FBFRE gives the total (no FBTTL).
        QVERIFY(t.hbmTotalGb);
        QVERIFY(t.hbmTotalSource.contains(QLatin1String("FBUSD + FBFRE")));
        // Per-GPU sample numbers × 1 s.
        QCOMPARE(t.samples[2].timeS, 1.0);
    }

    void dcgmProfilingRatiosAreNotUtilisation()
    {
        const SmiTelemetry t = readLog(QStringLiteral("dcgm_profiling_only.log"));
        QCOMPARE(int(t.samples.size()), 5);
        QVERIFY(!t.workbench.gpuUtilPct);
        QVERIFY2(hasDiagnostic(t, Severity::Warning, QStringLiteral("SMACT is a 0-1 profiling ratio")),
                 qPrintable(allDiagnostics(t)));
    }

    /// Real captures: their totals, GPUs and diagnostics as the files state them.
    void realCaptures()
    {
        const SmiTelemetry t4 = readLog(QStringLiteral("real_vc_nvsmi_4xT4.csv"));
        QCOMPARE(t4.gpuCount, 4);  // keyed by pci.bus_id (no index column)
        QVERIFY(t4.hbmTotalGb && near(*t4.hbmTotalGb, 16.0));  // 16384 MiB
        QCOMPARE(t4.workbench.gpuUtilPct.value_or(-1.0), 0.0);  // idle T4s read as 0 %, measured
        const SmiTelemetry loop = readLog(QStringLiteral("real_slowfast_nvsmi_util.csv"));
        QVERIFY2(hasDiagnostic(loop, Severity::Info, QStringLiteral("repeated header")), qPrintable(allDiagnostics(loop)));
        QVERIFY(!loop.workbench.hbmPeakGb);  // no memory column: unknown, not 0
        // A real dcgmi dmon of profiling fields only (GRACT, TENSO, DRAMA): read, but no utilisation.
        const SmiTelemetry dmon = readLog(QStringLiteral("real_vc_dcgmi_dmon.txt"));
        QCOMPARE(dmon.tool, QStringLiteral("dcgmi dmon"));
        QCOMPARE(int(dmon.samples.size()), 15);
        QVERIFY(!dmon.workbench.gpuUtilPct);
        QVERIFY2(hasDiagnostic(dmon, Severity::Warning, QStringLiteral("GRACT is a 0-1 profiling ratio")),
                 qPrintable(allDiagnostics(dmon)));
    }

    void rocmSmiDetails()
    {
        const SmiTelemetry t = readLog(QStringLiteral("rocm_smi_loop.csv"));
        QCOMPARE(t.hbmTotalGb.value_or(0), 206141652992.0 / (1024.0 * 1024.0 * 1024.0));
        QVERIFY(t.file.dialect.contains(QLatin1String("15 block")));
        QVERIFY(hasDiagnostic(t, Severity::Info, QStringLiteral("no device rows dropped")));
        // GPU memory use (%) is activity, never read as memory used.
        for (const ColumnChoice &c : t.file.workbenchColumns)
            if (c.role == QLatin1String("hbm_used"))
                QCOMPARE(c.column, QStringLiteral("VRAM Total Used Memory (B)"));
    }

    void badFiles_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("severity");
        QTest::addColumn<qint64>("line");
        QTest::addColumn<QString>("message");
        QTest::newRow("nvidia-smi cut mid-row")
            << QByteArray("timestamp, index, utilization.gpu [%]\n2024/01/31 12:00:00.000, 0, 50 %\n2024/01/31 12:00")
            << int(LogKind::NvidiaSmi) << int(Severity::Warning) << qint64(3) << "1 fields where the header (line 1) has 3";
        QTest::newRow("nvidia-smi header only")
            << QByteArray("timestamp, utilization.gpu [%]\n") << int(LogKind::NvidiaSmi) << int(Severity::Warning)
            << qint64(1) << "a header (line 1) but no data row";
        QTest::newRow("nvidia-smi noheader,nounits")
            << QByteArray("2024/01/31 12:00:00.000, 0, 50, 1024\n") << int(LogKind::NvidiaSmi) << int(Severity::Error)
            << qint64(1) << "columns cannot be told apart";
        QTest::newRow("nvidia-smi bad timestamp")
            << QByteArray("timestamp, utilization.gpu [%]\nyesterday, 50 %\n2024/01/31 12:00:00.000, 40 %\n")
            << int(LogKind::NvidiaSmi) << int(Severity::Warning) << qint64(2) << "timestamp 'yesterday' is not a time";
        QTest::newRow("nvidia-smi utilisation out of range")
            << QByteArray("utilization.gpu [%]\n150 %\n") << int(LogKind::NvidiaSmi) << int(Severity::Warning)
            << qint64(2) << "outside 0..100";
        QTest::newRow("dcgm row cut short")
            << QByteArray("#Entity   GPUTL  FBUSD\nID\nGPU 0     45     1234\nGPU 1     4") << int(LogKind::Dcgm)
            << int(Severity::Warning) << qint64(4) << "1 value(s) where the #Entity header (line 1) names 2";
        QTest::newRow("dcgm not a number")
            << QByteArray("#Entity   GPUTL  FBUSD\nGPU 0     4x5     1234\n") << int(LogKind::Dcgm)
            << int(Severity::Warning) << qint64(2) << "'GPUTL' is '4x5', not a number";
        QTest::newRow("rocm-smi row cut short")
            << QByteArray("device,GPU use (%),VRAM Total Used Memory (B)\ncard0,50,1024\ncard1,5") << int(LogKind::RocmSmi)
            << int(Severity::Warning) << qint64(3) << "2 fields where the header (line 1) has 3";
        QTest::newRow("empty dcgm") << QByteArray() << int(LogKind::Dcgm) << int(Severity::Error) << qint64(0)
                                    << "empty (0 bytes)";
        QTest::newRow("binary as rocm-smi") << QByteArray("device,GPU use (%)\n\0\0\0\x01", 23) << int(LogKind::RocmSmi)
                                            << int(Severity::Error) << qint64(2) << "binary data";
        QTest::newRow("foreign as dcgm") << QByteArray("hello\nworld\n") << int(LogKind::Dcgm) << int(Severity::Error)
                                         << qint64(0) << "no '#Entity' header";
        QTest::newRow("unknown kind") << QByteArray("hello\n") << int(LogKind::None) << int(Severity::Error)
                                      << qint64(0) << "not a telemetry log the workbench knows";
    }
    void badFiles()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(int, kind);
        QFETCH(int, severity);
        QFETCH(qint64, line);
        QFETCH(QString, message);
        SmiTelemetry t;
        t.file.relativePath = QStringLiteral("bad.log");
        telemetry::readTelemetryLog(LogKind(kind), bytes, QStringLiteral("bad.log"), t);
        bool found = false;
        for (const Diagnostic &d : t.diagnostics)
            found = found || (d.file == QLatin1String("bad.log") && d.line == line && int(d.severity) == severity &&
                              d.message.contains(message));
        QVERIFY2(found, qPrintable(allDiagnostics(t)));
        for (const TelemetrySample &s : t.samples)
            QVERIFY(std::isnan(s.utilPct) || (s.utilPct >= 0 && s.utilPct <= 100));
    }

    // The inventory gives logs with no fixed name the telemetry role; amd_smi.csv comes first.
    void inventoryRecognisesByContent()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QByteArray nv = readAll(dataPath(QStringLiteral("telemetry/nvsmi_lms500_2gpu.csv")));
        writeFile(dir.filePath(QStringLiteral("gpu_log.txt")), nv);
        writeFile(dir.filePath(QStringLiteral("logs/dmon.log")),
                  readAll(dataPath(QStringLiteral("telemetry/dcgm_dmon.log"))));
        writeFile(dir.filePath(QStringLiteral("notes.txt")), "nothing\n");
        RunInventory inv = RunInventory::scanFolder(dir.path());
        QVERIFY(inv.smiTelemetry());
        QCOMPARE(inv.smiTelemetry()->relativePath, QStringLiteral("gpu_log.txt"));
        QVERIFY(inv.smiTelemetry()->read);
        QVERIFY(!inv.smiTelemetry()->referenceReads);
        const InputRow *dmon = inv.find(QStringLiteral("logs/dmon.log"));
        QVERIFY(dmon);
        QCOMPARE(dmon->role, InputRole::SmiTelemetry);
        QVERIFY(!dmon->read);
        QCOMPARE(inv.find(QStringLiteral("notes.txt"))->role, InputRole::Other);

        const SmiTelemetry t = parseAmdSmi(inv);
        QCOMPARE(t.tool, QStringLiteral("nvidia-smi"));
        QCOMPARE(t.file.relativePath, QStringLiteral("gpu_log.txt"));
        QVERIFY(!t.referenceFileFound);
        QVERIFY(!t.reference.gpuUtilPct);
        QVERIFY(t.workbench.gpuUtilPct);
        QVERIFY(hasDiagnostic(t, Severity::Info, QStringLiteral("the reference reads amd_smi.csv only")));

        // amd_smi.csv beside it: the reference's file is the run's telemetry.
        writeFile(dir.filePath(QStringLiteral("amd_smi.csv")),
                  readAll(dataPath(QStringLiteral("amdsmi/workbench/metric_window.csv"))));
        inv = RunInventory::scanFolder(dir.path());
        QCOMPARE(inv.smiTelemetry()->relativePath, QStringLiteral("amd_smi.csv"));
        QVERIFY(!inv.find(QStringLiteral("gpu_log.txt"))->read);
        QVERIFY(inv.find(QStringLiteral("gpu_log.txt"))->reason.contains(QLatin1String("amd_smi.csv is the run's")));
        QCOMPARE(parseAmdSmi(inv).tool, QStringLiteral("amd-smi"));
    }

    void traceWallClock()
    {
        QTemporaryDir dir;
        const QString plain = dir.filePath(QStringLiteral("t.json"));
        QByteArray body = "{\"traceEvents\": [";
        body += QByteArray(3 << 20, ' ');  // the key past the first megabyte
        body += "], \"baseTimeNanoseconds\": 1733126400000000000}";
        writeFile(plain, body);
        const TraceWallClock c = telemetry::readTraceWallClock(plain, QStringLiteral("t.json"));
        QCOMPARE(c.baseTimeNs.value_or(0), qint64(1733126400000000000));
        writeFile(dir.filePath(QStringLiteral("n.json")), "{\"traceEvents\": []}");
        QVERIFY(!telemetry::readTraceWallClock(dir.filePath(QStringLiteral("n.json")), QStringLiteral("n.json")).baseTimeNs);
    }
};

QTEST_GUILESS_MAIN(TestTelemetryLogs)
#include "tst_telemetrylogs.moc"
