// amd-smi telemetry: the reference reading (bit for bit against profile_parser._read_amd_smi)
// and the workbench reading (dialects, units, job window, bad input).

#include "amdsmiparser.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <limits>
#include <optional>

using namespace goblin;
using goblin::test::dataPath;

namespace {

enum class Ref { Ok, NoHeader, CsvError, Crash };

// Sentinels in the expected-value tables: no value (Python None), NaN, infinity.
const double kNone = -1.0e300;
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

/// Reference values are hard-coded from the real reference; compared to 1e-12 relative.
bool sameValue(const std::optional<double> &actual, double expected, QString *why)
{
    if (expected == kNone) {
        if (actual)
            *why = QStringLiteral("expected None, got %1").arg(*actual, 0, 'g', 17);
        return !actual;
    }
    if (!actual) {
        *why = QStringLiteral("expected %1, got None").arg(expected, 0, 'g', 17);
        return false;
    }
    const double a = *actual;
    bool ok;
    if (std::isnan(expected))
        ok = std::isnan(a);
    else if (std::isinf(expected))
        ok = a == expected;
    else
        ok = std::fabs(a - expected) <= 1e-12 * std::max(1.0, std::fabs(expected));
    if (!ok)
        *why = QStringLiteral("expected %1, got %2").arg(expected, 0, 'g', 17).arg(a, 0, 'g', 17);
    return ok;
}

/// The three field-limit cases of tests/data/amdsmi/reference/make_cases.py are over 128 KB each,
/// so they are built here instead of being committed (same bytes).
QByteArray bigCase(const QString &name)
{
    if (name == QLatin1String("field_limit"))
        return "gpu,rocm_version,used_vram,gfx_activity\n0,6.3.0,1024,40\n0,,2048,\"" + QByteArray(131073, 'x') +
               "\"\n0,,4096,90\n";
    if (name == QLatin1String("field_at_limit"))
        return "gpu,rocm_version,used_vram,gfx_activity\n0, 6.3.0 ,1024,40\n0,,2048,\"" + QByteArray(131072, 'x') +
               "\"\n";
    if (name == QLatin1String("field_limit_multibyte")) {
        QByteArray e;
        for (int i = 0; i < 70000; ++i)
            e += "\xc3\xa9";  // é: 140000 bytes but 70000 characters, under Python's limit
        return "gpu,used_vram,gfx_activity\n0,1024,40\n0,2048,\"" + e + "\"\n";
    }
    return {};
}

QJsonObject readTruth(const QString &path)
{
    return QJsonDocument::fromJson(goblin::test::readAll(path)).object();
}

/// True when a diagnostic of `severity` on `line` (-1: any line) contains `part`; `all` lists them.
bool hasDiagnostic(const SmiTelemetry &t, Severity severity, qint64 line, const QString &part, QString *all)
{
    for (const Diagnostic &d : t.diagnostics) {
        *all += QStringLiteral("\n  [%1] %2:%3 %4").arg(severityName(d.severity), d.file).arg(d.line).arg(d.message);
        if (d.severity == severity && (line < 0 || d.line == line) && d.message.contains(part) &&
            d.file == QLatin1String("amd_smi.csv"))
            return true;
    }
    return false;
}

const ColumnChoice *column(const std::vector<ColumnChoice> &columns, const QString &role)
{
    for (const ColumnChoice &c : columns)
        if (c.role == role)
            return &c;
    return nullptr;
}

} // namespace

Q_DECLARE_METATYPE(Ref)
Q_DECLARE_METATYPE(goblin::Severity)

