// The measured GPU timeline (src/model/timeline): busy, compute, communication, exposed
// communication, memcpy and the idle split, whole-trace and per step, from timelines built by hand.

#include "timelineanalysis.h"
#include "timelinespec.h"

#include <QRandomGenerator>
#include <QtTest>

using namespace goblin;

namespace {

/// Reads one measured value by a short key: "devices", "problems", "dN.kernels", "dN.busy",
/// "dN.steps", "dN.sM.idleHost", … (N: device entry in order, M: step).
qint64 valueOf(const TimelineAnalysis &a, const QString &key)
{
    if (key == QLatin1String("devices"))
        return qint64(a.devices.size());
    if (key == QLatin1String("problems"))
        return qint64(a.problems.size());
    const QStringList p = key.split(QLatin1Char('.'));
    const DeviceTimelineAnalysis &d = a.devices.at(std::size_t(p[0].mid(1).toInt()));
    if (p.size() == 3) {
        const TimelineStepValues &v = d.perStep.at(std::size_t(p[1].mid(1).toInt()));
        const QString &f = p[2];
        if (f == QLatin1String("window")) return v.windowNs;
        if (f == QLatin1String("busy")) return v.busyNs;
        if (f == QLatin1String("compute")) return v.computeNs;
        if (f == QLatin1String("comm")) return v.commNs;
        if (f == QLatin1String("exposed")) return v.exposedCommNs;
        if (f == QLatin1String("memcpy")) return v.memcpyNs;
        if (f == QLatin1String("idle")) return v.idleNs;
        if (f == QLatin1String("idleHost")) return v.idleHostBusyNs;
        if (f == QLatin1String("idleNothing")) return v.idleNothingNs;
        if (f == QLatin1String("start")) return d.stepWindows.at(std::size_t(p[1].mid(1).toInt())).startNs;
        qFatal("unknown step key %s", qPrintable(key));
    }
    const QString &f = p[1];
    if (f == QLatin1String("device")) return d.device;
    if (f == QLatin1String("rank")) return d.rank.value_or(-1);
    if (f == QLatin1String("kernels")) return qint64(d.kernels);
    if (f == QLatin1String("comm_kernels")) return qint64(d.commKernels);
    if (f == QLatin1String("memcpy_count")) return qint64(d.memcpy);
    if (f == QLatin1String("memset_count")) return qint64(d.memset);
    if (f == QLatin1String("zero")) return qint64(d.zeroLengthKernels);
    if (f == QLatin1String("span")) return d.spanNs();
    if (f == QLatin1String("kernel_time")) return d.kernelTimeNs;
    if (f == QLatin1String("busy")) return d.busyNs;
    if (f == QLatin1String("compute")) return d.computeNs;
    if (f == QLatin1String("comm")) return d.commNs;
    if (f == QLatin1String("exposed")) return d.exposedCommNs;
    if (f == QLatin1String("memcpy")) return d.memcpyNs;
    if (f == QLatin1String("steps")) return qint64(d.perStep.size());
    if (f == QLatin1String("stepsKind")) return qint64(d.stepsKind);
    if (f == QLatin1String("top0calls")) return d.topKernels.empty() ? -1 : qint64(d.topKernels[0].calls);
    if (f == QLatin1String("top0ns")) return d.topKernels.empty() ? -1 : d.topKernels[0].totalNs;
    qFatal("unknown key %s", qPrintable(key));
    return 0;
}

} // namespace

class TestTimelineAnalysis : public QObject
{
    Q_OBJECT

private slots:
    void measures_data();
    void measures();
    void unsortedInputGivesTheSameResult();
    void intervalSetMatchesBruteForce();
    void recutEqualsAnalysisWithSteps();
    void equalWindowsCoverTheSpanExactly();
};

