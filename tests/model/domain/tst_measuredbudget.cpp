// The measured budget's formula (issue 23, measuredbudget.h; definitions: docs/budget.md) on
// literal slices, no files: the partition of the window, what each threshold may and may not
// move, the memory headroom's pool and cap, the host-unknown case, the precision carve-out, each
// bucket's state, and meanBudget()'s averaging.

#include "measuredbudget.h"
#include "timeline.h"

#include <QTest>
#include <cmath>
#include <vector>

using namespace goblin;

Q_DECLARE_METATYPE(goblin::MeasuredSlice)
Q_DECLARE_METATYPE(std::optional<double>)

namespace {

constexpr qint64 kMs = 1'000'000;

/// A consistent slice: the window is the sum of its parts, busy the GPU-busy ones.
MeasuredSlice slice(qint64 computeNs, qint64 exposedCommNs, qint64 h2dNs, qint64 otherCopyNs, qint64 idleDataNs,
                    qint64 idleHostNs, qint64 idleNothingNs, double hostBusy, bool hostKnown = true)
{
    MeasuredSlice s;
    s.computeNs = computeNs;
    s.exposedCommNs = exposedCommNs;
    s.h2dCopyOnlyNs = h2dNs;
    s.otherCopyOnlyNs = otherCopyNs;
    s.idleDataLoadingNs = idleDataNs;
    s.idleHostOtherNs = idleHostNs;
    s.idleNothingNs = idleNothingNs;
    s.busyNs = computeNs + exposedCommNs + h2dNs + otherCopyNs;
    s.windowNs = s.busyNs + idleDataNs + idleHostNs + idleNothingNs;
    s.hostBusyFraction = hostBusy;
    s.hostKnown = hostKnown;
    return s;
}

MeasuredSlice withKernelClasses(MeasuredSlice s, qint64 gemmNs, qint64 genericNs, qint64 fp16Ns, qint64 bf16Ns)
{
    s.gemmNs = gemmNs;
    s.genericGemmNs = genericNs;
    s.fp16Ns = fp16Ns;
    s.bf16Ns = bf16Ns;
    return s;
}

double sec(qint64 ns) { return double(ns) / 1e9; }

double bucketSum(const WasteBudget &b)
{
    double sum = b.unattributed;
    for (int i = 0; i < WasteBudget::BucketCount; ++i)
        sum += b.bucket(i);
    return sum;
}

/// The threshold grid the invariants must hold over.
std::vector<Thresholds> thresholdGrid()
{
    std::vector<Thresholds> grid;
    for (double util : {0.0, 10.0, 30.0, 60.0, 100.0, 150.0})
        for (double host : {-1.0, 0.0, 0.5, 0.99, 1.0})
            for (double hbmTarget : {0.0, 40.0, 70.0, 100.0})
                for (double headroomWeight : {0.0, 0.05, 1.0, 50.0})
                    for (double precisionWeight : {0.0, 0.1, 1.0, 20.0})
                        for (Precision p : {Precision::None, Precision::Fp16, Precision::Bf16, Precision::Fp8}) {
                            Thresholds t;
                            t.gpuUtilBelowPct = util;
                            t.hostBusyAbove = host;
                            t.hbmTargetPct = hbmTarget;
                            t.headroomWeight = headroomWeight;
                            t.precisionWeight = precisionWeight;
                            t.precision = p;
                            grid.push_back(t);
                        }
    return grid;
}

QString describe(const Thresholds &t)
{
    return QStringLiteral("util<%1 host>%2 hbm %3 % headroom w %4 precision %5 w %6")
        .arg(t.gpuUtilBelowPct)
        .arg(t.hostBusyAbove)
        .arg(t.hbmTargetPct)
        .arg(t.headroomWeight)
        .arg(precisionName(t.precision))
        .arg(t.precisionWeight);
}

} // namespace

