// Folders holding only a torch trace (the commonest artifact there is) must read like the full
// folder: make_run.py folders with trace.csv and amd_smi.csv removed, checked through the real
// loader against make_run's --truth of the profiled window of GPU 0 (tests/data/traceonly,
// made by traceonly/make-fixtures.sh). Issue 23's criteria for the measured budget:
//   - data wait within 5 % of the step of the truth's data_wait_s_per_step;
//   - useful GPU <= the truth's busy time per step (gpu_busy_frac × step_time_s), and the busy
//     compute it is carved from within 5 % of the step of the truth's compute per step;
//   - buckets + unattributed = the step to 1e-9 s in every step and in the run's budget;
//   - unattributed = the time only copies that bring no input run, counted independently
//     (traceonly/other_copy_only.py).
// The readings that stay: utilisation, host busy, the top kernel, exposed communication.
// traceonly/datawait-20ms has every step in the trace (--steps 4 --torch-steps 4, one GPU), so its
// truth is over exactly the steps measured.

#include "derived.h"
#include "heuristics.h"
#include "runanalysis.h"
#include "testsupport.h"
#include "timelineanalysis.h"

#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <cmath>

using namespace goblin;

namespace {

QJsonObject readJson(const QString &path) { return QJsonDocument::fromJson(test::readAll(path)).object(); }

double bucketSum(const WasteBudget &b)
{
    double sum = b.unattributed;
    for (int i = 0; i < WasteBudget::BucketCount; ++i)
        sum += b.bucket(i);
    return sum;
}

} // namespace

