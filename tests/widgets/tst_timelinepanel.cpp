// The timeline panel (src/widgets/timelinepanel): stacked bars per step and device that add up
// to the step window, the strip of one step's GPU events, and the tooltips' definitions.

#include "heuristics.h"
#include "plotstyle.h"
#include "runanalysis.h"
#include "timelinepanel.h"
#include "timelinespec.h"

#include <QFontMetricsF>
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
    void labelsNeverOverprint_data();
    void labelsNeverOverprint();
    void sourcesOnTheirOwnScale();
    void devicesAndStreamsSorted();
    void coloursAreNotTheBuckets();
    void selectionIsVisible();
};

namespace {

/// `ranks` files (rank r, device 2), each with `steps` ProfilerSteps of 1 ms and a GEMM in each.
QString ranksSpec(int ranks, int steps)
{
    QString spec;
    for (int r = 0; r < ranks; ++r) {
        spec += QStringLiteral("file=rank%1.json:%1 dev=2 ").arg(r);
        for (int s = 0; s < steps; ++s)
            spec += QStringLiteral("P:%1:%2 K:Cijk_gemm:%1:%3 ").arg(s * 1000000).arg((s + 1) * 1000000).arg(s * 1000000 + 600000);
    }
    return spec;
}

/// Pixel extents of labels along `axis`, centred on their keys, in key order.
std::vector<std::pair<double, double>> extents(QCPAxis *axis, const QVector<QPair<double, QString>> &labels)
{
    const QFontMetricsF fm(axis->tickLabelFont());
    std::vector<std::pair<double, double>> out;
    for (const auto &[key, text] : labels) {
        const double centre = axis->coordToPixel(key), half = fm.horizontalAdvance(text) / 2.0;
        out.push_back({centre - half, centre + half});
    }
    std::sort(out.begin(), out.end());
    return out;
}

/// Redmean distance of two colours (0 … ~765): a cheap stand-in for perceived difference.
double colourDistance(const QColor &a, const QColor &b)
{
    const double rm = (a.red() + b.red()) / 2.0;
    const double dr = a.red() - b.red(), dg = a.green() - b.green(), db = a.blue() - b.blue();
    return std::sqrt((2 + rm / 256) * dr * dr + 4 * dg * dg + (2 + (255 - rm) / 256) * db * db);
}

} // namespace

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
    panel.setTimelineCut(cutTimelines(run, 4));
    QCOMPARE(panel.barCount(), 4);
    const double computeS[] = {1e-3, 0.0, 0.5e-3, 0.5e-3};
    for (int bar = 0; bar < 4; ++bar) {
        QCOMPARE(panel.barValue(bar, TimelinePanel::Compute), computeS[bar]);
        QCOMPARE(panel.barValue(bar, TimelinePanel::Compute) + panel.barValue(bar, TimelinePanel::IdleNothing), 1e-3);
    }
    panel.showStrip(0, 2);
    QCOMPARE(panel.stripEventCount(), 1);
    panel.setTimelineCut(nullptr);
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

void TestTimelinePanel::labelsNeverOverprint_data()
{
    QTest::addColumn<int>("ranks");
    QTest::addColumn<int>("steps");
    QTest::addColumn<int>("width");
    QTest::newRow("8 ranks x 8 steps at 1366 px") << 8 << 8 << 1366;
    QTest::newRow("8 ranks x 8 steps at 700 px") << 8 << 8 << 700;
    QTest::newRow("8 ranks x 30 steps at 1366 px") << 8 << 30 << 1366;
    QTest::newRow("2 ranks x 3 steps at 1920 px") << 2 << 3 << 1920;
}

