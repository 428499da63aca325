// Per-step budget (issue 14, item 1; docs/steps.md). The "Done when" fixture slow-step-idle is a
// make_run folder whose step 3 was made 40 % slower by an idle gap (tests/data/runs/
// make_slow_step.py): per_step has every step with its trace duration, flags exactly that step,
// and its extra time lands in the idle buckets. The per-step utilisation and host busy are checked
// against values computed independently in Python from the trace (PROVENANCE.md); the outlier
// rule is checked on hand-made durations.

#include "report.h"
#include "runanalysis.h"
#include "perstep.h"
#include "stepbudget.h"
#include "derived.h"
#include "perstepjson.h"
#include "testsupport.h"

#include <QJsonArray>
#include <QFile>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace goblin;

namespace {

std::shared_ptr<const RunAnalysis> load(const QString &name)
{
    const LoadResult r = loadRun(test::dataPath(QStringLiteral("runs/") + name));
    return r.outcome == LoadOutcome::Finished ? r.run : nullptr;
}

StepSeries seriesOf(const QList<double> &durationsS)
{
    StepSeries s;
    for (qsizetype i = 0; i < durationsS.size(); ++i) {
        StepInputs in;
        in.name = QStringLiteral("ProfilerStep#%1").arg(i);
        in.index = int(i);
        in.durationS = durationsS[i];
        in.inputs.stepTimeS = durationsS[i];
        s.steps.push_back(in);
    }
    flagOutliers(s);
    return s;
}

/// Step windows of slow-step-idle in ns, and the busy union of the GPU events and the union of the
/// CPU operators in each window / its length (printed by the Python check in PROVENANCE.md).
struct ExpectedStep {
    const char *name;
    qint64 durationNs;
    double utilPct;
    double hostBusy;
};
const ExpectedStep kSlowStep[] = {
    {"ProfilerStep#0", 3682988, 48.421879191569, 0.251852028842},
    {"ProfilerStep#1", 3928112, 45.360773827223, 0.266101373892},
    {"ProfilerStep#2", 4191683, 41.970778801737, 0.278925672576},
    {"ProfilerStep#3", 5721297, 30.910263878977, 0.196797858947},
    {"ProfilerStep#4", 3996625, 43.658386763832, 0.274941732086},
    {"ProfilerStep#5", 4016497, 43.443677413428, 0.275717123653},
    {"ProfilerStep#6", 4149250, 43.184551424956, 0.269294209797},
    {"ProfilerStep#7", 4029652, 42.991950669686, 0.271603602495},
};
constexpr int kSlowIndex = 3;

double medianOf(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

} // namespace

class TestPerStep : public QObject
{
    Q_OBJECT

private slots:
    void slowStepInputs()
    {
        const auto run = load(QStringLiteral("slow-step-idle"));
        QVERIFY(run);
        const StepSeries &s = run->steps;
        QCOMPARE(s.size(), int(std::size(kSlowStep)));
        for (int i = 0; i < s.size(); ++i) {
            const StepInputs &step = s.steps[std::size_t(i)];
            const ExpectedStep &e = kSlowStep[i];
            QCOMPARE(step.name, QString::fromLatin1(e.name));
            QCOMPARE(step.index, i);
            QCOMPARE(qint64(std::llround(step.durationS * 1e9)), e.durationNs);
            QVERIFY2(step.utilMeasured && step.hostBusyMeasured, e.name);
            QVERIFY2(std::fabs(step.inputs.gpuUtilPct - e.utilPct) < 1e-9, qPrintable(QString::number(step.inputs.gpuUtilPct, 'g', 15)));
            QVERIFY2(std::fabs(step.inputs.hostBusyFraction - e.hostBusy) < 1e-9,
                     qPrintable(QString::number(step.inputs.hostBusyFraction, 'g', 15)));
            QCOMPARE(step.inputs.stepTimeS, step.durationS);
            QVERIFY(step.inputs.gemmNs > 0);  // the step's own kernels were classified
            QVERIFY(step.timelineDevice >= 0 && step.timelineStep == i);
        }
        QVERIFY(s.steps.front().startS == 0.0);
        QVERIFY(s.steps[1].startS > 0.0036 && s.steps[1].startS < 0.0038);
        QVERIFY2(s.source.contains(QLatin1String("ProfilerStep")), qPrintable(s.source));
    }

