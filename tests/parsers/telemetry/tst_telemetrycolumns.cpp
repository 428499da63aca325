// A telemetry CSV known by its columns' names, whatever wrote it (a wrapper script around rocm-smi
// or nvidia-smi: `timestamp, device, gpu_use_percent, vram_used_bytes`): time, device,
// utilisation % and memory used with its unit are found by the tokens of their names (as the
// reference's _pick_column finds amd-smi's by its substring tier), one diagnostic names the
// columns chosen, and the inventory picks such a file by content under any name.
//
// Every row below holds the same samples in other units: two GPUs, two samples each, utilisation
// 40/60 % (GPU 0) and 80/100 % (GPU 1) → mean 70 %; memory used 1 and 2 GiB (GPU 0), 3 and 4 GiB
// (GPU 1) → peak 4 GB (GiB, as every reader here counts), mean 2.5 GB.

#include "amdsmiparser.h"
#include "io/runinventory.h"
#include "telemetry/telemetrylogs.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <functional>

using namespace goblin;
using telemetry::LogKind;

namespace {

SmiTelemetry readBytes(const QByteArray &bytes)
{
    SmiTelemetry out;
    out.file.relativePath = QStringLiteral("gpu_log.csv");
    telemetry::readTelemetryLog(telemetry::sniffTelemetryLog(bytes), bytes, QStringLiteral("gpu_log.csv"), out);
    return out;
}

QString allDiagnostics(const SmiTelemetry &t)
{
    QStringList out;
    for (const Diagnostic &d : t.diagnostics)
        out << QStringLiteral("%1:%2 %3").arg(d.file).arg(d.line).arg(d.message);
    return out.join(QLatin1Char('\n'));
}

/// The four samples with the memory column's values written by `used` (GiB → the column's unit).
QByteArray samples(const QByteArray &header, const std::function<QByteArray(int gpu, int i)> &row)
{
    QByteArray out = header + "\n";
    for (int i = 0; i < 2; ++i)
        for (int gpu = 0; gpu < 2; ++gpu)
            out += row(gpu, i) + "\n";
    return out;
}

double utilOf(int gpu, int i)
{
    return gpu == 0 ? 40.0 + 20.0 * i : 80.0 + 20.0 * i;
}

double gibOf(int gpu, int i)
{
    return 1.0 + 2.0 * gpu + i;
}

QByteArray number(double v)
{
    return QByteArray::number(v, 'f', 0);
}

} // namespace

class TestTelemetryColumns : public QObject
{
    Q_OBJECT
private slots:
    void readByColumnNames_data();
    void readByColumnNames();
    void notTelemetry_data();
    void notTelemetry();
    void memoryWithoutUnitIsSaid();
    void chosenInAFolderUnderAnyName();
    void realStyleWrapperLog();
};