void TestTimelinePanel::labelsNeverOverprint()
{
    QFETCH(int, ranks);
    QFETCH(int, steps);
    QFETCH(int, width);
    RunAnalysis run;
    run.runDir = run.runDirAsGiven = QStringLiteral("/nonexistent/run");
    run.torch.timeline = test::timelineFromSpec(ranksSpec(ranks, steps));
    analyzeRun(run);
    TimelinePanel panel;
    panel.resize(width, 560);
    panel.setRun(&run);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.replot();
    QCoreApplication::processEvents();  // the relabel's queued replot
    panel.replot();
    QCOMPARE(panel.barCount(), ranks * steps);
    QCOMPARE(panel.groupCount(), 1);
    QCPAxisRect *rect = panel.groupRect(0);
    const auto stepLabels = panel.stepLabels(0);
    const auto deviceLabels = panel.deviceLabels(0);
    QVERIFY(!stepLabels.isEmpty());
    QVERIFY(!deviceLabels.isEmpty());
    for (const auto *labels : {&stepLabels, &deviceLabels}) {
        QCPAxis *axis = rect->axis(labels == &stepLabels ? QCPAxis::atBottom : QCPAxis::atTop);
        const auto spans = extents(axis, *labels);
        for (std::size_t i = 1; i < spans.size(); ++i)
            QVERIFY2(spans[i].first >= spans[i - 1].second,
                     qPrintable(QStringLiteral("label %1 overprints its neighbour at %2 px wide").arg(i).arg(width)));
        for (const auto &[left, right] : spans)  // inside the rect (with the slack of half a gap)
            QVERIFY(left >= rect->left() - 8 && right <= rect->right() + 8);
    }
    // Device labels name rank and device ("r3 · GPU 0 (d2)" or "r3 · d2", elided at worst), and
    // every rank is named where there is room for it.
    for (const auto &[key, text] : deviceLabels)
        QVERIFY2(text.startsWith(QLatin1Char('r')) && (text.contains(QStringLiteral(" · ")) || text.endsWith(QChar(0x2026))),
                 qPrintable(text));
    if (width >= 1366)
        QCOMPARE(int(deviceLabels.size()), ranks);
    // With room, every step is labelled; without, the labels thin out evenly.
    if (width >= 1366 && ranks * steps <= 16)
        QCOMPARE(int(stepLabels.size()), ranks * steps);
    else
        QVERIFY(stepLabels.size() >= ranks);  // thinned, never gone
    QVERIFY(!panel.grab().isNull());
}

void TestTimelinePanel::sourcesOnTheirOwnScale()
{
    // A torch trace with 0.6 ms steps beside a kernel trace without steps spanning 4.5 ms: two
    // groups, each on its own scale, so the long span does not flatten the steps.
    RunAnalysis run;
    run.runDir = run.runDirAsGiven = QStringLiteral("/nonexistent/run");
    run.kernels.timeline = test::timelineFromSpec(QStringLiteral("file=trace.csv dev=0 K:rocm_kernel:0:1000000 "
                                                                 "K:rocm_kernel:4000000:4500000"),
                                                  QStringLiteral("trace.csv"));
    run.torch.timeline = test::timelineFromSpec(QStringLiteral(
        "file=rank0.json:0 dev=2 P:0:600000 K:Cijk_gemm:0:400000 P:600000:1200000 K:Cijk_gemm:600000:1000000 "
        "P:1200000:1800000 K:Cijk_gemm:1200000:1600000"));
    analyzeRun(run);
    TimelinePanel panel;
    panel.resize(1366, 600);
    panel.setRun(&run);
    QCOMPARE(panel.groupCount(), 2);
    QVERIFY2(panel.groupTitle(0).contains(QLatin1String("kernel trace")), qPrintable(panel.groupTitle(0)));
    QVERIFY2(panel.groupTitle(0).contains(QLatin1String("no steps")), qPrintable(panel.groupTitle(0)));
    QVERIFY2(panel.groupTitle(1).contains(QLatin1String("torch trace")), qPrintable(panel.groupTitle(1)));
    QCOMPARE(panel.groupOfBar(0), 0);
    double stepped = 0.0;
    for (int bar = 0; bar < panel.barCount(); ++bar) {
        if (panel.groupOfBar(bar) != 1)
            continue;
        double sum = 0.0;
        for (int p = 0; p < TimelinePanel::PartCount; ++p)
            sum += panel.barValue(bar, p);
        stepped = std::max(stepped, sum);
    }
    QVERIFY(stepped > 0.0);
    // Each scale ends just above its own tallest bar (ms).
    QVERIFY(panel.groupRect(1)->axis(QCPAxis::atLeft)->range().upper < stepped * 1e3 * 1.2);
    QVERIFY(panel.groupRect(0)->axis(QCPAxis::atLeft)->range().upper >= 4.5);
    // The strip follows a click into either group.
    panel.showStrip(panel.barDevice(0), panel.barStep(0));
    QCOMPARE(panel.stripEventCount(), 2);
}

