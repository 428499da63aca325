// Telemetry placed on the steps (issue 25, item 3): amd-smi watch timestamps (Unix seconds) and
// nvidia-smi local time against the torch trace's baseTimeNanoseconds. The expected per-step
// values come from scripts/telemetry_mean.py, which counts the same files itself
// (tests/data/telemetry/expected_steps.csv).

#include "runanalysis.h"
#include "derived.h"
#include "perstepjson.h"
#include "stepbudget.h"
#include "telemetrysteps.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace goblin;
using goblin::test::dataPath;
using goblin::test::readAll;

namespace {

struct ExpectedStep {
    QString name;
    int samples = 0;
    double utilMeanPct = NAN;
    double hbmPeakGb = NAN;
};

/// expected_steps.csv (amd-smi, whole seconds) or expected_steps_nvsmi.csv (nvidia-smi, ms).
std::vector<ExpectedStep> expectedSteps(const QString &file)
{
    std::vector<ExpectedStep> out;
    QFile f(dataPath(QStringLiteral("telemetry/") + file));
    if (!f.open(QIODevice::ReadOnly))
        return out;
    for (const QByteArray &line : f.readAll().split('\n')) {
        const QList<QByteArray> c = line.trimmed().split(',');
        if (c.size() != 4 || c[0] == "step")
            continue;
        out.push_back({QString::fromUtf8(c[0]), c[1].toInt(), c[2].toDouble(), c[3].toDouble()});
    }
    return out;
}

bool near(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b)); }

/// A copy of the placement run with `telemetry` (file name -> bytes) instead of its amd_smi.csv.
QString runWith(QTemporaryDir &dir, const QString &name, const QByteArray &telemetry, const QByteArray &torch = {})
{
    const QString src = dataPath(QStringLiteral("telemetry/run-placed/"));
    QFile::copy(src + QStringLiteral("trace.csv"), dir.filePath(QStringLiteral("trace.csv")));
    QFile t(dir.filePath(QStringLiteral("torch_profile.json")));
    if (t.open(QIODevice::WriteOnly))
        t.write(torch.isEmpty() ? readAll(src + QStringLiteral("torch_profile.json")) : torch);
    t.close();
    QFile f(dir.filePath(name));
    if (f.open(QIODevice::WriteOnly))
        f.write(telemetry);
    return dir.path();
}

std::shared_ptr<const RunAnalysis> load(const QString &path)
{
    const LoadResult r = loadRun(path);
    return r.outcome == LoadOutcome::Finished ? r.run : nullptr;
}

bool hasDiagnostic(const RunAnalysis &run, const QString &part)
{
    for (const Diagnostic &d : run.diagnostics)
        if (d.message.contains(part))
            return true;
    return false;
}

void checkPlacedSteps(const RunAnalysis &run, const QString &expectedFile)
{
    const std::vector<ExpectedStep> expected = expectedSteps(expectedFile);
    QVERIFY2(!expected.empty(), "no expected values: run scripts/telemetry_mean.py");
    const TelemetryPlacement &p = run.smi.placement;
    QVERIFY2(p.placed, qPrintable(p.how));
    QCOMPARE(run.steps.steps.size(), expected.size());
    QCOMPARE(p.steps.size(), expected.size());
    for (std::size_t k = 0; k < expected.size(); ++k) {
        const StepInputs &step = run.steps.steps[k];
        QCOMPARE(step.name, expected[k].name);
        QCOMPARE(p.steps[k].samples, expected[k].samples);
        QVERIFY2(near(p.steps[k].utilMeanPct, expected[k].utilMeanPct),
                 qPrintable(QStringLiteral("%1: %2 vs %3").arg(step.name).arg(p.steps[k].utilMeanPct).arg(expected[k].utilMeanPct)));
        QVERIFY(near(p.steps[k].hbmPeakGb, expected[k].hbmPeakGb));
        // The step's budget input is its own peak, not the run's.
        QVERIFY(step.inputs.hbmPeakGb);
        QVERIFY(near(*step.inputs.hbmPeakGb, expected[k].hbmPeakGb));
        QVERIFY(step.hbmPlaced);
        // So is the HBM use of the step's measured budget (the run's peak before).
        if (!step.slices.empty()) {
            Thresholds t;
            t.hbmCapacityGb = 1000.0;
            const WasteBudget b = stepBudget(run.steps, int(k), t);
            QVERIFY2(near(b.terms.hbmUsed * t.hbmCapacityGb, expected[k].hbmPeakGb),
                     qPrintable(QStringLiteral("%1: %2 GB used in the budget, %3 GB placed")
                                    .arg(step.name)
                                    .arg(b.terms.hbmUsed * t.hbmCapacityGb)
                                    .arg(expected[k].hbmPeakGb)));
        }
    }
    QVERIFY2(run.steps.source.contains(QLatin1String("telemetry (")), qPrintable(run.steps.source));
    // The report says which peak each step's budget took.
    const Derived derived = deriveResults(run, HeuristicsProfile::Workbench, Thresholds{});
    const QJsonArray perStep = perStepJson(derived);
    QCOMPARE(perStep.size(), qsizetype(expected.size()));
    for (std::size_t k = 0; k < expected.size(); ++k) {
        const QJsonObject s = perStep[qsizetype(k)].toObject();
        QCOMPARE(s.value(QStringLiteral("hbm_peak_scope")).toString(), QStringLiteral("step"));
        QVERIFY(near(s.value(QStringLiteral("hbm_peak_gb")).toDouble(), expected[k].hbmPeakGb));
    }
}

} // namespace