void TestTelemetryColumns::readByColumnNames_data()
{
    QTest::addColumn<QByteArray>("csv");
    QTest::addColumn<QString>("chosen");  ///< the columns as the diagnostic names them

    QTest::newRow("wrapper around rocm-smi: ISO times, bytes")
        << samples("timestamp, device, gpu_use_percent, vram_used_bytes",
                   [](int gpu, int i) {
                       return QByteArray("2025-03-01T10:00:0") + QByteArray::number(i) + ".500, card" +
                              QByteArray::number(gpu) + ", " + number(utilOf(gpu, i)) + ", " +
                              QByteArray::number(qint64(gibOf(gpu, i) * 1024 * 1024 * 1024));
                   })
        << QStringLiteral("time 'timestamp', device 'device', utilisation % 'gpu_use_percent', memory used "
                          "'vram_used_bytes' (bytes)");
    QTest::newRow("wrapper around nvidia-smi: epoch seconds, MiB, total")
        << samples("time,gpu,utilization_pct,mem_used_mib,mem_total_mib",
                   [](int gpu, int i) {
                       return QByteArray::number(1740823200 + i) + "," + QByteArray::number(gpu) + "," +
                              number(utilOf(gpu, i)) + "," + number(gibOf(gpu, i) * 1024) + ",81920";
                   })
        << QStringLiteral("time 'time', device 'gpu', utilisation % 'utilization_pct', memory used 'mem_used_mib' "
                          "(MiB), memory total 'mem_total_mib' (MiB)");
    QTest::newRow("MB, as amd-smi means it (MiB), milliseconds")
        << samples("ts_ms,card,gpu_util_percent,vram_used_mb",
                   [](int gpu, int i) {
                       return QByteArray::number(1740823200000LL + 500 * i) + "," + QByteArray::number(gpu) + "," +
                              number(utilOf(gpu, i)) + "," + number(gibOf(gpu, i) * 1024);
                   })
        << QStringLiteral("time 'ts_ms', device 'card', utilisation % 'gpu_util_percent', memory used "
                          "'vram_used_mb' (MiB)");
    QTest::newRow("GiB, a percent sign, power, quoted header")
        << samples("\"datetime\",\"device_id\",\"gpu_usage_%\",\"hbm_used_gib\",\"power_w\"",
                   [](int gpu, int i) {
                       return QByteArray("\"2025/03/01 10:00:0") + QByteArray::number(i) + "\",\"" +
                              QByteArray::number(gpu) + "\",\"" + number(utilOf(gpu, i)) + "\",\"" +
                              number(gibOf(gpu, i)) + "\",\"300\"";
                   })
        << QStringLiteral("time 'datetime', device 'device_id', utilisation % 'gpu_usage_%', memory used "
                          "'hbm_used_gib' (GiB), power 'power_w' (W)");
    QTest::newRow("rocm-smi's own names after a timestamp")
        << samples("Timestamp,Device,GPU use (%),VRAM Total Used Memory (B)",
                   [](int gpu, int i) {
                       return QByteArray::number(1740823200 + i) + ".25,card" + QByteArray::number(gpu) + "," +
                              number(utilOf(gpu, i)) + "," +
                              QByteArray::number(qint64(gibOf(gpu, i) * 1024 * 1024 * 1024));
                   })
        << QStringLiteral("time 'Timestamp', device 'Device', utilisation % 'GPU use (%)', memory used 'VRAM Total "
                          "Used Memory (B)' (bytes)");
}

void TestTelemetryColumns::readByColumnNames()
{
    QFETCH(QByteArray, csv);
    QFETCH(QString, chosen);
    QCOMPARE(telemetry::sniffTelemetryLog(csv), LogKind::ByColumns);
    const SmiTelemetry t = readBytes(csv);
    QVERIFY2(!t.samples.empty(), qPrintable(allDiagnostics(t)));
    QCOMPARE(t.file.format, QStringLiteral("telemetry-csv"));
    QCOMPARE(t.samples.size(), size_t(4));
    QCOMPARE(t.gpuCount, 2);
    QVERIFY2(t.workbench.gpuUtilPct && std::fabs(*t.workbench.gpuUtilPct - 70.0) < 1e-9, qPrintable(allDiagnostics(t)));
    QVERIFY2(t.workbench.hbmPeakGb && std::fabs(*t.workbench.hbmPeakGb - 4.0) < 1e-9, qPrintable(allDiagnostics(t)));
    QVERIFY(t.workbench.hbmAvgGb && std::fabs(*t.workbench.hbmAvgGb - 2.5) < 1e-9);
    // Times from the time column, relative to the first sample: the second round is later.
    QVERIFY(t.samples.back().timeS > t.samples.front().timeS);
    // One diagnostic says which column is which.
    int said = 0;
    for (const Diagnostic &d : t.diagnostics)
        if (d.severity == Severity::Info && d.message.contains(QStringLiteral("columns read: ") + chosen)) {
            ++said;
            QCOMPARE(d.line, qint64(1));
            QCOMPARE(d.file, QStringLiteral("gpu_log.csv"));
        }
    QVERIFY2(said == 1, qPrintable(allDiagnostics(t)));
}

void TestTelemetryColumns::notTelemetry_data()
{
    QTest::addColumn<QByteArray>("csv");
    QTest::newRow("no utilisation nor memory") << QByteArray("timestamp,device,temperature_c\n1,0,55\n");
    QTest::newRow("no time") << QByteArray("device,gpu_use_percent,vram_used_bytes\n0,50,1024\n");
    QTest::newRow("a rocprofv3 kernel trace")
        << QByteArray("\"Kind\",\"Agent_Id\",\"Kernel_Name\",\"Start_Timestamp\",\"End_Timestamp\"\n"
                      "\"KERNEL_DISPATCH\",2,\"k\",100,200\n");
    QTest::newRow("numbers, no header") << QByteArray("1740823200,0,50,1024\n1740823201,0,60,2048\n");
    QTest::newRow("one column") << QByteArray("gpu_util_percent\n50\n");
    QTest::newRow("memory as a percentage only") << QByteArray("timestamp,mem_used_percent\n1,50\n");
}

