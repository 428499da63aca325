// The Timeline's host lanes of inputs other than a Kineto trace: a rocprofv3-only run (the HIP API
// and marker traces beside trace.csv), rocpd and rpd databases and Nsight Systems exports. Each is loaded as the window loads it
// (setKeepHostLanes) and its lanes are checked against an independent count over the raw files,
// scripts/hostlanes_count.py (numbers quoted in tests/data/PROVENANCE.md, apitraces/rocprof-lanes):
// threads, slices per kind, the deepest nesting, and a kernel joined to the call that launched it.

#include "kernels/hostlanesbuilder.h"
#include "results/hostlanes.h"
#include "runanalysis.h"
#include "testsupport.h"
#include "torchtraceparser.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <tuple>

using namespace goblin;

namespace {

bool hasDiagnostic(const RunAnalysis &run, const QString &needle)
{
    for (const Diagnostic &d : run.diagnostics)
        if (d.message.contains(needle)) {
            qInfo("%s: %s", qPrintable(d.file), qPrintable(d.message));
            return true;
        }
    return false;
}

/// The kernel-trace file with host lanes (there is one in these fixtures).
const GpuTimelineFile *fileWithLanes(const RunAnalysis &run)
{
    for (const GpuTimelineFile &f : run.kernels.timeline.files)
        if (f.hostLanes)
            return &f;
    return nullptr;
}

/// The runtime call the GPU event at (device, stream, start) was launched by: -1 when none.
int launchOf(const HostLanes &hl, qint32 device, qint32 stream, qint64 startNs)
{
    const auto key = [](const GpuCorrelation &g) { return std::tuple(g.device, g.stream, g.startNs); };
    const auto g = std::lower_bound(hl.gpuByPlace.begin(), hl.gpuByPlace.end(), GpuCorrelation{startNs, 0, device, stream},
                                    [&](const GpuCorrelation &a, const GpuCorrelation &b) { return key(a) < key(b); });
    if (g == hl.gpuByPlace.end() || key(*g) != std::tuple(device, stream, startNs))
        return -1;
    const auto c = std::lower_bound(hl.runtimeByCorrelation.begin(), hl.runtimeByCorrelation.end(),
                                    RuntimeCorrelation{g->correlation, 0},
                                    [](const RuntimeCorrelation &a, const RuntimeCorrelation &b) {
                                        return a.correlation < b.correlation;
                                    });
    return c != hl.runtimeByCorrelation.end() && c->correlation == g->correlation ? int(c->slice) : -1;
}

} // namespace

class TestApiHostLanes : public QObject
{
    Q_OBJECT

private slots:
    // The window's reading: the host lanes are kept (torchtraceparser.h, setKeepHostLanes).
    void initTestCase() { setKeepHostLanes(true); }

