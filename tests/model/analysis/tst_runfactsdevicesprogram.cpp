// The run's facts, devices and program parts (src/model/analysis/devicefacts.cpp, programfacts.cpp):
// each device's memory from the file itself (deviceProperties, Nsight TARGET_INFO_GPU, telemetry
// totals), then the shipped GPU table (resources/gpus.json), the reference's 192 GB only as an
// estimated default; one device naming; the program kinds with their reasons. Then the words that
// fit the run (issue 32's measured failures, one row each): no torch.compile or "train in bf16"
// for llama.cpp, no pinned memory for a HIP vectorAdd, a graph capture said as a capture and not
// headlined as data wait, host-busy idle named so, a range-profiler capture said as one.
//
// Run folders: tests/data/program (make_program_runs.py, synthetic) and tests/data/runs.

#include "devicefacts.h"
#include "programfacts.h"
#include "report.h"
#include "runanalysis.h"
#include "decidefacts.h"
#include "testsupport.h"
#include "timelineanalysis.h"
#include "timelinespec.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

#include <cmath>

using namespace goblin;

namespace {

GpuTimelineFile describedFile(const QString &source, const QStringList &names, const std::vector<qint64> &bytes)
{
    GpuTimelineFile f;
    f.source = source;
    f.file = source == QLatin1String("torch_profile") ? QStringLiteral("torch_profile.json")
                                                      : QStringLiteral("report.sqlite");
    f.traits.identity.deviceNames = names;
    f.traits.identity.deviceMemoryBytes = bytes;
    return f;
}

QString texts(const QJsonObject &report)
{
    QString all = report["budget"]["verdict"].toString() + QLatin1Char('\n');
    for (const QJsonValue &a : report["advice"].toArray())
        all += a["text"].toString() + QLatin1Char('\n');
    return all;
}

} // namespace

