// A rocprofv3 kernel trace alone gets a budget (issue 25): its steps from roctx ranges of the marker
// trace, its host activity from the HIP API trace. The fixture apitraces/rocprof-steps is a make_run
// folder (one GPU, 6 steps, all in the torch trace, data-bound) turned into what
// `rocprofv3 --kernel-trace --marker-trace --hip-trace` writes by scripts/make_rocprof_api_traces.py
// (the torch trace's ProfilerSteps and runtime calls moved onto trace.csv's clock; no torch trace, no
// telemetry). Its truth (make_run --truth) is over exactly those 6 steps.

#include "derived.h"
#include "metrics.h"
#include "runanalysis.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <functional>

using namespace goblin;

namespace {

QString fixture() { return QStringLiteral(GOBLIN_TEST_DATA "/apitraces/rocprof-steps"); }

QJsonObject truth()
{
    QFile f(QStringLiteral(GOBLIN_TEST_DATA "/apitraces/rocprof-steps.truth.json"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

bool hasDiagnostic(const RunAnalysis &run, const QString &needle, Severity severity)
{
    for (const Diagnostic &d : run.diagnostics)
        if (d.severity == severity && d.message.contains(needle))
            return true;
    return false;
}

/// Copies the fixture, with `edit` applied to the marker trace's text.
bool copyFixture(const QString &to, const std::function<QByteArray(QByteArray)> &editMarkers)
{
    for (const QString &name : QDir(fixture()).entryList(QDir::Files)) {
        QFile in(fixture() + QLatin1Char('/') + name);
        QFile out(to + QLatin1Char('/') + name);
        if (!in.open(QIODevice::ReadOnly) || !out.open(QIODevice::WriteOnly))
            return false;
        QByteArray bytes = in.readAll();
        if (name.contains(QLatin1String("marker")))
            bytes = editMarkers(bytes);
        out.write(bytes);
    }
    return true;
}

} // namespace

class TestApiTraces : public QObject
{
    Q_OBJECT

private slots:
    void stepsAndHostFromMarkersAndHipCalls()
    {
        const QJsonObject t = truth();
        QVERIFY(!t.isEmpty());
        const LoadResult loaded = loadRun(fixture());
        QVERIFY2(loaded.run, qPrintable(loaded.error));
        const RunAnalysis &run = *loaded.run;
        QVERIFY(hasDiagnostic(run, QStringLiteral("steps from the marker ranges"), Severity::Info));
        QVERIFY(hasDiagnostic(run, QStringLiteral("host activity from the HIP calls"), Severity::Info));
        QVERIFY(!run.kernelTimeline.devices.empty());
        for (const DeviceTimelineAnalysis &d : run.kernelTimeline.devices) {
            QCOMPARE(d.stepsKind, TimelineStepsKind::CpuProfilerSteps);
            QCOMPARE(d.stepWindows.size(), std::size_t(6));
        }
        QCOMPARE(run.steps.steps.size(), std::size_t(6));

        const Derived derived = deriveResults(run, HeuristicsProfile::Workbench, Thresholds{});
        const Quantity &step = derived.quantities[QuantityKey::StepTimeS];
        const Quantity &util = derived.quantities[QuantityKey::GpuUtilPct];
        const Quantity &host = derived.quantities[QuantityKey::HostBusyFraction];
        const double stepS = t.value(QStringLiteral("step_time_s")).toDouble();
        QVERIFY(step.value);
        QVERIFY2(std::abs(*step.value - stepS) <= 0.05 * stepS,
                 qPrintable(QStringLiteral("step %1 s, truth %2 s").arg(*step.value).arg(stepS)));
        QVERIFY(util.value);
        QVERIFY2(std::abs(*util.value - t.value(QStringLiteral("gpu_util_pct")).toDouble()) <= 5.0,
                 qPrintable(QStringLiteral("util %1 %").arg(*util.value)));
        // Host busy is measured now (HIP calls), not unknown.
        QVERIFY(host.value);
        QCOMPARE(host.state, ValueState::Measured);

        // The budget: useful GPU never above the true busy time; buckets + unattributed = the step.
        const WasteBudget &b = derived.metrics.wasteBudget;
        const double busyS = t.value(QStringLiteral("gpu_busy_frac")).toDouble() * stepS;
        QVERIFY2(b.usefulGpu <= busyS * 1.05, qPrintable(QStringLiteral("useful %1 s, busy %2 s").arg(b.usefulGpu).arg(busyS)));
        double sum = b.unattributed;
        for (int i = 0; i < WasteBudget::BucketCount; ++i)
            sum += b.bucket(i);
        QVERIFY2(std::abs(sum - *step.value) <= 1e-9 + 1e-9 * sum,
                 qPrintable(QStringLiteral("sum %1, step %2").arg(sum).arg(*step.value)));
        // The GPU's idle time (the truth's step less its busy time) is all in waste buckets: the
        // HIP calls show when the host had work in flight, so nothing is left unattributed.
        const double idleS = stepS - busyS;
        const double waste = b.dataWait + b.hostGap + b.commExcess + b.unattributed;
        QVERIFY2(std::abs(waste - idleS) <= 0.05 * stepS,
                 qPrintable(QStringLiteral("idle buckets %1 s, true idle %2 s").arg(waste).arg(idleS)));
    }

    void dataLoaderMarkersGiveDataWait()
    {
        // apitraces/rocprof-lanes: each roctx step range opens with an enumerate(DataLoader)
        // marker range over an idle GPU. Counted with Python's csv module over the two CSVs: the
        // GPU idle inside the DataLoader ranges of the 4 steps is 10.408428, 8.972682, 9.640739
        // and 8.890650 ms, a mean of 9.47812475 ms. The Timeline draws those ranges as data
        // loading; the budget must call that idle time data wait, not host gap.
        const LoadResult loaded = loadRun(QStringLiteral(GOBLIN_TEST_DATA "/apitraces/rocprof-lanes"));
        QVERIFY2(loaded.run, qPrintable(loaded.error));
        const RunAnalysis &run = *loaded.run;
        QVERIFY(hasDiagnostic(run, QStringLiteral("data loading from the marker ranges"), Severity::Info));
        const Derived derived = deriveResults(run, HeuristicsProfile::Workbench, Thresholds{});
        QCOMPARE(derived.quantities[QuantityKey::StepTimeS].state, ValueState::Measured);
        const double dataWaitS = derived.metrics.wasteBudget.dataWait;
        QVERIFY2(std::abs(dataWaitS - 9.47812475e-3) <= 1e-9, qPrintable(QString::number(dataWaitS, 'g', 12)));
    }

    void patternDecidesWhichRangesAreSteps()
    {
        const LoadResult loaded = loadRun(RunSource{fixture(), {}, QStringLiteral("epoch \\d+")});
        QVERIFY2(loaded.run, qPrintable(loaded.error));
        const RunAnalysis &run = *loaded.run;
        QVERIFY(hasDiagnostic(run, QStringLiteral("none named like a step"), Severity::Info));
        for (const DeviceTimelineAnalysis &d : run.kernelTimeline.devices)
            QCOMPARE(d.stepsKind, TimelineStepsKind::WholeSpan);
    }

    /// No step marks: the run's own figures (the report's `aggregates`) take the kernel span as the
    /// one step the budget measures, its utilisation and host busy from the timeline; no warning
    /// says that nothing measured the GPU (rows: a CSV kernel trace with a HIP trace, a real
    /// rocprofv3 .pftrace read alone).
    void wholeSpanFiguresAgreeWithTheBudget_data()
    {
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<QString>("path");
        QTest::addColumn<double>("spanS");
        QTest::newRow("csv + hip trace, no step-named range") << QStringLiteral("epoch \\d+") << fixture() << 0.0;
        // python3 scripts/pftrace_count.py: 64 dispatches, span 8596051443 ns.
        QTest::newRow("real rocprofv3 pftrace") << QString()
                                                << QStringLiteral(GOBLIN_TEST_DATA "/pftrace/csc_taylor_results.pftrace")
                                                << 8.596051443;
    }

    void wholeSpanFiguresAgreeWithTheBudget()
    {
        QFETCH(QString, pattern);
        QFETCH(QString, path);
        QFETCH(double, spanS);
        const LoadResult loaded = loadRun(RunSource{path, {}, pattern});
        QVERIFY2(loaded.run, qPrintable(loaded.error));
        const RunAnalysis &run = *loaded.run;
        const ProfileAnalysis &a = run.workbench;
        const KernelReading &k = run.kernels.workbench;
        QVERIFY(k.lastEndNs > k.firstStartNs);
        QCOMPARE(a.stepTimeS, double(k.lastEndNs - k.firstStartNs) / 1e9);
        if (spanS > 0.0)
            QCOMPARE(a.stepTimeS, spanS);
        QVERIFY2(a.stepTimeSource.contains(QLatin1String("kernel span as one step")), qPrintable(a.stepTimeSource));
        QVERIFY(a.budgetInputs.gpuUtilKnown);
        QVERIFY(a.gpuUtilFromTimeline);
        QVERIFY(!hasDiagnostic(run, QStringLiteral("nothing measured the GPU"), Severity::Warning));
        QVERIFY(!hasDiagnostic(run, QStringLiteral("no usable timestamps"), Severity::Warning));

        const Derived derived = deriveResults(run, HeuristicsProfile::Workbench, Thresholds{});
        QCOMPARE(int(derived.plan.kind), int(StepPlan::Kind::WholeSpan));
        const Quantity &util = derived.quantities[QuantityKey::GpuUtilPct];
        const Quantity &host = derived.quantities[QuantityKey::HostBusyFraction];
        const Quantity &step = derived.quantities[QuantityKey::StepTimeS];
        QVERIFY(util.value && host.value && step.value);
        QCOMPARE(*step.value, a.stepTimeS);
        QVERIFY2(std::abs(*util.value - a.gpuUtilPct) < 1e-9, qPrintable(QStringLiteral("%1 vs %2").arg(*util.value).arg(a.gpuUtilPct)));
        QVERIFY2(std::abs(*host.value - a.hostBusyFraction) < 1e-9,
                 qPrintable(QStringLiteral("%1 vs %2").arg(*host.value).arg(a.hostBusyFraction)));
        QVERIFY(a.budgetInputs.hostBusyKnown);
        QVERIFY2(a.hostBusySource.contains(QLatin1String("HIP / CUDA runtime calls")), qPrintable(a.hostBusySource));
        QVERIFY2(host.source.contains(QLatin1String("HIP / CUDA runtime calls")), qPrintable(host.source));
    }

    /// A real-layout pftrace with HIP calls and no kernel slice: the load fails naming the file and
    /// what it lacks, not as "binary data" (protobuf is binary).
    void pftraceWithoutKernelsSaysSo()
    {
        const LoadResult loaded = loadRun(QStringLiteral(GOBLIN_TEST_DATA "/pftrace/hip_only.pftrace"));
        QVERIFY(!loaded.run);
        QVERIFY2(loaded.error.contains(QLatin1String("hip_only.pftrace: holds no kernel slices")), qPrintable(loaded.error));
        QVERIFY2(!loaded.error.contains(QLatin1String("binary data")), qPrintable(loaded.error));
    }

    void rangesOnAnotherClockAreNotSteps()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        // Every timestamp of the marker trace moved 1000 s earlier.
        QVERIFY(copyFixture(dir.path(), [](QByteArray bytes) {
            QList<QByteArray> lines = bytes.split('\n');
            for (qsizetype i = 1; i < lines.size(); ++i) {
                QList<QByteArray> f = lines[i].split(',');
                if (f.size() < 7)
                    continue;
                for (int c : {5, 6})
                    f[c] = QByteArray::number(f[c].toLongLong() - 1000000000000LL);
                lines[i] = f.join(',');
            }
            return lines.join('\n');
        }));
        const LoadResult loaded = loadRun(dir.path());
        QVERIFY2(loaded.run, qPrintable(loaded.error));
        QVERIFY(hasDiagnostic(*loaded.run, QStringLiteral("lie outside this kernel trace's span"), Severity::Warning));
        for (const DeviceTimelineAnalysis &d : loaded.run->kernelTimeline.devices)
            QCOMPARE(d.stepsKind, TimelineStepsKind::WholeSpan);
    }

    void badRowNamedWithItsLine()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(copyFixture(dir.path(), [](QByteArray bytes) {
            QList<QByteArray> lines = bytes.split('\n');
            lines[2] = "\"MARKER_CORE_RANGE_API\",\"step 1\",4242,4242,2,soon,later";
            return lines.join('\n');
        }));
        const LoadResult loaded = loadRun(dir.path());
        QVERIFY2(loaded.run, qPrintable(loaded.error));
        bool named = false;
        for (const Diagnostic &d : loaded.run->diagnostics)
            named = named || (d.file == QLatin1String("4242_marker_api_trace.csv") && d.line == 3 &&
                              d.message.contains(QLatin1String("not integer ns")));
        QVERIFY(named);
        // The other five ranges are still steps.
        QCOMPARE(loaded.run->kernelTimeline.devices.front().stepWindows.size(), std::size_t(5));
    }
};

QTEST_GUILESS_MAIN(TestApiTraces)
#include "tst_apitraces.moc"