class TestAmdSmiParser : public QObject
{
    Q_OBJECT

private slots:
    // ------------------------------------------------------------------------------------------
    // Reference reading. Expected values: python3 with sys.path.insert(0, <shared>/reference),
    // profile_parser._read_amd_smi(Path(f), []) on each file, printed with 17 significant digits.
    // Crash = UnicodeDecodeError escapes read_text() (the whole reference run dies);
    // CsvError = csv.Error caught, nothing but an already found ROCm version is kept.
    void reference_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<Ref>("outcome");
        QTest::addColumn<double>("utilPct");
        QTest::addColumn<double>("hbmPeakGb");
        QTest::addColumn<double>("hbmAvgGb");
        QTest::addColumn<QString>("rocmVersion");
        auto refRow = [](const char *file, Ref outcome, double util, double peak, double avg, const char *rocm) {
            QTest::newRow(file) << QString::fromUtf8(file) << outcome << util << peak << avg << QString::fromUtf8(rocm);
        };
        refRow("samples/InferenceX_mi355x_metric-E_oneshot_energy_end.csv", Ref::Ok, kNone, kNone, kNone, "");
        refRow("samples/InferenceX_mi355x_metric-E_oneshot_energy_start.csv", Ref::Ok, kNone, kNone, kNone, "");
        refRow("samples/InferenceX_mi355x_metric-p-c-t-u_watch1s_8gpu_EXCERPT.csv", Ref::Ok, 0, kNone, kNone, "");
        refRow("samples/amdsmi-issue38_metric-E_watch1s_2gpu_stdout_TRANSCRIBED.txt", Ref::Ok, kNone, kNone, kNone, "");
        refRow("generated/metric_file/amd_smi.csv", Ref::Ok, 71.5, 141.3935546875, 133.5869140625, "");
        refRow("generated/metric_file_rocmver/amd_smi.csv", Ref::Ok, 92.5, 140.693359375, 132.98451450892858, "6.4.1");
        refRow("generated/metric_na_util_30/amd_smi.csv", Ref::Ok, 57.564102564102562, 141.462890625, 128.86417362607759, "");
        refRow("generated/metric_na_util_all/amd_smi.csv", Ref::Ok, kNone, 141.41015625, 124.88201349431819, "");
        refRow("generated/metric_polled_2gpu/amd_smi.csv", Ref::Ok, 60.846153846153847, 141.1416015625, 127.56803072415866, "");
        refRow("generated/metric_util_upper/amd_smi.csv", Ref::Ok, 86.483870967741936, 141.0888671875, 124.25289818548387, "");
        refRow("generated/metric_vram_gb_name/amd_smi.csv", Ref::Ok, 84.444444444444443, 144875, 125911.14814814815, "");
        refRow("generated/metric_watch/amd_smi.csv", Ref::Ok, 45.4375, 141.3544921875, 125.871826171875, "");
        refRow("generated/monitor_lf/amd_smi.csv", Ref::Ok, 100, 0.13779296874999999, 0.1190703125, "");
        refRow("generated/monitor_rocm6_mb/amd_smi.csv", Ref::Ok, 100, 141.33203125, 122.53094951923077, "");
        refRow("generated/monitor_rocm7_gb/amd_smi.csv", Ref::Ok, 100, 0.13789062499999999, 0.12425998263888891, "");
        refRow("generated/monitor_watch_2gpu/amd_smi.csv", Ref::Ok, 100, 0.13779296874999999, 0.12959735576923082, "");
        refRow("reference/banner_then_timestamp.csv", Ref::Ok, kNone, 4, 3, "");
        refRow("reference/bom_header.csv", Ref::Ok, 60, 4, 3, "");
        refRow("reference/cr_only.csv", Ref::Ok, 15, 2, 1.5, "");
        refRow("reference/duplicate_names.csv", Ref::Ok, 15, 2, 2, "");
        refRow("reference/float_syntax.csv", Ref::Ok, 25.375, kInf, kInf, "");
        refRow("reference/header_only.csv", Ref::Ok, kNone, kNone, kNone, "");
        refRow("reference/header_variant_kept.csv", Ref::Ok, 20, 4, 3, "");
        refRow("reference/multiline_quoted.csv", Ref::Ok, 15, 3, 2.5, "");
        refRow("reference/nan_first_peak.csv", Ref::Ok, 15, kNaN, kNaN, "");
        refRow("reference/nan_inf.csv", Ref::Ok, -kInf, kNaN, kNaN, "");
        refRow("reference/no_header.csv", Ref::NoHeader, kNone, kNone, kNone, "");
        refRow("reference/non_utf8.csv", Ref::Crash, kNone, kNone, kNone, "");
        refRow("reference/nul_byte.csv", Ref::Ok, 20, 2, 1.5, "");
        refRow("reference/odd_line_breaks.csv", Ref::Ok, 36, 6, 3.0041852678571428, "");
        refRow("reference/quote_quirk.csv", Ref::Ok, 10, 4, 3, "");
        refRow("reference/short_long_rows.csv", Ref::Ok, 45, 4, 2.5, "7.0.1");
        refRow("reference/substring_tiers.csv", Ref::Ok, 50, 4, 3, "6.2");
        refRow("reference/sum_order.csv", Ref::Ok, 26.766666659999999, 191.984375, 38.399999999999999, "");
        refRow("reference/surrogate_utf8.csv", Ref::Crash, kNone, kNone, kNone, "");
        refRow("reference/truncated_utf8.csv", Ref::Crash, kNone, kNone, kNone, "");
        refRow("reference/bad_continuation_utf8.csv", Ref::Crash, kNone, kNone, kNone, "");
        refRow("reference/units_and_commas.csv", Ref::Ok, 16.25, 1, 0.43326822916666669, "");
        refRow("reference/whitespace_lines.csv", Ref::Ok, 10, 2, 2, "");
        refRow("workbench/bad_rows.csv", Ref::Ok, 47.799999999999997, kInf, kInf, "");
        refRow("workbench/banner_only.csv", Ref::NoHeader, kNone, kNone, kNone, "");
        refRow("workbench/empty.csv", Ref::NoHeader, kNone, kNone, kNone, "");
        refRow("workbench/fan_usage_full_metric.csv", Ref::Ok, kNone, 60, 55, "");
        refRow("workbench/foreign_header.csv", Ref::Ok, 33.333333333333336, 20, 10.09765625, "");
        refRow("workbench/gb_name_mb_values.csv", Ref::Ok, 50, 153600, 151800, "");
        refRow("workbench/header_only.csv", Ref::Ok, kNone, kNone, kNone, "");
        refRow("workbench/metric_no_total.csv", Ref::Ok, 50, 110, 105, "");
        refRow("workbench/metric_window.csv", Ref::Ok, 28.125, 150, 80.883056640625, "");
        refRow("workbench/monitor_rocm6_mb.csv", Ref::Ok, 100, 150, 100, "");
        refRow("workbench/monitor_rocm7_no_total.csv", Ref::Ok, kNone, 0.10791015625, 0.10302734375, "");
        refRow("workbench/monitor_watch_gb_2gpu.csv", Ref::Ok, 100, 0.1171875, 0.06844308035714286, "");
        refRow("workbench/mostly_na.csv", Ref::Ok, 50, 4, 2.5, "");
        refRow("workbench/nvidia_smi.csv", Ref::Ok, kNone, kNone, kNone, "");
        refRow("workbench/rocm_smi.csv", Ref::Ok, 50, 4194304, 2621440, "");
        refRow("workbench/rocm_version.csv", Ref::Ok, 50, 20, 15, "N/A");
        refRow("workbench/usage_only.csv", Ref::Ok, kNone, 102, 101, "");
        refRow("workbench/unclosed_quote.csv", Ref::Ok, kNone, kNone, kNone, "");
        refRow("@field_limit", Ref::CsvError, kNone, kNone, kNone, "6.3.0");
        refRow("@field_at_limit", Ref::Ok, 40, 2, 1.5, "6.3.0");
        refRow("@field_limit_multibyte", Ref::Ok, 40, 2, 1.5, "");
    }

    void reference()
    {
        QFETCH(QString, file);
        QFETCH(Ref, outcome);
        QFETCH(double, utilPct);
        QFETCH(double, hbmPeakGb);
        QFETCH(double, hbmAvgGb);
        QFETCH(QString, rocmVersion);

        QString path = dataPath(QStringLiteral("amdsmi/") + file);
        QTemporaryDir tmp;
        if (file.startsWith(QLatin1Char('@'))) {
            QVERIFY(tmp.isValid());
            path = tmp.filePath(QStringLiteral("amd_smi.csv"));
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(bigCase(file.mid(1)));
        }
        QVERIFY2(QFileInfo::exists(path), qPrintable(path));
        const SmiTelemetry t = parseAmdSmiFile(path, QStringLiteral("amd_smi.csv"));
        QVERIFY(t.referenceFileFound);
        QVERIFY(!t.cancelled);
        const SmiReading &r = t.reference;
        switch (outcome) {
        case Ref::Ok:
            QVERIFY2(!r.readFailed && !r.noHeader, qPrintable(r.readFailure));
            break;
        case Ref::NoHeader:
            QVERIFY(r.noHeader);
            QVERIFY(!r.readFailed);
            break;
        case Ref::CsvError:
            QVERIFY(r.readFailed);
            QVERIFY2(r.readFailure.contains(QLatin1String("field larger than field limit (131072)")),
                     qPrintable(r.readFailure));
            break;
        case Ref::Crash:
            QVERIFY(r.readFailed);
            QVERIFY2(r.readFailure.startsWith(QLatin1String("UnicodeDecodeError: 'utf-8' codec can't decode")),
                     qPrintable(r.readFailure));
            break;
        }
        QString why;
        QVERIFY2(sameValue(r.gpuUtilPct, utilPct, &why), qPrintable(QStringLiteral("util: ") + why));
        QVERIFY2(sameValue(r.hbmPeakGb, hbmPeakGb, &why), qPrintable(QStringLiteral("hbm peak: ") + why));
        QVERIFY2(sameValue(r.hbmAvgGb, hbmAvgGb, &why), qPrintable(QStringLiteral("hbm avg: ") + why));
        QCOMPARE(r.rocmVersion, rocmVersion);
        // Sample counts agree with the values: a mean needs samples.
        QCOMPARE(r.utilSamples > 0, r.gpuUtilPct.has_value());
        QCOMPARE(r.hbmSamples > 0, r.hbmAvgGb.has_value());
    }

    void referenceDecodeErrorMessage()
    {
        // Python: 'utf-8' codec can't decode byte 0xff in position 41: invalid start byte
        const SmiTelemetry t = parseAmdSmiFile(dataPath(QStringLiteral("amdsmi/reference/non_utf8.csv")),
                                               QStringLiteral("amd_smi.csv"));
        QVERIFY2(t.reference.readFailure.contains(
                     QLatin1String("'utf-8' codec can't decode byte 0xff in position 41: invalid start byte")),
                 qPrintable(t.reference.readFailure));
        const SmiTelemetry t2 = parseAmdSmiFile(dataPath(QStringLiteral("amdsmi/reference/truncated_utf8.csv")),
                                                QStringLiteral("amd_smi.csv"));
        QVERIFY2(t2.reference.readFailure.contains(
                     QLatin1String("can't decode bytes in position 23-24: unexpected end of data")),
                 qPrintable(t2.reference.readFailure));
        // F0 9F 98 then 'x': the error covers the three bytes before the one that breaks the sequence.
        const SmiTelemetry t3 = parseAmdSmiFile(
            dataPath(QStringLiteral("amdsmi/reference/bad_continuation_utf8.csv")), QStringLiteral("amd_smi.csv"));
        QVERIFY2(t3.reference.readFailure.contains(
                     QLatin1String("can't decode bytes in position 16-18: invalid continuation byte")),
                 qPrintable(t3.reference.readFailure));
    }

    void referenceColumns_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("utilColumn");
        QTest::addColumn<QString>("hbmColumn");
        QTest::addColumn<QString>("hbmUnit");
        // Trap 12: substring `usage` finds power_usage (W) in monitor output.
        QTest::newRow("monitor ROCm 7: power_usage as utilisation")
            << "generated/monitor_rocm7_gb/amd_smi.csv" << "power_usage" << "vram_used" << "MB";
        // Trap 11: exact alias `usage` is the fan usage column of a full metric.
        QTest::newRow("full metric: fan usage") << "workbench/fan_usage_full_metric.csv" << "usage" << "used_vram" << "MB";
        QTest::newRow("metric: gfx_activity exact") << "generated/metric_polled_2gpu/amd_smi.csv" << "gfx_activity"
                                                    << "used_vram" << "MB";
        QTest::newRow("VRAM_USED_GB taken as GB") << "generated/metric_vram_gb_name/amd_smi.csv" << "gfx_activity"
                                                  << "VRAM_USED_GB" << "GB";
        QTest::newRow("rocm-smi: substring tiers") << "workbench/rocm_smi.csv" << "GPU use (%)"
                                                   << "VRAM Total Used Memory (B)" << "MB";
        QTest::newRow("energy only: nothing") << "samples/InferenceX_mi355x_metric-E_oneshot_energy_end.csv" << ""
                                              << "" << "";
    }

    void referenceColumns()
    {
        QFETCH(QString, file);
        QFETCH(QString, utilColumn);
        QFETCH(QString, hbmColumn);
        QFETCH(QString, hbmUnit);
        const SmiTelemetry t = parseAmdSmiFile(dataPath(QStringLiteral("amdsmi/") + file), QStringLiteral("amd_smi.csv"));
        const ColumnChoice *util = column(t.file.referenceColumns, QStringLiteral("gpu_util"));
        const ColumnChoice *hbm = column(t.file.referenceColumns, QStringLiteral("hbm_used"));
        QCOMPARE(util ? util->column : QString(), utilColumn);
        QCOMPARE(hbm ? hbm->column : QString(), hbmColumn);
        QCOMPARE(hbm ? hbm->unit : QString(), hbmUnit);
        if (util)
            QVERIFY(!util->reason.isEmpty());
    }

    // ------------------------------------------------------------------------------------------
    // Workbench reading against make_run.py's ground truth (tests/data/amdsmi/generated/*, made by
    // generate.sh there; truth.json is a subset of --truth). Tolerances, from what sampling can do:
    //  * utilisation: within 1.5 percentage points of 100 × kernel_time_frac (the generator follows
    //    each step's kernel share with ±2 % noise, rounds to whole %, and samples every 0.2 or 1 s);
    //  * HBM peak: within 1 % below the true peak (samples can miss the top of the saw-tooth) and
    //    at most 0.1 GB above it (GB values are rounded to 0.1);
    //  * HBM average: within 1 % of hbm_avg_gb, the average over the training steps — the idle lead
    //    and tail are outside the job window. Without utilisation the window is unknown and the
    //    average is compared with hbm_avg_gb_telemetry_window instead.
    void workbenchTruth_data()
    {
        QTest::addColumn<QString>("run");
        QTest::addColumn<QString>("dialect");
        QTest::addColumn<QString>("utilColumn");
        QTest::addColumn<QString>("hbmColumn");
        QTest::addColumn<QString>("hbmUnit");
        QTest::addColumn<QString>("avgKey");
        QTest::addColumn<QString>("rocmVersion");
        const QString polledMetric = QStringLiteral("amd-smi metric (polled one-shot blocks, no timestamps)");
        const QString tw = QStringLiteral("hbm_avg_gb");
        QTest::newRow("metric polled, 2 GPUs") << "metric_polled_2gpu" << polledMetric << "gfx_activity" << "used_vram"
                                               << "MB" << tw << "";
        QTest::newRow("metric --watch --file") << "metric_file" << "amd-smi metric (watch with --file: one header)"
                                               << "gfx_activity" << "used_vram" << "MB" << tw << "";
        QTest::newRow("metric --watch stdout") << "metric_watch"
                                               << "amd-smi metric (watch to stdout: banner and a header per sample)"
                                               << "gfx_activity" << "used_vram" << "MB" << tw << "";
        QTest::newRow("monitor ROCm 7, GB") << "monitor_rocm7_gb"
                                            << "amd-smi monitor ROCm 7 (polled one-shot blocks, no timestamps)" << "gfx"
                                            << "vram_used" << "GB" << tw << "";
        QTest::newRow("monitor ROCm 7, LF line ends") << "monitor_lf"
                                                      << "amd-smi monitor ROCm 7 (polled one-shot blocks, no timestamps)"
                                                      << "gfx" << "vram_used" << "GB" << tw << "";
        QTest::newRow("monitor ROCm 6, MB") << "monitor_rocm6_mb"
                                            << "amd-smi monitor ROCm 6 (polled one-shot blocks, no timestamps)" << "gfx"
                                            << "vram_used" << "MB" << tw << "";
        QTest::newRow("monitor --watch, 2 GPUs")
            << "monitor_watch_2gpu" << "amd-smi monitor ROCm 7 (watch to stdout: banner and a header per sample)"
            << "gfx" << "vram_used" << "GB" << tw << "";
        QTest::newRow("utilisation N/A 30 %") << "metric_na_util_30" << polledMetric << "gfx_activity" << "used_vram"
                                              << "MB" << tw << "";
        QTest::newRow("utilisation read failed: usage column only")
            << "metric_na_util_all" << polledMetric << "" << "used_vram" << "MB"
            << "hbm_avg_gb_telemetry_window" << "";
        QTest::newRow("VRAM_USED_GB holding MB") << "metric_vram_gb_name" << polledMetric << "gfx_activity"
                                                 << "VRAM_USED_GB" << "MB" << tw << "";
        QTest::newRow("GFX_ACTIVITY upper case") << "metric_util_upper" << polledMetric << "GFX_ACTIVITY" << "used_vram"
                                                 << "MB" << tw << "";
        QTest::newRow("rocm_version column") << "metric_file_rocmver" << "amd-smi metric (watch with --file: one header)"
                                             << "gfx_activity" << "used_vram" << "MB" << tw << "6.4.1";
    }

    void workbenchTruth()
    {
        QFETCH(QString, run);
        QFETCH(QString, dialect);
        QFETCH(QString, utilColumn);
        QFETCH(QString, hbmColumn);
        QFETCH(QString, hbmUnit);
        QFETCH(QString, avgKey);
        QFETCH(QString, rocmVersion);
        const QString dir = dataPath(QStringLiteral("amdsmi/generated/") + run);
        const QJsonObject truth = readTruth(dir + QStringLiteral("/truth.json"));
        QVERIFY(!truth.isEmpty());
        const SmiTelemetry t = parseAmdSmi(dir);
        QVERIFY(t.referenceFileFound);
        QCOMPARE(t.file.relativePath, QStringLiteral("amd_smi.csv"));
        QCOMPARE(t.file.format, QStringLiteral("amd-smi-csv"));
        QCOMPARE(t.file.dialect, dialect);
        QCOMPARE(t.gpuCount, truth.value(QStringLiteral("gpus")).toInt());
        QCOMPARE(qint64(t.samples.size()), t.file.rowsRead);
        QCOMPARE(t.file.rowsSkipped, 0);
        for (const Diagnostic &d : t.diagnostics)
            QVERIFY2(d.severity != Severity::Error, qPrintable(d.message));

        const ColumnChoice *util = column(t.file.workbenchColumns, QStringLiteral("gpu_util"));
        const ColumnChoice *hbm = column(t.file.workbenchColumns, QStringLiteral("hbm_used"));
        QVERIFY(util && hbm);
        QCOMPARE(util->column, utilColumn);
        QCOMPARE(hbm->column, hbmColumn);
        QCOMPARE(hbm->unit, hbmUnit);
        QCOMPARE(t.workbench.rocmVersion, rocmVersion);

        const SmiReading &w = t.workbench;
        if (utilColumn.isEmpty()) {
            QVERIFY(!w.gpuUtilPct);
            QCOMPARE(t.samplesOutsideJob, 0);
        } else {
            QVERIFY(w.gpuUtilPct);
            const double expected = 100.0 * truth.value(QStringLiteral("kernel_time_frac")).toDouble();
            QVERIFY2(std::fabs(*w.gpuUtilPct - expected) <= 1.5,
                     qPrintable(QStringLiteral("util %1 vs truth %2").arg(*w.gpuUtilPct).arg(expected)));
            QVERIFY(t.samplesOutsideJob > 0 || run == QLatin1String("metric_file"));
        }
        const double peak = truth.value(QStringLiteral("hbm_peak_gb")).toDouble();
        QVERIFY(w.hbmPeakGb && w.hbmAvgGb);
        QVERIFY2(*w.hbmPeakGb <= peak + 0.1 && *w.hbmPeakGb >= peak * 0.99,
                 qPrintable(QStringLiteral("peak %1 vs truth %2").arg(*w.hbmPeakGb).arg(peak)));
        const double avg = truth.value(avgKey).toDouble();
        QVERIFY2(std::fabs(*w.hbmAvgGb - avg) <= 0.01 * avg,
                 qPrintable(QStringLiteral("avg %1 vs truth %2 (%3)").arg(*w.hbmAvgGb).arg(avg).arg(avgKey)));

        // Samples: per GPU, times never go backwards; window flags agree with the count.
        int outside = 0;
        std::map<int, double> last;
        for (const TelemetrySample &s : t.samples) {
            QVERIFY(s.gpu >= 0 && s.gpu < t.gpuCount);
            QVERIFY(s.timeS >= 0.0);
            if (last.count(s.gpu))
                QVERIFY(s.timeS >= last[s.gpu]);
            last[s.gpu] = s.timeS;
            outside += s.inJobWindow ? 0 : 1;
        }
        QCOMPARE(outside, t.samplesOutsideJob);
    }

    // ------------------------------------------------------------------------------------------
    // Workbench reading of small hand-written files (tests/data/amdsmi/workbench/make_cases.py);
    // every expected value is worked out in the row's comment.
    void workbenchHand_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("dialect");
        QTest::addColumn<double>("utilPct");
        QTest::addColumn<double>("hbmPeakGb");
        QTest::addColumn<double>("hbmAvgGb");
        QTest::addColumn<int>("samples");
        QTest::addColumn<int>("gpus");
        QTest::addColumn<int>("outside");
        QTest::addColumn<qint64>("rowsRead");
        QTest::addColumn<qint64>("rowsSkipped");
        QTest::addColumn<QString>("utilColumn");
        QTest::addColumn<QString>("hbmUnit");
        QTest::addColumn<QString>("rocm");

        // util 0,1,50,80,3,90,1,0: busy (> 5 %) from sample 2 to 5, so 4 samples outside.
        // util (50+80+3+90)/4; VRAM MB (total_vram 196592): (102400+153600+140000+145000)/4/1024;
        // peak over all samples 153600/1024.
        QTest::newRow("metric polled: job window") << "metric_window.csv"
                                                   << "amd-smi metric (polled one-shot blocks, no timestamps)" << 55.75
                                                   << 150.0 << 132.080078125 << 8 << 1 << 4 << qint64(8) << qint64(0)
                                                   << "gfx_activity" << "MB" << "";
        // GPU 0 util 0,60,70,2 (window t=1..2); GPU 1 util 1,N/A,40,2 (window t=2 only).
        // util (60+70+40)/3; VRAM GB (vram_total 192.0): GPU 0 100.5, 120.0, GPU 1 N/A -> 110.25.
        QTest::newRow("monitor watch GB, 2 GPUs")
            << "monitor_watch_gb_2gpu.csv" << "amd-smi monitor ROCm 7 (watch to stdout: banner and a header per sample)"
            << 170.0 / 3.0 << 120.0 << 110.25 << 8 << 2 << 5 << qint64(8) << qint64(0) << "gfx" << "GB" << "";
        // util 30,60,90; VRAM MB 51200,102400,153600 -> 50,100,150 GB.
        QTest::newRow("monitor ROCm 6 MB") << "monitor_rocm6_mb.csv"
                                           << "amd-smi monitor ROCm 6 (polled one-shot blocks, no timestamps)" << 60.0
                                           << 150.0 << 100.0 << 3 << 1 << 0 << qint64(3) << qint64(0) << "gfx" << "MB"
                                           << "";
        // No total column: the ROCm 7 default view is GB.
        QTest::newRow("monitor ROCm 7 without total") << "monitor_rocm7_no_total.csv"
                                                      << "amd-smi monitor ROCm 7 (one-shot, no timestamps)" << 50.0
                                                      << 110.5 << 105.5 << 2 << 1 << 0 << qint64(2) << qint64(0) << "gfx"
                                                      << "GB" << "";
        // No total column: metric used_vram is MB. 102400, 112640 MB -> 100, 110 GB.
        QTest::newRow("metric without total") << "metric_no_total.csv" << "amd-smi metric (one-shot, no timestamps)"
                                              << 50.0 << 110.0 << 105.0 << 2 << 1 << 0 << qint64(2) << qint64(0)
                                              << "gfx_activity" << "MB" << "";
        // VRAM_USED_GB = 150000, 153600: impossible as GB, read as MB -> 146.484375, 150.
        QTest::newRow("GB name, MB values") << "gb_name_mb_values.csv" << "amd-smi metric (one-shot, no timestamps)"
                                            << 50.0 << 150.0 << 148.2421875 << 2 << 1 << 0 << qint64(2) << qint64(0)
                                            << "gfx_activity" << "MB" << "";
        // Bytes: 1, 2, 3, 4 GiB on card0/card1; util 35,45,55,65.
        QTest::newRow("rocm-smi bytes") << "rocm_smi.csv" << "rocm-smi --csv" << 50.0 << 4.0 << 2.5 << 4 << 2 << 0
                                        << qint64(4) << qint64(0) << "GPU use (%)" << "B" << "";
        // util 0,50,70,3 % -> window samples 1..2: util 60; memory 2048 MiB and [N/A] -> 2 GB.
        QTest::newRow("nvidia-smi units") << "nvidia_smi.csv" << "nvidia-smi --query-gpu --format=csv" << 60.0 << 2.0
                                          << 2.0 << 4 << 1 << 2 << qint64(4) << qint64(0) << "utilization.gpu [%]"
                                          << "MiB" << "";
        // Only `usage` (N/A): no utilisation, no window; VRAM 102400, 104448 MB -> 100, 102.
        QTest::newRow("usage column only") << "usage_only.csv" << "amd-smi metric (polled one-shot blocks, no timestamps)"
                                           << kNone << 102.0 << 101.0 << 2 << 1 << 0 << qint64(2) << qint64(0) << ""
                                           << "MB" << "";
        // gfx_activity 20, 40 next to fan usage N/A and `mem` (temperature); VRAM 50, 60 GB.
        QTest::newRow("fan usage ignored") << "fan_usage_full_metric.csv" << "amd-smi metric (one-shot, no timestamps)"
                                           << 30.0 << 60.0 << 55.0 << 2 << 1 << 0 << qint64(2) << qint64(0)
                                           << "gfx_activity" << "MB" << "";
        // Rows: ok(40, 10 GB), gpu N/A (skipped), util 'abc' (20 GB), VRAM inf (util 60), ok(80, 30 GB),
        // a short row (skipped). util (40+60+80)/3, VRAM (10+20+30)/3, peak 30.
        QTest::newRow("bad rows") << "bad_rows.csv" << "amd-smi metric (one-shot, no timestamps)" << 60.0 << 30.0 << 20.0
                                  << 4 << 1 << 0 << qint64(6) << qint64(2) << "gfx_activity" << "MB" << "";
        // util N/A,N/A,50,N/A -> window = sample 2 only: util 50, VRAM 3072 MB = 3 GB; peak 4 GB.
        QTest::newRow("mostly N/A") << "mostly_na.csv" << "amd-smi metric (one-shot, no timestamps)" << 50.0 << 4.0 << 3.0
                                    << 4 << 1 << 3 << qint64(4) << qint64(0) << "gfx_activity" << "MB" << "";
        // The row under the monitor header is skipped: util 40, 60; VRAM 10, 20 GB.
        QTest::newRow("foreign header") << "foreign_header.csv" << "amd-smi metric (polled one-shot blocks, no timestamps)"
                                        << 50.0 << 20.0 << 15.0 << 2 << 1 << 0 << qint64(3) << qint64(1)
                                        << "gfx_activity" << "MB" << "";
        // N/A is not a version: the first real value wins.
        QTest::newRow("rocm version") << "rocm_version.csv" << "amd-smi metric (one-shot, no timestamps)" << 50.0 << 20.0
                                      << 15.0 << 2 << 1 << 0 << qint64(2) << qint64(0) << "gfx_activity" << "MB"
                                      << "6.4.1";
        // Real captures (tests/data/amdsmi/samples): all GPUs idle (0 %), no VRAM columns.
        QTest::newRow("real: metric -p -c -t -u watch excerpt")
            << "../samples/InferenceX_mi355x_metric-p-c-t-u_watch1s_8gpu_EXCERPT.csv"
            << "amd-smi metric (watch, banner and repeated headers filtered out)" << 0.0 << kNone << kNone << 16 << 8
            << 0 << qint64(16) << qint64(0) << "gfx_activity" << "" << "";
        QTest::newRow("real: metric -E watch stdout")
            << "../samples/amdsmi-issue38_metric-E_watch1s_2gpu_stdout_TRANSCRIBED.txt"
            << "amd-smi metric (watch to stdout: banner and a header per sample)" << kNone << kNone << kNone << 8 << 2
            << 0 << qint64(8) << qint64(0) << "" << "" << "";
        QTest::newRow("real: metric -E one-shot") << "../samples/InferenceX_mi355x_metric-E_oneshot_energy_start.csv"
                                                  << "amd-smi metric (one-shot, no timestamps)" << kNone << kNone << kNone
                                                  << 8 << 8 << 0 << qint64(8) << qint64(0) << "" << "" << "";
    }

    void workbenchHand()
    {
        QFETCH(QString, file);
        QFETCH(QString, dialect);
        QFETCH(double, utilPct);
        QFETCH(double, hbmPeakGb);
        QFETCH(double, hbmAvgGb);
        QFETCH(int, samples);
        QFETCH(int, gpus);
        QFETCH(int, outside);
        QFETCH(qint64, rowsRead);
        QFETCH(qint64, rowsSkipped);
        QFETCH(QString, utilColumn);
        QFETCH(QString, hbmUnit);
        QFETCH(QString, rocm);
        const QString path = dataPath(QStringLiteral("amdsmi/workbench/") + file);
        const SmiTelemetry t = parseAmdSmiFile(path, QStringLiteral("amd_smi.csv"));
        QCOMPARE(t.file.dialect, dialect);
        QCOMPARE(t.file.sizeBytes, QFileInfo(path).size());
        QString why;
        QVERIFY2(sameValue(t.workbench.gpuUtilPct, utilPct, &why), qPrintable(QStringLiteral("util: ") + why));
        QVERIFY2(sameValue(t.workbench.hbmPeakGb, hbmPeakGb, &why), qPrintable(QStringLiteral("peak: ") + why));
        QVERIFY2(sameValue(t.workbench.hbmAvgGb, hbmAvgGb, &why), qPrintable(QStringLiteral("avg: ") + why));
        QCOMPARE(int(t.samples.size()), samples);
        QCOMPARE(t.gpuCount, gpus);
        QCOMPARE(t.samplesOutsideJob, outside);
        QCOMPARE(t.file.rowsRead, rowsRead);
        QCOMPARE(t.file.rowsSkipped, rowsSkipped);
        const ColumnChoice *util = column(t.file.workbenchColumns, QStringLiteral("gpu_util"));
        const ColumnChoice *hbm = column(t.file.workbenchColumns, QStringLiteral("hbm_used"));
        QVERIFY(util && hbm);
        QCOMPARE(util->column, utilColumn);
        QCOMPARE(hbm->unit, hbmUnit);
        QCOMPARE(t.workbench.rocmVersion, rocm);
        // N/A never counts as zero: every sample value is NaN or a real reading.
        for (const TelemetrySample &s : t.samples) {
            QVERIFY(std::isnan(s.utilPct) || (s.utilPct >= 0.0 && s.utilPct <= 100.0));
            QVERIFY(std::isnan(s.hbmUsedGb) || std::isfinite(s.hbmUsedGb));
        }
    }

    void samplesAndTimes()
    {
        // Watch output: integer Unix seconds relative to the first sample, shared by both GPUs.
        const SmiTelemetry w = parseAmdSmiFile(dataPath(QStringLiteral("amdsmi/workbench/monitor_watch_gb_2gpu.csv")),
                                               QStringLiteral("amd_smi.csv"));
        QCOMPARE(int(w.samples.size()), 8);
        const double times[] = {0, 0, 1, 1, 2, 2, 3, 3};
        const int gpus[] = {0, 1, 0, 1, 0, 1, 0, 1};
        const bool window[] = {false, false, true, false, true, true, false, false};
        for (int i = 0; i < 8; ++i) {
            QCOMPARE(w.samples[size_t(i)].timeS, times[i]);
            QCOMPARE(w.samples[size_t(i)].gpu, gpus[i]);
            QCOMPARE(w.samples[size_t(i)].inJobWindow, window[i]);
        }
        QVERIFY(std::isnan(w.samples[3].utilPct));    // GPU 1 gfx N/A at t=1
        QVERIFY(std::isnan(w.samples[5].hbmUsedGb));  // GPU 1 vram_used N/A at t=2
        QCOMPARE(w.samples[4].hbmUsedGb, 120.0);
        QCOMPARE(w.measuredIntervalS, 1.0);

        // Polled one-shot output: no timestamps, sample number × 0.2 s (and an Info saying so).
        const SmiTelemetry p = parseAmdSmiFile(dataPath(QStringLiteral("amdsmi/workbench/metric_window.csv")),
                                               QStringLiteral("amd_smi.csv"));
        QCOMPARE(int(p.samples.size()), 8);
        for (int i = 0; i < 8; ++i) {
            QCOMPARE(p.samples[size_t(i)].timeS, i * 0.2);
            QCOMPARE(p.samples[size_t(i)].inJobWindow, i >= 2 && i <= 5);
        }
        QCOMPARE(p.samples[3].hbmUsedGb, 150.0);
        QCOMPARE(p.measuredIntervalS, 0.0);
        QString all;
        QVERIFY2(hasDiagnostic(p, Severity::Info, 0, QStringLiteral("sample number per GPU × 0.2 s"), &all),
                 qPrintable(all));

        // nvidia-smi wall-clock timestamps with milliseconds.
        const SmiTelemetry n = parseAmdSmiFile(dataPath(QStringLiteral("amdsmi/workbench/nvidia_smi.csv")),
                                               QStringLiteral("amd_smi.csv"));
        QCOMPARE(int(n.samples.size()), 4);
        for (int i = 0; i < 4; ++i)
            QCOMPARE(n.samples[size_t(i)].timeS, i * 0.5);
        QCOMPARE(n.measuredIntervalS, 0.5);

        // rocm-smi: card0/card1 -> GPU 0/1, per-GPU sample numbers.
        const SmiTelemetry r = parseAmdSmiFile(dataPath(QStringLiteral("amdsmi/workbench/rocm_smi.csv")),
                                               QStringLiteral("amd_smi.csv"));
        QCOMPARE(int(r.samples.size()), 4);
        QCOMPARE(r.samples[1].gpu, 1);
        QCOMPARE(r.samples[2].timeS, 0.2);  // second sample of GPU 0
        QCOMPARE(r.samples[3].hbmUsedGb, 4.0);
    }

    // ------------------------------------------------------------------------------------------
    // Diagnostics: each names the file (and the line where one applies). Where the reference reads
    // another column or unit, one diagnostic names both readings.
    void diagnostics_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<Severity>("severity");
        QTest::addColumn<qint64>("line");
        QTest::addColumn<QString>("message");
        QTest::newRow("monitor: utilisation column vs power_usage")
            << "generated/monitor_rocm7_gb/amd_smi.csv" << Severity::Info << qint64(0)
            << "utilisation read from 'gfx' (%); the reference reads 'power_usage' (W) here";
        QTest::newRow("monitor: GB vs the reference's MB")
            << "generated/monitor_rocm7_gb/amd_smi.csv" << Severity::Info << qint64(0)
            << "VRAM read as GB (vram_total is 192, so the file is in GB); the reference divides 'vram_used' by 1024 "
               "as if it were MB";
        QTest::newRow("VRAM_USED_GB holding MB")
            << "generated/metric_vram_gb_name/amd_smi.csv" << Severity::Info << qint64(0)
            << "VRAM read as MB (total_vram is 196592, so the file is in MB); the reference takes 'VRAM_USED_GB' as GB "
               "because its name says GB";
        QTest::newRow("fan usage vs gfx_activity")
            << "workbench/fan_usage_full_metric.csv" << Severity::Info << qint64(0)
            << "utilisation read from 'gfx_activity' (%); the reference reads 'usage' (fan usage";
        QTest::newRow("rocm-smi bytes vs the reference's MB")
            << "workbench/rocm_smi.csv" << Severity::Info << qint64(0)
            << "VRAM read as B (rocm-smi reports bytes); the reference divides 'VRAM Total Used Memory (B)' by 1024";
        QTest::newRow("nvidia-smi: the reference cannot parse '50 %'")
            << "workbench/nvidia_smi.csv" << Severity::Info << qint64(0)
            << "the reference reads 'utilization.gpu [%]' too, but none of its values is a plain number";
        QTest::newRow("usage only: utilisation unavailable")
            << "generated/metric_na_util_all/amd_smi.csv" << Severity::Warning << qint64(1)
            << "utilisation unavailable ('usage' is fan usage or the collapsed usage group";
        QTest::newRow("usage only: no window") << "workbench/usage_only.csv" << Severity::Info << qint64(0)
                                               << "without utilisation values the job window cannot be found";
        QTest::newRow("job window") << "workbench/metric_window.csv" << Severity::Info << qint64(0)
                                    << "4 of 8 samples lie outside the job window";
        QTest::newRow("mostly N/A") << "workbench/mostly_na.csv" << Severity::Warning << qint64(0)
                                    << "'gfx_activity' is N/A in 3 of 4 samples (mostly N/A)";
        QTest::newRow("some N/A") << "generated/metric_na_util_30/amd_smi.csv" << Severity::Info << qint64(0)
                                  << "those values are skipped, not read as zero";
        QTest::newRow("short row") << "workbench/bad_rows.csv" << Severity::Warning << qint64(7)
                                   << "2 fields where the header (line 1) has 4; row skipped";
        QTest::newRow("bad GPU index") << "workbench/bad_rows.csv" << Severity::Warning << qint64(3)
                                       << "GPU index 'N/A' is not a GPU number; row skipped";
        QTest::newRow("word as number") << "workbench/bad_rows.csv" << Severity::Warning << qint64(4)
                                        << "'gfx_activity' is 'abc', not a number; value ignored";
        QTest::newRow("non-finite") << "workbench/bad_rows.csv" << Severity::Warning << qint64(5)
                                    << "'used_vram' is 'inf', not a finite number; value ignored";
        QTest::newRow("NaN is non-finite too") << "reference/nan_inf.csv" << Severity::Warning << qint64(2)
                                               << "'gfx_activity' is 'nan', not a finite number";
        QTest::newRow("out of range") << "reference/nan_inf.csv" << Severity::Warning << qint64(5)
                                      << "'gfx_activity' is 150, outside 0..100; value ignored";
        QTest::newRow("GB name with MB values") << "workbench/gb_name_mb_values.csv" << Severity::Warning << qint64(1)
                                                << "'VRAM_USED_GB' looks like GB by name or dialect but holds values up "
                                                   "to 153600; read as MB";
        QTest::newRow("different header") << "workbench/foreign_header.csv" << Severity::Warning << qint64(3)
                                          << "a different header (6 columns";
        QTest::newRow("banner dropped") << "samples/amdsmi-issue38_metric-E_watch1s_2gpu_stdout_TRANSCRIBED.txt"
                                        << Severity::Info << qint64(2) << "dropped 1 amd-smi watch banner line(s)";
        QTest::newRow("repeated headers dropped") << "generated/metric_polled_2gpu/amd_smi.csv" << Severity::Info
                                                  << qint64(0) << "repeated header row(s) and";
        QTest::newRow("banner and other preamble") << "reference/banner_then_timestamp.csv" << Severity::Warning
                                                   << qint64(3) << "1 other line(s) before the header (first at line 2)";
        QTest::newRow("energy file: no utilisation")
            << "samples/InferenceX_mi355x_metric-E_oneshot_energy_end.csv" << Severity::Warning << qint64(1)
            << "utilisation unavailable (no GFX utilisation column in the header)";
        QTest::newRow("energy file: no VRAM") << "samples/InferenceX_mi355x_metric-E_oneshot_energy_end.csv"
                                              << Severity::Warning << qint64(1) << "no used-VRAM column";
        // Bad input.
        QTest::newRow("empty file") << "workbench/empty.csv" << Severity::Error << qint64(0)
                                    << "the file is empty (0 bytes)";
        QTest::newRow("no header") << "reference/no_header.csv" << Severity::Error << qint64(0)
                                   << "no amd-smi CSV header found in 2 line(s)";
        QTest::newRow("banner only") << "workbench/banner_only.csv" << Severity::Error << qint64(0)
                                     << "no amd-smi CSV header found";
        QTest::newRow("unclosed quote") << "workbench/unclosed_quote.csv" << Severity::Warning << qint64(2)
                                        << "a quoted field starting here runs over several lines (an unclosed quote?)";
        QTest::newRow("no usable row") << "workbench/unclosed_quote.csv" << Severity::Warning << qint64(1)
                                       << "none of the 1 data row(s) under the header (line 1) could be used";
        QTest::newRow("header only") << "workbench/header_only.csv" << Severity::Warning << qint64(1)
                                     << "a header (line 1) but no data rows";
        QTest::newRow("non-UTF-8 line") << "reference/non_utf8.csv" << Severity::Warning << qint64(3)
                                        << "not valid UTF-8 (byte offset 41); read anyway, but the reference profile "
                                           "crashes on this file";
        QTest::newRow("non-UTF-8 reference") << "reference/non_utf8.csv" << Severity::Warning << qint64(0)
                                             << "reference reading failed: UnicodeDecodeError";
        QTest::newRow("reference finds no header")
            << "workbench/nvidia_smi.csv" << Severity::Info << qint64(0)
            << "the reference reads 'memory.used [MiB]' too, but none of its values is a plain number";
    }

    void diagnostics()
    {
        QFETCH(QString, file);
        QFETCH(Severity, severity);
        QFETCH(qint64, line);
        QFETCH(QString, message);
        const SmiTelemetry t = parseAmdSmiFile(dataPath(QStringLiteral("amdsmi/") + file), QStringLiteral("amd_smi.csv"));
        QString all;
        QVERIFY2(hasDiagnostic(t, severity, line, message, &all), qPrintable(all));
        for (const Diagnostic &d : t.diagnostics) {
            QCOMPARE(d.file, QStringLiteral("amd_smi.csv"));
            QVERIFY(!d.message.endsWith(QLatin1Char('.')));
            QVERIFY2(d.message.size() < 400, qPrintable(d.message));  // long cells are cut
        }
    }

    void badInputsNeverCrashOrReadZero_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("errorPart");
        QTest::newRow("gzip bytes") << QByteArray("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03gpu,used_vram\n", 24)
                                    << "binary data (a NUL byte at line 1)";
        QByteArray controls;
        for (int i = 0; i < 400; ++i)
            controls += char(1 + (i * 7) % 30);
        QTest::newRow("control characters") << controls << "binary data (many control characters)";
        QByteArray latin1 = "gpu,gfx_activity,used_vram\n0,\xe9t\xe9,1024\n";
        QTest::newRow("latin-1 text, a word as number") << latin1 << "";
        QTest::newRow("only blank lines") << QByteArray("\r\n\r\n\n") << "no amd-smi CSV header found";
        QTest::newRow("quote never closed") << QByteArray("gpu,gfx_activity,used_vram\n0,\"50,1024\n0,60,2048\n")
                                            << "";
    }

    void badInputsNeverCrashOrReadZero()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, errorPart);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        QFile f(tmp.filePath(QStringLiteral("amd_smi.csv")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes);
        f.close();
        const SmiTelemetry t = parseAmdSmi(tmp.path());
        QVERIFY(t.referenceFileFound);
        QCOMPARE(t.file.sizeBytes, qint64(bytes.size()));
        if (!errorPart.isEmpty()) {
            QString all;
            QVERIFY2(hasDiagnostic(t, Severity::Error, -1, errorPart, &all), qPrintable(all));
            QVERIFY(t.samples.empty());
        }
        // Whatever was read, nothing unreadable became a zero.
        QVERIFY(!t.workbench.gpuUtilPct || *t.workbench.gpuUtilPct > 0.0);
        QVERIFY(!t.workbench.hbmAvgGb || *t.workbench.hbmAvgGb > 0.0);
        QVERIFY(!t.diagnostics.empty());
    }

    void missingFileAndFolder()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const SmiTelemetry missing = parseAmdSmi(tmp.path());
        QVERIFY(!missing.referenceFileFound);
        QVERIFY(missing.samples.empty());
        QVERIFY(!missing.workbench.gpuUtilPct && !missing.reference.gpuUtilPct);
        QCOMPARE(missing.diagnostics.size(), size_t(1));
        QCOMPARE(missing.diagnostics.front().file, QStringLiteral("amd_smi.csv"));
        QVERIFY(missing.diagnostics.front().message.contains(QLatin1String("HBM usage is unknown")));

        // A folder named amd_smi.csv: Python's Path.exists() is true, read_text() raises
        // IsADirectoryError (an OSError the reference catches: nothing read).
        QVERIFY(QDir(tmp.path()).mkdir(QStringLiteral("amd_smi.csv")));
        const SmiTelemetry folder = parseAmdSmi(tmp.path());
        QVERIFY(folder.referenceFileFound);
        QVERIFY(folder.reference.readFailed);
        QVERIFY(folder.reference.readFailure.contains(QLatin1String("Is a directory")));
        QVERIFY(!folder.reference.hbmPeakGb && !folder.workbench.hbmPeakGb);
        QString all;
        QVERIFY2(hasDiagnostic(folder, Severity::Error, 0, QStringLiteral("is a folder, not a file"), &all),
                 qPrintable(all));
    }

    void inputFileInfo()
    {
        const QString path = dataPath(QStringLiteral("amdsmi/workbench/monitor_watch_gb_2gpu.csv"));
        const SmiTelemetry t = parseAmdSmiFile(path, QStringLiteral("amd_smi.csv"));
        QCOMPARE(t.file.relativePath, QStringLiteral("amd_smi.csv"));
        QCOMPARE(t.file.format, QStringLiteral("amd-smi-csv"));
        QCOMPARE(t.file.sizeBytes, QFileInfo(path).size());
        QVERIFY(!t.file.compressed);
        struct Expect {
            const char *role, *column, *unit;
        };
        const Expect expected[] = {{"gpu_util", "gfx", "%"},
                                   {"hbm_used", "vram_used", "GB"},
                                   {"gpu", "gpu", ""},
                                   {"timestamp", "timestamp", "s"}};
        for (const Expect &e : expected) {
            const ColumnChoice *c = column(t.file.workbenchColumns, QString::fromLatin1(e.role));
            QVERIFY2(c, e.role);
            QCOMPARE(c->column, QString::fromLatin1(e.column));
            QCOMPARE(c->unit, QString::fromLatin1(e.unit));
            QVERIFY(!c->reason.isEmpty());
        }
        QVERIFY(column(t.file.workbenchColumns, QStringLiteral("hbm_used"))->reason.contains(QLatin1String("192")));
        const ColumnChoice *refUtil = column(t.file.referenceColumns, QStringLiteral("gpu_util"));
        QVERIFY(refUtil);
        QCOMPARE(refUtil->column, QStringLiteral("power_usage"));
        QVERIFY(refUtil->reason.contains(QLatin1String("substring")));
    }

    void progressAndCancel()
    {
        // A polled metric file of ~1 MB: progress is reported in steps and can stop the parse.
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString path = tmp.filePath(QStringLiteral("amd_smi.csv"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            for (int i = 0; i < 6000; ++i) {
                f.write("gpu,gfx_activity,total_vram,used_vram\r\n");
                f.write(QByteArray("0,") + QByteArray::number(i % 100) + ",196592," + QByteArray::number(1000 + i) +
                        "\r\n" + "\n");
                f.write(QByteArray(100, ' ') + "\n");  // padding: whitespace-only lines are blank
            }
        }
        const qint64 size = QFileInfo(path).size();
        std::vector<qint64> seen;
        const SmiTelemetry full = parseAmdSmiFile(path, QStringLiteral("amd_smi.csv"), [&](qint64 done) {
            seen.push_back(done);
            return true;
        });
        QVERIFY(!full.cancelled);
        QCOMPARE(int(full.samples.size()), 6000);
        QVERIFY(seen.size() >= 3);
        QVERIFY(std::is_sorted(seen.begin(), seen.end()));
        QCOMPARE(seen.back(), size);

        int calls = 0;
        const SmiTelemetry stopped = parseAmdSmiFile(path, QStringLiteral("amd_smi.csv"), [&](qint64) {
            ++calls;
            return false;
        });
        QVERIFY(stopped.cancelled);
        QCOMPARE(calls, 1);
        QVERIFY(!stopped.workbench.gpuUtilPct && !stopped.reference.gpuUtilPct);

        // Cancelled in the second (reference) half: the workbench half already read is dropped too.
        const SmiTelemetry late = parseAmdSmiFile(path, QStringLiteral("amd_smi.csv"),
                                                  [&](qint64 done) { return done <= size / 2; });
        QVERIFY(late.cancelled);
        QVERIFY(late.samples.empty());
        QVERIFY(!late.workbench.gpuUtilPct && !late.reference.gpuUtilPct);
    }
};

QTEST_GUILESS_MAIN(TestAmdSmiParser)
#include "tst_amdsmiparser.moc"
