// The waste-budget formulas and their thresholds (pure arithmetic, no files).

#include "budgetformula.h"
#include "heuristics.h"
#include "report.h"
#include "metrics.h"
#include "runanalysis.h"
#include "testsupport.h"
#include "windowfixture.h"

#include <QJsonArray>
#include <QJsonDocument>
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

    void unmeasuredUtilisation()
    {
        // Nothing measured the GPU: the workbench books the leftover as not measured, the
        // reference profile keeps the reference's "useful GPU".
        BudgetInputs in;
        in.stepTimeS = 0.047;
        in.gpuUtilPct = 0.0;
        in.hostBusyFraction = 0.3;
        in.commExcessS = 0.002;
        in.hbmPeakGb = 40.0;
        const Thresholds t;
        const WasteBudget measured = computeWasteBudget(in, t, HeuristicsProfile::Workbench);
        QVERIFY(measured.usefulGpu > 0.0);
        QCOMPARE(measured.unattributed, 0.0);
        QVERIFY(!measured.hasUnattributed());
        in.gpuUtilKnown = false;
        const WasteBudget workbench = computeWasteBudget(in, t, HeuristicsProfile::Workbench);
        QCOMPARE(workbench.usefulGpu, 0.0);
        QVERIFY(workbench.hasUnattributed());
        QCOMPARE(workbench.terms.gates[0], BucketGate::UtilNotMeasured);
        // The formulas that need utilisation have no input: 0 and unknown, their time unattributed.
        // Collective time and HBM headroom do not depend on it and stay.
        for (int i : {0, 1, 2, 5, 6}) {
            QCOMPARE(workbench.bucket(i), 0.0);
            QCOMPARE(workbench.state(i), ValueState::Unknown);
        }
        for (int i : {3, 4}) {
            QCOMPARE(workbench.bucket(i), measured.bucket(i));
            QCOMPARE(workbench.state(i), ValueState::Estimated);
        }
        QCOMPARE(workbench.unattributed, in.stepTimeS - workbench.commExcess - workbench.memoryHeadroom);
        QCOMPARE(computeWasteBudget(in, t), workbench);  // the two-argument form is the workbench's
        QVERIFY(bucketFormula(0, workbench, HeuristicsProfile::Workbench).startsWith(QStringLiteral("0: no GPU utilisation")));
        QVERIFY(bucketFormula(kUnattributedRow, workbench, HeuristicsProfile::Workbench)
                    .startsWith(QStringLiteral("not measured: no GPU utilisation in this run")));
        QVERIFY2(budgetVerdict(workbench, in.stepTimeS).contains(QStringLiteral("Unattributed: 43.3 ms")),
                 qPrintable(budgetVerdict(workbench, in.stepTimeS)));
        QVERIFY(budgetVerdict(workbench, in.stepTimeS).contains(QStringLiteral("Unknown: data wait, host gap")));

        const WasteBudget reference = computeWasteBudget(in, t, HeuristicsProfile::Reference);
        for (int i = 0; i < WasteBudget::BucketCount; ++i)
            QCOMPARE(reference.bucket(i), measured.bucket(i));  // bit for bit, flag ignored
        QCOMPARE(reference.unattributed, 0.0);
        QVERIFY(!reference.hasUnattributed());
        QVERIFY(bucketFormula(kUnattributedRow, reference, HeuristicsProfile::Reference).startsWith(QStringLiteral("0: ")));
    }

    void unmeasuredUtilisationInTheReport()
    {
        auto run = test::makeFakeRun();
        run->workbench.budgetInputs.gpuUtilKnown = false;
        for (ProfileAnalysis *a : {&run->workbench, &run->reference})
            a->pytorchVersion = a->rocmVersion = QStringLiteral("unknown");  // the fake run leaves them null
        const QJsonObject schema =
            QJsonDocument::fromJson(test::readAll(QStringLiteral(GOBLIN_SOURCE_DIR "/resources/report.schema.json")))
                .object();
        const QJsonObject workbench = buildReport(*run, HeuristicsProfile::Workbench, Thresholds{});
        QVERIFY2(test::validateJsonSchema(workbench, schema).isEmpty(),
                 qPrintable(test::validateJsonSchema(workbench, schema).join(QLatin1Char('\n'))));
        const QJsonObject budget = workbench.value("metrics").toObject().value("waste_budget").toObject();
        const WasteBudget expected = computeWasteBudget(run->workbench.budgetInputs, Thresholds{});
        QVERIFY(expected.unattributed > 0.0);
        QCOMPARE(budget.value("useful_gpu").toDouble(-1.0), 0.0);
        QCOMPARE(budget.value("unattributed_s").toDouble(-1.0), expected.unattributed);
        QCOMPARE(budget.size(), WasteBudget::BucketCount + 1);  // the seven keys stay, one more beside them
        for (int i = 0; i < WasteBudget::BucketCount; ++i)
            QVERIFY(budget.contains(WasteBudget::bucketKey(i)));

        const BudgetInputs &in = run->workbench.budgetInputs;
        QCOMPARE(expected.unattributed, in.stepTimeS - expected.commExcess - expected.memoryHeadroom);
        const QJsonObject buckets = workbench.value("budget").toObject().value("buckets").toObject();
        QCOMPARE(buckets.value("host_gap").toObject().value("state").toString(), QString("unknown"));
        QCOMPARE(buckets.value("useful_gpu").toObject().value("state").toString(), QString("unknown"));
        QCOMPARE(buckets.value("unattributed").toObject().value("seconds_per_step").toDouble(), expected.unattributed);
        QVERIFY(workbench.value("quantities").toObject().value("gpu_util_pct").toObject().value("value").isNull());

        run->workbench.budgetInputs.gpuUtilKnown = true;
        const QJsonObject measured = buildReport(*run, HeuristicsProfile::Workbench, Thresholds{})
                                         .value("metrics").toObject().value("waste_budget").toObject();
        QCOMPARE(measured.value("unattributed_s").toDouble(-1.0), 0.0);
        QCOMPARE(measured.value("useful_gpu").toDouble(), computeWasteBudget(in, Thresholds{}).usefulGpu);

        // The reference's RunMetrics has exactly the seven keys.
        const QJsonObject reference = buildReport(*run, HeuristicsProfile::Reference, Thresholds{});
        QVERIFY(test::validateJsonSchema(reference, schema).isEmpty());
        QCOMPARE(reference.value("metrics").toObject().value("waste_budget").toObject().size(), WasteBudget::BucketCount);
    }

    void termsRecordEveryGate_data()
    {
        QTest::addColumn<int>("bucket");
        QTest::addColumn<int>("gate");
        QTest::addColumn<double>("stepS");
        QTest::addColumn<double>("hbmPeakGb");  // <= 0: none
        QTest::addColumn<QString>("precision");
        QTest::addColumn<qint64>("fp16Ns");
        QTest::addColumn<double>("gpuUtilBelowPct");
        QTest::newRow("data wait counts") << 1 << int(BucketGate::Counted) << 1.0 << 100.0 << "none" << qint64(5) << 30.0;
        QTest::newRow("data wait gated") << 1 << int(BucketGate::DataWaitNotMet) << 1.0 << 100.0 << "none" << qint64(5) << 10.0;
        QTest::newRow("headroom counts") << 4 << int(BucketGate::Counted) << 1.0 << 100.0 << "none" << qint64(5) << 30.0;
        QTest::newRow("no HBM telemetry") << 4 << int(BucketGate::NoHbmTelemetry) << 1.0 << 0.0 << "none" << qint64(5) << 30.0;
        QTest::newRow("HBM above target") << 4 << int(BucketGate::HbmNotBelowTarget) << 1.0 << 180.0 << "none" << qint64(5) << 30.0;
        QTest::newRow("precision counts") << 5 << int(BucketGate::Counted) << 1.0 << 100.0 << "fp16" << qint64(5) << 30.0;
        QTest::newRow("bf16 fast path") << 5 << int(BucketGate::PrecisionFastPath) << 1.0 << 100.0 << "bf16" << qint64(5) << 30.0;
        QTest::newRow("no tagged time") << 5 << int(BucketGate::NoPrecisionTaggedTime) << 1.0 << 100.0 << "none" << qint64(0) << 30.0;
        QTest::newRow("no step time") << 2 << int(BucketGate::NoStepTime) << 0.0 << 100.0 << "none" << qint64(5) << 30.0;
    }

    void termsRecordEveryGate()
    {
        QFETCH(int, bucket);
        QFETCH(int, gate);
        QFETCH(double, stepS);
        QFETCH(double, hbmPeakGb);
        QFETCH(QString, precision);
        QFETCH(qint64, fp16Ns);
        QFETCH(double, gpuUtilBelowPct);
        BudgetInputs in;
        in.stepTimeS = stepS;
        in.gpuUtilPct = 25.0;
        in.hostBusyFraction = 0.6;
        if (hbmPeakGb > 0.0)
            in.hbmPeakGb = hbmPeakGb;
        in.fp16Ns = fp16Ns;
        in.bf16Ns = fp16Ns;
        Thresholds t;
        t.precision = *precisionFromName(precision);
        t.gpuUtilBelowPct = gpuUtilBelowPct;
        const WasteBudget b = computeWasteBudget(in, t);
        QCOMPARE(int(b.terms.gates[std::size_t(bucket)]), gate);
        QCOMPARE(b.bucket(bucket) > 0.0, gate == int(BucketGate::Counted));
        const QString text = bucketFormula(bucket, b, HeuristicsProfile::Workbench);
        if (gate == int(BucketGate::Counted)) {
            QVERIFY2(text.contains(QLatin1Char('=')) && !text.startsWith(QStringLiteral("0: ")), qPrintable(text));
        } else {
            QVERIFY2(text.startsWith(QStringLiteral("0: ")), qPrintable(text));
        }
        // The printer reads only the terms: a budget whose gate says otherwise prints otherwise.
        WasteBudget forged = b;
        forged.terms.gates[std::size_t(bucket)] = BucketGate::NoHbmCapacity;
        QCOMPARE(bucketFormula(bucket, forged, HeuristicsProfile::Workbench), QStringLiteral("0: HBM capacity is 0"));
        if (bucket == 4 && gate == int(BucketGate::Counted)) {
            const double target = t.hbmTargetPct / 100.0;
            QCOMPARE(b.terms.hbmSlack, (target - hbmPeakGb / t.hbmCapacityGb) / target);
            QCOMPARE(b.memoryHeadroom, b.terms.hbmSlack * stepS * t.headroomWeight);
        }
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
