// What the traits of a run's torch traces mean (issue 23 item 3; src/model/runtraits): training
// or inference, graph replay and how much of it was recorded, kernels overlapping on one stream,
// GPU events outside the profiled steps, and the report keys.
//
// GpuTimeline literals built below, and fixtures parsed as the loader parses them
// (parseTorchTraceFile, analyzeTimeline, analyzeRunTraits). The fixtures' expected counts come from
// an independent count with Python's json module:
//     cd tests/data/torch && python3 trace_traits.py --timeline FILE...

#include "runtraits.h"
#include "runtraitsjson.h"
#include "timelineanalysis.h"
#include "testsupport.h"
#include "torchtraceparser.h"

#include <QJsonDocument>
#include <QTest>

using namespace goblin;
using goblin::test::dataPath;

namespace {

GpuTimelineFile fileWith(const TracePhases &phases, const TraceGraphs &graphs = {}, const QString &api = {})
{
    GpuTimelineFile f;
    f.source = QStringLiteral("torch_profile");
    f.file = QStringLiteral("torch_profile.json");
    f.traits.phases = phases;
    f.traits.graphs = graphs;
    f.traits.identity.runtimeApi = api;
    return f;
}

TracePhases phases(qint64 cpuOps, qint64 backward = 0, qint64 optimizerOps = 0, qint64 optimizerSteps = 0,
                   qint64 dataLoader = 0)
{
    TracePhases p;
    p.cpuOps = cpuOps;
    p.backwardOps = backward;
    p.optimizerOps = optimizerOps;
    p.optimizerSteps = optimizerSteps;
    p.dataLoaderOps = dataLoader;
    return p;
}

TraceGraphs graphs(qint64 launches, const std::vector<std::uint32_t> &perLaunch, qint64 captures = 0,
                   const QString &name = QStringLiteral("hipGraphLaunch"))
{
    TraceGraphs g;
    g.launches = launches;
    g.captures = captures;
    g.launchName = launches > 0 ? name : QString();
    g.gpuEventsPerLaunch = perLaunch;
    g.launchesWithGpuEvents = qint64(perLaunch.size());
    for (const std::uint32_t n : perLaunch)
        g.gpuEventsInGraphs += n;
    return g;
}

QString diagnosticsText(const Diagnostics &diagnostics)
{
    QStringList lines;
    for (const Diagnostic &d : diagnostics)
        lines << QStringLiteral("[%1] %2: %3").arg(severityName(d.severity), d.file, d.message);
    return lines.join(QLatin1Char('\n'));
}

/// A device with kernels on streams: {stream, start ns, end ns}.
struct K {
    std::uint16_t stream;
    qint64 startNs, endNs;
    GpuEventKind kind = GpuEventKind::Kernel;
};

GpuDeviceTimeline device(qint64 number, const std::vector<K> &events, int streams = 2)
{
    GpuDeviceTimeline d;
    d.device = number;
    for (int s = 0; s < streams; ++s)
        d.streams.push_back(s);
    for (const K &k : events)
        d.events.push_back({k.startNs, k.endNs, 0, k.stream, k.kind});
    return d;
}

} // namespace

class TestRunTraits : public QObject
{
    Q_OBJECT

private slots:
    void runKind_data();
    void runKind();
    void graphReplay_data();
    void graphReplay();
    void overlappingKernelsOnOneStream_data();
    void overlappingKernelsOnOneStream();
    void gpuEventsOutsideSteps();
    void reportKeys();
    void fixtures_data();
    void fixtures();
};

void TestRunTraits::runKind_data()
{
    QTest::addColumn<GpuTimeline>("timeline");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("reason");

    QTest::newRow("no torch trace") << GpuTimeline{} << "unknown"
                                    << "no torch trace: training or inference is read from its CPU operators";
    QTest::newRow("GPU events only") << GpuTimeline{{fileWith(phases(0))}} << "unknown"
                                     << "no CPU operators in the trace (GPU events only): training or inference cannot be told";
    QTest::newRow("inference") << GpuTimeline{{fileWith(phases(4210))}} << "inference"
                               << "no backward op, no optimizer step, no DataLoader among 4,210 CPU ops";
    QTest::newRow("training") << GpuTimeline{{fileWith(phases(9000, 312, 12, 6, 6))}} << "training"
                              << "312 backward ops, 6 optimizer steps";
    QTest::newRow("training: fused optimizer without its annotation")
        << GpuTimeline{{fileWith(phases(50, 0, 2, 0))}} << "training" << "2 optimizer ops";
    QTest::newRow("training: one of two ranks captured its backward pass")
        << GpuTimeline{{fileWith(phases(10)), fileWith(phases(10, 1))}} << "training" << "1 backward op in 2 trace files";
    QTest::newRow("DataLoader, no backward, no optimizer")
        << GpuTimeline{{fileWith(phases(300, 0, 0, 0, 3))}} << "unknown"
        << "3 DataLoader ranges but no backward op and no optimizer step among 300 CPU ops: an evaluation loop, or a "
           "capture that missed the backward pass";
}

