// The step strip (issue 14, item 1): a bar per profiled step with the outlier marked; clicking a
// step (mouse events) makes the whole dashboard show it — budget model, chart, verdict, host-busy
// gauge and the timeline panel's strip — the thresholds still recompute it live, and clicking it
// again or "All steps" returns to the run mean. Run: tests/data/runs/slow-step-idle.

#include "budgetchart.h"
#include "budgetformula.h"
#include "formatting.h"
#include "liveanalysis.h"
#include "modelroles.h"
#include "runanalysis.h"
#include "stepstrip.h"
#include "stepbudget.h"
#include "testsupport.h"
#include "thresholdeditor.h"
#include "thresholdgauge.h"
#include "timelinepanel.h"
#include "wastebudgetmodel.h"
#include "workbenchsession.h"
#include "workbenchview.h"

#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

using namespace goblin;

namespace {

struct Dashboard {
    WorkbenchSession session;
    WorkbenchView view{&session};
    std::shared_ptr<const RunAnalysis> run;

    Dashboard()
    {
        const LoadResult r = loadRun(test::dataPath(QStringLiteral("runs/slow-step-idle")));
        run = r.run;
        view.resize(1400, 1000);
        view.show();
        if (run)
            session.openRun(run);
    }
    StepStrip *strip() const { return view.stepStrip(); }
    void click(int step)
    {
        QTest::mouseClick(strip(), Qt::LeftButton, {}, strip()->barRect(step).center().toPoint());
    }
};

/// The budget model, the chart, the verdict and the gauge show `expected` of a step `stepS` long.
void verifyShown(Dashboard &d, const WasteBudget &expected, double stepS, double hostBusy)
{
    d.session.live()->flush();
    QCOMPARE(d.session.live()->shownBudget(), expected);
    const WasteBudgetModel *model = d.session.budget();
    for (int i = 0; i < WasteBudget::BucketCount; ++i)
        QCOMPARE(model->index(i, WasteBudgetModel::SecondsColumn).data(SortRole).toDouble(), expected.bucket(i));
    QCOMPARE(model->stepTimeS(), stepS);
    const BudgetChart *chart = d.view.budgetChartView()->budgetChart();
    for (int i = 0; i < WasteBudget::BucketCount; ++i)
        QVERIFY(qAbs(chart->valueSeconds(i) - expected.bucket(i)) <= 1e-12);
    QCOMPARE(d.view.verdictLabel()->text(), budgetVerdict(expected, stepS));
    QCOMPARE(d.view.hostBusyGauge()->value(), hostBusy);
}

} // namespace

class TestStepStrip : public QObject
{
    Q_OBJECT
private slots:
    void barsAndOutlier()
    {
        Dashboard d;
        QVERIFY(d.run);
        QCOMPARE(d.strip()->stepCount(), 8);
        QVERIFY(d.strip()->isVisible());
        // Bars as tall as their steps; the slow one (step 3) the tallest and its tooltip says why.
        double tallest = 0;
        int tallestIndex = -1;
        for (int i = 0; i < 8; ++i) {
            const QRectF bar = d.strip()->barRect(i);
            QVERIFY(bar.height() > 0);
            QCOMPARE(d.strip()->stepAt(bar.center()), i);
            if (bar.height() > tallest) {
                tallest = bar.height();
                tallestIndex = i;
            }
        }
        QCOMPARE(tallestIndex, 3);
        QVERIFY(d.strip()->toolTipForStep(3).contains(QLatin1String("Outlier:")));
        QVERIFY(!d.strip()->toolTipForStep(2).contains(QLatin1String("Outlier:")));
        QVERIFY(d.strip()->toolTipForStep(3).startsWith(QLatin1String("ProfilerStep#3")));
        QVERIFY(!d.strip()->grab().isNull());  // paints without a crash
    }

