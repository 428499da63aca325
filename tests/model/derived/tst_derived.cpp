// The step plan, the one `--steps N` rule (issue 23 item 5; planSteps() in derived.cpp,
// docs/budget.md "Which budget a run gets"): step marks when a timeline has them (Marked); else,
// when nothing but the timeline gives a step time, the kernel span as one step (WholeSpan) or cut
// into N equal steps (Cut, reused while N stays); else none (the seed's formulas), as always in
// the reference profile. Fixtures: runs/v3-metric-1gpu (ProfilerStep marks), a TraceLens torch
// trace without marks or metadata (traceonly/no-marks has CPU-lane Optimizer.step annotations,
// which are steps of their own, docs/steps.md), runs/v1-monrocm6-nometa/trace.csv (a kernel trace without
// marks), plan/metadata-nomarks (a torch trace without marks whose metadata gives the step time).

#include "derived.h"
#include "metrics.h"
#include "runanalysis.h"
#include "testsupport.h"
#include "timeline.h"

#include <QTest>
#include <cmath>
#include <map>

using namespace goblin;

namespace {

std::shared_ptr<const RunAnalysis> load(const QString &relative)
{
    static std::map<QString, std::shared_ptr<const RunAnalysis>> cache;
    auto it = cache.find(relative);
    if (it != cache.end())
        return it->second;
    const LoadResult loaded = loadRun(test::dataPath(relative));
    return cache[relative] = loaded.outcome == LoadOutcome::Finished ? loaded.run : nullptr;
}

/// The kernel span of the timeline a plan without marks cuts (one file in these fixtures).
std::pair<qint64, qint64> kernelSpan(const RunAnalysis &run, bool torch)
{
    const TimelineAnalysis &a = torch ? run.torchTimeline : run.kernelTimeline;
    if (a.files.empty())
        return {0, 0};
    return {a.files.front().kernelFirstNs, a.files.front().kernelLastNs};
}

} // namespace