void TestRunTraits::runKind()
{
    QFETCH(GpuTimeline, timeline);
    QFETCH(QString, kind);
    QFETCH(QString, reason);
    const RunTraitsAnalysis a = analyzeRunTraits(timeline, TimelineAnalysis{});
    QCOMPARE(runKindName(a.runKind.kind), kind);
    QCOMPARE(a.runKind.reason, reason);
}

void TestRunTraits::graphReplay_data()
{
    QTest::addColumn<GpuTimeline>("timeline");
    QTest::addColumn<double>("fraction");  // -1: null
    QTest::addColumn<bool>("unmeasured");
    QTest::addColumn<QString>("headline");
    QTest::addColumn<QString>("diagnostics");

    QTest::newRow("no graphs") << GpuTimeline{{fileWith(phases(10), {}, QStringLiteral("HIP"))}} << -1.0 << false << ""
                               << "";
    QTest::newRow("HIP replay, 1 in 8 recorded")
        << GpuTimeline{{fileWith(phases(48), graphs(96, std::vector<std::uint32_t>(12, 10)), QStringLiteral("HIP"))}}
        << 0.125 << true << "HIP graph replay: kernels recorded for 1 replay in 8 — idle not measured"
        << "[warning] torch_profile.json: HIP graph replay: 96 hipGraphLaunch calls, kernels recorded for 12 (1 in 8), "
           "10 GPU events each: GPU idle between replays is not measured";
    QTest::newRow("CUDA replay, every replay recorded")
        << GpuTimeline{{fileWith(phases(60), graphs(4, {339, 502, 339, 502}, 0, QStringLiteral("cudaGraphLaunch")))}}
        << 1.0 << false << "CUDA graph replay: kernels recorded for all 4 replays"
        << "[info] torch_profile.json: CUDA graph replay: 4 cudaGraphLaunch calls, kernels recorded for all, 339 to 502 "
           "GPU events each";
    QTest::newRow("a replay with far fewer kernels than the largest")
        << GpuTimeline{{fileWith(phases(60), graphs(3, {500, 500, 120}, 0, QStringLiteral("cudaGraphLaunch")))}}
        << 1.0 << true << "CUDA graph replay: 1 of 3 replays partly recorded — idle not measured"
        << "[warning] torch_profile.json: CUDA graph replay: 3 cudaGraphLaunch calls, kernels recorded for all, 120 to "
           "500 GPU events each; 1 of the recorded replays have fewer than 25 % of the GPU events of the largest (500): "
           "partly recorded: GPU idle between replays is not measured";
    QTest::newRow("no replay recorded")
        << GpuTimeline{{fileWith(phases(60), graphs(5, {}, 0, QStringLiteral("cuGraphLaunch")))}} << 0.0 << true
        << "CUDA graph replay: kernels recorded for no replay of 5 — idle not measured"
        << "[warning] torch_profile.json: CUDA graph replay: 5 cuGraphLaunch calls, kernels recorded for none: GPU idle "
           "between replays is not measured";
    QTest::newRow("uneven share, two ranks")
        << GpuTimeline{{fileWith(phases(1), graphs(30, std::vector<std::uint32_t>(13, 8))),
                        fileWith(phases(1), graphs(30, std::vector<std::uint32_t>(30, 8)))}}
        << 43.0 / 60.0 << true << "HIP graph replay: kernels recorded for 43 of 60 replays — idle not measured"
        << "[warning] torch_profile.json: HIP graph replay: 30 hipGraphLaunch calls, kernels recorded for 13 (43 %), 8 "
           "GPU events each: GPU idle between replays is not measured\n"
           "[info] torch_profile.json: HIP graph replay: 30 hipGraphLaunch calls, kernels recorded for all, 8 GPU events "
           "each";
    QTest::newRow("capture only")
        << GpuTimeline{{fileWith(phases(60), graphs(0, {}, 3), QStringLiteral("CUDA"))}} << -1.0 << false
        << "CUDA graph capture: 3 capture calls, no replay in the trace"
        << "[info] torch_profile.json: CUDA graph capture: 3 stream-capture or graph-instantiate calls; kernels launched "
           "while a stream is captured do not run then, so the GPU idles around them";
}