    void slowStepFlaggedAndIdle()
    {
        const auto run = load(QStringLiteral("slow-step-idle"));
        QVERIFY(run);
        const StepSeries &s = run->steps;
        for (int i = 0; i < s.size(); ++i)
            QCOMPARE(bool(s.outlier[std::size_t(i)]), i == kSlowIndex);
        const QString reason = s.outlierReason[kSlowIndex];
        QVERIFY2(reason.contains(QLatin1String("5.72 ms")) && reason.contains(QLatin1String("median")), qPrintable(reason));
        QVERIFY(s.outlierReason[0].isEmpty());

        // The extra time against the median of the other steps lands in the idle buckets: host gap
        // and data wait take most of it, useful GPU time stays where it was.
        const Thresholds t;
        std::vector<double> dur, idle, useful;
        for (int i = 0; i < s.size(); ++i) {
            if (i == kSlowIndex)
                continue;
            const WasteBudget b = stepBudget(s, i, t);
            dur.push_back(s.steps[std::size_t(i)].durationS);
            idle.push_back(b.hostGap + b.dataWait);
            useful.push_back(b.usefulGpu);
        }
        const WasteBudget slow = stepBudget(s, kSlowIndex, t);
        const double extra = s.steps[kSlowIndex].durationS - medianOf(dur);
        const double extraIdle = slow.hostGap + slow.dataWait - medianOf(idle);
        const double extraUseful = slow.usefulGpu - medianOf(useful);
        QVERIFY2(extra > 0.0015, qPrintable(QString::number(extra)));
        QVERIFY2(extraIdle > 0.85 * extra, qPrintable(QStringLiteral("idle +%1 of +%2").arg(extraIdle).arg(extra)));
        // Useful GPU is the measured busy compute, which a gap does not change (docs/budget.md).
        qInfo("extra %.6f s: idle buckets +%.6f s (%.1f %%), useful GPU %+.6f s (%.1f %%)", extra, extraIdle,
              100 * extraIdle / extra, extraUseful, 100 * extraUseful / extra);
        QVERIFY2(std::fabs(extraUseful) < 0.02 * extra,
                 qPrintable(QStringLiteral("useful %1 of +%2").arg(extraUseful).arg(extra)));
        // The GPU's busy seconds are those of a normal step: utilisation fell, not the work.
        const double busySlow = s.steps[kSlowIndex].inputs.gpuUtilPct * s.steps[kSlowIndex].durationS;
        const double busyNext = s.steps[4].inputs.gpuUtilPct * s.steps[4].durationS;
        QVERIFY(std::fabs(busySlow - busyNext) < 0.1 * busyNext);
    }

    void reportPerStep()
    {
        const auto run = load(QStringLiteral("slow-step-idle"));
        QVERIFY(run);
        Thresholds t;
        t.gpuUtilBelowPct = 35.0;  // the slow step's 30.9 % now passes the data-wait gate
        t.hostBusyAbove = 0.1;
        const QJsonObject report = buildReport(*run, HeuristicsProfile::Workbench, t);
        const QJsonArray steps = report[QStringLiteral("per_step")].toArray();
        QCOMPARE(steps.size(), int(std::size(kSlowStep)));
        const QStringList keys = {"name", "index", "start_s", "duration_s", "waste_budget", "outlier", "outlier_reason"};
        for (int i = 0; i < steps.size(); ++i) {
            const QJsonObject o = steps[i].toObject();
            for (const QString &k : keys)
                QVERIFY2(o.contains(k), qPrintable(k));
            QCOMPARE(o["name"].toString(), QString::fromLatin1(kSlowStep[i].name));
            QCOMPARE(o["index"].toInt(), i);
            QCOMPARE(qint64(std::llround(o["duration_s"].toDouble() * 1e9)), kSlowStep[i].durationNs);
            QCOMPARE(o["outlier"].toBool(), i == kSlowIndex);
            QCOMPARE(o["outlier_reason"].toString().isEmpty(), i != kSlowIndex);
            const QJsonObject b = o["waste_budget"].toObject();
            for (int k = 0; k < WasteBudget::BucketCount; ++k)
                QVERIFY(b[WasteBudget::bucketKey(k)].isDouble());
            // Each step's buckets are its devices' measured budgets under these thresholds, and they
            // partition the step: buckets + unattributed = the step, useful GPU within busy compute.
            const StepInputs &step = run->steps.steps[std::size_t(i)];
            QVERIFY(!step.slices.empty());
            std::vector<WasteBudget> devices;
            for (const MeasuredSlice &slice : step.slices)
                devices.push_back(computeMeasuredBudget(slice, run->steps.hbmPeakGb,
                                                        appliedThresholds(*run, HeuristicsProfile::Workbench, t)));
            const WasteBudget expected = meanBudget(devices);
            double sum = b["unattributed_s"].toDouble();
            for (int k = 0; k < WasteBudget::BucketCount; ++k) {
                QCOMPARE(b[WasteBudget::bucketKey(k)].toDouble(), expected.bucket(k));
                sum += b[WasteBudget::bucketKey(k)].toDouble();
            }
            QVERIFY2(std::fabs(sum - o["duration_s"].toDouble()) < 1e-9 * o["duration_s"].toDouble(),
                     qPrintable(QStringLiteral("%1 vs %2").arg(sum).arg(o["duration_s"].toDouble())));
            const MeasuredSlice &slice = step.slices.front();
            QVERIFY(b["useful_gpu"].toDouble() <= double(slice.computeNs) / 1e9 + 1e-12);
            // Data wait: the measured data-loading idle and input copies; the idle during other host
            // work joins it only where this step's utilisation is below 35 % and its host busier than 0.1.
            const double measuredWait = double(slice.idleDataLoadingNs + slice.h2dCopyOnlyNs) / 1e9;
            const double hostIdle = double(slice.idleHostOtherNs) / 1e9;
            QCOMPARE(i == kSlowIndex, slice.utilPct() < 35.0);
            const double want = measuredWait + (i == kSlowIndex ? hostIdle : 0.0);
            QVERIFY2(std::fabs(b["data_wait"].toDouble() - want) < 1e-12,
                     qPrintable(QStringLiteral("step %1: %2 vs %3").arg(i).arg(b["data_wait"].toDouble()).arg(want)));
        }
        QVERIFY(!report["per_step_source"].toString().isEmpty());
        const QJsonObject schema = QJsonDocument::fromJson(test::readAll(GOBLIN_SOURCE_DIR "/resources/report.schema.json")).object();
        const QStringList errors = test::validateJsonSchema(report, schema);
        QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));

