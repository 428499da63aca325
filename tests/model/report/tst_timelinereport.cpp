// The report's `timeline` object (issue 13's JSON contract) and how the GPU timelines enter
// the workbench analysis: the kernel list of trace-only folders, utilisation from the busy
// union, the step time from --steps N or GPU-lane annotations, and the cross-check.

#include "report.h"
#include "metrics.h"
#include "testsupport.h"
#include "kernelsfromtimeline.h"
#include "timelinespec.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace goblin;

namespace {

// Two 1 ms ProfilerSteps on rank 0's device 2: GEMMs on stream 0, all-reduces on stream 1,
// one memcpy, the host busy throughout. Times in ns.
const char *kTwoSteps =
    "file=rank0.json:0 dev=2 P:0:1000000 P:1000000:2000000 H:0:2000000 "
    "K:Cijk_Alik_Bljk_BBS_gemm_bf16:0:400000 K:ncclDevKernel_AllReduce_Sum_bf16:300000:700000:1 C:800000:900000 "
    "K:Cijk_Alik_Bljk_BBS_gemm_bf16:1000000:1500000 K:ncclDevKernel_AllReduce_Sum_bf16:1400000:1600000:1";

RunAnalysis makeRun(const QString &spec, bool steps)
{
    RunAnalysis run;
    run.runDir = QStringLiteral("/nonexistent/run");
    run.runDirAsGiven = run.runDir;
    run.runName = QStringLiteral("run");
    run.torch.file.relativePath = QStringLiteral("rank0.json");
    run.torch.referenceFileFound = false;
    TorchReading &w = run.torch.workbench;
    if (steps) {
        w.stepTimeSeconds = 0.001;
        w.stepTimeSource = QStringLiteral("mean of 2 ProfilerStep event(s) on the CPU lane");
        w.profilerSteps = 2;
    } else {
        w.stepTimeSeconds = 0.002;
        w.stepTimeSource = QStringLiteral("trace span (no ProfilerStep events on the CPU lane)");
    }
    w.hostBusyFraction = 0.5;
    w.hostBusySource = QStringLiteral("test");
    if (!spec.isEmpty())
        run.torch.timeline = test::timelineFromSpec(spec);
    analyzeRun(run);
    return run;
}

QJsonObject schema()
{
    return QJsonDocument::fromJson(test::readAll(QStringLiteral(GOBLIN_SOURCE_DIR "/resources/report.schema.json")))
        .object();
}

void compareNumber(const QJsonObject &o, const char *key, double expected)
{
    const QJsonValue v = o.value(QLatin1String(key));
    QVERIFY2(v.isDouble(), key);
    if (std::fabs(v.toDouble() - expected) > 1e-12 * std::max(1.0, std::fabs(expected)))
        QFAIL(qPrintable(QStringLiteral("%1: got %2, expected %3").arg(QLatin1String(key)).arg(v.toDouble(), 0, 'g', 17)
                             .arg(expected, 0, 'g', 17)));
}

bool hasDiagnostic(const RunAnalysis &run, Severity severity, const QString &words)
{
    for (const Diagnostic &d : run.diagnostics)
        if (d.severity == severity && d.message.contains(words))
            return true;
    return false;
}

} // namespace

class TestTimelineReport : public QObject
{
    Q_OBJECT

private slots:
    void timelineObjectFollowsTheContract();
    void traceOnlyFolderGetsKernelsAndUtilisation();
    void referenceProfileIgnoresTheTimeline();
    void stepsCutTheKernelSpan();
    void gpuLaneAnnotationsGiveTheStepTime();
    void utilisationUnknownWithoutAnyMeasurement();
    void crossCheckSaysWhereTheSourcesDisagree_data();
    void crossCheckSaysWhereTheSourcesDisagree();
};