    void clickShowsStepAndDragRecomputes()
    {
        Dashboard d;
        QVERIFY(d.run);
        LiveAnalysis *live = d.session.live();
        const StepSeries &steps = d.run->steps;
        // What every view shows comes from one place (derived.h): the run's budget and quantities.
        const auto runShown = [&](const Thresholds &t) {
            const Derived r = deriveResults(*d.run, HeuristicsProfile::Workbench, t);
            verifyShown(d, r.metrics.wasteBudget, r.stepTimeS(), *r.quantities[QuantityKey::HostBusyFraction].value);
        };
        const auto stepShown = [&](int i, const Thresholds &t) {
            // (the thresholds as the budget applies them: the telemetry's memory total as capacity)
            const WasteBudget b = stepBudget(steps, i, appliedThresholds(*d.run, HeuristicsProfile::Workbench, t));
            verifyShown(d, b, steps.steps[std::size_t(i)].durationS, b.terms.hostBusy);
            QCOMPARE(b.terms.hostBusy, steps.steps[std::size_t(i)].inputs.hostBusyFraction);
        };
        runShown(Thresholds{});

        QSignalSpy selected(live, &LiveAnalysis::selectedStepChanged);
        d.click(3);
        QCOMPARE(selected.count(), 1);
        QCOMPARE(live->selectedStep(), 3);
        const StepInputs &s3 = steps.steps[3];
        stepShown(3, Thresholds{});
        // Exports and their command describe the run, whichever step is shown.
        QCOMPARE(live->metrics().wasteBudget, deriveResults(*d.run, HeuristicsProfile::Workbench, Thresholds{}).metrics.wasteBudget);
        QVERIFY(!d.strip()->allStepsButton()->isChecked());
        // The timeline panel shows that step's kernels.
        QCOMPARE(d.view.timelinePanel()->stripDevice(), s3.timelineDevice);
        QCOMPARE(d.view.timelinePanel()->stripStep(), 3);
        QVERIFY(d.view.timelinePanel()->stripEventCount() > 0);

        // A threshold drag while the step is shown recomputes the step's budget.
        Thresholds t = live->thresholds();
        const WasteBudget before = stepBudget(steps, 3, t);
        d.session.editor()->changeValue(ThresholdField::GpuUtilBelow, 35.0);
        d.session.editor()->changeValue(ThresholdField::HostBusyAbove, 0.1);
        d.session.editor()->endGesture();
        t.gpuUtilBelowPct = 35.0;
        t.hostBusyAbove = 0.1;
        QCOMPARE(live->thresholds(), t);
        const WasteBudget dragged = stepBudget(steps, 3, t);
        // The slow step's idle during host work passes the data-wait gate: it moves from host gap to
        // data wait, and nothing moves into useful GPU.
        QVERIFY(dragged.dataWait > before.dataWait);
        QCOMPARE(dragged.usefulGpu, before.usefulGpu);
        QVERIFY(std::fabs(dragged.dataWait + dragged.hostGap - before.dataWait - before.hostGap) < 1e-15);
        stepShown(3, t);

        // Another step, then the same step again: back to the run mean under the same thresholds.
        d.click(5);
        QCOMPARE(live->selectedStep(), 5);
        stepShown(5, t);
        d.click(5);
        QCOMPARE(live->selectedStep(), -1);
        runShown(t);
        QVERIFY(d.strip()->allStepsButton()->isChecked());

        // "All steps" does the same.
        d.click(3);
        QCOMPARE(live->selectedStep(), 3);
        QTest::mouseClick(d.strip()->allStepsButton(), Qt::LeftButton);
        QCOMPARE(live->selectedStep(), -1);
        runShown(t);
    }

