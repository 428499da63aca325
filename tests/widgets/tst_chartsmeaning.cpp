// Charts that mean something: a series of fewer than two samples is drawn as one bar per GPU or
// device (never a dot on a 250,000 s axis), time axes start at the run's first sample, the
// panels keep enough pixels that a threshold drag moves at most 1 % per pixel (also in the
// dashboard at a 1366×768 window's size), and a drag that changes nothing on this run says so
// beside the line, with the next switch from the sweep's breakpoints.

#include "derived.h"
#include "liveanalysis.h"
#include "runanalysis.h"
#include "sweep.h"
#include "telemetryplot.h"
#include "testsupport.h"
#include "thresholdpanel.h"
#include "windowfixture.h"
#include "workbenchsession.h"
#include "workbenchview.h"

#include <QLabel>
#include <QSlider>
#include <QTest>
#include <algorithm>
#include <cmath>

using namespace goblin;

namespace {

std::shared_ptr<RunAnalysis> loadCopy(const QString &path)
{
    const LoadResult loaded = loadRun(path);
    return loaded.run ? std::make_shared<RunAnalysis>(*loaded.run) : nullptr;
}

/// The fake run with only its first telemetry row per GPU.
std::shared_ptr<RunAnalysis> oneRowPerGpu()
{
    auto run = test::makeFakeRun();
    std::vector<TelemetrySample> first;
    for (const TelemetrySample &s : run->smi.samples)
        if (s.timeS == 0.0)
            first.push_back(s);
    run->smi.samples = first;
    return run;
}

/// Percent of the threshold's range one pixel of `rect` moves: the util axis in %, the HBM axis in
/// % of the capacity.
double percentPerPixel(const TelemetryPlot &plot, TelemetryPlot::Line line, double capacityGb)
{
    const QCPAxisRect *rect = line == TelemetryPlot::Line::GpuUtil ? plot.utilRect() : plot.hbmRect();
    const QCPRange range = rect->axis(QCPAxis::atLeft)->range();
    const double span = line == TelemetryPlot::Line::GpuUtil ? range.size() : 100.0 * range.size() / capacityGb;
    return span / std::max(1, rect->height());
}

double smallestKey(const TelemetryPlot &plot)
{
    double smallest = INFINITY;
    for (int i = 0; i < plot.graphCount(); ++i)
        for (auto it = plot.graph(i)->data()->constBegin(); it != plot.graph(i)->data()->constEnd(); ++it)
            if (std::isfinite(it->value))
                smallest = std::min(smallest, it->key);
    return smallest;
}

} // namespace

