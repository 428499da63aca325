// The timeline panel (src/widgets/timelinepanel): stacked bars per step and device that add up
// to the step window, the strip of one step's GPU events, and the tooltips' definitions.

#include "runanalysis.h"
#include "timelinepanel.h"
#include "timelinespec.h"

#include <QtTest>

using namespace goblin;

class TestTimelinePanel : public QObject
{
    Q_OBJECT

private slots:
    void barsStripAndTooltips();
    void stepFieldCutsUnmarkedDevices();
    void emptyRun();
    void devicesNumberedOneWay_data();
    void devicesNumberedOneWay();
};

void TestTimelinePanel::barsStripAndTooltips()
{
    RunAnalysis run;
    run.runDir = run.runDirAsGiven = QStringLiteral("/nonexistent/run");
    run.torch.timeline = test::timelineFromSpec(
        "file=rank0.json:0 dev=2 P:0:1000000 P:1000000:2000000 H:0:900000 "
        "K:Cijk_gemm:0:400000 K:ncclDevKernel_AllReduce:300000:700000:1 C:800000:900000 "
        "K:Cijk_gemm:1000000:1500000 K:ncclDevKernel_AllReduce:1400000:1600000:1 dev=3 K:Cijk_gemm:0:100000");
    analyzeRun(run);

    TimelinePanel panel;
    panel.resize(900, 600);
    panel.setRun(&run);
    QCOMPARE(panel.deviceCount(), 2);
    QCOMPARE(panel.barCount(), 4);
    // Device 2, step 0: compute 400 µs, exposed comm 300 µs, memcpy 100 µs, idle 200 µs of which
    // the host is busy for none (host ends at 900 µs, idle is 700-800 and 900-1000 µs: 100 µs host busy).
    QCOMPARE(panel.barValue(0, TimelinePanel::Compute), 400e-6);
    QCOMPARE(panel.barValue(0, TimelinePanel::ExposedComm), 300e-6);
    QCOMPARE(panel.barValue(0, TimelinePanel::OtherBusy), 100e-6);
    QCOMPARE(panel.barValue(0, TimelinePanel::IdleHostBusy), 100e-6);
    QCOMPARE(panel.barValue(0, TimelinePanel::IdleNothing), 100e-6);
    for (int bar = 0; bar < panel.barCount(); ++bar) {
        double sum = 0.0;
        for (int p = 0; p < TimelinePanel::PartCount; ++p)
            sum += panel.barValue(bar, p);
        QVERIFY(std::fabs(sum - 1e-3) < 1e-12);  // every step window is 1 ms
    }
    // The strip starts on the first bar: device 2, step 0 has 3 events (2 kernels, 1 memcpy).
    QCOMPARE(panel.stripDevice(), 0);
    QCOMPARE(panel.stripEventCount(), 3);
    panel.showStrip(0, 1);
    QCOMPARE(panel.stripEventCount(), 2);

    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.replot();
    QCPAxisRect *bars = panel.barsRect();
    const QPointF onCompute(bars->axis(QCPAxis::atBottom)->coordToPixel(0.0),
                            bars->axis(QCPAxis::atLeft)->coordToPixel(0.2));  // 0.2 ms: inside compute
    const QString tip = panel.toolTipAt(onCompute);
    QVERIFY2(tip.contains(QLatin1String("non-collective kernels")), qPrintable(tip));
    QVERIFY2(tip.contains(QLatin1String("step 0")), qPrintable(tip));
    // Devices are named one way (issue 23): the GPU index, as the Telemetry tab numbers GPUs (the
    // n-th device of the trace), beside the trace's own number.
    QVERIFY2(tip.contains(QLatin1String("GPU 0 (trace device 2)")), qPrintable(tip));
    QCPAxisRect *strip = panel.stripRect();
    const QPointF onKernel(strip->axis(QCPAxis::atBottom)->coordToPixel(0.2),  // 1.2 ms: the GEMM of step 1
                           strip->axis(QCPAxis::atLeft)->coordToPixel(0.0));
    QVERIFY2(panel.toolTipAt(onKernel).contains(QLatin1String("Cijk_gemm")), qPrintable(panel.toolTipAt(onKernel)));
    QVERIFY(!panel.grab().isNull());
}