class TestDerived : public QObject
{
    Q_OBJECT

private slots:
    void stepPlan_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QString>("profile");
        QTest::addColumn<int>("steps");  // --steps N, 0 = not given
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("cutSteps");
        QTest::addColumn<int>("shownSteps");  // rows of per_step / the step strip
        QTest::addColumn<bool>("measured");
        const int marked = int(StepPlan::Kind::Marked), cut = int(StepPlan::Kind::Cut),
                  whole = int(StepPlan::Kind::WholeSpan), none = int(StepPlan::Kind::None);
        QTest::newRow("ProfilerStep marks") << "runs/v3-metric-1gpu" << "workbench" << 0 << marked << 0 << 3 << true;
        QTest::newRow("marks, --steps 7 only labels") << "runs/v3-metric-1gpu" << "workbench" << 7 << marked << 0 << 3 << true;
        QTest::newRow("no marks, no N: the span as one step") << "torch/tracelens_mi210_gpu_only_trace.json.gz" << "workbench" << 0 << whole << 1 << 0 << true;
        QTest::newRow("no marks, --steps 4: 4 equal steps") << "torch/tracelens_mi210_gpu_only_trace.json.gz" << "workbench" << 4 << cut << 4 << 4 << true;
        QTest::newRow("kernel trace, no marks, --steps 4") << "runs/v1-monrocm6-nometa/trace.csv" << "workbench" << 4 << cut << 4 << 4 << true;
        QTest::newRow("kernel trace, no marks, no N") << "runs/v1-monrocm6-nometa/trace.csv" << "workbench" << 0 << whole << 1 << 0 << true;
        QTest::newRow("metadata step time, no marks") << "plan/metadata-nomarks" << "workbench" << 0 << none << 0 << 0 << false;
        QTest::newRow("metadata step time, --steps 4 only labels") << "plan/metadata-nomarks" << "workbench" << 4 << none << 0 << 0 << false;
        QTest::newRow("reference profile, marks") << "runs/v3-metric-1gpu" << "reference" << 0 << none << 0 << 0 << false;
        QTest::newRow("reference profile, no marks, --steps 4") << "traceonly/no-marks" << "reference" << 4 << none << 0 << 0 << false;
    }

    void stepPlan()
    {
        QFETCH(QString, folder);
        QFETCH(QString, profile);
        QFETCH(int, steps);
        QFETCH(int, kind);
        QFETCH(int, cutSteps);
        QFETCH(int, shownSteps);
        QFETCH(bool, measured);
        const auto run = load(folder);
        QVERIFY(run);
        Thresholds t;
        if (steps > 0)
            t.steps = steps;
        const HeuristicsProfile p = *profileFromName(profile);
        const Derived d = deriveResults(*run, p, t);

        QCOMPARE(int(d.plan.kind), kind);
        QCOMPARE(d.plan.cutSteps, cutSteps);
        QCOMPARE(d.budgetMeasured, measured);
        QCOMPARE(d.metrics.wasteBudget.terms.measured, measured);
        QCOMPARE(d.plan.measured(), measured);
        QCOMPARE(d.plan.showsSteps(), shownSteps > 0);
        QCOMPARE(int(d.stepBudgets.size()), shownSteps);
        QCOMPARE(d.steps() ? d.steps()->size() : 0, shownSteps);
        QVERIFY(!d.budgetSource.isEmpty());
        // The plan computed alone is the one deriveResults() used.
        const StepPlan again = planSteps(*run, p, t);
        QCOMPARE(int(again.kind), kind);
        QCOMPARE(again.cutSteps, cutSteps);

        switch (StepPlan::Kind(kind)) {
        case StepPlan::Kind::Marked:
            // The run's own steps, read once at load; N only labels the report.
            QCOMPARE(d.plan.series, &run->steps);
            QVERIFY(!d.plan.owned);
            QCOMPARE(d.plan.source, run->steps.source);
            QCOMPARE(d.metrics.steps, steps > 0 ? steps : run->workbench.defaultSteps);
            QCOMPARE(d.timelineCutSteps, 0);
            break;
        case StepPlan::Kind::Cut:
        case StepPlan::Kind::WholeSpan: {
            // The kernel span in N equal windows (the last takes the remainder): the run's step
            // is span / N, every step's window is its own.
            QVERIFY(d.plan.owned);
            QCOMPARE(d.plan.series, d.plan.owned.get());
            const auto [first, last] = kernelSpan(*run, d.plan.series->fromTorchTimeline);
            QVERIFY(last > first);
            const std::vector<TimeInterval> windows = equalWindows(first, last, cutSteps);
            QCOMPARE(d.plan.series->size(), cutSteps);
            // Telemetry is not placed on cut steps (no shared clock): the source says whose HBM peak they take.
            QCOMPARE(d.plan.source.contains(QLatin1String("HBM: the run's peak for every step")),
                     !run->smi.samples.empty());
            for (const StepInputs &s : d.plan.series->steps)
                QVERIFY(!s.hbmPlaced);
            for (int i = 0; i < cutSteps; ++i)
                QCOMPARE(d.plan.series->steps[std::size_t(i)].durationS,
                         double(windows[std::size_t(i)].endNs - windows[std::size_t(i)].startNs) / 1e9);
            const double spanS = double(last - first) / 1e9;
            QVERIFY2(std::fabs(d.stepTimeS() - spanS / cutSteps) <= 1e-12 * spanS,
                     qPrintable(QStringLiteral("step %1 s, span / %2 = %3 s").arg(d.stepTimeS()).arg(cutSteps).arg(spanS / cutSteps)));
            QCOMPARE(run->workbench.stepCutSpanS > 0.0, true);
            QCOMPARE(d.timelineCutSteps, kind == int(StepPlan::Kind::Cut) ? cutSteps : 0);
            break;
        }
        case StepPlan::Kind::None: {
            // The seed's formulas, exactly as computeMetrics gives them.
            QVERIFY(!d.plan.series);
            QVERIFY(!d.steps());
            const RunMetrics seed = computeMetrics(run->profile(p), appliedThresholds(*run, p, t));
            QVERIFY(d.metrics.wasteBudget == seed.wasteBudget);
            QCOMPARE(d.metrics.steps, seed.steps);
            break;
        }
        }
        if (p == HeuristicsProfile::Reference) {
            // The timeline's cut is the workbench's reading, shown in either profile.
            const StepPlan workbench = planSteps(*run, HeuristicsProfile::Workbench, t);
            QCOMPARE(d.timelineCutSteps, workbench.kind == StepPlan::Kind::Cut ? workbench.cutSteps : 0);
        }
    }

    /// A threshold drag reuses the cut (the same series object); a new N cuts again.
    void cutIsReusedWhileNStays_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<int>("steps");
        QTest::newRow("torch trace, --steps 4") << "torch/tracelens_mi210_gpu_only_trace.json.gz" << 4;
        QTest::newRow("torch trace, the span") << "torch/tracelens_mi210_gpu_only_trace.json.gz" << 0;
        QTest::newRow("kernel trace, --steps 4") << "runs/v1-monrocm6-nometa/trace.csv" << 4;
    }

    void cutIsReusedWhileNStays()
    {
        QFETCH(QString, folder);
        QFETCH(int, steps);
        const auto run = load(folder);
        QVERIFY(run);
        Thresholds t;
        if (steps > 0)
            t.steps = steps;
        const Derived first = deriveResults(*run, HeuristicsProfile::Workbench, t);
        QVERIFY(first.plan.owned);

        // Only other thresholds change: the same cut, the same per-step windows.
        Thresholds dragged = t;
        dragged.gpuUtilBelowPct = 95.0;
        dragged.hostBusyAbove = 0.05;
        dragged.hbmTargetPct = 90.0;
        dragged.precision = Precision::Fp16;
        const Derived second = deriveResults(*run, HeuristicsProfile::Workbench, dragged, &first);
        QCOMPARE(second.plan.owned.get(), first.plan.owned.get());
        QCOMPARE(second.plan.series, first.plan.series);
        QCOMPARE(int(second.plan.kind), int(first.plan.kind));
        // …and the drag moved time between waste buckets only: the step and useful GPU stay.
        QCOMPARE(second.stepTimeS(), first.stepTimeS());
        QVERIFY(second.metrics.wasteBudget.usefulGpu <= first.metrics.wasteBudget.usefulGpu);  // fp16 carve-out
        const WasteBudget &a = first.metrics.wasteBudget, &b = second.metrics.wasteBudget;
        QVERIFY(std::fabs(a.usefulGpu + a.precisionPath - b.usefulGpu - b.precisionPath) <= 1e-12);
        // The same again through the plan alone.
        const StepPlan plan = planSteps(*run, HeuristicsProfile::Workbench, dragged, &first.plan);
        QCOMPARE(plan.owned.get(), first.plan.owned.get());

        // Without the previous result a fresh cut is made, with the same values.
        const Derived fresh = deriveResults(*run, HeuristicsProfile::Workbench, dragged);
        QVERIFY(fresh.plan.owned.get() != first.plan.owned.get());
        QVERIFY(fresh.metrics.wasteBudget == second.metrics.wasteBudget);

        // A new N is a new cut.
        Thresholds other = t;
        other.steps = steps > 0 ? steps + 1 : 3;
        const Derived recut = deriveResults(*run, HeuristicsProfile::Workbench, other, &first);
        QVERIFY(recut.plan.owned.get() != first.plan.owned.get());
        QCOMPARE(int(recut.plan.kind), int(StepPlan::Kind::Cut));
        QCOMPARE(recut.plan.cutSteps, *other.steps);
        QCOMPARE(recut.plan.series->size(), *other.steps);
    }

    /// Marks are the run's own series, never copied, whatever the previous result.
    void marksAreNeverCut()
    {
        const auto run = load(QStringLiteral("runs/v3-metric-1gpu"));
        QVERIFY(run);
        const auto unmarked = load(QStringLiteral("traceonly/no-marks"));
        QVERIFY(unmarked);
        Thresholds t;
        t.steps = 4;
        const Derived cut = deriveResults(*unmarked, HeuristicsProfile::Workbench, t);
        const StepPlan plan = planSteps(*run, HeuristicsProfile::Workbench, t, &cut.plan);
        QCOMPARE(int(plan.kind), int(StepPlan::Kind::Marked));
        QCOMPARE(plan.series, &run->steps);
        QVERIFY(!plan.owned);
    }
};

QTEST_GUILESS_MAIN(TestDerived)
#include "tst_derived.moc"