class TestChartsMeaning : public QObject
{
    Q_OBJECT

private slots:
    void oneSampleIsBars_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<int>("utilBars");
        QTest::addColumn<int>("hbmBars");
        QTest::newRow("telemetry, one row per GPU") << QString() << 2 << 2;
        // A rocprofv3 kernel trace alone: the kernel span is its one step.
        QTest::newRow("kernel trace alone, one step")
            << test::dataPath(QStringLiteral("kerneltrace/real/sdk-1.0-docs_kernel_trace.csv")) << -1 << 0;
    }
    void oneSampleIsBars()
    {
        QFETCH(QString, input);
        QFETCH(int, utilBars);
        QFETCH(int, hbmBars);
        const auto run = input.isEmpty() ? oneRowPerGpu() : loadCopy(input);
        QVERIFY(run);
        TelemetryPlot plot;
        plot.resize(900, 420);
        plot.setRun(run.get());
        plot.replot();
        QVERIFY(plot.utilAsBars());
        const QList<QCPBars *> bars = plot.barsOf(TelemetryPlot::Line::GpuUtil);
        if (utilBars < 0) {
            // One bar per device with steps; each the device's busy / window of its one step.
            const TimelineAnalysis &timeline = !run->torchTimeline.devices.empty() ? run->torchTimeline : run->kernelTimeline;
            QList<double> want;
            for (const DeviceTimelineAnalysis &d : timeline.devices)
                if (d.perStep.size() == 1 && d.stepWindows.size() == 1 && d.perStep[0].windowNs > 0)
                    want << 100.0 * double(d.perStep[0].busyNs) / double(d.perStep[0].windowNs);
            QCOMPARE(bars.size(), want.size());
            for (int i = 0; i < bars.size(); ++i)
                QCOMPARE(bars[i]->data()->at(0)->value, want[i]);
        } else {
            QCOMPARE(bars.size(), utilBars);
            QCOMPARE(bars[0]->data()->at(0)->value, 10.0);  // GPU 0's first row (windowfixture.h)
            QCOMPARE(bars[1]->data()->at(0)->value, 11.0);
        }
        QCOMPARE(plot.hbmAsBars(), hbmBars > 0);
        QCOMPARE(plot.barsOf(TelemetryPlot::Line::HbmTarget).size(), hbmBars);
        if (hbmBars > 0)
            QCOMPARE(plot.barsOf(TelemetryPlot::Line::HbmTarget)[1]->data()->at(0)->value, 65.0);
        // No curve drawn and no time axis: GPUs on it, named.
        for (int i = 0; i < plot.graphCount(); ++i)
            if (plot.graph(i)->valueAxis() == plot.utilRect()->axis(QCPAxis::atLeft))
                QVERIFY(!plot.graph(i)->visible());
        const QCPRange x = plot.utilRect()->axis(QCPAxis::atBottom)->range();
        QVERIFY2(x.lower > -1.0 && x.upper < bars.size(), qPrintable(QStringLiteral("%1 … %2").arg(x.lower).arg(x.upper)));
        QVERIFY(plot.utilRect()->axis(QCPAxis::atBottom)->label().contains(QLatin1String("no time series")));
        QVERIFY(!plot.legend->visible());
        // The threshold line is still there to drag.
        QVERIFY(plot.utilLineItem()->visible());
        QCOMPARE(plot.lineAt(plot.linePosition(TelemetryPlot::Line::GpuUtil)), TelemetryPlot::Line::GpuUtil);

        // Twenty rows per GPU are a time series again.
        plot.setRun(test::makeFakeRun().get());
        QVERIFY(!plot.utilAsBars() && !plot.hbmAsBars());
        QVERIFY(plot.barsOf(TelemetryPlot::Line::GpuUtil).isEmpty());
        QVERIFY(plot.utilGraph(0)->visible());
    }

    void timeAxisStartsAtZero_data()
    {
        QTest::addColumn<double>("clockS");
        QTest::newRow("samples from 0 s") << 0.0;
        QTest::newRow("boot clock, 250000 s") << 250000.0;
        QTest::newRow("epoch clock") << 1.7e9;
    }
    void timeAxisStartsAtZero()
    {
        QFETCH(double, clockS);
        auto run = test::makeFakeRun();
        for (TelemetrySample &s : run->smi.samples)
            s.timeS += clockS;
        TelemetryPlot plot;
        plot.resize(900, 420);
        plot.setRun(run.get());
        QCOMPARE(smallestKey(plot), 0.0);
        // The fake run's rows are 0.2 s apart for 3.8 s: the axis spans that, from 0.
        QVERIFY(std::abs(plot.utilGraph(0)->data()->at(19)->key - 3.8) < 1e-6);
        const QCPRange x = plot.hbmRect()->axis(QCPAxis::atBottom)->range();
        QVERIFY2(x.lower <= 0.0 && x.lower > -0.1 && x.upper < 4.0, qPrintable(QStringLiteral("%1 … %2").arg(x.lower).arg(x.upper)));
        QVERIFY(plot.hbmRect()->axis(QCPAxis::atBottom)->label().contains(QLatin1String("first sample")));
    }

    void traceTimeStartsAtZero()
    {
        const auto run = loadCopy(test::dataPath(QStringLiteral("torch/kineto_2021_resnet50_steps6to8.json.gz")));
        QVERIFY(run);
        TelemetryPlot plot;
        plot.resize(900, 420);
        plot.setRun(run.get());
        QVERIFY(plot.traceBusyGraphCount() > 0);
        QCOMPARE(smallestKey(plot), 0.0);
    }

    void dragIsAtMostOnePercentPerPixel_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<bool>("dashboard");
        // The plot at its own least height (both panels), and the Overview as a 1366×768 window
        // holds it: the view's area beside the Thresholds dock, under the menu and toolbar.
        QTest::newRow("plot at its minimum height") << QSize(900, 0) << false;
        QTest::newRow("dashboard, 1366x768 window") << QSize(1030, 690) << true;
        QTest::newRow("dashboard, 1920x1080 window") << QSize(1580, 1000) << true;
    }
    void dragIsAtMostOnePercentPerPixel()
    {
        QFETCH(QSize, size);
        QFETCH(bool, dashboard);
        WorkbenchSession session;
        WorkbenchView view(&session);
        TelemetryPlot alone;
        TelemetryPlot *plot = dashboard ? view.telemetryPlot() : &alone;
        const auto run = test::makeFakeRun();
        if (dashboard) {
            view.resize(size);
            view.show();
            session.openRun(run);
            session.live()->flush();
            QVERIFY(QTest::qWaitForWindowExposed(&view));
        } else {
            plot->setRun(run.get());
            plot->resize(size.width(), plot->minimumHeight());
            plot->show();
        }
        QCoreApplication::processEvents();
        plot->replot();
        QVERIFY(plot->utilPanelShown() && plot->hbmPanelShown());
        const double capacity = 192.0;
        plot->setThresholds(30.0, 70.0, capacity);
        plot->replot();
        for (TelemetryPlot::Line line : {TelemetryPlot::Line::GpuUtil, TelemetryPlot::Line::HbmTarget}) {
            const double perPixel = percentPerPixel(*plot, line, capacity);
            QVERIFY2(perPixel <= 1.0, qPrintable(QStringLiteral("%1 %/px: plot %2 px high, panel %3 px, side by side %4")
                                                     .arg(perPixel)
                                                     .arg(plot->height())
                                                     .arg((line == TelemetryPlot::Line::GpuUtil ? plot->utilRect()
                                                                                                : plot->hbmRect())
                                                              ->height())
                                                     .arg(plot->panelsSideBySide())));
        }
    }

    void noEffectSaysSoAndWhereTheNextSwitchIs()
    {
        // The example: GPU util 30 % → 60 % changes nothing (its steps' utilisation is higher or
        // their host is idle); the note names the nearest breakpoint above 60 %.
        const auto run = loadCopy(QStringLiteral(GOBLIN_SOURCE_DIR "/resources/example-run"));
        QVERIFY(run);
        WorkbenchSession session;
        WorkbenchView view(&session);
        view.resize(1400, 1000);
        view.show();
        session.openRun(run);
        session.live()->flush();
        TelemetryPlot *plot = view.telemetryPlot();
        plot->replot();
        const Derived before = session.live()->derived();
        QCOMPARE(before.thresholds.gpuUtilBelowPct, 30.0);

        const std::vector<double> breaks =
            sweepBreakpoints(*run, before.profile, before.thresholds, SweepThreshold::GpuUtilBelow, &before.plan);
        const auto next = std::upper_bound(breaks.begin(), breaks.end(), 60.0);
        QVERIFY2(std::none_of(breaks.begin(), breaks.end(), [](double b) { return b >= 30.0 && b <= 60.0; }),
                 "the example has a switch between 30 % and 60 %: pick other values");

        QVERIFY(plot->beginLineDrag(plot->linePosition(TelemetryPlot::Line::GpuUtil)));
        const QPointF at60(plot->linePosition(TelemetryPlot::Line::GpuUtil).x(),
                           plot->utilRect()->axis(QCPAxis::atLeft)->coordToPixel(60.0));
        plot->dragLineTo(at60);
        session.live()->flush();
        const double now = session.live()->thresholds().gpuUtilBelowPct;
        QVERIFY2(std::abs(now - 60.0) <= 1.0, qPrintable(QString::number(now)));
        // The budget did not move: the note is true.
        const Derived after = session.live()->derived();
        for (int b = 0; b < WasteBudget::BucketCount; ++b)
            QCOMPARE(after.metrics.wasteBudget.bucket(b), before.metrics.wasteBudget.bucket(b));

        const QString note = plot->dragEffectText(TelemetryPlot::Line::GpuUtil);
        QVERIFY2(note.startsWith(QLatin1String("no effect on this run")), qPrintable(note));
        if (next != breaks.end()) {
            const QString value = QString::number(*next, 'f', 2);
            QVERIFY2(note.contains(value) && note.contains(QLatin1String("up")), qPrintable(note + " / " + value));
            // Past the switch the budget moves, and the note goes.
            const double past = *next + 0.5;
            if (past <= 100.0) {
                plot->dragLineTo(QPointF(at60.x(), plot->utilRect()->axis(QCPAxis::atLeft)->coordToPixel(past)));
                session.live()->flush();
                QVERIFY2(plot->dragEffectText(TelemetryPlot::Line::GpuUtil).isEmpty(),
                         qPrintable(plot->dragEffectText(TelemetryPlot::Line::GpuUtil)));
            }
        } else {
            QVERIFY2(note.contains(QLatin1String("next switch")) || note.contains(QLatin1String("any value")),
                     qPrintable(note));
        }
        // Shown beside the line while dragging; gone after the release.
        bool shown = false;
        for (QCPItemText *label : plot->levelLabels())
            shown = shown || label->text().contains(QLatin1String("GPU util threshold"));
        QVERIFY(shown);
        plot->endLineDrag();
        QVERIFY(plot->dragEffectText(TelemetryPlot::Line::GpuUtil).isEmpty());

        // The same drag on the panel's slider: the note leads the line under it while held.
        session.editor()->changeValue(ThresholdField::GpuUtilBelow, 30.0);
        session.editor()->endGesture();
        session.live()->flush();
        ThresholdPanel panel(&session);
        QSlider *slider = panel.slider(ThresholdField::GpuUtilBelow);
        slider->setSliderDown(true);
        slider->setValue(ThresholdPanel::sliderPosition(ThresholdField::GpuUtilBelow, 60.0));
        session.live()->flush();
        const QString crossing = panel.crossingLabel(ThresholdField::GpuUtilBelow)->text();
        QVERIFY2(crossing.startsWith(QLatin1String("No effect on this run since 30.0 %")), qPrintable(crossing));
        if (next != breaks.end())
            QVERIFY2(crossing.contains(QString::number(*next, 'f', 2)), qPrintable(crossing));
        slider->setSliderDown(false);
        QVERIFY(!panel.crossingLabel(ThresholdField::GpuUtilBelow)->text().startsWith(QLatin1String("No effect")));
    }

    void spanAroundSwitches_data()
    {
        QTest::addColumn<QList<double>>("switches");
        QTest::addColumn<double>("value");
        QTest::addColumn<bool>("gatesOnly");
        QTest::addColumn<bool>("flat");
        QTest::addColumn<double>("below");  // NaN: none
        QTest::addColumn<double>("above");
        QTest::newRow("between two gates") << QList<double>{20.0, 72.4} << 45.0 << true << true << 20.0 << 72.4;
        QTest::newRow("above the last gate") << QList<double>{20.0, 72.4} << 80.0 << true << true << 72.4 << qQNaN();
        QTest::newRow("on a switch") << QList<double>{20.0, 72.4} << 20.0 << true << false << qQNaN() << 72.4;
        QTest::newRow("no switch at all") << QList<double>{} << 50.0 << false << true << qQNaN() << qQNaN();
        QTest::newRow("HBM target under the peak") << QList<double>{73.4} << 70.0 << false << true << qQNaN() << 73.4;
        QTest::newRow("HBM target over the peak") << QList<double>{73.4} << 80.0 << false << false << 73.4 << qQNaN();
    }
    void spanAroundSwitches()
    {
        QFETCH(QList<double>, switches);
        QFETCH(double, value);
        QFETCH(bool, gatesOnly);
        QFETCH(bool, flat);
        QFETCH(double, below);
        QFETCH(double, above);
        const ThresholdSpan span = thresholdSpanAround(std::vector<double>(switches.begin(), switches.end()), value, gatesOnly);
        QCOMPARE(span.flat, flat);
        QCOMPARE(bool(span.switchBelow), !std::isnan(below));
        QCOMPARE(bool(span.switchAbove), !std::isnan(above));
        if (span.switchBelow)
            QCOMPARE(*span.switchBelow, below);
        if (span.switchAbove)
            QCOMPARE(*span.switchAbove, above);
    }
};

QTEST_MAIN(TestChartsMeaning)
#include "tst_chartsmeaning.moc"