class TestTelemetrySteps : public QObject
{
    Q_OBJECT

private slots:
    void amdSmiWatchOnTorchBaseTime()
    {
        const auto run = load(dataPath(QStringLiteral("telemetry/run-placed")));
        QVERIFY(run);
        QVERIFY(run->smi.traceClock.baseTimeNs);
        QCOMPARE(*run->smi.traceClock.baseTimeNs, qint64(1733126400000000000));
        checkPlacedSteps(*run, QStringLiteral("expected_steps.csv"));
        QCOMPARE(run->smi.placement.zoneOffsetS, 0.0);
        // amd_smi.csv starts 2 s before ProfilerStep#0 (the idle lead-in).
        QCOMPARE(run->smi.placement.stepZeroTimeS, 2.0);
        QVERIFY(hasDiagnostic(*run, QStringLiteral("samples placed on the steps")));
    }

    void nvidiaSmiLocalTimeFindsTheZone()
    {
        QTemporaryDir dir;
        const QString path = runWith(dir, QStringLiteral("gpu_log.csv"),
                                     readAll(dataPath(QStringLiteral("telemetry/run-placed-nvsmi-utc+2.csv"))));
        const auto run = load(path);
        QVERIFY(run);
        QCOMPARE(run->smi.tool, QStringLiteral("nvidia-smi"));
        checkPlacedSteps(*run, QStringLiteral("expected_steps_nvsmi.csv"));
        QCOMPARE(run->smi.placement.zoneOffsetS, 7200.0);
        QVERIFY(run->smi.placement.how.contains(QLatin1String("UTC+02:00")));
        // The log has no total column, only the GPU's name, which the table would read as 192 GB
        // (estimated); the trace's own deviceProperties (205822885888 bytes) come first, measured.
        QVERIFY(!run->smi.hbmTotalGb);
        QCOMPARE(run->smi.gpuNames.at(0), QStringLiteral("AMD Instinct MI300X"));
        QCOMPARE(run->facts.devices.capacityGb, 205822885888.0 / double(1ll << 30));
        QCOMPARE(run->facts.devices.capacityState, ValueState::Measured);
    }

    void stepsShorterThanTheStampResolution()
    {
        // ~6 ms steps, amd-smi stamps in whole seconds: the clocks meet, no sample fits a step.
        const auto run = load(dataPath(QStringLiteral("runs/rocm7-monwatch-kineto")));
        QVERIFY(run);
        QVERIFY(run->smi.placement.placed);
        QCOMPARE(run->smi.placement.samplesInSteps, 0);
        QVERIFY2(run->smi.placement.how.contains(QLatin1String("resolution of the timestamps")),
                 qPrintable(run->smi.placement.how));
        for (const StepInputs &s : run->steps.steps)
            QCOMPARE(s.inputs.hbmPeakGb, run->steps.hbmPeakGb);  // nothing placed, nothing changed
    }

    void notPlaceable_data()
    {
        QTest::addColumn<QString>("telemetryName");
        QTest::addColumn<QString>("telemetryFile");
        QTest::addColumn<bool>("dropBaseTime");
        QTest::addColumn<QString>("why");
        QTest::newRow("dcgmi dmon writes no time")
            << "dmon.log" << "telemetry/dcgm_dmon.log" << false << "dcgmi dmon writes no time";
        QTest::newRow("rocm-smi writes no time")
            << "rocm_smi.csv" << "telemetry/rocm_smi_loop.csv" << false << "rocm-smi writes no time";
        QTest::newRow("torch trace without a base time")
            << "amd_smi.csv" << "telemetry/run-placed/amd_smi.csv" << true << "has no baseTimeNanoseconds";
        QTest::newRow("another day")
            << "gpu_log.csv" << "telemetry/nvsmi_lms500_2gpu.csv" << false << "do not overlap in any time zone";
    }
    void notPlaceable()
    {
        QFETCH(QString, telemetryName);
        QFETCH(QString, telemetryFile);
        QFETCH(bool, dropBaseTime);
        QFETCH(QString, why);
        QByteArray torch;
        if (dropBaseTime) {
            torch = readAll(dataPath(QStringLiteral("telemetry/run-placed/torch_profile.json")));
            torch.replace("\"baseTimeNanoseconds\"", "\"someOtherKey\"");
        }
        QTemporaryDir dir;
        const auto run = load(runWith(dir, telemetryName, readAll(dataPath(telemetryFile)), torch));
        QVERIFY(run);
        QVERIFY(!run->steps.empty());
        QVERIFY(!run->smi.placement.placed);
        QVERIFY2(run->smi.placement.how.contains(why), qPrintable(run->smi.placement.how));
        // Said once, and the steps keep the run's peak.
        int said = 0;
        for (const Diagnostic &d : run->diagnostics)
            said += d.message == run->smi.placement.how ? 1 : 0;
        QCOMPARE(said, 1);
        for (const StepInputs &s : run->steps.steps)
            QCOMPARE(s.inputs.hbmPeakGb, run->steps.hbmPeakGb);
    }
};

QTEST_GUILESS_MAIN(TestTelemetrySteps)
#include "tst_telemetrysteps.moc"
