// The waste-budget formulas and their thresholds (pure arithmetic, no files).

#include "heuristics.h"
#include "runanalysis.h"

#include <QTest>
#include <cmath>

using namespace goblin;

class TestHeuristics : public QObject
{
    Q_OBJECT

private slots:
    void budget_data()
    {
        QTest::addColumn<double>("stepS");
        QTest::addColumn<double>("utilPct");
        QTest::addColumn<double>("hostBusy");
        QTest::addColumn<double>("gpuUtilBelowPct");
        QTest::addColumn<double>("expectedDataWait");
        QTest::addColumn<double>("expectedHostGap");

        // data_wait = step * (1 - util) * busy when util < threshold and busy > 0.5
        QTest::newRow("idle GPU, busy host: data wait") << 1.0 << 20.0 << 0.8 << 30.0 << 0.8 * 0.8 << 0.8 * 0.2;
        QTest::newRow("util above threshold: no data wait") << 1.0 << 40.0 << 0.8 << 30.0 << 0.0 << 0.6 * 0.2;
        QTest::newRow("threshold raised to 60 %: data wait again") << 1.0 << 40.0 << 0.8 << 60.0 << 0.6 * 0.8 << 0.6 * 0.2;
        QTest::newRow("host not busy: no data wait") << 2.0 << 10.0 << 0.4 << 30.0 << 0.0 << 2.0 * 0.9 * 0.6;
        QTest::newRow("no step time: everything zero") << 0.0 << 10.0 << 0.9 << 30.0 << 0.0 << 0.0;
    }

    void budget()
    {
        QFETCH(double, stepS);
        QFETCH(double, utilPct);
        QFETCH(double, hostBusy);
        QFETCH(double, gpuUtilBelowPct);
        QFETCH(double, expectedDataWait);
        QFETCH(double, expectedHostGap);
        BudgetInputs in;
        in.stepTimeS = stepS;
        in.gpuUtilPct = utilPct;
        in.hostBusyFraction = hostBusy;
        Thresholds t;
        t.gpuUtilBelowPct = gpuUtilBelowPct;
        const WasteBudget b = computeWasteBudget(in, t);
        QVERIFY(std::fabs(b.dataWait - expectedDataWait) < 1e-12);
        QVERIFY(std::fabs(b.hostGap - expectedHostGap) < 1e-12);
        const double total = b.usefulGpu + b.dataWait + b.hostGap + b.commExcess + b.memoryHeadroom + b.precisionPath +
                             b.kernelShape;
        if (stepS > 0 && b.usefulGpu > 0)
            QVERIFY(std::fabs(total - stepS) < 1e-12);  // the buckets add up to the step
    }

    void kernelShapePrecisionAndHeadroom()
    {
        BudgetInputs in;
        in.stepTimeS = 0.5;
        in.gpuUtilPct = 80.0;
        in.gemmNs = 1000;
        in.genericGemmNs = 250;
        in.fp16Ns = 300;
        in.bf16Ns = 100;
        in.hbmPeakGb = 96.0;  // 50 % of 192 GB
        in.commExcessS = 0.01;
        Thresholds t;
        WasteBudget b = computeWasteBudget(in, t);
        QCOMPARE(b.kernelShape, 0.25 * 0.5 * 0.8);
        QCOMPARE(b.precisionPath, 0.75 * 0.5 * 0.8 * 0.10);
        QCOMPARE(b.memoryHeadroom, (0.7 - 0.5) / 0.7 * 0.5 * 0.05);
        QCOMPARE(b.commExcess, 0.01);

        t.precision = Precision::Bf16;  // already on bf16: nothing to recover
        QCOMPARE(computeWasteBudget(in, t).precisionPath, 0.0);
        t.precision = Precision::Fp8;
        QCOMPARE(computeWasteBudget(in, t).precisionPath, 0.0);
        t.precision = Precision::Fp32;
        QCOMPARE(computeWasteBudget(in, t).precisionPath, 0.75 * 0.5 * 0.8 * 0.10);

        t.hbmTargetPct = 40.0;  // 50 % used is above a 40 % target: no headroom
        QCOMPARE(computeWasteBudget(in, t).memoryHeadroom, 0.0);
        t.hbmTargetPct = 70.0;
        t.hbmCapacityGb = 96.0;  // full
        QCOMPARE(computeWasteBudget(in, t).memoryHeadroom, 0.0);
        in.hbmPeakGb.reset();  // no telemetry: no headroom estimate
        QCOMPARE(computeWasteBudget(in, Thresholds()).memoryHeadroom, 0.0);
    }

    void usefulNeverNegative()
    {
        BudgetInputs in;
        in.stepTimeS = 0.01;
        in.gpuUtilPct = 10.0;
        in.commExcessS = 5.0;  // the reference's trace-wide sum can exceed a step
        QCOMPARE(computeWasteBudget(in, Thresholds()).usefulGpu, 0.0);
    }

    void stepsLabelOnly()
    {
        ProfileAnalysis a;
        a.defaultSteps = 3;
        a.budgetInputs.stepTimeS = 1.0;
        a.budgetInputs.gpuUtilPct = 50.0;
        Thresholds t;
        const RunMetrics byDefault = computeMetrics(a, t);
        QCOMPARE(byDefault.steps, 3);
        t.steps = 42;
        const RunMetrics labelled = computeMetrics(a, t);
        QCOMPARE(labelled.steps, 42);
        QCOMPARE(labelled.wasteBudget, byDefault.wasteBudget);
    }

    void namesRoundTrip()
    {
        for (auto p : {HeuristicsProfile::Workbench, HeuristicsProfile::Reference})
            QCOMPARE(*profileFromName(profileName(p)), p);
        for (auto p : {Precision::None, Precision::Fp32, Precision::Fp16, Precision::Bf16, Precision::Fp8})
            QCOMPARE(*precisionFromName(precisionName(p)), p);
        QVERIFY(!profileFromName(QStringLiteral("fast")));
        QVERIFY(!precisionFromName(QStringLiteral("int4")));
    }

    void recomputeBenchmark()
    {
        BudgetInputs in;
        in.stepTimeS = 0.2;
        in.gpuUtilPct = 25.0;
        in.hostBusyFraction = 0.6;
        in.gemmNs = 10;
        in.genericGemmNs = 1;
        in.hbmPeakGb = 100.0;
        Thresholds t;
        double sink = 0.0;
        QBENCHMARK {
            t.gpuUtilBelowPct = t.gpuUtilBelowPct == 30.0 ? 31.0 : 30.0;
            sink += computeWasteBudget(in, t).dataWait;
        }
        QVERIFY(sink >= 0.0);
    }
};

QTEST_GUILESS_MAIN(TestHeuristics)
#include "tst_heuristics.moc"