void TestTimelineReport::timelineObjectFollowsTheContract()
{
    const RunAnalysis run = makeRun(QLatin1String(kTwoSteps), true);
    const QJsonObject report = buildReport(run, HeuristicsProfile::Workbench, Thresholds{});
    const QStringList problems = test::validateJsonSchema(report, schema());
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));

    const QJsonArray devices = report.value(QStringLiteral("timeline")).toObject().value(QStringLiteral("devices")).toArray();
    QCOMPARE(devices.size(), 1);
    const QJsonObject d = devices[0].toObject();
    const QStringList contract = {
        "source", "file", "rank", "device", "kernels", "comm_kernels", "memcpy", "memset", "span_s", "kernel_time_s",
        "busy_s", "compute_s", "comm_s", "exposed_comm_s", "memcpy_s", "top_kernels", "steps", "busy_s_per_step",
        "compute_s_per_step", "comm_s_per_step", "exposed_comm_s_per_step", "memcpy_s_per_step", "idle_s_per_step",
        "idle_host_busy_s_per_step", "idle_nothing_s_per_step"};
    for (const QString &key : contract)
        QVERIFY2(d.contains(key), qPrintable(key));
    QCOMPARE(d.value(QStringLiteral("source")).toString(), QStringLiteral("torch_profile"));
    QCOMPARE(d.value(QStringLiteral("file")).toString(), QStringLiteral("rank0.json"));
    QCOMPARE(d.value(QStringLiteral("rank")).toInt(-1), 0);
    compareNumber(d, "device", 2);
    compareNumber(d, "kernels", 4);
    compareNumber(d, "comm_kernels", 2);
    compareNumber(d, "memcpy", 1);
    compareNumber(d, "memset", 0);
    compareNumber(d, "span_s", 1.6e-3);
    compareNumber(d, "kernel_time_s", 1.5e-3);
    compareNumber(d, "busy_s", 1.4e-3);          // 0-700, 800-900, 1000-1600 µs
    compareNumber(d, "compute_s", 0.9e-3);
    compareNumber(d, "comm_s", 0.6e-3);
    compareNumber(d, "exposed_comm_s", 0.4e-3);  // 400-700 and 1500-1600 µs
    compareNumber(d, "memcpy_s", 0.1e-3);
    compareNumber(d, "steps", 2);
    compareNumber(d, "busy_s_per_step", 0.7e-3);
    compareNumber(d, "compute_s_per_step", 0.45e-3);
    compareNumber(d, "comm_s_per_step", 0.3e-3);
    compareNumber(d, "exposed_comm_s_per_step", 0.2e-3);
    compareNumber(d, "memcpy_s_per_step", 0.05e-3);
    compareNumber(d, "idle_s_per_step", 0.3e-3);
    compareNumber(d, "idle_host_busy_s_per_step", 0.3e-3);
    compareNumber(d, "idle_nothing_s_per_step", 0.0);
    const QJsonArray top = d.value(QStringLiteral("top_kernels")).toArray();
    QCOMPARE(top.size(), 2);
    const QJsonObject t0 = top[0].toObject();
    QCOMPARE(t0.value(QStringLiteral("name")).toString(), QStringLiteral("Cijk_Alik_Bljk_BBS_gemm_bf16"));
    compareNumber(t0, "calls", 2);
    compareNumber(t0, "total_s", 0.9e-3);
    compareNumber(t0, "share", 0.6);
    QCOMPARE(d.value(QStringLiteral("per_step")).toArray().size(), 2);
}

