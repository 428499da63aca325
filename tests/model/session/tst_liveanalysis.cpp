// Live recompute and undoable threshold edits (issue 3, points 5 and 6).

#include "budgetformula.h"
#include "liveanalysis.h"
#include "thresholdeditor.h"
#include "windowfixture.h"

#include <QSignalSpy>
#include <QTest>

using namespace goblin;

class TestLiveAnalysis : public QObject
{
    Q_OBJECT
private slots:
    void recomputesOnRunAndProfile();
    void coalescesThresholdChanges();
    void dragIsOneUndoStep();
    void separateGesturesAreSeparateSteps();
    void resetIsUndoable();
    void replaceWithoutUndoClearsHistory();
    void fieldValues_data();
    void fieldValues();
    void formulaMirrorsBudget_data();
    void formulaMirrorsBudget();
};

void TestLiveAnalysis::recomputesOnRunAndProfile()
{
    LiveAnalysis live;
    QSignalSpy metrics(&live, &LiveAnalysis::metricsChanged);
    auto run = test::makeFakeRun();
    live.setRun(run);
    QCOMPARE(metrics.count(), 1);
    QCOMPARE(live.metrics().wasteBudget, computeWasteBudget(run->workbench.budgetInputs, Thresholds{}));
    live.setProfile(HeuristicsProfile::Reference);
    QCOMPARE(metrics.count(), 2);
    QCOMPARE(live.metrics().wasteBudget.commExcess, 0.5);  // the reference profile's collective sum
    live.setRun(nullptr);
    QCOMPARE(live.metrics().wasteBudget, WasteBudget{});
}

void TestLiveAnalysis::coalescesThresholdChanges()
{
    LiveAnalysis live;
    auto run = test::makeFakeRun();
    live.setRun(run);
    QSignalSpy thresholdsSpy(&live, &LiveAnalysis::thresholdsChanged);
    QSignalSpy metrics(&live, &LiveAnalysis::metricsChanged);
    const quint64 before = live.recomputeCount();
    Thresholds t;
    for (int i = 0; i < 50; ++i) {  // one mouse-move burst
        t.gpuUtilBelowPct = 10.0 + i;
        live.setThresholds(t);
    }
    QCOMPARE(thresholdsSpy.count(), 50);  // controls follow every move…
    QCOMPARE(metrics.count(), 0);         // …the budget once per frame
    QVERIFY(live.recomputePending());
    QVERIFY(metrics.wait(1000));
    QCOMPARE(metrics.count(), 1);
    QCOMPARE(live.recomputeCount(), before + 1);
    QCOMPARE(live.metrics().wasteBudget, computeWasteBudget(run->workbench.budgetInputs, t));
}

void TestLiveAnalysis::dragIsOneUndoStep()
{
    LiveAnalysis live;
    ThresholdEditor editor(&live);
    for (int i = 0; i <= 20; ++i)
        editor.changeValue(ThresholdField::GpuUtilBelow, 30.0 + i);
    editor.endGesture();
    QCOMPARE(editor.undoStack()->count(), 1);
    QCOMPARE(live.thresholds().gpuUtilBelowPct, 50.0);
    editor.undoStack()->undo();
    QCOMPARE(live.thresholds().gpuUtilBelowPct, 30.0);
    editor.undoStack()->redo();
    QCOMPARE(live.thresholds().gpuUtilBelowPct, 50.0);
}

void TestLiveAnalysis::separateGesturesAreSeparateSteps()
{
    LiveAnalysis live;
    ThresholdEditor editor(&live);
    editor.changeValue(ThresholdField::HbmTarget, 60.0);
    editor.changeValue(ThresholdField::HbmTarget, 55.0);
    editor.changeValue(ThresholdField::HostBusyAbove, 0.4);  // another field: new step
    editor.changeValue(ThresholdField::HostBusyAbove, 0.3);
    editor.endGesture();
    editor.changeValue(ThresholdField::HostBusyAbove, 0.2);  // same field after release: new step
    QCOMPARE(editor.undoStack()->count(), 3);
    editor.undoStack()->undo();
    QCOMPARE(live.thresholds().hostBusyAbove, 0.3);
    // A drag after an undo never merges into the undone step.
    editor.changeValue(ThresholdField::HostBusyAbove, 0.25);
    QCOMPARE(editor.undoStack()->count(), 3);
    editor.undoStack()->undo();
    QCOMPARE(live.thresholds().hostBusyAbove, 0.3);
    editor.undoStack()->undo();
    editor.undoStack()->undo();
    QCOMPARE(live.thresholds(), Thresholds{});
    // Values are clamped to the field's range.
    editor.changeValue(ThresholdField::GpuUtilBelow, 250.0);
    QCOMPARE(live.thresholds().gpuUtilBelowPct, 100.0);
}