class TestTraceOnlyTruth : public QObject
{
    Q_OBJECT

private slots:
    void readsLikeTheFullFolder_data()
    {
        QTest::addColumn<QString>("folder");
        const QDir cases(test::dataPath(QStringLiteral("traceonly")));
        for (const QString &f : cases.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
            QTest::newRow(qPrintable(f)) << cases.filePath(f);
        QVERIFY(cases.exists(QStringLiteral("datawait-20ms/truth.json.expected")));
    }

    void readsLikeTheFullFolder()
    {
        QFETCH(QString, folder);
        const QJsonObject truth = readJson(folder + QStringLiteral("/truth.json.expected"));
        QVERIFY(!truth.isEmpty());
        const QJsonObject window = truth.value(QStringLiteral("torch_window")).toObject();
        Thresholds thresholds;
        const QStringList options = QString::fromUtf8(test::readAll(folder + QStringLiteral("/options"))).split(
            QLatin1Char(' '), Qt::SkipEmptyParts);
        if (options.size() == 2 && options[0] == QLatin1String("--steps"))
            thresholds.steps = options[1].trimmed().toInt();

        const LoadResult loaded = loadRun(folder);
        QCOMPARE(int(loaded.outcome), int(LoadOutcome::Finished));
        const RunAnalysis &run = *loaded.run;
        QVERIFY(run.kernelsFromTorchTimeline);
        const ProfileAnalysis &w = run.workbench;
        const double truthStep = window.value(QStringLiteral("step_time_s")).toDouble();

        // Utilisation: the busy union of the trace's GPU events.
        const double truthUtil = truth.value(QStringLiteral("gpu_util_pct")).toDouble();
        QVERIFY2(std::fabs(w.gpuUtilPct - truthUtil) <= 5.0,
                 qPrintable(QStringLiteral("util %1 %, truth %2 %").arg(w.gpuUtilPct).arg(truthUtil)));
        // Host busy: the union of the CPU operators over the steps (the span without marks).
        const double truthHost = window.value(QStringLiteral("host_busy_frac")).toDouble();
        // Tight only where the steps are the truth's own (ProfilerStep marks): an optimizer cut's
        // windows cover steps 2..N, not the profiled window the truth measures (steps_found counts
        // the plan's windows of any kind).
        const double hostTolerance =
            run.facts.stepPlan.kind == StepPlanKind::CpuProfilerSteps && w.stepsFound > 0 ? 0.01 : 0.1;
        QVERIFY2(std::fabs(w.hostBusyFraction - truthHost) <= hostTolerance,
                 qPrintable(QStringLiteral("host busy %1, truth %2").arg(w.hostBusyFraction).arg(truthHost)));

        QVERIFY(!w.topKernels.empty());
        QCOMPARE(w.topKernels.front().name, QString::fromUtf8(test::readAll(folder + QStringLiteral("/top_kernel.expected"))).trimmed());

        // Exposed communication of the profiled device, per step.
        QCOMPARE(run.torchTimeline.devices.size(), std::size_t(1));
        const DeviceTimelineAnalysis &dev = run.torchTimeline.devices[0];
        std::vector<TimelineStepValues> steps = dev.perStep;
        if (thresholds.steps && dev.stepsKind == TimelineStepsKind::WholeSpan) {
            const FileTimelineSummary &file = run.torchTimeline.files[dev.fileIndex];
            steps = recutSteps(run.torch.timeline, dev, equalWindows(file.kernelFirstNs, file.kernelLastNs, *thresholds.steps));
        }
        QVERIFY(!steps.empty());
        qint64 exposedNs = 0;
        for (const TimelineStepValues &v : steps)
            exposedNs += v.exposedCommNs;
        const double exposedS = double(exposedNs) / 1e9 / double(steps.size());
        const double truthExposedS = truth.value(QStringLiteral("collective_exposed_s_per_step_per_gpu")).toDouble();
        QVERIFY2(std::fabs(exposedS - truthExposedS) <= 0.05 * truthStep,
                 qPrintable(QStringLiteral("exposed comm %1 s, truth %2 s").arg(exposedS).arg(truthExposedS)));

        // The measured budget, over the trace's steps (or the span cut into the options' N).
        const Derived d = deriveResults(run, HeuristicsProfile::Workbench, thresholds);
        QVERIFY2(d.budgetMeasured, qPrintable(d.budgetSource));
        QVERIFY(d.plan.series && d.plan.series->fromTorchTimeline);
        // --steps N cuts only a span without marks (CPU-lane Optimizer.step annotations are marks).
        QCOMPARE(int(d.plan.kind),
                 int(thresholds.steps && run.facts.stepPlan.cuttable ? StepPlan::Kind::Cut : StepPlan::Kind::Marked));
        const WasteBudget &b = d.metrics.wasteBudget;
        const double stepS = d.stepTimeS();
        QVERIFY2(std::fabs(stepS - truthStep) <= 0.05 * truthStep,
                 qPrintable(QStringLiteral("budget step %1 s, truth %2 s").arg(stepS).arg(truthStep)));
        QCOMPARE(b.commExcess, exposedS);

        // Buckets + unattributed = the step, in the run and in every step.
        QVERIFY2(std::fabs(bucketSum(b) - stepS) <= 1e-9,
                 qPrintable(QStringLiteral("run: buckets sum to %1 s, step %2 s").arg(bucketSum(b), 0, 'g', 15).arg(stepS, 0, 'g', 15)));
        QVERIFY(d.steps());
        QCOMPARE(d.stepBudgets.size(), steps.size());
        for (std::size_t i = 0; i < d.stepBudgets.size(); ++i) {
            const WasteBudget &s = d.stepBudgets[i];
            const double windowS = d.steps()->steps[i].durationS;
            QCOMPARE(windowS, double(steps[i].windowNs) / 1e9);  // the device's own step window
            QVERIFY2(std::fabs(bucketSum(s) - windowS) <= 1e-9,
                     qPrintable(QStringLiteral("step %1: buckets sum to %2 s, window %3 s").arg(i).arg(bucketSum(s), 0, 'g', 15).arg(windowS, 0, 'g', 15)));
            QVERIFY(s.usefulGpu <= double(steps[i].computeNs) / 1e9 + 1e-12);
        }

        // Useful GPU: at most what the GPU was busy, carved from a compute time that is the truth's.
        const double truthBusyS = truth.value(QStringLiteral("gpu_busy_frac")).toDouble() *
                                  truth.value(QStringLiteral("step_time_s")).toDouble();
        QVERIFY2(b.usefulGpu <= truthBusyS,
                 qPrintable(QStringLiteral("useful GPU %1 s > truth busy %2 s").arg(b.usefulGpu).arg(truthBusyS)));
        const double truthComputeS = truth.value(QStringLiteral("kernel_time_s_per_step_per_gpu")).toDouble() -
                                     truth.value(QStringLiteral("collective_s_per_step_per_gpu")).toDouble();
        QVERIFY2(std::fabs(b.terms.computeS - truthComputeS) <= 0.05 * truthStep,
                 qPrintable(QStringLiteral("compute %1 s, truth %2 s").arg(b.terms.computeS).arg(truthComputeS)));

        // Data wait: measured (the trace shows the DataLoader and the CPU operators), within 5 %
        // of the step of the truth.
        QVERIFY2(b.state(1) != ValueState::Unknown, qPrintable(valueStateName(b.state(1))));
        const double truthDataWait = truth.value(QStringLiteral("data_wait_s_per_step")).toDouble();
        QVERIFY2(std::fabs(b.dataWait - truthDataWait) <= 0.05 * truthStep,
                 qPrintable(QStringLiteral("data wait %1 s, truth %2 s (step %3 s)").arg(b.dataWait).arg(truthDataWait).arg(truthStep)));
        // The host is traced, so unattributed is only the time the GPU runs nothing but copies that
        // bring no input: here the HIP runtime's blit kernels, __amd_rocclr_copyBuffer (aten::copy_)
        // and __amd_rocclr_fillBufferAligned (aten::zero_), which are copies, not compute
        // (docs/budget.md, docs/collectives.md). Each step's nanoseconds counted independently from the
        // raw trace by traceonly/other_copy_only.py; the run's budget is their mean.
        const QStringList otherCopyOnly =
            QString::fromUtf8(test::readAll(folder + QStringLiteral("/other_copy_only_ns.expected")))
                .split(QLatin1Char(' '), Qt::SkipEmptyParts);
        QCOMPARE(std::size_t(otherCopyOnly.size()), d.stepBudgets.size());
        double otherCopyOnlyMeanS = 0.0;
        for (std::size_t i = 0; i < d.stepBudgets.size(); ++i) {
            const double stepOtherCopyS = double(otherCopyOnly[qsizetype(i)].trimmed().toLongLong()) / 1e9;
            QCOMPARE(d.stepBudgets[i].unattributed, stepOtherCopyS);
            otherCopyOnlyMeanS += stepOtherCopyS / double(d.stepBudgets.size());
        }
        QVERIFY(otherCopyOnlyMeanS > 0.0);
        // 1e-15 s: the mean's rounding, far below the nanosecond the counts are in.
        QVERIFY2(std::fabs(b.unattributed - otherCopyOnlyMeanS) <= 1e-15,
                 qPrintable(QStringLiteral("unattributed %1 s, other copies alone %2 s").arg(b.unattributed, 0, 'g', 15).arg(otherCopyOnlyMeanS, 0, 'g', 15)));
        QCOMPARE(b.state(2), ValueState::Measured);
    }
};

QTEST_GUILESS_MAIN(TestTraceOnlyTruth)
#include "tst_traceonlytruth.moc"
