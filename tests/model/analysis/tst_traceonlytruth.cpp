// Folders holding only a torch trace (the commonest artifact there is) must read like the full
// folder: make_run.py folders with trace.csv and amd_smi.csv removed, checked through the real
// loader against make_run's --truth of the profiled window of GPU 0. The truth's budget is the
// same seven formulas on the true inputs (utilisation, host busy, step time, class sums); what is
// tested is the reading, so every bucket must land within 5 % of the step of it.

#include "heuristics.h"
#include "runanalysis.h"
#include "testsupport.h"
#include "metrics.h"
#include "timelineanalysis.h"

#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <cmath>

using namespace goblin;

namespace {

QJsonObject readJson(const QString &path) { return QJsonDocument::fromJson(test::readAll(path)).object(); }

qint64 ns(double seconds) { return qint64(std::llround(seconds * 1e9)); }

/// The budget's inputs as the simulation really had them (no telemetry: no HBM reading).
BudgetInputs truthInputs(const QJsonObject &truth)
{
    const QJsonObject window = truth.value(QStringLiteral("torch_window")).toObject();
    const QJsonObject precision = truth.value(QStringLiteral("kernel_time_by_precision_s_per_step_per_gpu")).toObject();
    BudgetInputs in;
    in.stepTimeS = window.value(QStringLiteral("step_time_s")).toDouble();
    in.gpuUtilPct = truth.value(QStringLiteral("gpu_util_pct")).toDouble();
    in.hostBusyFraction = window.value(QStringLiteral("host_busy_frac")).toDouble();
    in.commExcessS = truth.value(QStringLiteral("collective_s_per_step_per_gpu")).toDouble();
    in.gemmNs = ns(truth.value(QStringLiteral("gemm_s_per_step_per_gpu")).toDouble());
    in.genericGemmNs = ns(truth.value(QStringLiteral("generic_gemm_s_per_step_per_gpu")).toDouble());
    in.fp16Ns = ns(precision.value(QStringLiteral("fp16")).toDouble());
    in.bf16Ns = ns(precision.value(QStringLiteral("bf16")).toDouble());
    return in;
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
    }

    void readsLikeTheFullFolder()
    {
        QFETCH(QString, folder);
        const QJsonObject truth = readJson(folder + QStringLiteral("/truth.json.expected"));
        QVERIFY(!truth.isEmpty());
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
        const RunMetrics m = computeMetrics(w, thresholds);
        const WasteBudget want = computeWasteBudget(truthInputs(truth), Thresholds());
        const double stepS = truthInputs(truth).stepTimeS;

        QVERIFY2(std::fabs(w.gpuUtilPct - truth.value(QStringLiteral("gpu_util_pct")).toDouble()) <= 5.0,
                 qPrintable(QStringLiteral("util %1 %, truth %2 %").arg(w.gpuUtilPct)
                                .arg(truth.value(QStringLiteral("gpu_util_pct")).toDouble())));
        QVERIFY(!m.wasteBudget.hasUnattributed());
        for (int b = 0; b < WasteBudget::BucketCount; ++b) {
            QVERIFY2(std::fabs(m.wasteBudget.bucket(b) - want.bucket(b)) <= 0.05 * stepS,
                     qPrintable(QStringLiteral("%1: %2 s, truth %3 s (step %4 s)")
                                    .arg(WasteBudget::bucketKey(b))
                                    .arg(m.wasteBudget.bucket(b))
                                    .arg(want.bucket(b))
                                    .arg(stepS)));
        }

        QVERIFY(!w.topKernels.empty());
        QCOMPARE(w.topKernels.front().name, QString::fromUtf8(test::readAll(folder + QStringLiteral("/top_kernel.expected"))).trimmed());

        // Exposed communication of the profiled device, per step.
        QCOMPARE(run.torchTimeline.devices.size(), std::size_t(1));
        const DeviceTimelineAnalysis &d = run.torchTimeline.devices[0];
        std::vector<TimelineStepValues> steps = d.perStep;
        if (thresholds.steps && d.stepsKind == TimelineStepsKind::WholeSpan) {
            const FileTimelineSummary &file = run.torchTimeline.files[d.fileIndex];
            steps = recutSteps(run.torch.timeline, d, equalWindows(file.kernelFirstNs, file.kernelLastNs, *thresholds.steps));
        }
        QVERIFY(!steps.empty());
        qint64 exposedNs = 0;
        for (const TimelineStepValues &v : steps)
            exposedNs += v.exposedCommNs;
        const double exposedS = double(exposedNs) / 1e9 / double(steps.size());
        const double truthExposedS = truth.value(QStringLiteral("collective_exposed_s_per_step_per_gpu")).toDouble();
        QVERIFY2(std::fabs(exposedS - truthExposedS) <= 0.05 * stepS,
                 qPrintable(QStringLiteral("exposed comm %1 s, truth %2 s").arg(exposedS).arg(truthExposedS)));
    }
};

QTEST_GUILESS_MAIN(TestTraceOnlyTruth)
#include "tst_traceonlytruth.moc"
