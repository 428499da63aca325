// Charts that never show nothing (issue 26, point 2): without telemetry the utilisation panel
// draws the trace's measured busy fraction per step and device (the GPU timeline's), the memory
// panel the trace's allocator memory; a panel with nothing to draw leaves the chart and a
// one-line note says why — in the window's plot and in the PNG report.

#include "dashboardexport.h"
#include "runanalysis.h"
#include "telemetryplot.h"
#include "testsupport.h"
#include "windowfixture.h"

#include <QImage>
#include <QTest>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

using namespace goblin;

namespace {

/// The timeline the plot reads (as TelemetryPlot::addTraceBusy): torch trace, else kernel trace.
const TimelineAnalysis &budgetTimeline(const RunAnalysis &run)
{
    return !run.torchTimeline.devices.empty() ? run.torchTimeline : run.kernelTimeline;
}

/// The flat levels of a step graph (pairs of equal points, NaN gaps skipped).
QList<double> levelsOf(const QCPGraph *graph)
{
    QList<double> out;
    const auto *data = graph->data().data();
    for (int i = 0; i + 1 < data->size(); ++i) {
        const double a = data->at(i)->value, b = data->at(i + 1)->value;
        if (std::isnan(a) || std::isnan(b))
            continue;
        out << a;
        ++i;  // the step's end point
    }
    return out;
}

std::shared_ptr<RunAnalysis> loadCopy(const QString &relative)
{
    const LoadResult loaded = loadRun(test::dataPath(relative));
    if (!loaded.run)
        return {};
    return std::make_shared<RunAnalysis>(*loaded.run);
}

/// A memory device with `points` (ns offsets from `origin`, allocated and reserved bytes).
DeviceMemory constructedMemory(int deviceId, qint64 origin, std::initializer_list<std::array<qint64, 3>> points)
{
    DeviceMemory d;
    d.deviceId = deviceId;
    d.deviceType = 6;
    for (const auto &p : points) {
        d.curve.push_back({origin + p[0], p[1], p[2]});
        d.peakAllocatedBytes = std::max(d.peakAllocatedBytes, p[1]);
        d.peakReservedBytes = std::max(d.peakReservedBytes, p[2]);
        ++d.events;
    }
    return d;
}

qint64 firstStepStart(const RunAnalysis &run)
{
    qint64 origin = std::numeric_limits<qint64>::max();
    for (const DeviceTimelineAnalysis &d : run.torchTimeline.devices)
        if (d.fileIndex == 0 && !d.stepWindows.empty())
            origin = std::min(origin, d.stepWindows.front().startNs);
    return origin;
}

} // namespace

class TestTelemetryCharts : public QObject
{
    Q_OBJECT

private slots:
    void traceBusyWithoutTelemetry_data()
    {
        QTest::addColumn<QString>("trace");
        QTest::newRow("ResNet-50, three steps") << "torch/kineto_2021_resnet50_steps6to8.json.gz";
        QTest::newRow("MI300X DDP rank 0") << "torch/tracelens_mi300_resnet_act_checkpoint_ddp_rank0.json.gz";
    }
    void traceBusyWithoutTelemetry()
    {
        QFETCH(QString, trace);
        const auto run = loadCopy(trace);
        QVERIFY(run);
        QVERIFY(run->smi.samples.empty());
        TelemetryPlot plot;
        plot.resize(900, 400);
        plot.setRun(run.get());
        QCOMPARE(plot.utilSource(), TelemetryPlot::Source::Trace);
        QCOMPARE(plot.gpuCount(), 0);

        // One graph per device with steps; its levels are the timeline's busy / window per step.
        const TimelineAnalysis &timeline = budgetTimeline(*run);
        QList<QList<double>> want;
        for (const DeviceTimelineAnalysis &d : timeline.devices) {
            if (d.stepWindows.empty() || d.perStep.size() != d.stepWindows.size())
                continue;
            QList<double> levels;
            for (const TimelineStepValues &v : d.perStep)
                if (v.windowNs > 0)
                    levels << 100.0 * double(v.busyNs) / double(v.windowNs);
            want << levels;
        }
        QVERIFY(!want.isEmpty());
        QCOMPARE(plot.traceBusyGraphCount(), int(want.size()));
        for (int g = 0; g < plot.traceBusyGraphCount(); ++g) {
            QList<double> got = levelsOf(plot.traceBusyGraph(g));
            QList<double> expected = want[g];
            std::sort(got.begin(), got.end());
            std::sort(expected.begin(), expected.end());
            QCOMPARE(got, expected);
            for (double v : got)
                QVERIFY(v > 0.0 && v <= 100.0);
        }
        QVERIFY(!plot.collapsed());
        if (run->torch.memory.devices.empty()) {
            QVERIFY(!plot.hbmPanelShown());
            QCOMPARE(plot.noteText(), QStringLiteral("Memory: no telemetry and no memory events in this trace."));
        }

        // The PNG report draws this plot: no panel without a line in it.
        TelemetryPlot exported;
        const Derived derived = deriveResults(*run, HeuristicsProfile::Workbench, Thresholds{});
        prepareDashboardTelemetry(exported, *run, derived);
        QVERIFY(!exported.collapsed());
        QVERIFY(!exported.utilPanelShown() || exported.traceBusyGraphCount() + exported.gpuCount() > 0);
        QVERIFY(!exported.hbmPanelShown() || exported.traceMemoryGraphCount() + exported.gpuCount() > 0);
    }