        // The reference profile has no per-step budget, and says so.
        const QJsonObject ref = buildReport(*run, HeuristicsProfile::Reference, Thresholds{});
        QVERIFY(ref["per_step"].toArray().isEmpty());
        QVERIFY(ref["per_step_source"].toString().contains(QLatin1String("reference")));
        QVERIFY(test::validateJsonSchema(ref, schema).isEmpty());
    }

    void ranksShareStepNames()
    {
        // Two ranks (HTA's trace_filter traces, one GPU each): a step is one name, its duration and
        // utilisation the means over the ranks (computed independently with Python, PROVENANCE.md).
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        for (int rank : {0, 1})
            QVERIFY(QFile::copy(test::dataPath(QStringLiteral("torch/hta_trace_filter_sampled_rank-%1.json.gz").arg(rank)),
                                dir.filePath(QStringLiteral("sampled_rank-%1.json.gz").arg(rank))));
        const LoadResult r = loadRun(dir.path());
        QVERIFY(r.run);
        const StepSeries &s = r.run->steps;
        QCOMPARE(s.size(), 2);
        QCOMPARE(s.steps[0].name, QStringLiteral("ProfilerStep#551"));
        QCOMPARE(s.steps[1].name, QStringLiteral("ProfilerStep#552"));
        QCOMPARE(s.steps[0].durationS, 0.607608);
        QCOMPARE(s.steps[1].durationS, 0.6267835);
        QVERIFY(std::fabs(s.steps[0].inputs.gpuUtilPct - 45.315926010802) < 1e-9);
        QVERIFY(std::fabs(s.steps[1].inputs.gpuUtilPct - 46.013056316143) < 1e-9);
        QVERIFY2(s.source.contains(QLatin1String("from 2 file(s)")) && s.source.contains(QLatin1String("2 device(s)")),
                 qPrintable(s.source));
        QVERIFY(!s.outlier[0] && !s.outlier[1]);  // two steps: no outlier rule
        QVERIFY(s.steps[0].inputs.commExcessS > 0.0);  // NCCL kernels inside the step, per device
    }

    void stepsWithoutGpuEvents()
    {
        // HTA's CPU-only trace: one ProfilerStep, CPU operators, no GPU event. The step's
        // utilisation is the run's (here unknown: the leftover is unattributed, not useful GPU),
        // its host busy is measured, and the source says which is which.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(QFile::copy(test::dataPath(QStringLiteral("torch/hta_cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz")),
                            dir.filePath(QStringLiteral("rank-34.pt.trace.json.gz"))));
        const LoadResult r = loadRun(dir.path());
        QVERIFY(r.run);
        const StepSeries &s = r.run->steps;
        QCOMPARE(s.size(), 1);
        QCOMPARE(s.steps[0].name, QStringLiteral("ProfilerStep#551"));
        QCOMPARE(s.steps[0].durationS, 0.210109162);
        QVERIFY(!s.steps[0].utilMeasured);
        QVERIFY(s.steps[0].hostBusyMeasured);
        QCOMPARE(s.steps[0].inputs.gpuUtilKnown, r.run->workbench.budgetInputs.gpuUtilKnown);
        QCOMPARE(s.steps[0].inputs.gpuUtilPct, r.run->workbench.budgetInputs.gpuUtilPct);
        QVERIFY2(s.source.contains(QLatin1String("no GPU events")), qPrintable(s.source));
        const WasteBudget b = stepBudget(s, 0, Thresholds{});
        QVERIFY(!r.run->workbench.budgetInputs.gpuUtilKnown);  // no telemetry, no kernels
        QCOMPARE(b.usefulGpu, 0.0);  // nothing measured the GPU: no step claims useful GPU time
        double sum = b.unattributed;
        for (int k = 0; k < WasteBudget::BucketCount; ++k)
            sum += b.bucket(k);
        QVERIFY(std::fabs(sum - s.steps[0].durationS) < 1e-12);
        QVERIFY(!s.outlier[0]);
    }

    void cutIntoSteps()
    {
        // No step marks: --steps N cuts the kernel span into N equal steps, each with its own
        // inputs. The busy seconds of the windows add up to the device's busy time, the windows to
        // the kernel span; equal windows give no outliers. The kernel trace alone: the folder's torch
        // trace has CPU-lane Optimizer.step annotations, which cut steps of their own (stepMarksOfFolder).
        const auto run = load(QStringLiteral("v1-monrocm6-nometa/trace.csv"));
        QVERIFY(run);
        QVERIFY(run->steps.empty());
        // The one --steps rule (derived.h): the span as one step without N, N equal steps with it.
        Thresholds t;
        QCOMPARE(int(planSteps(*run, HeuristicsProfile::Workbench, t).kind), int(StepPlan::Kind::WholeSpan));
        t.steps = 4;
        const StepPlan plan = planSteps(*run, HeuristicsProfile::Workbench, t);
        QCOMPARE(int(plan.kind), int(StepPlan::Kind::Cut));
        QCOMPARE(plan.cutSteps, 4);
        const StepSeries s = cutSteps(*run, 4);
        QCOMPARE(s.size(), 4);
        QVERIFY2(s.source.contains(QLatin1String("cut into 4 equal steps")), qPrintable(s.source));
        QCOMPARE(run->kernelTimeline.devices.size(), std::size_t(1));
        const DeviceTimelineAnalysis &d = run->kernelTimeline.devices.front();
        const FileTimelineSummary &f = run->kernelTimeline.files.front();
        double busyS = 0.0, spanS = 0.0;
        for (int i = 0; i < 4; ++i) {
            const StepInputs &step = s.steps[std::size_t(i)];
            QCOMPARE(step.name, QStringLiteral("span / 4 #%1").arg(i));
            QVERIFY(step.utilMeasured);
            QVERIFY(!s.outlier[std::size_t(i)]);
            busyS += step.inputs.gpuUtilPct / 100.0 * step.durationS;
            spanS += step.durationS;
        }
        QVERIFY(std::fabs(spanS - double(f.kernelLastNs - f.kernelFirstNs) / 1e9) < 1e-15);
        QVERIFY(std::fabs(busyS - double(d.busyNs) / 1e9) < 1e-12);
        const QJsonObject report = buildReport(*run, HeuristicsProfile::Workbench, t);
        const QJsonArray steps = report[QStringLiteral("per_step")].toArray();
        QCOMPARE(steps.size(), 4);
        QCOMPARE(steps[2].toObject()["waste_budget"].toObject()["host_gap"].toDouble(), stepBudget(s, 2, t).hostGap);
        QCOMPARE(report["per_step_source"].toString(), s.source);
    }

    void stepMarksOfFolder()
    {
        // v1-monrocm6-nometa: no ProfilerStep and no GPU-lane annotations, but three CPU-lane
        // Optimizer.step annotations: the two windows between their ends are the steps.
        const auto run = load(QStringLiteral("v1-monrocm6-nometa"));
        QVERIFY(run);
        QCOMPARE(int(run->facts.stepPlan.kind), int(StepPlanKind::OptimizerSteps));
        QCOMPARE(run->steps.size(), 2);
        QCOMPARE(buildReport(*run, HeuristicsProfile::Workbench, Thresholds{})["per_step"].toArray().size(), 2);
    }

    void noStepMarks()
    {
        // v1-monrocm6-nometa's kernel trace alone: no step marks, so no per-step budget.
        const auto run = load(QStringLiteral("v1-monrocm6-nometa/trace.csv"));
        QVERIFY(run);
        QVERIFY(run->steps.empty());
        QVERIFY2(run->steps.source.contains(QLatin1String("no per-step budget")), qPrintable(run->steps.source));
        QVERIFY(buildReport(*run, HeuristicsProfile::Workbench, Thresholds{})["per_step"].toArray().isEmpty());
    }

    void outlierRule_data()
    {
        QTest::addColumn<QList<double>>("durations");
        QTest::addColumn<QList<int>>("outliers");
        QTest::addColumn<double>("limit");
        // median 1.0, MAD 0.05 → scaled 0.07413, limit 1.22239
        QTest::newRow("jitter, one slow") << QList<double>{1.0, 1.05, 0.95, 1.0, 1.05, 0.95, 1.4}
                                          << QList<int>{6} << 1.0 + 3 * 1.4826 * 0.05;
        QTest::newRow("jitter, just below the limit") << QList<double>{1.0, 1.05, 0.95, 1.0, 1.05, 0.95, 1.22}
                                                      << QList<int>{} << 1.0 + 3 * 1.4826 * 0.05;
        // MAD 0: the spread is 2 % of the median, the limit 1.06 × the median.
        QTest::newRow("MAD 0, 1 % slower") << QList<double>{2.0, 2.0, 2.0, 2.0, 2.02} << QList<int>{} << 2.12;
        QTest::newRow("MAD 0, 10 % slower") << QList<double>{2.0, 2.0, 2.0, 2.0, 2.2} << QList<int>{4} << 2.12;
        QTest::newRow("two slow of eight")
            << QList<double>{1.0, 1.02, 0.98, 1.0, 1.01, 0.99, 1.5, 1.6} << QList<int>{6, 7}
            << 1.005 + 3 * std::max(1.4826 * 0.015, 0.02 * 1.005);
        QTest::newRow("fast steps are no outliers") << QList<double>{1.0, 1.0, 0.5, 1.0, 0.4} << QList<int>{}
                                                    << 1.06;
        QTest::newRow("two steps: never") << QList<double>{1.0, 5.0} << QList<int>{}
                                          << 3.0 + 3 * 1.4826 * 2.0;
        QTest::newRow("one step") << QList<double>{1.0} << QList<int>{} << 1.06;
    }

    void outlierRule()
    {
        QFETCH(QList<double>, durations);
        QFETCH(QList<int>, outliers);
        QFETCH(double, limit);
        const StepSeries s = seriesOf(durations);
        QVERIFY2(std::fabs(s.rule.limitS - limit) < 1e-12, qPrintable(QString::number(s.rule.limitS, 'g', 12)));
        QList<int> flagged;
        for (int i = 0; i < s.size(); ++i) {
            if (s.outlier[std::size_t(i)]) {
                flagged << i;
                QVERIFY2(s.outlierReason[std::size_t(i)].contains(QLatin1String("median")),
                         qPrintable(s.outlierReason[std::size_t(i)]));
            } else {
                QVERIFY(s.outlierReason[std::size_t(i)].isEmpty());
            }
        }
        QCOMPARE(flagged, outliers);
    }

    void thresholdChangeIsArithmetic()
    {
        // stepBudget reads only the step's measured slices: the mean of their measured budgets for
        // any knob; and a threshold moves time between waste buckets, never into useful GPU.
        const auto run = load(QStringLiteral("slow-step-idle"));
        QVERIFY(run);
        std::vector<double> useful(std::size_t(run->steps.size()), -1.0);
        for (double below : {10.0, 30.0, 50.0, 90.0}) {
            Thresholds t;
            t.gpuUtilBelowPct = below;
            t.hostBusyAbove = 0.2;
            for (int i = 0; i < run->steps.size(); ++i) {
                std::vector<WasteBudget> devices;
                for (const MeasuredSlice &slice : run->steps.steps[std::size_t(i)].slices)
                    devices.push_back(computeMeasuredBudget(slice, run->steps.hbmPeakGb, t));
                const WasteBudget b = stepBudget(run->steps, i, t);
                QCOMPARE(b, meanBudget(devices));
                if (useful[std::size_t(i)] >= 0.0)
                    QCOMPARE(b.usefulGpu, useful[std::size_t(i)]);
                useful[std::size_t(i)] = b.usefulGpu;
            }
        }
        QCOMPARE(stepBudget(run->steps, -1, Thresholds{}), WasteBudget{});
        QCOMPARE(stepBudget(run->steps, run->steps.size(), Thresholds{}), WasteBudget{});
    }
};

QTEST_GUILESS_MAIN(TestPerStep)
#include "tst_perstep.moc"