class TestMeasuredBudget : public QObject
{
    Q_OBJECT

private slots:
    /// Slices for the invariants: every part of the window alone, mixes, the host unknown.
    void invariants_data()
    {
        QTest::addColumn<MeasuredSlice>("in");
        QTest::addColumn<std::optional<double>>("hbmPeakGb");
        const std::optional<double> none, half = 96.0, full = 192.0;
        const MeasuredSlice mixed = slice(40 * kMs, 5 * kMs, 2 * kMs, 1 * kMs, 20 * kMs, 7 * kMs, 25 * kMs, 0.6);
        QTest::newRow("compute only") << slice(100 * kMs, 0, 0, 0, 0, 0, 0, 0.1) << half;
        QTest::newRow("idle only, nothing on the host") << slice(0, 0, 0, 0, 0, 0, 100 * kMs, 0.0) << half;
        QTest::newRow("data-bound (ResNet-like)")
            << withKernelClasses(slice(97 * kMs, 0, 2 * kMs, 0, 58 * kMs, 10 * kMs, 7 * kMs, 0.8), 40 * kMs, 4 * kMs,
                                 0, 0)
            << half;
        QTest::newRow("mixed, HBM at half") << mixed << half;
        QTest::newRow("mixed, no HBM telemetry") << mixed << none;
        QTest::newRow("mixed, HBM full") << mixed << full;
        QTest::newRow("mixed, fp16 and untuned GEMMs")
            << withKernelClasses(mixed, 30 * kMs, 12 * kMs, 25 * kMs, 5 * kMs) << half;
        QTest::newRow("generic GEMM time beyond compute (overlaps summed)")
            << withKernelClasses(slice(10 * kMs, 0, 0, 0, 0, 0, 90 * kMs, 0.2), 30 * kMs, 30 * kMs, 30 * kMs, 0) << half;
        QTest::newRow("comm-bound") << slice(30 * kMs, 60 * kMs, 0, 0, 0, 5 * kMs, 5 * kMs, 0.3) << half;
        QTest::newRow("copies alone") << slice(10 * kMs, 0, 30 * kMs, 40 * kMs, 0, 0, 20 * kMs, 0.9) << half;
        QTest::newRow("host not traced (kernel trace)")
            << withKernelClasses(slice(40 * kMs, 5 * kMs, 2 * kMs, 1 * kMs, 0, 0, 52 * kMs, 0.0, false), 20 * kMs,
                                 5 * kMs, 10 * kMs, 0)
            << half;
        QTest::newRow("odd nanoseconds") << slice(1'234'567, 89, 7, 3, 999'999, 1, 12'345'678, 0.77) << half;
    }

    /// Buckets + unattributed = the window, all >= 0, useful <= compute, at every threshold; and
    /// useful GPU does not move with the data-wait gate or the HBM target.
    void invariants()
    {
        QFETCH(MeasuredSlice, in);
        QFETCH(std::optional<double>, hbmPeakGb);
        const double windowS = sec(in.windowNs);
        const double computeS = sec(in.computeNs);
        for (const Thresholds &t : thresholdGrid()) {
            const WasteBudget b = computeMeasuredBudget(in, hbmPeakGb, t);
            QVERIFY2(std::fabs(bucketSum(b) - windowS) <= 1e-12,
                     qPrintable(QStringLiteral("sum %1 s, window %2 s at %3").arg(bucketSum(b), 0, 'g', 17)
                                    .arg(windowS, 0, 'g', 17).arg(describe(t))));
            for (int i = 0; i < WasteBudget::BucketCount; ++i)
                QVERIFY2(b.bucket(i) >= 0.0, qPrintable(QStringLiteral("%1 = %2 s at %3")
                                                            .arg(WasteBudget::bucketKey(i)).arg(b.bucket(i)).arg(describe(t))));
            QVERIFY(b.unattributed >= 0.0);
            QVERIFY2(b.usefulGpu <= computeS + 1e-15,
                     qPrintable(QStringLiteral("useful %1 s > compute %2 s at %3").arg(b.usefulGpu).arg(computeS).arg(describe(t))));
            QVERIFY(b.terms.measured);
            QCOMPARE(b.commExcess, sec(in.exposedCommNs));

            // The judgement lines that only move idle: useful GPU is where it was with defaults
            // (precision and its weight kept, they carve compute by design).
            Thresholds base;
            base.precision = t.precision;
            base.precisionWeight = t.precisionWeight;
            const WasteBudget b0 = computeMeasuredBudget(in, hbmPeakGb, base);
            QCOMPARE(b.usefulGpu, b0.usefulGpu);
            QCOMPARE(b.kernelShape, b0.kernelShape);
            QCOMPARE(b.precisionPath, b0.precisionPath);
        }
    }

    /// The gate: idle during other host work is data wait exactly when the slice's utilisation is
    /// below the GPU-util threshold and its host busier than the host-busy threshold (both strict),
    /// and host gap otherwise; nothing else moves.
    void dataWaitGate_data()
    {
        QTest::addColumn<double>("hostBusy");
        QTest::addColumn<double>("utilBelowPct");
        QTest::addColumn<double>("hostAbove");
        QTest::addColumn<bool>("met");
        // The slice's utilisation is 25 % (busy 25 ms of 100 ms).
        QTest::newRow("util 25 < 30, host 0.8 > 0.5: met") << 0.8 << 30.0 << 0.5 << true;
        QTest::newRow("util 25 = 25: not met (strict)") << 0.8 << 25.0 << 0.5 << false;
        QTest::newRow("util 25 > 20: not met") << 0.8 << 20.0 << 0.5 << false;
        QTest::newRow("host 0.5 = 0.5: not met (strict)") << 0.5 << 30.0 << 0.5 << false;
        QTest::newRow("host 0.4 < 0.5: not met") << 0.4 << 30.0 << 0.5 << false;
        QTest::newRow("host 0.4 > 0.3, util line at 100: met") << 0.4 << 100.0 << 0.3 << true;
        QTest::newRow("util line at 0: never") << 1.0 << 0.0 << 0.0 << false;
    }

    void dataWaitGate()
    {
        QFETCH(double, hostBusy);
        QFETCH(double, utilBelowPct);
        QFETCH(double, hostAbove);
        QFETCH(bool, met);
        const MeasuredSlice in = slice(20 * kMs, 0, 4 * kMs, 1 * kMs, 30 * kMs, 17 * kMs, 28 * kMs, hostBusy);
        QCOMPARE(in.utilPct(), 25.0);
        Thresholds t;
        t.gpuUtilBelowPct = utilBelowPct;
        t.hostBusyAbove = hostAbove;
        const WasteBudget b = computeMeasuredBudget(in, std::nullopt, t);
        QCOMPARE(b.terms.dataWaitGateMet, met);
        const double idleHost = sec(17 * kMs);
        QCOMPARE(b.dataWait, sec(30 * kMs) + sec(4 * kMs) + (met ? idleHost : 0.0));
        QCOMPARE(b.hostGap, sec(28 * kMs) + (met ? 0.0 : idleHost));
        QCOMPARE(b.unattributed, sec(1 * kMs));
        QCOMPARE(b.usefulGpu, sec(20 * kMs));
        QCOMPARE(b.terms.gates[1], met ? BucketGate::Counted : BucketGate::DataWaitNotMet);
        // Met and with host idle to move: the data wait is partly a judgement, so estimated.
        QCOMPARE(b.states[1], met ? ValueState::Estimated : ValueState::Measured);
        QCOMPARE(b.states[2], ValueState::Measured);

        // The other side of the gate moves exactly idleHostOther between the two buckets.
        Thresholds other = t;
        other.gpuUtilBelowPct = met ? 0.0 : 100.0;
        other.hostBusyAbove = met ? 1.0 : -1.0;
        const WasteBudget o = computeMeasuredBudget(in, std::nullopt, other);
        QCOMPARE(o.terms.dataWaitGateMet, !met);
        QCOMPARE(std::fabs(o.dataWait - b.dataWait), idleHost);
        QCOMPARE(std::fabs(o.hostGap - b.hostGap), idleHost);
        QCOMPARE(o.dataWait + o.hostGap, b.dataWait + b.hostGap);
        QCOMPARE(o.usefulGpu, b.usefulGpu);
        QCOMPARE(o.unattributed, b.unattributed);
    }

    /// A gate met with no idle during other host work changes nothing and keeps data wait measured.
    void dataWaitGateWithoutHostIdle()
    {
        const MeasuredSlice in = slice(20 * kMs, 0, 0, 0, 30 * kMs, 0, 50 * kMs, 0.9);
        const WasteBudget b = computeMeasuredBudget(in, std::nullopt, Thresholds());
        QVERIFY(b.terms.dataWaitGateMet);
        QCOMPARE(b.dataWait, sec(30 * kMs));
        QCOMPARE(b.states[1], ValueState::Measured);
    }

    /// Memory headroom = slack × window × weight (the seed's estimate), out of the host gap (after
    /// the gate) and capped at it; out of the unattributed idle when the host is not traced, never
    /// out of the copies.
    void memoryHeadroom_data()
    {
        QTest::addColumn<MeasuredSlice>("in");
        QTest::addColumn<double>("headroomWeight");
        QTest::addColumn<double>("expectedHeadroomS");
        QTest::addColumn<double>("expectedHostGapS");
        QTest::addColumn<double>("expectedUnattributedS");
        // 96 of 192 GB = 50 % against the 70 % target: slack 2/7.
        const double slack = (0.7 - 0.5) / 0.7;
        const MeasuredSlice known = slice(40 * kMs, 0, 0, 2 * kMs, 10 * kMs, 18 * kMs, 30 * kMs, 0.4);  // 100 ms
        QTest::newRow("wanted below the host gap") << known << 0.05 << slack * 0.1 * 0.05
                                                    << sec(48 * kMs) - slack * 0.1 * 0.05 << sec(2 * kMs);
        QTest::newRow("capped at the host gap") << known << 10.0 << sec(48 * kMs) << 0.0 << sec(2 * kMs);
        // Gate met (util 42 % < 60, host 0.8 > 0.5): the host idle went to data wait, the pool is
        // the idle with nothing on the host.
        const MeasuredSlice gated = slice(40 * kMs, 0, 0, 2 * kMs, 10 * kMs, 18 * kMs, 30 * kMs, 0.8);
        QTest::newRow("capped at the host gap left by the gate") << gated << 10.0 << sec(30 * kMs) << 0.0 << sec(2 * kMs);
        const MeasuredSlice unknownHost = slice(40 * kMs, 0, 3 * kMs, 2 * kMs, 0, 0, 55 * kMs, 0.0, false);
        QTest::newRow("host not traced: from the idle in unattributed")
            << unknownHost << 0.05 << slack * 0.1 * 0.05 << 0.0 << sec(57 * kMs) - slack * 0.1 * 0.05;
        QTest::newRow("host not traced: capped at the idle, copies stay")
            << unknownHost << 10.0 << sec(55 * kMs) << 0.0 << sec(2 * kMs);
    }

    void memoryHeadroom()
    {
        QFETCH(MeasuredSlice, in);
        QFETCH(double, headroomWeight);
        QFETCH(double, expectedHeadroomS);
        QFETCH(double, expectedHostGapS);
        QFETCH(double, expectedUnattributedS);
        Thresholds t;
        t.gpuUtilBelowPct = 60.0;
        t.headroomWeight = headroomWeight;
        const WasteBudget b = computeMeasuredBudget(in, 96.0, t);
        QVERIFY(std::fabs(b.memoryHeadroom - expectedHeadroomS) <= 1e-15);
        QVERIFY(std::fabs(b.hostGap - expectedHostGapS) <= 1e-15);
        QVERIFY(std::fabs(b.unattributed - expectedUnattributedS) <= 1e-15);
        QCOMPARE(b.terms.gates[4], BucketGate::Counted);
        QCOMPARE(b.states[4], ValueState::Estimated);
        QVERIFY(std::fabs(b.terms.headroomWantedS - (0.7 - 0.5) / 0.7 * 0.1 * headroomWeight) <= 1e-15);
        QVERIFY(std::fabs(bucketSum(b) - sec(in.windowNs)) <= 1e-15);
    }

    void memoryHeadroomGates_data()
    {
        QTest::addColumn<std::optional<double>>("hbmPeakGb");
        QTest::addColumn<double>("capacityGb");
        QTest::addColumn<int>("gate");
        QTest::addColumn<int>("state");
        QTest::newRow("no telemetry") << std::optional<double>() << 192.0 << int(BucketGate::NoHbmTelemetry)
                                      << int(ValueState::Unknown);
        QTest::newRow("peak 0 read as none") << std::optional<double>(0.0) << 192.0 << int(BucketGate::NoHbmTelemetry)
                                             << int(ValueState::Unknown);
        QTest::newRow("no capacity") << std::optional<double>(96.0) << 0.0 << int(BucketGate::NoHbmCapacity)
                                     << int(ValueState::Estimated);
        QTest::newRow("above the target") << std::optional<double>(150.0) << 192.0
                                       << int(BucketGate::HbmNotBelowTarget) << int(ValueState::Estimated);
    }

    void memoryHeadroomGates()
    {
        QFETCH(std::optional<double>, hbmPeakGb);
        QFETCH(double, capacityGb);
        QFETCH(int, gate);
        QFETCH(int, state);
        const MeasuredSlice in = slice(40 * kMs, 0, 0, 0, 10 * kMs, 20 * kMs, 30 * kMs, 0.4);
        Thresholds t;
        t.hbmCapacityGb = capacityGb;
        const WasteBudget b = computeMeasuredBudget(in, hbmPeakGb, t);
        QCOMPARE(int(b.terms.gates[4]), gate);
        QCOMPARE(int(b.states[4]), state);
        QCOMPARE(b.memoryHeadroom, 0.0);
        QCOMPARE(b.hostGap, sec(50 * kMs));
    }

    /// A trace without the host's activity: data wait is the host-to-device copies alone, host
    /// gap 0 and unknown, every idle nanosecond unattributed; the thresholds move nothing.
    void hostUnknown()
    {
        const MeasuredSlice in = slice(30 * kMs, 4 * kMs, 6 * kMs, 5 * kMs, 11 * kMs, 13 * kMs, 31 * kMs, 0.9, false);
        for (double util : {0.0, 30.0, 100.0}) {
            Thresholds t;
            t.gpuUtilBelowPct = util;
            t.hostBusyAbove = 0.0;
            const WasteBudget b = computeMeasuredBudget(in, std::nullopt, t);
            QVERIFY(!b.terms.hostKnown);
            QVERIFY(!b.terms.dataWaitGateMet);
            QCOMPARE(b.dataWait, sec(6 * kMs));
            QCOMPARE(b.hostGap, 0.0);
            QCOMPARE(b.unattributed, sec(5 * kMs) + sec(11 * kMs) + sec(13 * kMs) + sec(31 * kMs));
            QCOMPARE(b.terms.gates[1], BucketGate::HostNotTraced);
            QCOMPARE(b.terms.gates[2], BucketGate::HostNotTraced);
            QCOMPARE(b.states[1], ValueState::Unknown);
            QCOMPARE(b.states[2], ValueState::Unknown);
            QCOMPARE(b.states[WasteBudget::UnattributedIndex], ValueState::Measured);
            QCOMPARE(b.usefulGpu, sec(30 * kMs));
        }
    }

    /// fromTimeline: the host-other idle is the host-busy idle less the data-loading idle, the
    /// other copies are the copies less the host-to-device ones, and an untraced host has no busy.
    void fromTimeline()
    {
        TimelineStepValues v;
        v.windowNs = 100;
        v.busyNs = 45;
        v.computeNs = 30;
        v.exposedCommNs = 5;
        v.copyOnlyNs = 10;
        v.h2dCopyOnlyNs = 4;
        v.idleNs = 55;
        v.idleHostBusyNs = 35;
        v.idleDataLoadingNs = 20;
        v.idleNothingNs = 20;
        v.gemmNs = 9;
        v.genericGemmNs = 3;
        v.fp16Ns = 2;
        v.bf16Ns = 1;
        const MeasuredSlice s = MeasuredSlice::fromTimeline(v, true, 0.7);
        QCOMPARE(s.otherCopyOnlyNs, qint64(6));
        QCOMPARE(s.idleHostOtherNs, qint64(15));
        QCOMPARE(s.computeNs + s.exposedCommNs + s.h2dCopyOnlyNs + s.otherCopyOnlyNs + s.idleDataLoadingNs +
                     s.idleHostOtherNs + s.idleNothingNs,
                 s.windowNs);
        QCOMPARE(s.hostBusyFraction, 0.7);
        QCOMPARE(MeasuredSlice::fromTimeline(v, false, 0.7).hostBusyFraction, 0.0);
    }

    /// Precision path = fp16 time × weight, carved out of compute (after kernel shape) and capped
    /// at what is left; 0 on the fast path (bf16, fp8) and without precision-tagged time.
    void precisionPath_data()
    {
        QTest::addColumn<int>("precision");
        QTest::addColumn<double>("weight");
        QTest::addColumn<qint64>("fp16Ns");
        QTest::addColumn<qint64>("bf16Ns");
        QTest::addColumn<double>("expectedS");
        QTest::addColumn<int>("gate");
        QTest::newRow("none: fp16 × 0.1") << int(Precision::None) << 0.1 << 20 * kMs << 0ll << 0.1 * sec(20 * kMs)
                                           << int(BucketGate::Counted);
        QTest::newRow("fp16: fp16 × 0.5") << int(Precision::Fp16) << 0.5 << 20 * kMs << 10 * kMs
                                           << 0.5 * sec(20 * kMs) << int(BucketGate::Counted);
        QTest::newRow("fp32: fp16 × 0.1") << int(Precision::Fp32) << 0.1 << 20 * kMs << 0ll << 0.1 * sec(20 * kMs)
                                           << int(BucketGate::Counted);
        QTest::newRow("bf16 workload: fast path") << int(Precision::Bf16) << 0.1 << 20 * kMs << 0ll << 0.0
                                                   << int(BucketGate::PrecisionFastPath);
        QTest::newRow("fp8 workload: fast path") << int(Precision::Fp8) << 0.1 << 20 * kMs << 0ll << 0.0
                                                  << int(BucketGate::PrecisionFastPath);
        QTest::newRow("bf16 time only: counted, 0") << int(Precision::None) << 0.1 << 0ll << 10 * kMs << 0.0
                                                     << int(BucketGate::Counted);
        QTest::newRow("no tagged time") << int(Precision::Fp16) << 0.1 << 0ll << 0ll << 0.0
                                         << int(BucketGate::NoPrecisionTaggedTime);
        // compute 40 ms − kernel shape 10 ms leaves 30 ms to carve.
        QTest::newRow("weight 5: capped at compute − shape") << int(Precision::Fp16) << 5.0 << 20 * kMs << 0ll
                                                             << sec(30 * kMs) << int(BucketGate::Counted);
    }

    void precisionPath()
    {
        QFETCH(int, precision);
        QFETCH(double, weight);
        QFETCH(qint64, fp16Ns);
        QFETCH(qint64, bf16Ns);
        QFETCH(double, expectedS);
        QFETCH(int, gate);
        const MeasuredSlice in =
            withKernelClasses(slice(40 * kMs, 0, 0, 0, 0, 30 * kMs, 30 * kMs, 0.3), 25 * kMs, 10 * kMs, fp16Ns, bf16Ns);
        Thresholds t;
        t.precision = Precision(precision);
        t.precisionWeight = weight;
        const WasteBudget b = computeMeasuredBudget(in, std::nullopt, t);
        QVERIFY(std::fabs(b.precisionPath - expectedS) <= 1e-15);
        QCOMPARE(int(b.terms.gates[5]), gate);
        QCOMPARE(b.kernelShape, sec(10 * kMs));
        QVERIFY(std::fabs(b.usefulGpu + b.kernelShape + b.precisionPath - sec(40 * kMs)) <= 1e-15);
        QCOMPARE(b.states[5], ValueState::Estimated);
        QCOMPARE(b.states[6], ValueState::Estimated);
        QCOMPARE(b.states[0], ValueState::Estimated);  // a carve-out (kernel shape) is non-zero
        // Nothing but compute moves: idle and comm stay where they were.
        QCOMPARE(b.hostGap, sec(60 * kMs));
        QCOMPARE(b.dataWait, 0.0);
    }

    /// The documented state of each bucket (measuredbudget.cpp, docs/budget.md).
    void states_data()
    {
        QTest::addColumn<MeasuredSlice>("in");
        QTest::addColumn<std::optional<double>>("hbmPeakGb");
        QTest::addColumn<QString>("expected");  // useful, data, host, comm, headroom, precision, shape, unattributed
        const MeasuredSlice plain = slice(40 * kMs, 5 * kMs, 2 * kMs, 1 * kMs, 20 * kMs, 7 * kMs, 25 * kMs, 0.4);
        QTest::newRow("measured slice, HBM known") << plain << std::optional<double>(96.0) << "MMMMEEEM";
        QTest::newRow("no HBM telemetry") << plain << std::optional<double>() << "MMMMUEEM";
        QTest::newRow("untuned GEMMs: useful estimated")
            << withKernelClasses(plain, 10 * kMs, 5 * kMs, 0, 0) << std::optional<double>() << "EMMMUEEM";
        QTest::newRow("host not traced")
            << slice(40 * kMs, 5 * kMs, 2 * kMs, 1 * kMs, 0, 0, 52 * kMs, 0.0, false) << std::optional<double>(96.0)
            << "MUUMEEEM";
        // util 48 % < 60 and host 0.9 > 0.5 with 7 ms of host idle moved: data wait estimated.
        QTest::newRow("gate met with host idle")
            << slice(40 * kMs, 5 * kMs, 2 * kMs, 1 * kMs, 20 * kMs, 7 * kMs, 25 * kMs, 0.9) << std::optional<double>()
            << "MEMMUEEM";
    }

    void states()
    {
        QFETCH(MeasuredSlice, in);
        QFETCH(std::optional<double>, hbmPeakGb);
        QFETCH(QString, expected);
        Thresholds t;
        t.gpuUtilBelowPct = 60.0;
        const WasteBudget b = computeMeasuredBudget(in, hbmPeakGb, t);
        QString got;
        for (ValueState s : b.states)
            got += s == ValueState::Measured ? QLatin1Char('M') : s == ValueState::Estimated ? QLatin1Char('E') : QLatin1Char('U');
        QCOMPARE(got, expected);
    }

    /// No window: every bucket 0 and unknown, every gate NoStepTime.
    void emptyWindow()
    {
        const WasteBudget b = computeMeasuredBudget(MeasuredSlice(), 96.0, Thresholds());
        QCOMPARE(bucketSum(b), 0.0);
        for (BucketGate g : b.terms.gates)
            QCOMPARE(g, BucketGate::NoStepTime);
        for (ValueState s : b.states)
            QCOMPARE(s, ValueState::Unknown);
    }

    /// meanBudget: each bucket and term the plain mean, states the weakest, a gate kept only when
    /// all agree, the host known only when known in all.
    void meanBudgetAverages()
    {
        QVERIFY(meanBudget({}) == WasteBudget());
        const WasteBudget a = computeMeasuredBudget(slice(40 * kMs, 0, 0, 0, 20 * kMs, 10 * kMs, 30 * kMs, 0.4), 96.0,
                                                    Thresholds());
        QVERIFY(meanBudget({a}) == a);
        const WasteBudget b = computeMeasuredBudget(
            withKernelClasses(slice(60 * kMs, 10 * kMs, 0, 2 * kMs, 0, 0, 48 * kMs, 0.0, false), 10 * kMs, 4 * kMs,
                              0, 0),
            std::nullopt, Thresholds());
        const WasteBudget c =
            computeMeasuredBudget(slice(10 * kMs, 0, 0, 0, 50 * kMs, 20 * kMs, 20 * kMs, 0.9), 96.0, Thresholds());
        const WasteBudget m = meanBudget({a, b, c});
        for (int i = 0; i < WasteBudget::BucketCount; ++i)
            QVERIFY2(std::fabs(m.bucket(i) - (a.bucket(i) + b.bucket(i) + c.bucket(i)) / 3.0) <= 1e-15,
                     qPrintable(WasteBudget::bucketKey(i)));
        QVERIFY(std::fabs(m.unattributed - (a.unattributed + b.unattributed + c.unattributed) / 3.0) <= 1e-15);
        QVERIFY(std::fabs(m.terms.stepS - (0.1 + 0.12 + 0.1) / 3.0) <= 1e-15);
        QVERIFY(std::fabs(m.terms.computeS - (0.04 + 0.06 + 0.01) / 3.0) <= 1e-15);
        QCOMPARE(m.terms.genericGemmNs, qint64(std::llround(4.0 * kMs / 3.0)));
        // States: b's host is unknown, so data wait and host gap are; b has no HBM, so headroom is.
        QCOMPARE(m.states[1], ValueState::Unknown);
        QCOMPARE(m.states[2], ValueState::Unknown);
        QCOMPARE(m.states[4], ValueState::Unknown);
        QCOMPARE(m.states[0], ValueState::Estimated);  // b carved kernel shape
        QCOMPARE(m.states[3], ValueState::Measured);
        QVERIFY(!m.terms.hostKnown);
        QVERIFY(m.terms.measured);
        // c met the gate (util 10 % < 30, host 0.9 > 0.5), a did not: the mean says "some did".
        QVERIFY(c.terms.dataWaitGateMet && !a.terms.dataWaitGateMet);
        QVERIFY(m.terms.dataWaitGateMet);
        QCOMPARE(m.terms.gates[1], BucketGate::Counted);   // DataWaitNotMet, HostNotTraced, Counted
        QCOMPARE(m.terms.gates[4], BucketGate::Counted);   // Counted, NoHbmTelemetry, Counted
        QCOMPARE(m.terms.gates[3], BucketGate::Counted);
        // The mean of partitions is a partition of the mean window.
        QVERIFY(std::fabs(bucketSum(m) - m.terms.stepS) <= 1e-15);

        // A gate all share is kept.
        const WasteBudget d = computeMeasuredBudget(slice(40 * kMs, 0, 0, 0, 20 * kMs, 10 * kMs, 30 * kMs, 0.2),
                                                    std::nullopt, Thresholds());
        const WasteBudget e = computeMeasuredBudget(slice(50 * kMs, 0, 0, 0, 10 * kMs, 10 * kMs, 30 * kMs, 0.3),
                                                    std::nullopt, Thresholds());
        const WasteBudget de = meanBudget({d, e});
        QCOMPARE(de.terms.gates[1], BucketGate::DataWaitNotMet);
        QCOMPARE(de.terms.gates[4], BucketGate::NoHbmTelemetry);
        QCOMPARE(de.states[4], ValueState::Unknown);
        QCOMPARE(de.states[1], ValueState::Measured);
    }
};

QTEST_GUILESS_MAIN(TestMeasuredBudget)
#include "tst_measuredbudget.moc"