void TestTimelineAnalysis::measures_data()
{
    QTest::addColumn<QString>("spec");
    QTest::addColumn<int>("equalSteps");
    QTest::addColumn<QString>("expected");  // key=value, space separated

    const QString cpu = QString::number(int(TimelineStepsKind::CpuProfilerSteps));
    const QString gpu = QString::number(int(TimelineStepsKind::GpuAnnotations));
    const QString split = QString::number(int(TimelineStepsKind::EqualSplit));
    const QString whole = QString::number(int(TimelineStepsKind::WholeSpan));

    QTest::newRow("overlapping streams count once in busy and compute")
        << "K:Cijk_gemm:0:100:7 K:Cijk_gemm:50:150:9" << 0
        << "devices=1 d0.kernels=2 d0.kernel_time=200 d0.busy=150 d0.compute=150 d0.comm=0 d0.exposed=0 d0.span=150 "
           "d0.top0calls=2 d0.top0ns=200";
    QTest::newRow("exposed comm with partial overlap")
        << "K:Cijk_gemm:0:100:0 K:ncclDevKernel_AllReduce_Sum_bf16_RING_LL:50:200:1" << 0
        << "d0.kernels=2 d0.comm_kernels=1 d0.compute=100 d0.comm=150 d0.exposed=100 d0.busy=200";
    QTest::newRow("comm fully hidden by compute on another stream")
        << "K:ncclKernel_AllGather:20:80:1 K:Cijk_gemm:0:100:0" << 0 << "d0.comm=60 d0.exposed=0 d0.busy=100";
    QTest::newRow("comm overlapped only by a memcpy stays exposed")
        << "K:ncclDevKernel_Generic:0:100:1 C:0:100" << 0 << "d0.comm=100 d0.exposed=100 d0.memcpy=100 d0.busy=100";
    QTest::newRow("zero-length kernels count but take no time")
        << "K:a:10:10 K:b:20:30 K:a:30:30" << 0
        << "d0.kernels=3 d0.zero=2 d0.kernel_time=10 d0.busy=10 d0.span=20 d0.steps=1 d0.s0.window=20";
    QTest::newRow("memcpy and memset")
        << "C:0:50 S:40:60 K:k:100:200" << 0
        << "d0.kernels=1 d0.memcpy_count=1 d0.memset_count=1 d0.memcpy=60 d0.busy=160 d0.span=200 "
           "d0.s0.window=100 d0.s0.memcpy=0";
    QTest::newRow("idle split with host intervals")
        << "P:0:500 K:k:0:100 K:k:300:400 H:50:200 H:450:600" << 0
        << "d0.steps=1 d0.stepsKind=" + cpu
               + " d0.s0.window=500 d0.s0.busy=200 d0.s0.idle=300 d0.s0.idleHost=150 d0.s0.idleNothing=150";
    QTest::newRow("steps from ProfilerStep marks")
        << "P:0:100 P:100:250 K:Cijk_gemm:10:60 K:ncclDevKernel_x:50:120:1 K:Cijk_gemm:150:200" << 0
        << "d0.steps=2 d0.stepsKind=" + cpu
               + " d0.s0.busy=90 d0.s0.compute=50 d0.s0.comm=50 d0.s0.exposed=40 d0.s1.comm=20 d0.s1.exposed=20 "
                 "d0.s1.busy=70 d0.s1.window=150 d0.s1.idle=80 d0.s1.idleNothing=80";
    QTest::newRow("steps from GPU annotations when the CPU lane has none")
        << "G:0:100 G:200:300 K:k:0:50 K:k:210:300" << 5
        << "d0.steps=2 d0.stepsKind=" + gpu + " d0.s0.busy=50 d0.s1.busy=90 d0.s1.start=200";
    QTest::newRow("CPU marks win over GPU annotations") << "P:0:400 G:0:100 K:k:0:50" << 0
                                                        << "d0.steps=1 d0.stepsKind=" + cpu + " d0.s0.window=400";
    QTest::newRow("--steps N cuts the kernel span")
        << "K:k:0:100 K:k:300:400 C:500:600" << 2
        << "d0.steps=2 d0.stepsKind=" + split
               + " d0.s0.window=200 d0.s0.busy=100 d0.s1.busy=100 d0.s1.start=200 d0.span=600";
    QTest::newRow("no marks, no N: the kernel span is one step")
        << "K:k:100:200 K:k:300:400" << 0 << "d0.steps=1 d0.stepsKind=" + whole + " d0.s0.window=300 d0.s0.idle=100";
    QTest::newRow("several devices and files")
        << "file=rank0.json:0 dev=2 K:k:0:100 dev=3 K:k:0:40 K:ncclDevKernel_y:20:90 file=rank1.json:1 dev=2 "
           "K:k:1000:1100 K:k:1050:1300"
        << 0
        << "devices=3 d0.device=2 d0.rank=0 d1.device=3 d1.comm=70 d1.exposed=50 d1.busy=90 d2.rank=1 d2.busy=300 "
           "d2.s0.window=300 d0.s0.window=100";
    QTest::newRow("an event ending before it starts is a problem, read as zero-length")
        << "K:k:100:50 K:k:200:300" << 0 << "problems=1 d0.kernels=2 d0.zero=1 d0.busy=100";
    QTest::newRow("a device with only memcpy") << "C:0:10" << 0
                                               << "d0.kernels=0 d0.memcpy=10 d0.busy=10 d0.steps=0";
}