void TestRunTraits::graphReplay()
{
    QFETCH(GpuTimeline, timeline);
    QFETCH(double, fraction);
    QFETCH(bool, unmeasured);
    QFETCH(QString, headline);
    QFETCH(QString, diagnostics);
    const RunTraitsAnalysis a = analyzeRunTraits(timeline, TimelineAnalysis{});
    if (fraction < 0)
        QVERIFY(!a.graphs.replaysRecordedFraction);
    else
        QCOMPARE(a.graphs.replaysRecordedFraction.value_or(-1), fraction);
    QCOMPARE(a.graphs.replayIdleUnmeasured, unmeasured);
    QCOMPARE(a.replaysGraphs, a.graphs.launches > 0);
    QCOMPARE(a.graphs.headline, headline);
    QCOMPARE(diagnosticsText(a.diagnostics), diagnostics);
}

void TestRunTraits::overlappingKernelsOnOneStream_data()
{
    QTest::addColumn<GpuTimeline>("timeline");
    QTest::addColumn<qint64>("overlaps");

    auto one = [](const std::vector<K> &events) {
        GpuTimelineFile f = fileWith(phases(1));
        f.devices.push_back(device(2, events));
        return GpuTimeline{{f}};
    };
    QTest::newRow("serial stream") << one({{0, 0, 1000}, {0, 1000, 5000}, {0, 6000, 7000}}) << qint64(0);
    QTest::newRow("5 µs overlap") << one({{0, 0, 10000}, {0, 5000, 15000}}) << qint64(1);
    QTest::newRow("within the 1 µs tolerance") << one({{0, 0, 10000}, {0, 9000, 15000}}) << qint64(0);
    QTest::newRow("a long kernel under two others") << one({{0, 0, 50000}, {0, 10000, 12000}, {0, 20000, 22000}})
                                                    << qint64(2);
    QTest::newRow("other streams may overlap") << one({{0, 0, 10000}, {1, 2000, 12000}, {0, 10000, 11000}}) << qint64(0);
    QTest::newRow("copies are not kernels")
        << one({{0, 0, 10000}, {0, 2000, 12000, GpuEventKind::Memcpy}, {0, 2000, 3000, GpuEventKind::Memset}}) << qint64(0);
    QTest::newRow("out of document order, sorted first")
        << one({{0, 20000, 30000}, {0, 0, 10000}, {0, 25000, 26000}, {0, 5000, 9000}}) << qint64(2);
    QTest::newRow("zero-length kernels ignored") << one({{0, 0, 10000}, {0, 5000, 5000}}) << qint64(0);
}

void TestRunTraits::overlappingKernelsOnOneStream()
{
    QFETCH(GpuTimeline, timeline);
    QFETCH(qint64, overlaps);
    const RunTraitsAnalysis a = analyzeRunTraits(timeline, TimelineAnalysis{});
    QCOMPARE(a.checks.overlappingKernelsOnOneStream, overlaps);
    QCOMPARE(diagnosticsText(a.diagnostics).contains(QLatin1String("before an earlier kernel of the same stream ends")),
             overlaps > 0);
}