void TestTimelinePanel::devicesNumberedOneWay_data()
{
    QTest::addColumn<QString>("spec");
    QTest::addColumn<QStringList>("labels");  // in panel order
    QTest::newRow("ROCm Kineto numbering from 2") << "file=t.json:0 dev=2 K:a:0:10 dev=3 K:a:0:10"
                                                  << QStringList{"GPU 0 (trace device 2)", "GPU 1 (trace device 3)"};
    QTest::newRow("numbering from 0") << "file=t.json:0 dev=0 K:a:0:10 dev=1 K:a:0:10"
                                      << QStringList{"GPU 0 (trace device 0)", "GPU 1 (trace device 1)"};
    QTest::newRow("a gap in the numbers") << "file=t.json:0 dev=1 K:a:0:10 dev=5 K:a:0:10"
                                          << QStringList{"GPU 0 (trace device 1)", "GPU 1 (trace device 5)"};
}

void TestTimelinePanel::devicesNumberedOneWay()
{
    QFETCH(QString, spec);
    QFETCH(QStringList, labels);
    RunAnalysis run;
    run.runDir = run.runDirAsGiven = QStringLiteral("/nonexistent/run");
    run.torch.timeline = test::timelineFromSpec(spec.toLatin1().constData());
    analyzeRun(run);
    TimelinePanel panel;
    panel.setRun(&run);
    QCOMPARE(panel.deviceCount(), int(labels.size()));
    for (int i = 0; i < panel.deviceCount(); ++i) {
        QCOMPARE(panel.deviceLabel(i), labels.at(i));
        QVERIFY(panel.deviceLabel(i, true).startsWith(labels.at(i).section(QLatin1Char(' '), 0, 1)));
    }
    QCOMPARE(TimelinePanel::gpuIndexOf(run.torch.timeline.files.front(), 99), -1);
}

void TestTimelinePanel::stepFieldCutsUnmarkedDevices()
{
    // A trace without step marks: its kernel span [0, 4 ms) is one step, or N equal ones when the
    // window's step field says N, with the values --steps N gives in the report.
    RunAnalysis run;
    run.runDir = run.runDirAsGiven = QStringLiteral("/nonexistent/run");
    run.torch.timeline = test::timelineFromSpec("K:Cijk_gemm:0:1000000 K:Cijk_gemm:2000000:2500000 K:k:3500000:4000000");
    analyzeRun(run);
    TimelinePanel panel;
    panel.resize(900, 600);
    panel.setRun(&run);
    QCOMPARE(panel.barCount(), 1);
    panel.setEqualSteps(4);
    QCOMPARE(panel.barCount(), 4);
    const double computeS[] = {1e-3, 0.0, 0.5e-3, 0.5e-3};
    for (int bar = 0; bar < 4; ++bar) {
        QCOMPARE(panel.barValue(bar, TimelinePanel::Compute), computeS[bar]);
        QCOMPARE(panel.barValue(bar, TimelinePanel::Compute) + panel.barValue(bar, TimelinePanel::IdleNothing), 1e-3);
    }
    panel.showStrip(0, 2);
    QCOMPARE(panel.stripEventCount(), 1);
    panel.setEqualSteps(std::nullopt);
    QCOMPARE(panel.barCount(), 1);
    QCOMPARE(panel.barValue(0, TimelinePanel::Compute), 2e-3);

    // The legend has a row of its own: it never covers the bars.
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.replot();
    QVERIFY(!panel.legend->outerRect().intersects(panel.barsRect()->rect()));
}

void TestTimelinePanel::emptyRun()
{
    RunAnalysis run;
    analyzeRun(run);
    TimelinePanel panel;
    panel.setRun(&run);
    QCOMPARE(panel.barCount(), 0);
    QCOMPARE(panel.stripEventCount(), 0);
    panel.setRun(nullptr);
    QVERIFY(panel.toolTipAt(QPointF(10, 10)).isEmpty());
}

QTEST_MAIN(TestTimelinePanel)
#include "tst_timelinepanel.moc"