void TestTimelinePanel::devicesAndStreamsSorted()
{
    // Files and devices as a trace may list them: rank 1 before rank 0, device 3 before 2,
    // streams 7, 0, 3 in order of first use.
    RunAnalysis run;
    run.runDir = run.runDirAsGiven = QStringLiteral("/nonexistent/run");
    run.torch.timeline = test::timelineFromSpec(QStringLiteral(
        "file=b.json:1 dev=2 K:a:0:10 "
        "file=a.json:0 dev=3 K:a:0:10 dev=2 K:a:0:100:7 K:b:100:200:0 K:c:200:300:3"));
    analyzeRun(run);
    TimelinePanel panel;
    panel.resize(1000, 500);
    panel.setRun(&run);
    QStringList order;
    for (int bar = 0; bar < panel.barCount(); ++bar)
        order << panel.deviceGroupLabel(panel.barDevice(bar), true);
    QCOMPARE(order, (QStringList{"r0 · d2", "r0 · d3", "r1 · d2"}));
    panel.showStrip(panel.barDevice(0), 0);
    QCOMPARE(panel.stripEventCount(), 3);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.replot();
    QCOMPARE(panel.laneLabels(), (QStringList{"0", "3", "7"}));
}

void TestTimelinePanel::coloursAreNotTheBuckets()
{
    // The timeline's parts (and so the strip's lanes) never wear a budget bucket's colour, in
    // either palette, and stay apart from one another.
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
    dark.setColor(QPalette::Base, QColor(0x20, 0x20, 0x20));
    for (const QPalette &pal : {exportPalette(), dark}) {
        for (int p = 0; p < TimelinePanel::PartCount; ++p) {
            const QColor c = TimelinePanel::partColor(p, pal);
            for (int b = 0; b <= WasteBudget::BucketCount; ++b)
                QVERIFY2(colourDistance(c, bucketColor(b, pal)) > 90.0,
                         qPrintable(QStringLiteral("part %1 looks like bucket %2").arg(TimelinePanel::partLabel(p)).arg(b)));
            for (int q = 0; q < p; ++q)
                QVERIFY(colourDistance(c, TimelinePanel::partColor(q, pal)) > 60.0);
        }
    }
    // The legend is the timeline's own: its five parts, once.
    TimelinePanel panel;
    QCOMPARE(panel.legend->itemCount(), int(TimelinePanel::PartCount));
    for (int p = 0; p < TimelinePanel::PartCount; ++p) {
        auto *item = qobject_cast<QCPPlottableLegendItem *>(panel.legend->item(p));
        QVERIFY(item);
        QCOMPARE(item->plottable()->name(), TimelinePanel::partLabel(p));
    }
}

void TestTimelinePanel::selectionIsVisible()
{
    RunAnalysis run;
    run.runDir = run.runDirAsGiven = QStringLiteral("/nonexistent/run");
    run.torch.timeline = test::timelineFromSpec(ranksSpec(2, 3));
    analyzeRun(run);
    TimelinePanel panel;
    panel.resize(1200, 560);
    panel.setRun(&run);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.replot();
    QCOMPARE(panel.selectedBar(), 0);  // the first bar's events are shown at first
    QVERIFY2(panel.stripTitle().startsWith(QLatin1String("s0")) && panel.stripTitle().contains(QLatin1String("r0")),
             qPrintable(panel.stripTitle()));
    // A click on rank 1's third bar shows it and moves the outline there.
    int target = -1;
    for (int bar = 0; bar < panel.barCount(); ++bar)
        if (panel.deviceGroupLabel(panel.barDevice(bar), true) == QStringLiteral("r1 · d2") && panel.barStep(bar) == 2)
            target = bar;
    QVERIFY(target >= 0);
    QCPAxisRect *rect = panel.groupRect(panel.groupOfBar(target));
    double key = 0.0;
    for (int bar = 0, k = 0; bar <= target; ++bar, ++k)
        key = k + (panel.barDevice(bar) != panel.barDevice(0) ? 1.0 : 0.0);  // one gap between the two devices
    const QPoint onBar(int(rect->axis(QCPAxis::atBottom)->coordToPixel(key)), int(rect->axis(QCPAxis::atLeft)->coordToPixel(0.1)));
    QTest::mouseClick(&panel, Qt::LeftButton, {}, onBar);
    QCOMPARE(panel.selectedBar(), target);
    QCOMPARE(panel.stripStep(), 2);
    QVERIFY2(panel.stripTitle().startsWith(QLatin1String("s2")) && panel.stripTitle().contains(QLatin1String("r1")),
             qPrintable(panel.stripTitle()));
    // The outline is drawn: an item rect around that bar, in the text colour.
    QCPItemRect *outline = nullptr;
    for (int i = 0; i < panel.itemCount(); ++i)
        if (auto *r = qobject_cast<QCPItemRect *>(panel.item(i)))
            outline = r;
    QVERIFY(outline);
    QCOMPARE(outline->clipAxisRect(), rect);
    QVERIFY(outline->topLeft->coords().x() < key && outline->bottomRight->coords().x() > key);
}

QTEST_MAIN(TestTimelinePanel)
#include "tst_timelinepanel.moc"