void TestRunTraits::gpuEventsOutsideSteps()
{
    GpuTimelineFile f = fileWith(phases(1));
    f.file = QStringLiteral("rank-0.json");
    f.steps = {{QStringLiteral("ProfilerStep#1"), 100000, 200000, false},
               {QStringLiteral("ProfilerStep#2"), 300000, 400000, false},
               {QStringLiteral("ProfilerStep#1"), 150000, 150500, true}};  // GPU lane: not used while the CPU lane has steps
    f.devices.push_back(device(0, {{0, 0, 50000},                              // before the first step
                                   {0, 90000, 110000},                         // straddles its start: in
                                   {0, 120000, 130000},                        // in
                                   {0, 200000, 250000},                        // between the steps
                                   {1, 250000, 250000},                        // a point between them
                                   {1, 300000, 300000},                        // a point at a step's start: in
                                   {0, 400000, 430000, GpuEventKind::Memcpy}}));  // after the last
    GpuTimeline timeline{{f}};
    for (const bool withAnalysis : {false, true}) {
        const TimelineAnalysis analysis = withAnalysis ? analyzeTimeline(timeline) : TimelineAnalysis{};
        const RunTraitsAnalysis a = analyzeRunTraits(timeline, analysis);
        QCOMPARE(a.checks.gpuEventsOutsideSteps, qint64(4));
        QCOMPARE(a.checks.gpuTimeOutsideStepsNs, qint64(50000 + 50000 + 30000));
        QCOMPARE(a.checks.filesWithSteps, qint64(1));
        QCOMPARE(diagnosticsText(a.diagnostics),
                 QStringLiteral("[info] rank-0.json: 4 GPU events (0.130 ms) outside the profiled steps: not in any "
                                "step's budget"));
    }
    // Without step marks the span is one "step" of the analysis: nothing lies outside it.
    f.steps.clear();
    timeline = GpuTimeline{{f}};
    const RunTraitsAnalysis a = analyzeRunTraits(timeline, analyzeTimeline(timeline));
    QCOMPARE(a.checks.gpuEventsOutsideSteps, qint64(0));
    QCOMPARE(a.checks.filesWithSteps, qint64(0));
}

void TestRunTraits::reportKeys()
{
    QJsonObject report;
    addRunTraitsToReport(report, analyzeRunTraits(GpuTimeline{{fileWith(phases(20))}}, TimelineAnalysis{}));
    QCOMPARE(report.value("run_kind").toString(), QStringLiteral("inference"));
    QCOMPARE(report.value("run_kind_reason").toString(),
             QStringLiteral("no backward op, no optimizer step, no DataLoader among 20 CPU ops"));
    const QJsonObject none = report.value("graphs").toObject();
    QCOMPARE(none.value("launches").toInteger(), 0);
    QCOMPARE(none.value("captures").toInteger(), 0);
    QVERIFY(none.value("replays_recorded_fraction").isNull());
    QVERIFY(none.value("diagnostic").isNull());

    report = {};
    addRunTraitsToReport(report, analyzeRunTraits(GpuTimeline{{fileWith(phases(0), graphs(16, {40, 40}, 1))}},
                                                  TimelineAnalysis{}));
    QCOMPARE(report.value("run_kind").toString(), QStringLiteral("unknown"));
    const QJsonObject g = report.value("graphs").toObject();
    QCOMPARE(g.value("launches").toInteger(), 16);
    QCOMPARE(g.value("captures").toInteger(), 1);
    QCOMPARE(g.value("replays_recorded_fraction").toDouble(), 0.125);
    QCOMPARE(g.value("diagnostic").toString(),
             QStringLiteral("HIP graph replay: kernels recorded for 1 replay in 8 — idle not measured"));
    QCOMPARE(g.value("replay_idle_unmeasured").toBool(), true);
    QCOMPARE(g.value("launch_call").toString(), QStringLiteral("hipGraphLaunch"));
    QCOMPARE(g.value("vendor").toString(), QStringLiteral("HIP"));
    const QJsonObject checks = report.value("timeline_checks").toObject();
    QCOMPARE(checks.value("overlapping_kernels_on_one_stream").toInteger(), 0);
    QCOMPARE(checks.value("gpu_events_outside_steps").toInteger(), 0);
}

