// The step plan and the one step time (docs/steps.md): the plan's precedence, windows of one name
// in one trace as separate steps, and one step time in every key of the workbench report that
// names one. Fixtures: tests/data/steps (make_steps.py prints the expected step times), kernel files
// with marker ranges of their own (steps/markers: count_marker_steps.py counts them) and a real
// rocprofv3 kernel trace alone (kernel span counted in PROVENANCE.md).

#include "derived.h"
#include "report.h"
#include "runanalysis.h"
#include "testsupport.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

#include <cmath>

using namespace goblin;

namespace {

bool sameSeconds(double a, double b)
{
    return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b));
}

} // namespace

class TestStepPlan : public QObject
{
    Q_OBJECT

private slots:
    void oneStepTime_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<int>("windows");
        QTest::addColumn<int>("perStep");
        QTest::addColumn<double>("stepTimeS");
        QTest::addColumn<QString>("firstStepName");

        // Five GPU-lane windows of one name, 0.3-3.3 s apart: five steps, not one averaged over all
        // five (the CPU-lane Optimizer.step annotations of the same steps come after the GPU lane).
        QTest::newRow("five GPU-lane Optimizer.step windows are five steps")
            << "steps/gpu-optimizer-steps.json" << "gpu_annotations" << 5 << 5 << 33e-6
            << "Optimizer.step#SGD.step (1)";
        // Thirty CPU-lane Optimizer.step annotations, no ProfilerStep: their ends cut 29 steps.
        QTest::newRow("thirty CPU-lane optimizer steps cut 29 steps")
            << "steps/cpu-optimizer-steps.json" << "optimizer_steps" << 29 << 29 << 0.010103448275862069
            << "Optimizer.step#AdamW.step (1)";
        // A kernel file's own marker ranges named like steps are its steps, by the rule of a marker
        // trace beside a kernel trace (apiTracesFrom): the thread with most of them, nested ones
        // left out. Numbers from tests/data/steps/markers/count_marker_steps.py, which reads the
        // files with SQL / json alone.
        QTest::newRow("rpd UserMarker ranges step 1..3 (a nested train_step, another thread's step 99)")
            << "steps/markers/rpd-step-markers.rpd" << "marker_ranges" << 3 << 3 << 0.023 << "step 1";
        QTest::newRow("rocpd MARKER_CORE_API regions ProfilerStep#1..3 (a mark and a HIP region left out)")
            << "steps/markers/rocpd-step-markers.db" << "marker_ranges" << 3 << 3 << 0.012133333333333335
            << "ProfilerStep#1";
        QTest::newRow("Nsight NVTX_EVENTS ranges ProfilerStep#0..5 (two processes, one chosen)")
            << "nsys/generated-2gpu.sqlite" << "marker_ranges" << 6 << 6 << 0.01995 << "ProfilerStep#0";
        QTest::newRow("rocprofv3 JSON marker_api ranges step 1..3")
            << "rocprofv3json/synthetic_results.json" << "marker_ranges" << 3 << 3 << 0.0010789999999999999
            << "step 1";
        // The same run as the JSON, written as rocprofv3's Perfetto trace (scripts/make_pftrace.py).
        QTest::newRow("pftrace marker_api ranges step 1..3")
            << "pftrace/synthetic.pftrace" << "marker_ranges" << 3 << 3 << 0.0010789999999999999 << "step 1";
        // Markers none of whose names is a step's keep the plan a run without markers has.
        QTest::newRow("rpd markers not named like steps: the kernel span as one step")
            << "steps/markers/rpd-other-markers.rpd" << "kernel_span" << 1 << 0 << 0.067514925 << QString();
        // A kernel trace alone: its span (first start to last end, 9 kernels) is the one step.
        QTest::newRow("a kernel trace alone: the kernel span as one step")
            << "kerneltrace/real/sdk-1.0-docs_kernel_trace.csv" << "kernel_span" << 1 << 0 << 144400e-9
            << QString();
    }

    void oneStepTime()
    {
        QFETCH(QString, path);
        QFETCH(QString, kind);
        QFETCH(int, windows);
        QFETCH(int, perStep);
        QFETCH(double, stepTimeS);
        QFETCH(QString, firstStepName);

        const LoadResult loaded = loadRun(test::dataPath(path));
        QCOMPARE(int(loaded.outcome), int(LoadOutcome::Finished));
        const RunAnalysis &run = *loaded.run;
        QCOMPARE(stepPlanKindKey(run.facts.stepPlan.kind), kind);
        QVERIFY2(sameSeconds(run.facts.stepPlan.stepTimeS, stepTimeS),
                 qPrintable(QString::number(run.facts.stepPlan.stepTimeS, 'g', 17)));

        const QJsonObject report = buildReport(run, HeuristicsProfile::Workbench, Thresholds{});
        const QJsonObject plan = report.value(QStringLiteral("step_plan")).toObject();
        QCOMPARE(plan.value(QStringLiteral("kind")).toString(), kind);
        QCOMPARE(plan.value(QStringLiteral("windows")).toInt(), windows);
        const QJsonArray steps = report.value(QStringLiteral("per_step")).toArray();
        QCOMPARE(steps.size(), qsizetype(perStep));
        if (!firstStepName.isEmpty())
            QCOMPARE(steps.first().toObject().value(QStringLiteral("name")).toString(), firstStepName);

        // One step time: every key that names one holds the plan's.
        const QJsonObject aggregates = report.value(QStringLiteral("aggregates")).toObject();
        const double values[] = {
            aggregates.value(QStringLiteral("step_time_seconds")).toDouble(),
            aggregates.value(QStringLiteral("budget_step_time_seconds")).toDouble(),
            report.value(QStringLiteral("quantities")).toObject().value(QStringLiteral("step_time_s")).toObject()
                .value(QStringLiteral("value")).toDouble(),
            report.value(QStringLiteral("budget")).toObject().value(QStringLiteral("step_time_s")).toDouble(),
        };
        for (double v : values)
            QVERIFY2(sameSeconds(v, stepTimeS), qPrintable(QString::number(v, 'g', 17)));
        QVERIFY(aggregates.contains(QStringLiteral("reference_step_time_seconds")));

        // The measured budget partitions the step.
        const QJsonObject budget = report.value(QStringLiteral("budget")).toObject();
        QVERIFY(budget.value(QStringLiteral("measured")).toBool());
        double sum = 0.0;
        for (const QJsonValue &b : budget.value(QStringLiteral("buckets")).toObject())
            sum += b.toObject().value(QStringLiteral("seconds_per_step")).toDouble();
        QVERIFY2(sameSeconds(sum, stepTimeS), qPrintable(QString::number(sum, 'g', 17)));

        // No diagnostic states another step time.
        for (const QJsonValue &d : report.value(QStringLiteral("diagnostics")).toArray()) {
            const QString message = d.toObject().value(QStringLiteral("message")).toString();
            QVERIFY2(!message.contains(QLatin1String("trace span divided by")) &&
                         !message.contains(QLatin1String("whole trace span is taken as one step")),
                     qPrintable(message));
        }

        // The reference profile keeps its own reading and has no step plan.
        const QJsonObject reference = buildReport(run, HeuristicsProfile::Reference, Thresholds{});
        QVERIFY(!reference.contains(QStringLiteral("step_plan")));
        QVERIFY(!reference.value(QStringLiteral("aggregates")).toObject().contains(
            QStringLiteral("reference_step_time_seconds")));
    }

    /// --steps N over a kernel span: the step is span / N everywhere, and per_step lists N steps.
    void stepsCutTheSpan()
    {
        const LoadResult loaded = loadRun(test::dataPath(QStringLiteral("kerneltrace/real/sdk-1.0-docs_kernel_trace.csv")));
        QCOMPARE(int(loaded.outcome), int(LoadOutcome::Finished));
        Thresholds t;
        t.steps = 4;
        const QJsonObject report = buildReport(*loaded.run, HeuristicsProfile::Workbench, t);
        const QJsonObject plan = report.value(QStringLiteral("step_plan")).toObject();
        QCOMPARE(plan.value(QStringLiteral("windows")).toInt(), 4);
        QCOMPARE(plan.value(QStringLiteral("cut_steps")).toInt(), 4);
        QCOMPARE(report.value(QStringLiteral("per_step")).toArray().size(), 4);
        const QJsonObject aggregates = report.value(QStringLiteral("aggregates")).toObject();
        QVERIFY(sameSeconds(aggregates.value(QStringLiteral("step_time_seconds")).toDouble(), 144400e-9 / 4));
        QVERIFY(sameSeconds(aggregates.value(QStringLiteral("budget_step_time_seconds")).toDouble(), 144400e-9 / 4));
    }
};

QTEST_GUILESS_MAIN(TestStepPlan)
#include "tst_stepplan.moc"