void TestLiveAnalysis::resetIsUndoable()
{
    LiveAnalysis live;
    ThresholdEditor editor(&live);
    editor.changeValue(ThresholdField::PrecisionWeight, 0.5);
    editor.endGesture();
    editor.resetToDefaults();
    QCOMPARE(live.thresholds(), Thresholds{});
    QCOMPARE(editor.undoStack()->count(), 2);
    editor.undoStack()->undo();
    QCOMPARE(live.thresholds().precisionWeight, 0.5);
}

void TestLiveAnalysis::replaceWithoutUndoClearsHistory()
{
    LiveAnalysis live;
    ThresholdEditor editor(&live);
    editor.changeValue(ThresholdField::PrecisionWeight, 0.5);
    Thresholds restored;
    restored.hbmCapacityGb = 128.0;
    editor.replaceWithoutUndo(restored);
    QCOMPARE(live.thresholds(), restored);
    QCOMPARE(editor.undoStack()->count(), 0);
}

void TestLiveAnalysis::fieldValues_data()
{
    QTest::addColumn<int>("field");
    QTest::addColumn<double>("value");
    QTest::newRow("gpu util") << int(ThresholdField::GpuUtilBelow) << 42.5;
    QTest::newRow("host busy") << int(ThresholdField::HostBusyAbove) << 0.75;
    QTest::newRow("hbm target") << int(ThresholdField::HbmTarget) << 65.0;
    QTest::newRow("hbm capacity") << int(ThresholdField::HbmCapacity) << 256.0;
    QTest::newRow("precision weight") << int(ThresholdField::PrecisionWeight) << 0.2;
    QTest::newRow("headroom weight") << int(ThresholdField::HeadroomWeight) << 0.01;
    QTest::newRow("steps") << int(ThresholdField::Steps) << 25.0;
}

void TestLiveAnalysis::fieldValues()
{
    QFETCH(int, field);
    QFETCH(double, value);
    const Thresholds t = withThresholdValue(Thresholds{}, ThresholdField(field), value);
    QCOMPARE(thresholdValue(t, ThresholdField(field)), value);
    QVERIFY(t != Thresholds{});
}

void TestLiveAnalysis::formulaMirrorsBudget_data()
{
    QTest::addColumn<double>("gpuUtilBelowPct");
    QTest::addColumn<QString>("precision");
    QTest::addColumn<double>("hbmTargetPct");
    QTest::addColumn<bool>("dataWaitCounts");
    QTest::addColumn<bool>("precisionCounts");
    QTest::addColumn<bool>("headroomCounts");
    QTest::newRow("defaults") << 30.0 << "none" << 70.0 << true << true << true;
    QTest::newRow("util threshold under the run's util") << 20.0 << "none" << 70.0 << false << true << true;
    QTest::newRow("bf16 workload") << 30.0 << "bf16" << 70.0 << true << false << true;
    QTest::newRow("target under the peak") << 30.0 << "fp16" << 50.0 << true << true << false;
}

void TestLiveAnalysis::formulaMirrorsBudget()
{
    QFETCH(double, gpuUtilBelowPct);
    QFETCH(QString, precision);
    QFETCH(double, hbmTargetPct);
    QFETCH(bool, dataWaitCounts);
    QFETCH(bool, precisionCounts);
    QFETCH(bool, headroomCounts);
    const auto run = test::makeFakeRun();
    Thresholds t;
    t.gpuUtilBelowPct = gpuUtilBelowPct;
    t.precision = *precisionFromName(precision);
    t.hbmTargetPct = hbmTargetPct;
    const BudgetInputs &in = run->workbench.budgetInputs;
    const WasteBudget b = computeWasteBudget(in, t);
    QCOMPARE(b.dataWait > 0.0, dataWaitCounts);
    QCOMPARE(b.precisionPath > 0.0, precisionCounts);
    QCOMPARE(b.memoryHeadroom > 0.0, headroomCounts);
    // A bucket that is 0 says why; one that counts shows the arithmetic ending in its value.
    for (int i = 1; i < WasteBudget::BucketCount; ++i) {
        const QString text = bucketFormula(i, b, HeuristicsProfile::Workbench);
        QVERIFY2(!text.isEmpty(), qPrintable(WasteBudget::bucketKey(i)));
        if (b.bucket(i) == 0.0 && i != 3)
            QVERIFY2(text.startsWith(QStringLiteral("0: ")), qPrintable(text));
        else
            QVERIFY2(text.contains(QLatin1Char('=')), qPrintable(text));
    }
    QVERIFY(!budgetVerdict(b, in.stepTimeS).isEmpty());
}

QTEST_GUILESS_MAIN(TestLiveAnalysis)
#include "tst_liveanalysis.moc"