void TestTimelineReport::traceOnlyFolderGetsKernelsAndUtilisation()
{
    const RunAnalysis run = makeRun(QLatin1String(kTwoSteps), true);
    QVERIFY(run.kernelsFromTorchTimeline);
    const QJsonObject report = buildReport(run, HeuristicsProfile::Workbench, Thresholds{});
    const QJsonObject agg = report.value(QStringLiteral("aggregates")).toObject();
    compareNumber(agg, "kernel_count", 4);
    compareNumber(agg, "kernel_time_ns", 1.5e6);
    compareNumber(agg, "gpu_agents", 1);
    compareNumber(agg, "trace_span_seconds", 1.6e-3);
    const QJsonObject coll = agg.value(QStringLiteral("classes")).toObject().value(QStringLiteral("collective")).toObject();
    compareNumber(coll, "time_ns", 6e5);
    compareNumber(coll, "calls", 2);
    // Collectives per step per GPU: 600 µs over 1.6 steps covered.
    compareNumber(agg, "comm_excess_seconds", 6e-4 / 1.6);
    const QJsonObject metrics = report.value(QStringLiteral("metrics")).toObject();
    compareNumber(metrics, "gpu_util_pct", 70.0);  // busy 1.4 ms over the 2 ms of step windows
    QVERIFY(agg.value(QStringLiteral("gpu_util_source")).toString().contains(QLatin1String("busy union")));
    QVERIFY(run.workbench.budgetInputs.gpuUtilKnown);
    const QJsonArray top = metrics.value(QStringLiteral("top_kernels")).toArray();
    QCOMPARE(top[0].toObject().value(QStringLiteral("name")).toString(), QStringLiteral("Cijk_Alik_Bljk_BBS_gemm_bf16"));
    compareNumber(top[0].toObject(), "pct_time", 60.0);
    QVERIFY(hasDiagnostic(run, Severity::Info, QStringLiteral("torch trace's own GPU kernel events")));
}

void TestTimelineReport::referenceProfileIgnoresTheTimeline()
{
    const RunAnalysis with = makeRun(QLatin1String(kTwoSteps), true);
    const RunAnalysis without = makeRun(QString(), true);
    const QJsonObject a = buildReport(with, HeuristicsProfile::Reference, Thresholds{});
    const QJsonObject b = buildReport(without, HeuristicsProfile::Reference, Thresholds{});
    QCOMPARE(a.value(QStringLiteral("metrics")), b.value(QStringLiteral("metrics")));
    compareNumber(a.value(QStringLiteral("aggregates")).toObject(), "kernel_count", 0);
    QCOMPARE(with.reference.gpuUtilPct, 0.0);
    QCOMPARE(with.reference.attentionKernelLoaded, QStringLiteral("unknown"));
}

void TestTimelineReport::stepsCutTheKernelSpan()
{
    const QString spec = QStringLiteral("H:0:100 K:Cijk_gemm:0:300000 K:ncclDevKernel_x:100000:600000:1 "
                                        "K:Cijk_gemm:1000000:1400000 K:Cijk_gemm:1900000:2000000");
    const RunAnalysis run = makeRun(spec, false);
    // Without --steps the torch reading's trace span stays the step.
    QJsonObject agg = buildReport(run, HeuristicsProfile::Workbench, Thresholds{}).value(QStringLiteral("aggregates")).toObject();
    compareNumber(agg, "step_time_seconds", 0.002);

    Thresholds t;
    t.steps = 4;
    const QJsonObject report = buildReport(run, HeuristicsProfile::Workbench, t);
    agg = report.value(QStringLiteral("aggregates")).toObject();
    compareNumber(agg, "step_time_seconds", 0.0005);  // kernel span 2 ms / 4
    QVERIFY(agg.value(QStringLiteral("step_time_source")).toString().contains(QLatin1String("--steps 4")));
    compareNumber(agg, "per_step_per_gpu_divisor", 4);
    compareNumber(agg, "comm_excess_seconds", 0.5e-3 / 4);
    const RunMetrics m = computeMetrics(run.workbench, t);
    QCOMPARE(m.wasteBudget.commExcess, 0.5e-3 / 4);
    const QJsonObject d = report.value(QStringLiteral("timeline")).toObject().value(QStringLiteral("devices")).toArray()[0].toObject();
    compareNumber(d, "steps", 4);
    QCOMPARE(d.value(QStringLiteral("steps_source")).toString(), QStringLiteral("span / N"));
    compareNumber(d, "busy_s_per_step", (0.6e-3 + 0.4e-3 + 0.1e-3) / 4);
    const QStringList problems = test::validateJsonSchema(report, schema());
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    // The reference profile never cuts: its step time is its own.
    const QJsonObject ref = buildReport(run, HeuristicsProfile::Reference, t).value(QStringLiteral("aggregates")).toObject();
    QCOMPARE(ref.value(QStringLiteral("step_time_source")).toString(), QStringLiteral("not found"));
}