    void stepsFieldCutsTheSpan()
    {
        // A run without step marks has no bars until the Steps field cuts its kernel span. The kernel
        // trace alone: the folder's torch trace has three CPU-lane Optimizer.step annotations, whose
        // ends cut two steps of their own (docs/steps.md), and --steps N cuts only a span without marks.
        WorkbenchSession session;
        WorkbenchView view(&session);
        view.resize(1400, 1000);
        view.show();
        const LoadResult r = loadRun(test::dataPath(QStringLiteral("runs/v1-monrocm6-nometa/trace.csv")));
        QVERIFY(r.run);
        QVERIFY(r.run->facts.stepPlan.cuttable);
        session.openRun(r.run);
        LiveAnalysis *live = session.live();
        QCOMPARE(view.stepStrip()->stepCount(), 0);
        QVERIFY(!view.stepStrip()->allStepsButton()->isEnabled());
        session.editor()->changeValue(ThresholdField::Steps, 5);
        session.editor()->endGesture();
        live->flush();
        QCOMPARE(view.stepStrip()->stepCount(), 5);
        QVERIFY(view.stepStrip()->allStepsButton()->isEnabled());
        QTest::mouseClick(view.stepStrip(), Qt::LeftButton, {}, view.stepStrip()->barRect(2).center().toPoint());
        QCOMPARE(live->selectedStep(), 2);
        const StepSeries expected = cutSteps(*r.run, 5);
        QCOMPARE(live->shownBudget(), stepBudget(expected, 2, live->appliedThresholds()));
        QCOMPARE(session.budget()->stepTimeS(), expected.steps[2].durationS);
        // Fewer steps: the selection is gone with the step.
        session.editor()->changeValue(ThresholdField::Steps, 2);
        session.editor()->endGesture();
        live->flush();
        QCOMPARE(view.stepStrip()->stepCount(), 2);
        QCOMPARE(live->selectedStep(), -1);
        QCOMPARE(live->shownBudget(), live->metrics().wasteBudget);
    }

    /// Issue 23: the strip's median and the budget's step time are labelled with what they cover
    /// (so "median 647 ms" beside "641 ms" says why), and a partial last step is drawn apart with
    /// a tooltip saying it is out of the run's mean.
    void titleScopesAndPartialStep_data()
    {
        QTest::addColumn<QString>("run");
        QTest::addColumn<int>("partialStep");  // -1: none
        QTest::newRow("slow step, no partial") << "slow-step-idle" << -1;
        QTest::newRow("partial last step") << "real-rocm7-hta-infx" << 1;
    }
    void titleScopesAndPartialStep()
    {
        QFETCH(QString, run);
        QFETCH(int, partialStep);
        WorkbenchSession session;
        StepStrip strip(session.live());
        strip.resize(1000, 120);
        const LoadResult loaded = loadRun(test::dataPath("runs/" + run));
        QVERIFY(loaded.run);
        session.openRun(loaded.run);
        session.live()->flush();
        const StepSeries *series = session.live()->steps();
        QVERIFY(series);
        const Quantity &step = session.live()->derived().quantities[QuantityKey::StepTimeS];
        QVERIFY(step.value);
        const QString title = strip.titleText();
        QVERIFY2(title.contains(QStringLiteral("median %1 (of all %2)")
                                    .arg(formatSeconds(series->rule.medianS))
                                    .arg(series->size())),
                 qPrintable(title));
        QVERIFY2(title.contains(QStringLiteral("budget step %1 (%2)").arg(formatSeconds(*step.value), step.scope)),
                 qPrintable(title));
        QVERIFY(strip.titleToolTip().contains(step.source));
        for (int i = 0; i < series->size(); ++i) {
            QCOMPARE(series->steps[std::size_t(i)].partial, i == partialStep);
            QCOMPARE(strip.toolTipForStep(i).contains(QStringLiteral("left out of the run's mean")), i == partialStep);
        }
        QCOMPARE(strip.titleToolTip().contains(QStringLiteral("partial")), partialStep >= 0);
    }

    void referenceProfileHasNoSteps()
    {
        Dashboard d;
        QVERIFY(d.run);
        LiveAnalysis *live = d.session.live();
        d.click(2);
        QCOMPARE(live->selectedStep(), 2);
        live->setProfile(HeuristicsProfile::Reference);
        QCOMPARE(live->selectedStep(), -1);
        QCOMPARE(d.strip()->stepCount(), 0);
        live->setSelectedStep(2);
        QCOMPARE(live->selectedStep(), -1);
        QVERIFY(!d.strip()->allStepsButton()->isEnabled());
        QVERIFY(!d.strip()->grab().isNull());
        live->setProfile(HeuristicsProfile::Workbench);
        QCOMPARE(d.strip()->stepCount(), 8);
    }
};

QTEST_MAIN(TestStepStrip)
#include "tst_stepstrip.moc"