    void lanesMatchAnIndependentCount_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<int>("threads");
        QTest::addColumn<qint64>("pid");
        QTest::addColumn<qint64>("tid");
        QTest::addColumn<int>("steps");
        QTest::addColumn<int>("dataLoading");
        QTest::addColumn<int>("annotations");
        QTest::addColumn<int>("runtimeCalls");
        QTest::addColumn<int>("deepest");
        QTest::addColumn<int>("gpuCorrelations");
        QTest::addColumn<int>("joined");
        QTest::addColumn<qint64>("firstGpuStartNs");
        QTest::addColumn<QString>("launchName");
        QTest::addColumn<qint64>("launchStartNs");
        // scripts/hostlanes_count.py over each input.
        // pid/tid: the first thread; deepest: over all threads.
        QTest::newRow("rocprofv3 CSV") << QStringLiteral("apitraces/rocprof-lanes") << 1 << qint64(4242) << qint64(4242)
                                       << 4 << 4 << 16 << 88 << 3 << 80 << 80 << qint64(2745948891083579)
                                       << QStringLiteral("hipExtModuleLaunchKernel") << qint64(2745948891038658);
        QTest::newRow("rpd") << QStringLiteral("rpd/matmul_result.rpd") << 1 << qint64(1087077) << qint64(1087077) << 0
                             << 0 << 0 << 120 << 0 << 85 << 85 << qint64(8306017670485923)
                             << QStringLiteral("hipMemcpyWithStream") << qint64(8306017479780699);
        QTest::newRow("rocpd") << QStringLiteral("apitraces/rocpd-lanes/48213_results.db") << 1 << qint64(48213)
                               << qint64(48213) << 4 << 4 << 16 << 88 << 3 << 80 << 80 << qint64(2745948891083579)
                               << QStringLiteral("hipExtModuleLaunchKernel") << qint64(2745948891038658);
        QTest::newRow("rocprofv3 JSON") << QStringLiteral("rocprofv3json/synthetic_results.json") << 2 << qint64(4242)
                                        << qint64(4242) << 3 << 0 << 0 << 57 << 1 << 54 << 54 << qint64(1000004000)
                                        << QStringLiteral("hipLaunchKernel") << qint64(1000000000);
        // The same run as rocprofv3 JSON's (scripts/make_pftrace.py): the same lanes.
        QTest::newRow("pftrace") << QStringLiteral("pftrace/synthetic.pftrace") << 2 << qint64(4242) << qint64(4242) << 3
                                 << 0 << 0 << 57 << 1 << 54 << 54 << qint64(1000004000)
                                 << QStringLiteral("hipLaunchKernel") << qint64(1000000000);
        QTest::newRow("nsys, 2 GPUs") << QStringLiteral("nsys/generated-2gpu.sqlite") << 3 << qint64(4242)
                                      << qint64(4242) << 12 << 0 << 12 << 306 << 2 << 288 << 288 << qint64(1000017304)
                                      << QStringLiteral("cudaLaunchKernel") << qint64(1000009850);
        QTest::newRow("nsys, real, gzipped")
            << QStringLiteral("nsys/saxpy-mpi-cuda_nsys_perlmutter0.sqlite.gz") << 1 << qint64(1230493)
            << qint64(1230493) << 0 << 0 << 22 << 95 << 2 << 20 << 20 << qint64(887857742)
            << QStringLiteral("cudaMemcpy") << qint64(887755510);
    }

    void lanesMatchAnIndependentCount()
    {
        QFETCH(QString, input);
        QFETCH(int, threads);
        QFETCH(qint64, pid);
        QFETCH(qint64, tid);
        QFETCH(int, steps);
        QFETCH(int, dataLoading);
        QFETCH(int, annotations);
        QFETCH(int, runtimeCalls);
        QFETCH(int, deepest);
        QFETCH(int, gpuCorrelations);
        QFETCH(int, joined);
        QFETCH(qint64, firstGpuStartNs);
        QFETCH(QString, launchName);
        QFETCH(qint64, launchStartNs);
        const LoadResult loaded = loadRun(test::dataPath(input));
        QVERIFY2(loaded.run, qPrintable(loaded.error));
        const RunAnalysis &run = *loaded.run;
        QVERIFY(run.torch.timeline.files.empty());
        const GpuTimelineFile *f = fileWithLanes(run);
        QVERIFY(f);
        const HostLanes &hl = *f->hostLanes;

        QCOMPARE(int(hl.threads.size()), threads);
        QCOMPARE(hl.threads[0].pid, pid);
        QCOMPARE(hl.threads[0].tid, tid);
        int depths = 0;
        for (const HostThread &t : hl.threads)
            depths = std::max(depths, int(t.depths));
        QCOMPARE(depths, deepest + 1);
        QCOMPARE(hl.tooDeep, qint64(0));
        std::array<int, std::size_t(HostSliceKind::Count)> byKind{};
        for (const HostSlice &s : hl.slices)
            ++byKind[std::size_t(s.kind)];
        QCOMPARE(byKind[std::size_t(HostSliceKind::Step)], steps);
        QCOMPARE(byKind[std::size_t(HostSliceKind::DataLoading)], dataLoading);
        QCOMPARE(byKind[std::size_t(HostSliceKind::Annotation)], annotations);
        QCOMPARE(byKind[std::size_t(HostSliceKind::Runtime)], runtimeCalls);
        QCOMPARE(byKind[std::size_t(HostSliceKind::CpuOp)] + byKind[std::size_t(HostSliceKind::Module)], 0);

        // Lanes as the Kineto path lays them out: each lane by start, never overlapping, and
        // every slice inside the one that is open above it.
        for (const HostLane &lane : hl.lanes)
            for (std::uint32_t i = lane.begin; i + 1 < lane.end; ++i)
                QVERIFY(hl.slices[i].endNs <= hl.slices[i + 1].startNs);

        // The flows: every GPU event with a correlation id, and those that name a call.
        QCOMPARE(int(hl.gpuByPlace.size()), gpuCorrelations);
        int joinedHere = 0;
        for (const GpuCorrelation &g : hl.gpuByPlace)
            joinedHere += launchOf(hl, g.device, g.stream, g.startNs) >= 0;
        QCOMPARE(joinedHere, joined);
        // The first GPU event of the file, found as the Timeline finds it (its device and stream).
        const GpuDeviceTimeline *device = nullptr;
        qsizetype first = -1;
        for (const GpuDeviceTimeline &d : f->devices)
            for (std::size_t i = 0; i < d.events.size(); ++i)
                if (!device || d.events[i].startNs < device->events[std::size_t(first)].startNs) {
                    device = &d;
                    first = qsizetype(i);
                }
        QVERIFY(device);
        const GpuEvent e = device->events[std::size_t(first)];
        QCOMPARE(e.startNs, firstGpuStartNs);
        const int call = launchOf(hl, qint32(device->device), qint32(device->streams[e.stream]), e.startNs);
        QVERIFY(call >= 0);
        QCOMPARE(QString::fromStdString(hl.names[hl.slices[std::size_t(call)].nameId]), launchName);
        QCOMPARE(hl.slices[std::size_t(call)].startNs, launchStartNs);
        QCOMPARE(hl.slices[std::size_t(call)].kind, HostSliceKind::Runtime);
        QVERIFY(hasDiagnostic(run, QStringLiteral("host lanes from")));
    }

    // The headless commands keep no host lanes: nothing of them is read or kept.
    void noLanesUnlessKept()
    {
        setKeepHostLanes(false);
        const LoadResult loaded = loadRun(test::dataPath(QStringLiteral("apitraces/rocprof-lanes")));
        const LoadResult rpd = loadRun(test::dataPath(QStringLiteral("rpd/matmul_result.rpd")));
        const LoadResult nsys = loadRun(test::dataPath(QStringLiteral("nsys/generated-2gpu.sqlite")));
        const LoadResult rocpd = loadRun(test::dataPath(QStringLiteral("apitraces/rocpd-lanes/48213_results.db")));
        setKeepHostLanes(true);
        QVERIFY(loaded.run && rpd.run && nsys.run && rocpd.run);
        for (const LoadResult *r : {&loaded, &rpd, &nsys, &rocpd}) {
            QVERIFY(!r->run->kernels.timeline.files.empty());
            for (const GpuTimelineFile &f : r->run->kernels.timeline.files)
                QVERIFY(!f.hostLanes);
        }
    }

    // A real rocprofv3 pftrace (LUMI, tests/data/PROVENANCE.md: 64 dispatches, 791 HIP calls, no
    // roctx range): every HIP call on the lanes, every dispatch joined to its call by corr_id.
    void realPftraceJoinsItsKernels()
    {
        const LoadResult loaded = loadRun(test::dataPath(QStringLiteral("pftrace/csc_taylor_results.pftrace")));
        QVERIFY2(loaded.run, qPrintable(loaded.error));
        const GpuTimelineFile *f = fileWithLanes(*loaded.run);
        QVERIFY(f);
        const HostLanes &hl = *f->hostLanes;
        QVERIFY(hasDiagnostic(*loaded.run, QStringLiteral("host lanes from")));
        QCOMPARE(hl.slices.size(), std::size_t(791));
        QCOMPARE(hl.gpuByPlace.size(), std::size_t(64));
        QCOMPARE(kernels::joinedGpuEvents(hl), qint64(64));
    }

    // A kernel trace without a host side gets no lanes (the kernels' correlation ids kept for
    // them are dropped), and says nothing about lanes.
    void noHostSideNoLanes_data()
    {
        QTest::addColumn<QString>("input");
        QTest::newRow("trace.csv alone") << QStringLiteral("apitraces/rocprof-lanes/trace.csv");
        QTest::newRow("rocprofv3 JSON of kernels only") << QStringLiteral("rocprofv3json/908_first3000_results.json.gz");
    }

    void noHostSideNoLanes()
    {
        QFETCH(QString, input);
        const LoadResult loaded = loadRun(test::dataPath(input));
        QVERIFY2(loaded.run, qPrintable(loaded.error));
        QVERIFY(!loaded.run->kernels.timeline.files.empty());
        QVERIFY(!fileWithLanes(*loaded.run));
        QVERIFY(!hasDiagnostic(*loaded.run, QStringLiteral("host lanes")));
    }

    // Without Correlation_Id (in the HIP trace or in the kernel trace) the lanes are drawn and
    // the diagnostics say why no kernel flows to its call; without Thread_Id all calls share one.
    void missingColumnsAreSaid_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("column");
        QTest::addColumn<QString>("said");
        QTest::newRow("HIP trace without Correlation_Id")
            << QStringLiteral("4242_hip_api_trace.csv") << QStringLiteral("Correlation_Id")
            << QStringLiteral("no Correlation_Id column: the Timeline cannot join its calls");
        QTest::newRow("kernel trace without Correlation_Id")
            << QStringLiteral("trace.csv") << QStringLiteral("Correlation_Id")
            << QStringLiteral("the GPU events carry no correlation id");
        QTest::newRow("HIP trace without Thread_Id") << QStringLiteral("4242_hip_api_trace.csv")
                                                     << QStringLiteral("Thread_Id")
                                                     << QStringLiteral("no Thread_Id column");
    }

    void missingColumnsAreSaid()
    {
        QFETCH(QString, file);
        QFETCH(QString, column);
        QFETCH(QString, said);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QDir from(test::dataPath(QStringLiteral("apitraces/rocprof-lanes")));
        for (const QString &name : from.entryList(QDir::Files)) {
            QFile in(from.filePath(name));
            QFile out(dir.filePath(name));
            QVERIFY(in.open(QIODevice::ReadOnly) && out.open(QIODevice::WriteOnly));
            QByteArray bytes = in.readAll();
            if (name == file) {
                // The column renamed: the readers look for it by name.
                const QByteArray quoted = '"' + column.toLatin1() + '"';
                QVERIFY(bytes.left(bytes.indexOf('\n')).contains(quoted));
                bytes.replace(bytes.indexOf(quoted), quoted.size(), QByteArray("\"Other\""));
            }
            out.write(bytes);
        }
        const LoadResult loaded = loadRun(dir.path());
        QVERIFY2(loaded.run, qPrintable(loaded.error));
        QVERIFY2(hasDiagnostic(*loaded.run, said), qPrintable(said));
        const GpuTimelineFile *f = fileWithLanes(*loaded.run);
        QVERIFY(f);
        const HostLanes &hl = *f->hostLanes;
        QCOMPARE(hl.slices.size(), std::size_t(4 + 4 + 16 + 88));
        if (column == QLatin1String("Correlation_Id"))
            QVERIFY(hl.runtimeByCorrelation.empty() || hl.gpuByPlace.empty());
        else
            QCOMPARE(hl.threads.size(), std::size_t(2));  // markers on 4242/4242, the calls on 4242/0
    }

    // The API traces of another run (another clock) give no lanes, and say so.
    void apiTracesOfAnotherClockGiveNoLanes()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QDir from(test::dataPath(QStringLiteral("apitraces/rocprof-lanes")));
        for (const QString &name : from.entryList(QDir::Files)) {
            QFile in(from.filePath(name));
            QFile out(dir.filePath(name));
            QVERIFY(in.open(QIODevice::ReadOnly) && out.open(QIODevice::WriteOnly));
            QByteArray bytes = in.readAll();
            if (name.contains(QLatin1String("_api_trace"))) // 2745… → 1745…: a day earlier, and more
                bytes.replace(",2745", ",1745");
            out.write(bytes);
        }
        const LoadResult loaded = loadRun(dir.path());
        QVERIFY2(loaded.run, qPrintable(loaded.error));
        QVERIFY(!fileWithLanes(*loaded.run));
        QVERIFY(hasDiagnostic(*loaded.run, QStringLiteral("host calls and ranges of")));
    }

    // The shared builder nests as the Kineto consumer always did: a child that starts with its
    // parent goes below it, a range that starts as another ends goes beside it.
    void builderNestsByStart()
    {
        kernels::HostLanesBuilder b;
        const std::uint16_t t = b.threadOf(7, 9);
        b.add(HostSliceKind::Runtime, "child", t, 100, 150);
        b.add(HostSliceKind::Annotation, "parent", t, 100, 200);
        b.add(HostSliceKind::Annotation, "next", t, 200, 300);
        b.addRuntime("launch", t, 210, 220, 42);
        b.addGpu(500, 42, 0, 3);
        const HostLanes hl = b.build();
        QCOMPARE(hl.threads.size(), std::size_t(1));
        QCOMPARE(int(hl.threads[0].depths), 2);
        QCOMPARE(hl.lanes.size(), std::size_t(2));
        QCOMPARE(hl.names[hl.slices[0].nameId], std::string("parent"));
        QCOMPARE(hl.names[hl.slices[1].nameId], std::string("next"));
        QCOMPARE(hl.names[hl.slices[2].nameId], std::string("child"));
        QCOMPARE(hl.names[hl.slices[3].nameId], std::string("launch"));
        QCOMPARE(hl.runtimeByCorrelation.size(), std::size_t(1));
        QCOMPARE(hl.runtimeByCorrelation[0].slice, 3u);
        QCOMPARE(launchOf(hl, 0, 3, 500), 3);
        // A second build of only some threads (one kernel file of a process) leaves the others out.
        const std::uint16_t other = b.threadOf(8, 1);
        b.add(HostSliceKind::Annotation, "other", other, 0, 10);
        QCOMPARE(b.build({false, true}).slices.size(), std::size_t(1));
        QCOMPARE(b.build().slices.size(), std::size_t(5));
    }
};

QTEST_GUILESS_MAIN(TestApiHostLanes)
#include "tst_apihostlanes.moc"