class TestRunFactsDevicesProgram : public QObject
{
    Q_OBJECT

private slots:
    void gpuTable_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<double>("gb");  // NaN: no memory (unknown size, or shared)
        QTest::addColumn<bool>("shared");
        QTest::addColumn<bool>("known");
        QTest::newRow("MI210") << "AMD Instinct MI210" << 64.0 << false << true;
        QTest::newRow("MI250X") << "AMD Instinct MI250X / MI250" << 128.0 << false << true;
        QTest::newRow("MI300X") << "AMD Instinct MI300X" << 192.0 << false << true;
        QTest::newRow("MI325X") << "AMD Instinct MI325X" << 256.0 << false << true;
        QTest::newRow("MI355X") << "AMD Instinct MI355X" << 288.0 << false << true;
        QTest::newRow("V100 32 GB") << "Tesla V100-DGXS-32GB" << 32.0 << false << true;
        QTest::newRow("V100 16 GB") << "Tesla V100-SXM2-16GB" << 16.0 << false << true;
        QTest::newRow("V100 size open") << "Tesla V100" << qQNaN() << false << true;
        QTest::newRow("A100 40 GB") << "NVIDIA A100-SXM4-40GB" << 40.0 << false << true;
        QTest::newRow("A100 80 GB") << "NVIDIA A100 80GB PCIe" << 80.0 << false << true;
        QTest::newRow("H100 SXM") << "NVIDIA H100 80GB HBM3" << 80.0 << false << true;
        QTest::newRow("H100 PCIe") << "NVIDIA H100 PCIe" << 80.0 << false << true;
        QTest::newRow("H100 NVL") << "NVIDIA H100 NVL" << 94.0 << false << true;
        QTest::newRow("H200") << "NVIDIA H200" << 141.0 << false << true;
        QTest::newRow("B200") << "NVIDIA B200" << 180.0 << false << true;
        QTest::newRow("L40S") << "NVIDIA L40S" << 48.0 << false << true;
        QTest::newRow("RTX 4090") << "NVIDIA GeForce RTX 4090" << 24.0 << false << true;
        QTest::newRow("RTX 3060") << "NVIDIA GeForce RTX 3060" << 12.0 << false << true;
        QTest::newRow("T4") << "Tesla T4" << 16.0 << false << true;
        QTest::newRow("gfx1151: shared") << "gfx1151" << qQNaN() << true << true;
        QTest::newRow("unknown model") << "NVIDIA GeForce GTX 1080" << qQNaN() << false << false;
    }
    void gpuTable()
    {
        QFETCH(QString, name);
        QFETCH(double, gb);
        QFETCH(bool, shared);
        QFETCH(bool, known);
        const std::optional<GpuModelEntry> e = gpuModelFromName(name);
        QCOMPARE(bool(e), known);
        if (!e)
            return;
        QVERIFY(!e->source.isEmpty());
        QCOMPARE(e->sharedMemory, shared);
        QCOMPARE(bool(e->memoryGb), !std::isnan(gb));
        if (e->memoryGb)
            QCOMPARE(*e->memoryGb, gb);
    }

    void deviceNaming()
    {
        QCOMPARE(deviceDisplayName(0, 0), QStringLiteral("GPU 0 (trace device 0)"));
        QCOMPARE(deviceDisplayName(2, -1), QStringLiteral("GPU 2"));
        QCOMPARE(deviceDisplayName(0, 2), QStringLiteral("GPU 0 (trace device 2)"));
        QCOMPARE(deviceDisplayName(1, 3, true), QStringLiteral("GPU 1 (d3)"));
        QCOMPARE(deviceDisplayName(-1, 5), QStringLiteral("trace device 5"));
        GpuTimelineFile f;
        for (qint64 d : {3, 2}) {
            f.devices.emplace_back();
            f.devices.back().device = d;
        }
        QCOMPARE(gpuIndexInFile(f, 2), 0);
        QCOMPARE(gpuIndexInFile(f, 3), 1);
        QCOMPARE(gpuIndexInFile(f, 4), -1);
    }

    void capacity_data()
    {
        QTest::addColumn<int>("source");  // which input the row fills
        QTest::addColumn<double>("gb");
        QTest::addColumn<QString>("state");
        QTest::addColumn<bool>("fromRun");
        QTest::addColumn<QString>("sourceSays");
        const double h100 = 85029158912.0 / double(1ll << 30);
        // Kineto deviceProperties' totalGlobalMem (an H100 that the default would call 192 GB).
        QTest::newRow("deviceProperties") << 0 << h100 << "measured" << true << "totalGlobalMem";
        // Nsight Systems' TARGET_INFO_GPU totalMemory, as the database reader states it.
        QTest::newRow("Nsight TARGET_INFO_GPU") << 1 << 141.0 << "measured" << true << "TARGET_INFO_GPU";
        // nvidia-smi's memory.total column.
        QTest::newRow("nvidia-smi memory.total") << 2 << 80.0 << "measured" << true << "memory.total";
        // rocm-smi / nvidia-smi without a total: the log's GPU name, in the one table.
        QTest::newRow("telemetry GPU name") << 3 << 192.0 << "estimated" << true << "the GPU name 'AMD Instinct MI300X'";
        // deviceProperties naming a GPU but without totalGlobalMem: the table.
        QTest::newRow("name in the table (H200)") << 4 << 141.0 << "estimated" << true << "NVIDIA H200";
        QTest::newRow("name in the table (T4)") << 5 << 16.0 << "estimated" << true << "Tesla T4";
        // A gfx1151 (Strix Halo) shares the system's memory: said so, the default stands in.
        QTest::newRow("gfx1151 shared") << 6 << 192.0 << "estimated" << false << "shares the system's memory";
        // Nothing: the reference's default, estimated.
        QTest::newRow("nothing") << 7 << 192.0 << "estimated" << false << "reference's default";
    }
    void capacity()
    {
        QFETCH(int, source);
        QFETCH(double, gb);
        QFETCH(QString, state);
        QFETCH(bool, fromRun);
        QFETCH(QString, sourceSays);
        RunAnalysis run;
        switch (source) {
        case 0:
            run.torch.timeline.files.push_back(
                describedFile(QStringLiteral("torch_profile"), {QStringLiteral("NVIDIA H100 80GB HBM3")}, {85029158912}));
            break;
        case 1:
            run.kernels.timeline.files.push_back(
                describedFile(QStringLiteral("nsys"), {QStringLiteral("NVIDIA H200")}, {qint64(141) << 30}));
            break;
        case 2:
            run.smi.gpuCount = 1;
            run.smi.hbmTotalGb = 80.0;
            run.smi.hbmTotalSource = QStringLiteral("'memory.total [MiB]' column");
            break;
        case 3:
            run.smi.gpuCount = 1;
            run.smi.gpuNames[0] = QStringLiteral("AMD Instinct MI300X");
            break;
        case 4:
            run.torch.timeline.files.push_back(describedFile(QStringLiteral("torch_profile"), {QStringLiteral("NVIDIA H200")}, {0}));
            break;
        case 5:
            run.torch.timeline.files.push_back(describedFile(QStringLiteral("torch_profile"), {QStringLiteral("Tesla T4")}, {}));
            break;
        case 6:
            run.kernels.timeline.files.push_back(describedFile(QStringLiteral("rocpd"), {QStringLiteral("gfx1151")}, {}));
            break;
        default:
            break;
        }
        const DeviceFacts d = decideDevices(run);
        QVERIFY2(std::fabs(d.capacityGb - gb) < 1e-9, qPrintable(QString::number(d.capacityGb)));
        QCOMPARE(valueStateName(d.capacityState), state);
        QCOMPARE(d.capacityFromRun, fromRun);
        QVERIFY2(d.capacitySource.contains(sourceSays), qPrintable(d.capacitySource));
        if (source == 6)
            QVERIFY(d.sharedMemory);
    }

    /// The capacity the budget and the quantities use is the facts' (an H100 trace is no 192 GB).
    void capacityReachesTheReport()
    {
        const LoadResult r = loadRun(test::dataPath(QStringLiteral("program/capture")));
        QVERIFY(r.run);
        const QJsonObject report = buildReport(*r.run, HeuristicsProfile::Workbench, Thresholds{});
        const double h100 = 85029158912.0 / double(1ll << 30);
        QVERIFY(std::fabs(report["thresholds"]["hbm_capacity_gb"].toDouble() - h100) < 1e-9);
        const QJsonObject q = report["quantities"]["hbm_capacity_gb"].toObject();
        QCOMPARE(q["state"].toString(), QStringLiteral("measured"));
        const QJsonArray devices = report["facts"]["devices"].toArray();
        QCOMPARE(devices.size(), 1);
        QCOMPARE(devices[0]["name"].toString(), QStringLiteral("GPU 0 (trace device 0)"));
        QCOMPARE(devices[0]["model"].toString(), QStringLiteral("NVIDIA H100 80GB HBM3"));
        QCOMPARE(devices[0]["memory_state"].toString(), QStringLiteral("measured"));
        // The reference keeps its 192 GB.
        const QJsonObject reference = buildReport(*r.run, HeuristicsProfile::Reference, Thresholds{});
        QCOMPARE(reference["thresholds"]["hbm_capacity_gb"].toDouble(), 192.0);
    }

    /// ROCm's blit kernels are copies on the timeline: not compute, with the copies (issue 32).
    void blitKernelsAreCopies()
    {
        const GpuTimeline tl = test::timelineFromSpec(
            QStringLiteral("file=t.json dev=2 K:Cijk_Alik_Bljk_BBS:0:1000 K:__amd_rocclr_copyBuffer:1000:1500 "
                           "K:__amd_rocclr_fillBufferAligned:1500:1700 C:1700:1800"));
        const TimelineAnalysis a = analyzeTimeline(tl);
        QCOMPARE(a.devices.size(), size_t(1));
        QCOMPARE(a.devices[0].computeNs, qint64(1000));
        QCOMPARE(a.devices[0].memcpyNs, qint64(800));
        QCOMPARE(a.devices[0].busyNs, qint64(1800));
    }

    void programKind_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("reasonSays");
        QTest::newRow("graph capture") << "program/capture" << "graph_capture" << "stream-capture";
        QTest::newRow("inference, no DataLoader") << "program/host-busy" << "inference" << "no DataLoader";
        QTest::newRow("range profiler") << "program/range-profile" << "range_profile" << "cuda_profiler_range";
        QTest::newRow("llama.cpp") << "program/llama-cpp" << "non_pytorch" << "ggml";
        QTest::newRow("HIP vectorAdd") << "program/vectoradd" << "micro_benchmark" << "vectorAdd";
        QTest::newRow("graph replay (vLLM decode)") << "runs/graph-replay-decode" << "graph_replay" << "hipGraphLaunch";
        QTest::newRow("training") << "traceonly/data-bound" << "training" << "backward";
    }
    void programKind()
    {
        QFETCH(QString, folder);
        QFETCH(QString, kind);
        QFETCH(QString, reasonSays);
        const LoadResult r = loadRun(test::dataPath(folder));
        QVERIFY2(r.run, qPrintable(r.error));
        QCOMPARE(programKindName(r.run->facts.program.kind), kind);
        QVERIFY2(r.run->facts.program.reason.contains(reasonSays), qPrintable(r.run->facts.program.reason));
        const QJsonObject report = buildReport(*r.run, HeuristicsProfile::Workbench, Thresholds{});
        QCOMPARE(report["run_kind"].toString(), kind);
        QCOMPARE(report["facts"]["program"]["kind"].toString(), kind);
    }

    /// Issue 32's measured failures, one row each: words that must and must not be said (advice
    /// and headline) at the default thresholds and at thresholds that book every host-busy idle
    /// as data wait; no advice for a bucket at 0.
    void wordsFitTheRun_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QStringList>("mustSay");
        QTest::addColumn<QStringList>("mustNotSay");
        QTest::newRow("llama.cpp: no torch.compile, no train in bf16")
            << "program/llama-cpp" << QStringList{}
            << QStringList{"torch.compile", "Train in", "DataLoader", "pin_memory", "num_workers", "torch.profiler"};
        QTest::newRow("vectorAdd: no pinned memory")
            << "program/vectoradd" << QStringList{} << QStringList{"pinned", "pin_memory", "DataLoader", "torch."};
        QTest::newRow("graph capture: a capture, not data wait")
            << "program/capture" << QStringList{"graph capture"}
            << QStringList{"Largest waste: Data wait", "serving", "DataLoader", "Train in"};
        QTest::newRow("inference without DataLoader: host-busy idle named so")
            << "program/host-busy" << QStringList{"no data-loading op"}
            << QStringList{"DataLoader", "num_workers", "0.00 ms", "torch.compile", "Train in"};
        QTest::newRow("range profiler: says what it is")
            << "program/range-profile" << QStringList{"range-profiler"} << QStringList{"DataLoader", "torch.compile"};
    }
    void wordsFitTheRun()
    {
        QFETCH(QString, folder);
        QFETCH(QStringList, mustSay);
        QFETCH(QStringList, mustNotSay);
        const LoadResult r = loadRun(test::dataPath(folder));
        QVERIFY2(r.run, qPrintable(r.error));
        Thresholds eager;
        eager.gpuUtilBelowPct = 99;
        eager.hostBusyAbove = 0.01;
        for (const Thresholds &t : {Thresholds{}, eager}) {
            const QJsonObject report = buildReport(*r.run, HeuristicsProfile::Workbench, t);
            const QString all = texts(report);
            for (const QString &s : mustSay)
                QVERIFY2(all.contains(s), qPrintable(s + QStringLiteral(" missing in: ") + all));
            for (const QString &s : mustNotSay)
                QVERIFY2(!all.contains(s), qPrintable(s + QStringLiteral(" in: ") + all));
            const QJsonObject buckets = report["budget"]["buckets"].toObject();
            for (const QJsonValue &a : report["advice"].toArray()) {
                const QJsonObject b = buckets[a["bucket"].toString()].toObject();
                QVERIFY2(b["seconds_per_step"].toDouble() > 0.0, qPrintable(a["text"].toString()));
                QVERIFY2(b["state"].toString() != QLatin1String("unknown"), qPrintable(a["text"].toString()));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestRunFactsDevicesProgram)
#include "tst_runfactsdevicesprogram.moc"