void TestTimelineAnalysis::measures()
{
    QFETCH(QString, spec);
    QFETCH(int, equalSteps);
    QFETCH(QString, expected);
    const TimelineAnalysis a = analyzeTimeline(test::timelineFromSpec(spec), equalSteps);
    for (const QString &pair : expected.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const QStringList kv = pair.split(QLatin1Char('='));
        QCOMPARE(kv.size(), 2);
        const qint64 got = valueOf(a, kv[0]);
        if (got != kv[1].toLongLong())
            QFAIL(qPrintable(QStringLiteral("%1: got %2, expected %3").arg(kv[0]).arg(got).arg(kv[1])));
    }
}

void TestTimelineAnalysis::unsortedInputGivesTheSameResult()
{
    GpuTimeline tl = test::timelineFromSpec(
        "P:0:1000 P:1000:2000 H:0:2000 K:Cijk_gemm:0:300:0 K:ncclDevKernel_a:200:600:1 C:650:700 K:k:900:1200 "
        "K:ncclDevKernel_a:1100:1500:1 K:k:1600:1600 S:1700:1800");
    const TimelineAnalysis sorted = analyzeTimeline(tl);
    {
        const GpuEventList &events = tl.files[0].devices[0].events;
        std::vector<GpuEvent> backwards(events.begin(), events.end());
        std::reverse(backwards.begin(), backwards.end());
        GpuEventList reversedEvents;
        for (const GpuEvent &e : backwards)
            reversedEvents.push_back(e);
        tl.files[0].devices[0].events = std::move(reversedEvents);
    }
    const TimelineAnalysis reversed = analyzeTimeline(tl);
    const DeviceTimelineAnalysis &a = sorted.devices[0], &b = reversed.devices[0];
    QCOMPARE(b.busyNs, a.busyNs);
    QCOMPARE(b.exposedCommNs, a.exposedCommNs);
    QCOMPARE(a.exposedCommNs, qint64(300 + 300));  // 300-600 and 1200-1500; 200-300 and 1100-1200 hidden
    QCOMPARE(b.perStep.size(), a.perStep.size());
    for (std::size_t i = 0; i < a.perStep.size(); ++i) {
        QCOMPARE(b.perStep[i].busyNs, a.perStep[i].busyNs);
        QCOMPARE(b.perStep[i].idleHostBusyNs, a.perStep[i].idleHostBusyNs);
        QCOMPARE(a.perStep[i].idleNothingNs, 0);  // the host is busy all the time
    }
}