void TestRunTraits::fixtures_data()
{
    QTest::addColumn<QString>("relative");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<qint64>("launches");
    QTest::addColumn<double>("fraction");  // -1: null
    QTest::addColumn<QString>("headline");
    QTest::addColumn<qint64>("overlaps");
    QTest::addColumn<qint64>("outside");  // GPU events outside the steps
    QTest::addColumn<qint64>("outsideNs");
    QTest::addColumn<QString>("vendor");

    QTest::newRow("synthetic vLLM-style decode, HIP graph replay")
        << "runs/graph-replay-decode/torch_profile.json" << "inference"
        << "no backward op, no optimizer step, no DataLoader among 48 CPU ops" << qint64(96) << 0.125
        << "HIP graph replay: kernels recorded for 1 replay in 8 — idle not measured" << qint64(0) << qint64(0)
        << qint64(0) << "HIP";
    // No ProfilerStep, no GPU-lane annotations: the ends of its six CPU-lane Optimizer.step#FusedAdam.step
    // annotations cut five steps (docs/steps.md); the GPU events before the first end (the step the
    // profiler started in) and after the last are in none. Counted independently from the raw trace
    // (exact-decimal µs to ns; kernels, memcpys and memsets overlapping no window): 891, 71.090 ms.
    QTest::newRow("HTA V100 CUDA graph subset (graph nodes overlap on the launch's stream)")
        << "torch/hta_v100_cudagraph_subset.json.gz" << "training" << "60 backward ops, 6 optimizer steps" << qint64(12)
        << 1.0 << "CUDA graph replay: kernels recorded for all 12 replays" << qint64(18) << qint64(891)
        << qint64(71090000) << "CUDA";
    QTest::newRow("TraceLens MI300X DDP rank 0 (GPU runs behind the CPU steps)")
        << "torch/tracelens_mi300_resnet_act_checkpoint_ddp_rank0.json.gz" << "training"
        << "612 backward ops, 3 optimizer steps" << qint64(0) << -1.0 << "" << qint64(0) << qint64(1848)
        << qint64(45744918) << "HIP";
    QTest::newRow("Kineto 2021 ResNet-50 first step")
        << "torch/kineto_2021_resnet50_first_step.json.gz" << "training" << "178 backward ops, 1 optimizer step"
        << qint64(0) << -1.0 << "" << qint64(0) << qint64(0) << qint64(0) << "";
    QTest::newRow("TraceLens H100 BERT inference")
        << "torch/tracelens_h100_gaunernst_bert-small-uncased__1016001.json.gz" << "inference"
        << "no backward op, no optimizer step, no DataLoader among 479 CPU ops" << qint64(0) << -1.0 << "" << qint64(0)
        << qint64(0) << qint64(0) << "CUDA";
    QTest::newRow("TraceLens MI210 GPU-only trace")
        << "torch/tracelens_mi210_gpu_only_trace.json.gz" << "unknown"
        << "no CPU operators in the trace (GPU events only): training or inference cannot be told" << qint64(0) << -1.0
        << "" << qint64(0) << qint64(0) << qint64(0) << "HIP";
}

void TestRunTraits::fixtures()
{
    QFETCH(QString, relative);
    QFETCH(QString, kind);
    QFETCH(QString, reason);
    QFETCH(qint64, launches);
    QFETCH(double, fraction);
    QFETCH(QString, headline);
    QFETCH(qint64, overlaps);
    QFETCH(qint64, outside);
    QFETCH(qint64, outsideNs);
    QFETCH(QString, vendor);
    const TorchTrace t = parseTorchTraceFile(dataPath(relative), QFileInfo(relative).fileName());
    const TimelineAnalysis analysis = analyzeTimeline(t.timeline);
    const RunTraitsAnalysis a = analyzeRunTraits(t.timeline, analysis);
    const QString diagnostics = diagnosticsText(a.diagnostics);
    QCOMPARE(runKindName(a.runKind.kind), kind);
    QCOMPARE(a.runKind.reason, reason);
    QCOMPARE(a.graphs.launches, launches);
    if (fraction < 0)
        QVERIFY(!a.graphs.replaysRecordedFraction);
    else
        QCOMPARE(a.graphs.replaysRecordedFraction.value_or(-1), fraction);
    QCOMPARE(a.graphs.headline, headline);
    QCOMPARE(a.vendor, vendor);
    QCOMPARE(a.checks.overlappingKernelsOnOneStream, overlaps);
    QCOMPARE(a.checks.gpuEventsOutsideSteps, outside);
    QCOMPARE(a.checks.gpuTimeOutsideStepsNs, outsideNs);
    if (launches > 0)
        QVERIFY2(diagnostics.contains(QStringLiteral("graph replay: %1 ").arg(launches)), qPrintable(diagnostics));
}

QTEST_GUILESS_MAIN(TestRunTraits)
#include "tst_runtraits.moc"
