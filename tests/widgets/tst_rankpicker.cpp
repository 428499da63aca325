// One answer to each question, in the window: a view that shows one rank's chrome trace (Operators,
// Flame graph, Modules, the trace's memory curves) has a rank picker beside its scope line, and
// every view names a device by the one naming (devicefacts.h). Runs: tests/data/runs/ranks-4traces
// (four chrome traces, a rank each), resources/example-run, tests/data/memory (a trace's [memory]
// events without telemetry).

#include "devicefacts.h"
#include "flamegraph.h"
#include "moduletreeview.h"
#include "operatorview.h"
#include "runanalysis.h"
#include "telemetryplot.h"
#include "testsupport.h"
#include "timelinepanel.h"
#include "traceranks.h"
#include "viewscope.h"
#include "workbenchsession.h"
#include "workbenchview.h"

#include <QComboBox>
#include <QLabel>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace goblin;

namespace {

struct Window {
    WorkbenchSession session;
    WorkbenchView view{&session};
    Window()
    {
        view.resize(1400, 900);
        view.show();
    }
    OperatorView *operators() const { return view.findChild<OperatorView *>(); }
    FlameGraph *flameGraph() const { return view.findChild<FlameGraph *>(); }
};

/// GPU time of every GPU event (kernels, copies, sets) of one chrome trace's timeline file: what
/// the trace's attribution counts as its GPU time, from another reading of the same file.
qint64 gpuEventNs(const GpuTimelineFile &file)
{
    qint64 ns = 0;
    for (const GpuDeviceTimeline &d : file.devices)
        for (const GpuEvent &e : d.events)
            ns += e.endNs - e.startNs;
    return ns;
}

std::shared_ptr<const RunAnalysis> load(const QString &path)
{
    const LoadResult loaded = loadRun(path);
    return loaded.run;
}

} // namespace

class TestRankPicker : public QObject
{
    Q_OBJECT

private slots:
    /// The four ranks of ranks-4traces: the picker lists them all (the primary first), shows on
    /// the one-rank views only, and each pick changes the views' content and the scope line.
    void pickerSwitchesTheOneRankViews()
    {
        const auto run = load(test::dataPath(QStringLiteral("runs/ranks-4traces")));
        QVERIFY(run);
        const std::vector<TraceRankChoice> choices = traceRankChoices(*run);
        QCOMPARE(int(choices.size()), 4);
        QCOMPARE(choices.front().file, run->torch.file.relativePath);
        QSet<int> ranks;
        for (const TraceRankChoice &c : choices) {
            QVERIFY2(c.rank, qPrintable(c.file));
            ranks << *c.rank;
            QVERIFY(c.timelineFile >= 0);
            QCOMPARE(run->torch.timeline.files[std::size_t(c.timelineFile)].file, c.file);
        }
        QCOMPARE(ranks, (QSet<int>{0, 1, 2, 3}));

        Window w;
        w.session.openRun(run);
        QComboBox *picker = w.view.rankPicker();
        QCOMPARE(picker->count(), 4);
        // The views of the whole job have no picker; the one-rank views have it.
        for (int page : {int(WorkbenchView::OverviewPage), int(WorkbenchView::KernelsPage),
                         int(WorkbenchView::TimelinePage), int(WorkbenchView::RanksPage)}) {
            w.view.showView(page);
            QVERIFY(!picker->isVisible());  // the Overview too: no trace memory curves to pick
        }
        QSet<QString> scopes, summaries;
        QSet<qint64> gpuTimes;
        for (int page : {int(WorkbenchView::OperatorsPage), int(WorkbenchView::FlameGraphPage),
                         int(WorkbenchView::ModulesPage)}) {
            w.view.showView(page);
            QVERIFY(picker->isVisible());
            for (int i = 0; i < picker->count(); ++i) {
                picker->setCurrentIndex(i);
                const TraceRankChoice &c = choices[std::size_t(i)];
                const QString scope = w.view.scopeLabel()->text();
                QCOMPARE(scope, viewScopeText(run.get(), page == WorkbenchView::OperatorsPage ? ViewScope::Operators
                                                         : page == WorkbenchView::FlameGraphPage ? ViewScope::FlameGraph
                                                                                                 : ViewScope::Modules,
                                              i));
                QVERIFY2(scope.contains(QStringLiteral("rank %1 (%2)").arg(*c.rank).arg(c.file)), qPrintable(scope));
                scopes << scope;
                // The views show that trace's attribution, whose GPU time is the file's GPU events.
                const TraceAttribution *a = traceAttributionOfRank(*run, i);
                QVERIFY(a);
                QCOMPARE(a->wholeTrace.gpuTimeNs, gpuEventNs(run->torch.timeline.files[std::size_t(c.timelineFile)]));
                // And as Python's json module counts it (dur of every kernel, gpu_memcpy and
                // gpu_memset event, µs → ns; tests/data/PROVENANCE.md, runs/ranks-4traces).
                static const qint64 kGpuNsOfRank[] = {22287617, 12247077, 19085913, 11890414};
                QCOMPARE(a->wholeTrace.gpuTimeNs, kGpuNsOfRank[*c.rank]);
                QCOMPARE(w.flameGraph()->tree(), &a->wholeTrace.launches);
                summaries << w.operators()->summaryLabel()->text();
                gpuTimes << a->wholeTrace.gpuTimeNs;
            }
        }
        QCOMPARE(summaries.size(), 4);  // each rank its own numbers
        QCOMPARE(gpuTimes.size(), 4);
        QCOMPARE(scopes.size(), 4);     // a line per rank (the three views share it)

        // Remembered per run: another run shows its own (one trace: no picker), and the first
        // comes back with the rank picked for it.
        picker->setCurrentIndex(2);
        const int first = w.session.currentRow();
        const auto single = load(QStringLiteral(GOBLIN_SOURCE_DIR "/resources/example-run"));
        QVERIFY(single);
        w.session.openRun(single);
        QCOMPARE(picker->count(), 1);
        QVERIFY(!picker->isVisible());
        QVERIFY(!w.view.scopeLabel()->text().contains(QLatin1String("rank picker")));
        w.session.setCurrentRow(first);
        QCOMPARE(picker->currentIndex(), 2);
        QCOMPARE(w.flameGraph()->tree(), &traceAttributionOfRank(*run, 2)->wholeTrace.launches);
    }