void TestTimelineAnalysis::intervalSetMatchesBruteForce()
{
    QRandomGenerator rng(13);
    for (int round = 0; round < 200; ++round) {
        auto randomIntervals = [&](int n) {
            std::vector<TimeInterval> v;
            for (int i = 0; i < n; ++i) {
                const qint64 a = rng.bounded(200);
                v.push_back({a, a + rng.bounded(30)});
            }
            return v;
        };
        const std::vector<TimeInterval> ra = randomIntervals(1 + rng.bounded(12)), rb = randomIntervals(rng.bounded(12));
        std::vector<char> inA(260, 0), inB(260, 0);
        for (const auto &iv : ra)
            for (qint64 t = iv.startNs; t < iv.endNs; ++t)
                inA[std::size_t(t)] = 1;
        for (const auto &iv : rb)
            for (qint64 t = iv.startNs; t < iv.endNs; ++t)
                inB[std::size_t(t)] = 1;
        const IntervalSet a = IntervalSet::unionOf(ra), b = IntervalSet::unionOf(rb);
        const IntervalSet diff = IntervalSet::difference(a, b), both = IntervalSet::intersection(a, b);
        for (int w = 0; w < 20; ++w) {
            const qint64 lo = rng.bounded(260), hi = lo + rng.bounded(260 - int(lo) + 1);
            qint64 ea = 0, ed = 0, eb = 0;
            for (qint64 t = lo; t < hi; ++t) {
                ea += inA[std::size_t(t)];
                ed += inA[std::size_t(t)] && !inB[std::size_t(t)];
                eb += inA[std::size_t(t)] && inB[std::size_t(t)];
            }
            QCOMPARE(a.measure(lo, hi), ea);
            QCOMPARE(diff.measure(lo, hi), ed);
            QCOMPARE(both.measure(lo, hi), eb);
        }
    }
}

void TestTimelineAnalysis::recutEqualsAnalysisWithSteps()
{
    const GpuTimeline tl = test::timelineFromSpec("H:0:333 H:700:900 K:Cijk_gemm:0:250 K:ncclDevKernel_a:100:400:1 "
                                                  "C:380:420 K:k:500:777 K:ncclDevKernel_a:770:1001:1");
    const TimelineAnalysis whole = analyzeTimeline(tl, 0);
    for (int n : {1, 3, 7, 1001}) {
        const TimelineAnalysis cut = analyzeTimeline(tl, n);
        const std::vector<TimelineStepValues> recut = recutSteps(
            tl, whole.devices[0], equalWindows(whole.files[0].kernelFirstNs, whole.files[0].kernelLastNs, n));
        QCOMPARE(recut.size(), cut.devices[0].perStep.size());
        qint64 busy = 0;
        for (std::size_t i = 0; i < recut.size(); ++i) {
            QCOMPARE(recut[i].busyNs, cut.devices[0].perStep[i].busyNs);
            QCOMPARE(recut[i].exposedCommNs, cut.devices[0].perStep[i].exposedCommNs);
            QCOMPARE(recut[i].idleHostBusyNs, cut.devices[0].perStep[i].idleHostBusyNs);
            QCOMPARE(recut[i].memcpyNs, cut.devices[0].perStep[i].memcpyNs);
            busy += recut[i].busyNs;
        }
        QCOMPARE(busy, whole.devices[0].busyNs);  // the kernel span here is the whole device span
    }
    // Devices with step marks have fixed windows: nothing to cut again.
    const GpuTimeline markedTimeline = test::timelineFromSpec("P:0:10 K:k:0:5");
    const TimelineAnalysis marked = analyzeTimeline(markedTimeline);
    QVERIFY(recutSteps(markedTimeline, marked.devices[0], equalWindows(0, 10, 2)).empty());
}

void TestTimelineAnalysis::equalWindowsCoverTheSpanExactly()
{
    const std::vector<TimeInterval> w = equalWindows(5, 5 + 1000000007, 3);
    QCOMPARE(w.size(), std::size_t(3));
    QCOMPARE(w.front().startNs, qint64(5));
    QCOMPARE(w.back().endNs, qint64(5 + 1000000007));
    QCOMPARE(w[0].endNs, w[1].startNs);
    QCOMPARE(w[1].endNs, w[2].startNs);
    QVERIFY(equalWindows(0, 0, 3).empty());
    QVERIFY(equalWindows(0, 10, 0).empty());
}

QTEST_GUILESS_MAIN(TestTimelineAnalysis)
#include "tst_timelineanalysis.moc"