void TestTimelineReport::gpuLaneAnnotationsGiveTheStepTime()
{
    const RunAnalysis run = makeRun(QStringLiteral("G:0:300000 G:500000:900000 K:k:0:200000 K:k:500000:900000"), false);
    QCOMPARE(run.workbench.stepTimeS, 0.00035);
    QVERIFY(run.workbench.stepTimeSource.contains(QLatin1String("GPU lane")));
    Thresholds t;
    t.steps = 3;  // annotations win over --steps
    QCOMPARE(stepTimeFor(run.workbench, t).fromSteps, false);
}

void TestTimelineReport::utilisationUnknownWithoutAnyMeasurement()
{
    const RunAnalysis run = makeRun(QString(), true);
    QVERIFY(!run.workbench.budgetInputs.gpuUtilKnown);
    QVERIFY(run.reference.budgetInputs.gpuUtilKnown);  // the reference profile keeps the reference's reading
    QVERIFY(hasDiagnostic(run, Severity::Warning, QStringLiteral("nothing measured the GPU")));
}

void TestTimelineReport::crossCheckSaysWhereTheSourcesDisagree_data()
{
    QTest::addColumn<QString>("kernelTrace");
    QTest::addColumn<bool>("agree");
    QTest::addColumn<QString>("words");
    // The kernel trace runs on another clock: offset by 5 s.
    QTest::newRow("same kernels, shifted clock")
        << "K:Cijk_gemm:5000000000:5000400000 K:ncclDevKernel_AllReduce:5000300000:5000700000:1 C:5000800000:5000900000 "
           "K:Cijk_gemm:5001000000:5001500000 K:ncclDevKernel_AllReduce:5001400000:5001600000:1"
        << true << "they agree";
    QTest::newRow("collectives missing in the kernel trace")
        << "K:Cijk_gemm:5000000000:5000400000 K:Cijk_gemm:5001000000:5001500000 K:k:5001590000:5001600000" << false
        << "collective kernels disagree";
}

void TestTimelineReport::crossCheckSaysWhereTheSourcesDisagree()
{
    QFETCH(QString, kernelTrace);
    QFETCH(bool, agree);
    QFETCH(QString, words);
    RunAnalysis run;
    run.runDir = run.runDirAsGiven = QStringLiteral("/nonexistent/run");
    run.torch.timeline = test::timelineFromSpec(QLatin1String(kTwoSteps));
    run.kernels.timeline = test::timelineFromSpec(kernelTrace, QStringLiteral("trace.csv"));
    run.kernels.timeline.files[0].file = QStringLiteral("trace.csv");
    // What the kernel-trace parser gives with its timeline: the same kernels as a reading.
    TimelineKernelList list = kernelsFromTimeline(run.kernels.timeline);
    run.kernels.names = list.names;
    run.kernels.workbench = list.reading;
    analyzeRun(run);
    QVERIFY(!run.kernelsFromTorchTimeline);
    QVERIFY(hasDiagnostic(run, Severity::Info, QStringLiteral("cross-check of trace.csv")));
    QCOMPARE(hasDiagnostic(run, Severity::Warning, QStringLiteral("disagree")), !agree);
    QVERIFY(hasDiagnostic(run, agree ? Severity::Info : Severity::Warning, words));
    const QJsonArray devices = buildReport(run, HeuristicsProfile::Workbench, Thresholds{})
                                   .value(QStringLiteral("timeline")).toObject().value(QStringLiteral("devices")).toArray();
    QCOMPARE(devices.size(), 2);
    QCOMPARE(devices[0].toObject().value(QStringLiteral("source")).toString(), QStringLiteral("trace.csv"));
    QCOMPARE(devices[1].toObject().value(QStringLiteral("source")).toString(), QStringLiteral("torch_profile"));
}

QTEST_GUILESS_MAIN(TestTimelineReport)
#include "tst_timelinereport.moc"