    /// The Overview's memory curves (a trace without telemetry) follow the picked rank too; one
    /// trace: the primary's, named by the one naming.
    void memoryCurvesNameTheirDevice()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString name = QStringLiteral("tracelens_h100_gaunernst_bert-small-uncased__1016001.json.gz");
        QVERIFY(QFile::copy(test::dataPath(QStringLiteral("memory/") + name), dir.filePath(name)));
        const auto run = load(dir.path());
        QVERIFY(run);
        Window w;
        w.session.openRun(run);
        TelemetryPlot *plot = w.view.telemetryPlot();
        QVERIFY(plot->traceMemoryGraphCount() > 0);
        QVERIFY(!run->torch.timeline.files.empty());
        for (int g = 0; g < plot->traceMemoryGraphCount(); ++g) {
            const QString graph = plot->traceMemoryGraph(g)->name();
            bool named = false;
            for (const DeviceMemory &d : run->torch.memory.devices)
                named = named || graph.startsWith(deviceNameInFile(run->torch.timeline.files.front(), d.deviceId, true) +
                                                  QLatin1Char(' '));
            QVERIFY2(named, qPrintable(graph));
            QVERIFY2(!graph.startsWith(QLatin1String("device ")), qPrintable(graph));
        }
    }

    /// The example run: the Kernels, Timeline, Telemetry and memory (HBM) views name GPU g the
    /// same way: "GPU g", with the file's own device id where the view shows one file's device.
    void oneDeviceNamingAcrossViews()
    {
        const auto run = load(QStringLiteral(GOBLIN_SOURCE_DIR "/resources/example-run"));
        QVERIFY(run);
        Window w;
        w.session.openRun(run);
        QVERIFY(!run->kernels.timeline.files.empty());
        const GpuTimelineFile &kernelFile = run->kernels.timeline.files.front();
        QCOMPARE(int(kernelFile.devices.size()), 2);  // trace.csv: agents 2 and 3

        w.view.showView(WorkbenchView::KernelsPage);
        const QString kernelsScope = w.view.scopeLabel()->text();
        TimelinePanel *timeline = w.view.timelinePanel();
        TelemetryPlot *plot = w.view.telemetryPlot();
        QCOMPARE(plot->gpuCount(), 2);  // amd_smi.csv: GPUs 0 and 1
        const QRegularExpression anyOtherName(QStringLiteral("^(device|agent) \\d"));
        for (const GpuDeviceTimeline &dev : kernelFile.devices) {
            const int g = gpuIndexInFile(kernelFile, dev.device);
            QVERIFY(g == 0 || g == 1);
            const QString gpu = QStringLiteral("GPU %1").arg(g);
            const QString name = deviceNameInFile(kernelFile, dev.device, true);
            QCOMPARE(name, QStringLiteral("GPU %1 (d%2)").arg(g).arg(dev.device));
            QVERIFY2(kernelsScope.contains(name), qPrintable(kernelsScope));
            bool onTimeline = false;
            for (int i = 0; i < timeline->deviceCount(); ++i)
                onTimeline = onTimeline || timeline->deviceLabel(i, true) == name;
            QVERIFY2(onTimeline, qPrintable(name));
            // Telemetry knows the place alone; both panels (utilisation, memory) name it alike.
            const QString telemetryName = plot->utilGraph(g)->name();
            QCOMPARE(telemetryName, telemetryGpuName(run->facts.devices, g, true));
            QCOMPARE(plot->hbmGraph(g)->name(), telemetryName);
            QVERIFY2(telemetryName == gpu || telemetryName.startsWith(gpu + QLatin1String(" (d")), qPrintable(telemetryName));
            QVERIFY(!anyOtherName.match(telemetryName).hasMatch());
        }
        for (int i = 0; i < timeline->deviceCount(); ++i)
            QVERIFY2(timeline->deviceLabel(i).startsWith(QLatin1String("GPU ")), qPrintable(timeline->deviceLabel(i)));
    }
};

QTEST_MAIN(TestRankPicker)
#include "tst_rankpicker.moc"