void TestTelemetryColumns::notTelemetry()
{
    QFETCH(QByteArray, csv);
    QCOMPARE(telemetry::sniffTelemetryLog(csv), LogKind::None);
}

void TestTelemetryColumns::memoryWithoutUnitIsSaid()
{
    const QByteArray csv = "timestamp,device,gpu_util_percent,vram_used\n1,0,50,1024\n2,0,60,2048\n";
    QCOMPARE(telemetry::sniffTelemetryLog(csv), LogKind::ByColumns);
    const SmiTelemetry t = readBytes(csv);
    QCOMPARE(t.samples.size(), size_t(2));
    QVERIFY(t.workbench.gpuUtilPct && std::fabs(*t.workbench.gpuUtilPct - 55.0) < 1e-9);
    QVERIFY(!t.workbench.hbmPeakGb);
    QVERIFY2(allDiagnostics(t).contains(QStringLiteral("'vram_used' states no unit in its name")),
             qPrintable(allDiagnostics(t)));
}

void TestTelemetryColumns::chosenInAFolderUnderAnyName()
{
    QTemporaryDir dir;
    QFile f(dir.filePath(QStringLiteral("monitor_output.txt")));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(samples("timestamp, device, gpu_use_percent, vram_used_bytes", [](int gpu, int i) {
        return QByteArray::number(1740823200 + i) + ", " + QByteArray::number(gpu) + ", " + number(utilOf(gpu, i)) +
               ", " + QByteArray::number(qint64(gibOf(gpu, i) * 1024 * 1024 * 1024));
    }));
    f.close();
    const RunInventory inventory = RunInventory::scanFolder(dir.path());
    const InputRow *row = inventory.find(QStringLiteral("monitor_output.txt"));
    QVERIFY(row);
    QCOMPARE(row->role, InputRole::SmiTelemetry);
    QVERIFY(row->read);
    QCOMPARE(QLatin1String(row->format->name), QLatin1String("telemetry-csv"));
    const SmiTelemetry t = parseAmdSmi(inventory);
    QCOMPARE(t.samples.size(), size_t(4));
    QVERIFY(t.workbench.hbmPeakGb && std::fabs(*t.workbench.hbmPeakGb - 4.0) < 1e-9);
}

void TestTelemetryColumns::realStyleWrapperLog()
{
    // tests/data/PROVENANCE.md: the independent count of this file (Python's csv module).
    QFile f(test::dataPath(QStringLiteral("telemetry/wrapper_rocm_smi.csv")));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray bytes = f.readAll();
    QCOMPARE(telemetry::sniffTelemetryLog(bytes), LogKind::ByColumns);
    const SmiTelemetry t = readBytes(bytes);
    QCOMPARE(t.samples.size(), size_t(12));
    QCOMPARE(t.gpuCount, 2);
    QCOMPARE(t.samplesOutsideJob, 4);
    QVERIFY2(t.workbench.gpuUtilPct && std::fabs(*t.workbench.gpuUtilPct - 82.375) < 1e-9, qPrintable(allDiagnostics(t)));
    QVERIFY(t.workbench.hbmAvgGb && std::fabs(*t.workbench.hbmAvgGb - 119.84375) < 1e-9);
    QVERIFY(t.workbench.hbmPeakGb && std::fabs(*t.workbench.hbmPeakGb - 147.65625) < 1e-9);
    QVERIFY(t.hbmTotalGb && std::fabs(*t.hbmTotalGb - 191.984375) < 1e-9);
    QVERIFY2(allDiagnostics(t).contains(QStringLiteral(
                 "memory used 'vram_used_bytes' (bytes), memory total 'vram_total_bytes' (bytes)")),
             qPrintable(allDiagnostics(t)));
}

QTEST_GUILESS_MAIN(TestTelemetryColumns)
#include "tst_telemetrycolumns.moc"