    void traceMemoryWithoutTelemetry()
    {
        // Helper B fills RunAnalysis::torch.memory from the trace's [memory] events; constructed here.
        const auto run = loadCopy("torch/kineto_2021_resnet50_steps6to8.json.gz");
        QVERIFY(run);
        const qint64 origin = firstStepStart(*run);
        QVERIFY(origin != std::numeric_limits<qint64>::max());
        run->torch.memory.devices = {
            constructedMemory(0, origin, {{{0, 2'000'000'000, 4'000'000'000}},
                                          {{50'000'000, 6'500'000'000, 8'000'000'000}},
                                          {{100'000'000, 3'000'000'000, 8'000'000'000}}}),
            constructedMemory(1, origin, {{{10'000'000, 1'000'000'000, 2'000'000'000}}}),
        };
        TelemetryPlot plot;
        plot.resize(900, 400);
        plot.setRun(run.get());
        QCOMPARE(plot.memorySource(), TelemetryPlot::Source::Trace);
        QVERIFY(plot.noteText().isEmpty());
        QCOMPARE(plot.traceMemoryGraphCount(), 4);  // allocated and reserved per device
        const QCPGraph *allocated = plot.traceMemoryGraph(0);
        const QCPGraph *reserved = plot.traceMemoryGraph(1);
        QVERIFY(!allocated->property("reserved").toBool());
        QVERIFY(reserved->property("reserved").toBool());
        QCOMPARE(allocated->dataCount(), 3);
        QCOMPARE(allocated->data()->at(1)->key, 0.05);  // on the steps' clock, from the first step
        QCOMPARE(allocated->data()->at(1)->value, 6.5);
        QCOMPARE(reserved->data()->at(2)->value, 8.0);
        QCOMPARE(plot.traceMemoryPeakGb(), 8.0);
        QVERIFY(!plot.traceMemoryPeakShown());  // the curves say it; no level without telemetry
    }

    void telemetryKeepsTraceMemoryAsALevel()
    {
        auto run = test::makeFakeRun();
        run->torch.memory.devices = {constructedMemory(0, 0, {{{0, 50'000'000'000, 60'000'000'000}}})};
        TelemetryPlot plot;
        plot.resize(900, 400);
        plot.setRun(run.get());
        QCOMPARE(plot.utilSource(), TelemetryPlot::Source::Telemetry);
        QCOMPARE(plot.memorySource(), TelemetryPlot::Source::Telemetry);
        QCOMPARE(plot.traceBusyGraphCount(), 0);
        QCOMPARE(plot.traceMemoryGraphCount(), 0);  // no clock shared with telemetry: no curve over its time
        QCOMPARE(plot.traceMemoryPeakGb(), 60.0);
        QVERIFY(plot.traceMemoryPeakShown());
        QVERIFY(plot.noteText().isEmpty());
    }

    void nothingToDrawCollapses()
    {
        auto run = test::makeFakeRun();
        run->smi.samples.clear();
        QVERIFY(run->torchTimeline.devices.empty() && run->kernelTimeline.devices.empty());
        TelemetryPlot plot;
        plot.resize(900, 400);
        plot.setRun(run.get());
        QVERIFY(plot.collapsed());
        QVERIFY(plot.maximumHeight() <= 3 * plot.fontMetrics().height());
        QCOMPARE(plot.noteText(),
                 QStringLiteral("No telemetry, no GPU events and no memory events in this trace: nothing to chart."));
        QVERIFY(!plot.utilRect()->visible() && !plot.hbmRect()->visible());
        QVERIFY(!plot.utilLineItem()->visible() && !plot.hbmLineItem()->visible());
        QCOMPARE(plot.lineAt(QPointF(450, 100)), TelemetryPlot::Line::None);

        // The PNG prints the note in one line; the budget chart takes the height.
        QStringList painted;
        const Derived derived = deriveResults(*run, HeuristicsProfile::Workbench, Thresholds{});
        const QImage image = renderDashboardImage(*run, derived, 1.0, &painted);
        QCOMPARE(image.size(), kDashboardLogicalSize);
        QVERIFY2(painted.contains(plot.noteText()), qPrintable(painted.join('\n')));

        // A run arrives with telemetry: both panels come back at full height.
        plot.setRun(test::makeFakeRun().get());
        QVERIFY(!plot.collapsed());
        QVERIFY(plot.utilRect()->visible() && plot.hbmRect()->visible());
        QCOMPARE(plot.maximumHeight(), QWIDGETSIZE_MAX);
        QVERIFY(plot.noteText().isEmpty());
    }

    void noRunSaysSo()
    {
        TelemetryPlot plot;
        QVERIFY(plot.collapsed());
        QCOMPARE(plot.noteText(), QStringLiteral("Open a run to chart its utilisation and memory."));
        QCOMPARE(plot.maximumHeight(), QWIDGETSIZE_MAX);  // the first run's panels get their room at once
        plot.setRun(nullptr);
        QVERIFY(plot.collapsed());
    }
};

QTEST_MAIN(TestTelemetryCharts)
#include "tst_telemetrycharts.moc"
