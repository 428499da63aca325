// The GPU timeline of torch (Kineto) traces: device events per device and stream with exact
// integer-ns times, step windows, the host-busy union and the rank; chrome traces found in a run
// folder by their content, one timeline file per rank.
//
// Expected numbers: tests/data/torch/timeline_expected.py, an independent count with Python's
// json module (µs read as decimal.Decimal, so times are exact ns), run on each fixture:
//     cd tests/data/torch && python3 timeline_expected.py FILE...
// Its output (kernel/memcpy/memset counts, streams and kernel ns per device; steps; host pid, busy
// ns and interval count; rank) is copied into the _data() rows below. Chunk and byte-range
// invariance of the timeline is checked in tst_torchtraceparser (which can gunzip fixtures).

#include "kineto/gpuevents.h"
#include "kineto/tracediscovery.h"
#include "torchtraceparser.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <optional>

using namespace goblin;
using goblin::test::dataPath;

namespace {

QString fixture(const QString &name)
{
    return dataPath(QStringLiteral("torch/") + name);
}

const GpuDeviceTimeline *findDevice(const GpuTimelineFile &file, qint64 device)
{
    for (const GpuDeviceTimeline &d : file.devices)
        if (d.device == device)
            return &d;
    return nullptr;
}

QString digest(const GpuTimelineFile &f) { return test::timelineFileDigest(f); }

QString diagnosticsText(const TorchTrace &t)
{
    QStringList lines;
    for (const Diagnostic &d : t.diagnostics)
        lines << QStringLiteral("%1:%2: %3").arg(d.file).arg(d.line).arg(d.message);
    return lines.join(QLatin1Char('\n'));
}

void copyInto(const QString &from, const QString &to)
{
    QDir().mkpath(QFileInfo(to).absolutePath());
    QVERIFY2(QFile::copy(from, to), qPrintable(to));
}

void writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    QVERIFY2(f.open(QIODevice::WriteOnly), qPrintable(path));
    QCOMPARE(f.write(bytes), bytes.size());
}

} // namespace

class TestKinetoTimeline : public QObject
{
    Q_OBJECT

private slots:
    void devicesMatchAnIndependentCount_data();
    void devicesMatchAnIndependentCount();
    void stepsHostAndRank_data();
    void stepsHostAndRank();
    void eventsAreExactAndInDocumentOrder();
    void gzipAndPlainGiveTheSameTimeline();
    void unusableDeviceEventsAreDiagnosed();
    void rankFromFileName_data();
    void rankFromFileName();
    void tracesAreFoundByContent();
    void rankFolderGivesOneFilePerRank();
    void primaryFileStaysFirst();
};

void TestKinetoTimeline::devicesMatchAnIndependentCount_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("devices");
    QTest::addColumn<qint64>("device");
    QTest::addColumn<int>("kernels");
    QTest::addColumn<int>("memcpy");
    QTest::addColumn<int>("memset");
    QTest::addColumn<int>("streams");
    QTest::addColumn<qint64>("kernelNs");
    // ROCm Kineto numbers devices from 2 (MI250, MI300) or 1 (MI210): kept as written.
    QTest::newRow("MI250 ROCm 6.2") << "hta_amd_mi250_minitoy_train_ROCm6_2_kineto.json.gz" << 1 << qint64(2) << 14 << 2 << 0 << 1 << qint64(110881);
    QTest::newRow("MI250 plain") << "hta_amd_mi250_minitoy_train_ROCm6_2_kineto.json" << 1 << qint64(2) << 14 << 2 << 0 << 1 << qint64(110881);
    QTest::newRow("MI210 GPU only") << "tracelens_mi210_gpu_only_trace.json.gz" << 1 << qint64(1) << 562 << 0 << 0 << 1 << qint64(5343422);
    QTest::newRow("MI300X bert") << "tracelens_mi300_gaunernst_bert-small-uncased__1016001.json.gz" << 1 << qint64(2) << 60 << 1 << 0 << 1 << qint64(388344);
    QTest::newRow("MI300X triton") << "tracelens_mi300x_torch_compile_triton_trace.json.gz" << 1 << qint64(2) << 12 << 0 << 0 << 1 << qint64(12549021);
    QTest::newRow("H100 bert") << "tracelens_h100_gaunernst_bert-small-uncased__1016001.json.gz" << 1 << qint64(0) << 60 << 1 << 0 << 1 << qint64(307197);
    QTest::newRow("NCCL rank 0") << "hta_trace_filter_sampled_rank-0.json.gz" << 1 << qint64(0) << 1154 << 40 << 10 << 5 << qint64(606519000);
    QTest::newRow("NCCL rank 1") << "hta_trace_filter_sampled_rank-1.json.gz" << 1 << qint64(1) << 1104 << 40 << 10 << 5 << qint64(651026000);
    QTest::newRow("ns resolution") << "hta_ns_resolution_rank-0_subset.json.gz" << 1 << qint64(0) << 1742 << 700 << 58 << 1 << qint64(187438766);
    QTest::newRow("Kineto 2021") << "kineto_2021_resnet50_gpu_events.json.gz" << 1 << qint64(0) << 1446 << 2 << 52 << 1 << qint64(98467000);
    QTest::newRow("make_run 2 streams") << "gen_two_gpus_seed7.json.gz" << 1 << qint64(0) << 60 << 3 << 0 << 2 << qint64(8977624);
    QTest::newRow("make_run plain") << "gen_none.json" << 1 << qint64(0) << 60 << 3 << 0 << 1 << qint64(7401836);
    QTest::newRow("CPU only") << "hta_cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz" << 0 << qint64(0) << 0 << 0 << 0 << 0 << qint64(0);
}

void TestKinetoTimeline::devicesMatchAnIndependentCount()
{
    QFETCH(QString, file);
    QFETCH(int, devices);
    QFETCH(qint64, device);
    QFETCH(int, kernels);
    QFETCH(int, memcpy);
    QFETCH(int, memset);
    QFETCH(int, streams);
    QFETCH(qint64, kernelNs);
    const TorchTrace t = parseTorchTraceFile(fixture(file), file);
    QCOMPARE(t.timeline.files.size(), size_t(1));
    const GpuTimelineFile &f = t.timeline.files.front();
    QCOMPARE(f.source, QStringLiteral("torch_profile"));
    QCOMPARE(f.file, file);
    QCOMPARE(int(f.devices.size()), devices);
    if (devices == 0)
        return;
    const GpuDeviceTimeline *d = findDevice(f, device);
    QVERIFY(d);
    int counts[3] = {0, 0, 0};
    qint64 ns = 0;
    for (const GpuEvent &e : d->events) {
        ++counts[int(e.kind)];
        QVERIFY(e.endNs >= e.startNs);
        QVERIFY(e.nameId < f.names.size());
        QVERIFY(e.stream < d->streams.size());
        if (e.kind == GpuEventKind::Kernel)
            ns += e.endNs - e.startNs;
    }
    QCOMPARE(counts[int(GpuEventKind::Kernel)], kernels);
    QCOMPARE(counts[int(GpuEventKind::Memcpy)], memcpy);
    QCOMPARE(counts[int(GpuEventKind::Memset)], memset);
    QCOMPARE(int(d->streams.size()), streams);
    QCOMPARE(ns, kernelNs);  // exact: a sum of doubles would be off by µs on absolute timestamps
    QCOMPARE(d->file, file);
    QCOMPARE(d->source, QStringLiteral("torch_profile"));
    QCOMPARE(d->rank, f.rank);
    // No diagnostic about device events: every one had its device and stream.
    QVERIFY2(!diagnosticsText(t).contains(QLatin1String("GPU event")), qPrintable(diagnosticsText(t)));
}

void TestKinetoTimeline::stepsHostAndRank_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("rank");  // -1: unknown
    QTest::addColumn<int>("cpuSteps");
    QTest::addColumn<int>("gpuSteps");
    QTest::addColumn<qint64>("firstStart");
    QTest::addColumn<qint64>("firstEnd");
    QTest::addColumn<qint64>("hostPid");
    QTest::addColumn<qint64>("hostBusyNs");
    QTest::addColumn<int>("hostIntervals");
    QTest::newRow("MI250") << "hta_amd_mi250_minitoy_train_ROCm6_2_kineto.json.gz" << -1 << 2 << 2 << qint64(4203669603187439) << qint64(4203669612475730) << qint64(597913) << qint64(8581804) << 16;
    QTest::newRow("CPU only, rank 34") << "hta_cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz" << 34 << 1 << 0 << qint64(1212075529876817) << qint64(1212075739985979) << qint64(1074) << qint64(3964) << 4;
    QTest::newRow("rank 0") << "hta_trace_filter_sampled_rank-0.json.gz" << 0 << 2 << 0 << qint64(1682725898079292000) << qint64(1682725898686604000) << qint64(4037) << qint64(623183000) << 514;
    QTest::newRow("rank 1") << "hta_trace_filter_sampled_rank-1.json.gz" << 1 << 2 << 0 << qint64(1682725898079484000) << qint64(1682725898687388000) << qint64(4045) << qint64(639271000) << 495;
    QTest::newRow("ns resolution") << "hta_ns_resolution_rank-0_subset.json.gz" << 0 << 5 << 5 << qint64(1712195495502094565) << qint64(1712195495537210434) << qint64(1102) << qint64(6702827) << 297;
    QTest::newRow("Kineto 2021 steps") << "kineto_2021_resnet50_gpu_events.json.gz" << -1 << 6 << 0 << qint64(1623142623460172000) << qint64(1623142623636250000) << qint64(-1) << qint64(0) << 0;
    QTest::newRow("Kineto 2021 operators") << "kineto_2021_resnet50_first_step.json.gz" << -1 << 1 << 0 << qint64(1623142623460172000) << qint64(1623142623636250000) << qint64(25738) << qint64(162933000) << 597;
    QTest::newRow("H100") << "tracelens_h100_gaunernst_bert-small-uncased__1016001.json.gz" << -1 << 1 << 1 << qint64(1419247332972313) << qint64(1419247337398427) << qint64(19392) << qint64(2108422) << 104;
    QTest::newRow("GPU only") << "tracelens_mi210_gpu_only_trace.json.gz" << -1 << 0 << 0 << qint64(0) << qint64(0) << qint64(-1) << qint64(0) << 0;
    QTest::newRow("triton, no steps") << "tracelens_mi300x_torch_compile_triton_trace.json.gz" << -1 << 0 << 0 << qint64(0) << qint64(0) << qint64(3182306) << qint64(878845) << 2;
    QTest::newRow("make_run distributedInfo") << "gen_two_gpus_seed7.json.gz" << 0 << 3 << 3 << qint64(3654449201020) << qint64(3654454321859) << qint64(48213) << qint64(3504244) << 6;
}

void TestKinetoTimeline::stepsHostAndRank()
{
    QFETCH(QString, file);
    QFETCH(int, rank);
    QFETCH(int, cpuSteps);
    QFETCH(int, gpuSteps);
    QFETCH(qint64, firstStart);
    QFETCH(qint64, firstEnd);
    QFETCH(qint64, hostPid);
    QFETCH(qint64, hostBusyNs);
    QFETCH(int, hostIntervals);
    const TorchTrace t = parseTorchTraceFile(fixture(file), file);
    QCOMPARE(t.timeline.files.size(), size_t(1));
    const GpuTimelineFile &f = t.timeline.files.front();
    QCOMPARE(f.rank.value_or(-1), rank);
    int cpu = 0, gpu = 0;
    for (size_t i = 0; i < f.steps.size(); ++i) {
        (f.steps[i].gpuLane ? gpu : cpu)++;
        QVERIFY(f.steps[i].endNs >= f.steps[i].startNs);
        if (i > 0)
            QVERIFY(f.steps[i - 1].startNs <= f.steps[i].startNs);  // sorted by start
        QVERIFY(f.steps[i].name.startsWith(QLatin1String("ProfilerStep#")) ||
                f.steps[i].name.startsWith(QLatin1String("Optimizer.step")));
    }
    QCOMPARE(cpu, cpuSteps);
    QCOMPARE(gpu, gpuSteps);
    if (!f.steps.empty()) {
        QCOMPARE(f.steps.front().startNs, firstStart);
        QCOMPARE(f.steps.front().endNs, firstEnd);
    }
    qint64 busy = 0;
    for (size_t i = 0; i < f.hostBusy.size(); ++i) {
        QVERIFY(f.hostBusy[i].endNs > f.hostBusy[i].startNs);
        if (i > 0)
            QVERIFY(f.hostBusy[i - 1].endNs < f.hostBusy[i].startNs);  // sorted, disjoint, not touching
        busy += f.hostBusy[i].endNs - f.hostBusy[i].startNs;
    }
    QCOMPARE(busy, hostBusyNs);
    QCOMPARE(int(f.hostBusy.size()), hostIntervals);
    for (const GpuDeviceTimeline &d : f.devices)
        QCOMPARE(d.pid, hostPid);
}

// Hand-written: zero-length kernels kept, fractions of µs exact to the ns far from the epoch,
// devices and streams as written (also quoted), names with escapes interned once, document order
// kept even when out of time order, GPU-lane Optimizer.step annotations, and the host process
// chosen by its ProfilerStep marks.
void TestKinetoTimeline::eventsAreExactAndInDocumentOrder()
{
    const QByteArray doc = R"({"distributedInfo": {"backend": "nccl", "pg_config": [{"rank": 9}], "rank": 5},
 "traceEvents": [
 {"ph": "X", "cat": "kernel", "name": "k\u0041", "pid": 3, "tid": 7, "ts": 1712195495505582.988, "dur": 4.928, "args": {"device": 3, "stream": 7, "grid": [1, {"device": 9}]}},
 {"ph": "X", "cat": "kernel", "name": "kA", "pid": 3, "tid": 7, "ts": 1712195495505500.001, "dur": 0, "args": {"stream": "7", "device": "3"}},
 {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 3, "tid": 9, "ts": 1712195495505600, "dur": 0.0005, "args": {"device": 3, "stream": 9}},
 {"ph": "X", "cat": "gpu_memset", "name": "Memset", "pid": 4, "tid": 1, "ts": 10.5, "dur": 1.25, "args": {"device": 4, "stream": 1}},
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 100, "tid": 1, "ts": 50, "dur": 100},
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 100, "tid": 1, "ts": 0, "dur": 50},
 {"ph": "X", "cat": "gpu_user_annotation", "name": "Optimizer.step#SGD.step", "pid": 3, "tid": 7, "ts": 40, "dur": 5},
 {"ph": "X", "cat": "user_annotation", "name": "Optimizer.step#SGD.step", "pid": 100, "tid": 1, "ts": 30, "dur": 15},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100, "tid": 1, "ts": 1, "dur": 2},
 {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 100, "tid": 2, "ts": 2.5, "dur": 2},
 {"ph": "X", "cat": "cpu_op", "name": "aten::item", "pid": 100, "tid": 1, "ts": 8, "dur": 2},
 {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 100, "tid": 1, "ts": 4.5, "dur": 0.5},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 200, "tid": 1, "ts": 0, "dur": 1000}
 ]})";
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("x.json"));
    writeFile(path, doc);
    const TorchTrace t = parseTorchTraceFile(path, QStringLiteral("x.json"));
    QCOMPARE(diagnosticsText(t), QString());
    QCOMPARE(t.timeline.files.size(), size_t(1));
    const GpuTimelineFile &f = t.timeline.files.front();
    QCOMPARE(f.rank, std::optional<int>(5));  // the top-level rank, not the one nested deeper
    QCOMPARE(f.devices.size(), size_t(2));
    const GpuDeviceTimeline &d3 = f.devices[0];
    QCOMPARE(d3.device, qint64(3));
    QCOMPARE(d3.streams, (std::vector<qint64>{7, 9}));
    QCOMPARE(d3.events.size(), size_t(3));
    QCOMPARE(d3.events[0].startNs, qint64(1712195495505582988));
    QCOMPARE(d3.events[0].endNs, qint64(1712195495505587916));
    QCOMPARE(d3.events[1].startNs, qint64(1712195495505500001));  // document order, not time order
    QCOMPARE(d3.events[1].endNs, d3.events[1].startNs);            // zero length kept
    QCOMPARE(d3.events[0].nameId, d3.events[1].nameId);            // "k\u0041" is "kA": one name
    QCOMPARE(QString::fromStdString(f.names.at(d3.events[0].nameId)), QStringLiteral("kA"));
    QCOMPARE(d3.events[2].kind, GpuEventKind::Memcpy);
    QCOMPARE(d3.events[2].endNs - d3.events[2].startNs, qint64(1));  // 0.0005 µs rounds half up
    QCOMPARE(d3.streams.at(d3.events[2].stream), qint64(9));
    QCOMPARE(f.devices[1].device, qint64(4));
    QCOMPARE(f.devices[1].events.at(0).kind, GpuEventKind::Memset);
    QCOMPARE(f.devices[1].events.at(0).startNs, qint64(10500));
    QCOMPARE(f.devices[1].events.at(0).endNs, qint64(11750));
    // Steps sorted by start; the CPU lane's Optimizer.step is no step window.
    QCOMPARE(f.steps.size(), size_t(3));
    QCOMPARE(f.steps[0].name, QStringLiteral("ProfilerStep#1"));
    QCOMPARE(f.steps[1].name, QStringLiteral("Optimizer.step#SGD.step"));
    QVERIFY(f.steps[1].gpuLane);
    QCOMPARE(f.steps[1].startNs, qint64(40000));
    QCOMPARE(f.steps[2].name, QStringLiteral("ProfilerStep#2"));
    QVERIFY(!f.steps[2].gpuLane);
    // Host: pid 100 (the ProfilerStep marks), although pid 200 has more operator time; threads
    // merged; aten::item (waits for the GPU) and the annotations do not count.
    QCOMPARE(f.devices[0].pid, qint64(100));
    QCOMPARE(f.hostBusy.size(), size_t(1));
    QCOMPARE(f.hostBusy[0].startNs, qint64(1000));
    QCOMPARE(f.hostBusy[0].endNs, qint64(5000));
}

void TestKinetoTimeline::gzipAndPlainGiveTheSameTimeline()
{
    const QString gz = QStringLiteral("hta_amd_mi250_minitoy_train_ROCm6_2_kineto.json.gz");
    const TorchTrace a = parseTorchTraceFile(fixture(gz), QStringLiteral("t"));
    const TorchTrace b = parseTorchTraceFile(fixture(gz.chopped(3)), QStringLiteral("t"));
    QVERIFY(a.file.compressed);
    QVERIFY(!b.file.compressed);
    QCOMPARE(a.timeline.files.size(), size_t(1));
    QCOMPARE(b.timeline.files.size(), size_t(1));
    QVERIFY(!a.timeline.files[0].devices.empty());
    QCOMPARE(digest(a.timeline.files[0]), digest(b.timeline.files[0]));
}

void TestKinetoTimeline::unusableDeviceEventsAreDiagnosed()
{
    const QByteArray doc = R"({"traceEvents": [
 {"ph": "X", "cat": "kernel", "name": "ok", "ts": 1, "dur": 1, "args": {"device": 0, "stream": 7}},
 {"ph": "X", "cat": "kernel", "name": "no stream", "ts": 2, "dur": 1, "args": {"device": 0}},
 {"ph": "X", "cat": "kernel", "name": "no args", "ts": 3, "dur": 1},
 {"ph": "X", "cat": "Memcpy", "name": "fraction", "ts": 4, "dur": 1, "args": {"device": 0.5, "stream": 7}},
 {"ph": "X", "cat": "kernel", "name": "args not an object", "ts": 5, "dur": 1, "args": [0, 7]},
 {"ph": "X", "cat": "kernel", "name": "bad ts", "ts": "soon", "dur": 1, "args": {"device": 0, "stream": 7}}
 ]})";
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("bad.json"));
    writeFile(path, doc);
    const TorchTrace t = parseTorchTraceFile(path, QStringLiteral("bad.json"));
    const QString diags = diagnosticsText(t);
    QVERIFY2(diags.contains(QLatin1String("bad.json:3: 4 GPU event(s) without a usable args.device and args.stream "
                                          "(the first at line 3)")),
             qPrintable(diags));
    QVERIFY2(diags.contains(QLatin1String("unusable \"ts\"")), qPrintable(diags));
    QCOMPARE(t.timeline.files.size(), size_t(1));
    QCOMPARE(t.timeline.files[0].devices.size(), size_t(1));
    QCOMPARE(t.timeline.files[0].devices[0].events.size(), size_t(1));
}

void TestKinetoTimeline::rankFromFileName_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("rank");
    QTest::newRow("rank-3") << "rank-3.json.gz" << 3;
    QTest::newRow("sampled_rank-0") << "sampled_rank-0.json.gz" << 0;
    QTest::newRow("rank3") << "rank3.pt.trace.json" << 3;
    QTest::newRow("rank_12") << "trace_rank_12.json" << 12;
    QTest::newRow("HTA name") << "rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz" << 34;
    QTest::newRow("Rank upper case") << "Rank7.json" << 7;
    QTest::newRow("worker") << "worker0.1623143089861.pt.trace.json.gz" << -1;
    QTest::newRow("word with rank inside") << "frankly-2.json" << -1;
    QTest::newRow("no digits") << "rank-x.json" << -1;
}

void TestKinetoTimeline::rankFromFileName()
{
    QFETCH(QString, name);
    QFETCH(int, rank);
    QCOMPARE(kineto::rankFromFileName(name).value_or(-1), rank);
}

void TestKinetoTimeline::tracesAreFoundByContent()
{
    QTemporaryDir dir;
    const QDir d(dir.path());
    copyInto(fixture(QStringLiteral("hta_trace_filter_sampled_rank-1.json.gz")), d.filePath(QStringLiteral("b/whatever.gz")));
    copyInto(fixture(QStringLiteral("gen_none.json")), d.filePath(QStringLiteral("trace_without_extension")));
    writeFile(d.filePath(QStringLiteral("metadata.json")), R"({"run": 1, "steps": [1, 2], "nested": {"traceEvents": []}})");
    writeFile(d.filePath(QStringLiteral("list.json")), R"([{"traceEvents": []}])");
    writeFile(d.filePath(QStringLiteral("trace.csv")), "Kernel_Name,Start_Timestamp\n\"{\",1\n");
    writeFile(d.filePath(QStringLiteral("broken.json")), "{\"schemaVersion\": 1,, \"traceEvents\": []}");
    writeFile(d.filePath(QStringLiteral("late.json")),
              "{\"deviceProperties\": [" + QByteArray(200000, ' ') + "], \"traceEvents\": []}");
    writeFile(d.filePath(QStringLiteral("empty.json")), "");
    QDir().mkpath(d.filePath(QStringLiteral("b/c")));
    copyInto(fixture(QStringLiteral("gen_none.json")), d.filePath(QStringLiteral("b/c/too_deep.json")));
    // A compressed copy next to its plain trace is the same trace.
    copyInto(fixture(QStringLiteral("hta_amd_mi250_minitoy_train_ROCm6_2_kineto.json")), d.filePath(QStringLiteral("t.json")));
    copyInto(fixture(QStringLiteral("hta_amd_mi250_minitoy_train_ROCm6_2_kineto.json.gz")), d.filePath(QStringLiteral("t.json.gz")));

    // Sessions of one worker (tensorboard_trace_handler's <worker>.<timestamp>.pt.trace.json): the
    // latest timestamp as a number (10 after 9), not as text; another worker is another rank.
    copyInto(fixture(QStringLiteral("gen_none.json")), d.filePath(QStringLiteral("host_7.9.pt.trace.json")));
    copyInto(fixture(QStringLiteral("gen_none.json")), d.filePath(QStringLiteral("host_7.10.pt.trace.json")));
    copyInto(fixture(QStringLiteral("gen_none.json")), d.filePath(QStringLiteral("host_8.9.pt.trace.json")));

    QVERIFY(kineto::looksLikeChromeTrace(d.filePath(QStringLiteral("late.json"))));
    QVERIFY(!kineto::looksLikeChromeTrace(d.filePath(QStringLiteral("metadata.json"))));
    QVERIFY(!kineto::looksLikeChromeTrace(d.filePath(QStringLiteral("broken.json"))));
    QStringList found;
    std::vector<kineto::SkippedTrace> skipped;
    for (const kineto::FoundTrace &f : kineto::findChromeTraces(dir.path(), &skipped))
        found << QStringLiteral("%1=%2").arg(f.relativePath).arg(f.nameRank.value_or(-1));
    // Named ranks first (in rank order), then by path.
    QCOMPARE(found, (QStringList{QStringLiteral("b/whatever.gz=-1"), QStringLiteral("host_7.10.pt.trace.json=-1"),
                                 QStringLiteral("host_8.9.pt.trace.json=-1"), QStringLiteral("late.json=-1"),
                                 QStringLiteral("t.json=-1"), QStringLiteral("trace_without_extension=-1")}));
    QStringList left;
    for (const kineto::SkippedTrace &s : skipped)
        left << QStringLiteral("%1->%2:%3").arg(s.relativePath, s.keptPath)
                    .arg(s.reason == kineto::SkippedTrace::Reason::CompressedCopy ? "copy" : "older");
    QCOMPARE(left, (QStringList{QStringLiteral("host_7.9.pt.trace.json->host_7.10.pt.trace.json:older"),
                                QStringLiteral("t.json.gz->t.json:copy")}));
}

void TestKinetoTimeline::rankFolderGivesOneFilePerRank()
{
    // A folder of only sampled_rank-N.json.gz (as HTA's trace_filter data): the lowest rank is the
    // primary trace (the readings), every rank a timeline file; one of them in a sub-folder.
    QTemporaryDir dir;
    copyInto(fixture(QStringLiteral("hta_trace_filter_sampled_rank-1.json.gz")), dir.filePath(QStringLiteral("node1/sampled_rank-1.json.gz")));
    copyInto(fixture(QStringLiteral("hta_trace_filter_sampled_rank-0.json.gz")), dir.filePath(QStringLiteral("sampled_rank-0.json.gz")));
    const TorchTrace t = parseTorchTrace(dir.path());
    QCOMPARE(t.file.relativePath, QStringLiteral("sampled_rank-0.json.gz"));
    QVERIFY(!t.referenceFileFound);
    QVERIFY(t.workbench.stepTimeSeconds.has_value());
    QCOMPARE(t.workbench.profilerSteps, 2);
    QCOMPARE(t.timeline.files.size(), size_t(2));
    QCOMPARE(t.timeline.files[0].file, QStringLiteral("sampled_rank-0.json.gz"));
    QCOMPARE(t.timeline.files[0].rank, std::optional<int>(0));
    QCOMPARE(t.timeline.files[1].file, QStringLiteral("node1/sampled_rank-1.json.gz"));
    QCOMPARE(t.timeline.files[1].rank, std::optional<int>(1));
    QCOMPARE(t.timeline.files[1].devices.size(), size_t(1));
    QCOMPARE(t.timeline.files[1].devices[0].device, qint64(1));
    QCOMPARE(t.timeline.files[1].devices[0].rank, std::optional<int>(1));
    // The same timeline as the file read alone.
    const TorchTrace alone = parseTorchTraceFile(fixture(QStringLiteral("hta_trace_filter_sampled_rank-1.json.gz")),
                                                 QStringLiteral("node1/sampled_rank-1.json.gz"));
    QCOMPARE(digest(t.timeline.files[1]), digest(alone.timeline.files[0]));

    // Progress goes on past the primary file's bytes while the other ranks are read; a cancel
    // there stops the reading.
    const qint64 primaryBytes = QFileInfo(dir.filePath(QStringLiteral("sampled_rank-0.json.gz"))).size();
    qint64 most = 0;
    const TorchTrace all = parseTorchTrace(dir.path(), [&](qint64 done) {
        most = std::max(most, done);
        return true;
    });
    QVERIFY(!all.cancelled);
    QCOMPARE(most, primaryBytes + QFileInfo(dir.filePath(QStringLiteral("node1/sampled_rank-1.json.gz"))).size());
    const TorchTrace cancelled = parseTorchTrace(dir.path(), [&](qint64 done) { return done <= primaryBytes; });
    QVERIFY(cancelled.cancelled);
    QCOMPARE(cancelled.timeline.files.size(), size_t(1));
}

void TestKinetoTimeline::primaryFileStaysFirst()
{
    // torch_profile.json stays the file the readings come from, whatever else is in the folder;
    // the other traces add their timelines after it, in rank order.
    QTemporaryDir dir;
    copyInto(fixture(QStringLiteral("gen_none.json")), dir.filePath(QStringLiteral("torch_profile.json")));
    copyInto(fixture(QStringLiteral("hta_trace_filter_sampled_rank-1.json.gz")), dir.filePath(QStringLiteral("rank-1.json.gz")));
    copyInto(fixture(QStringLiteral("hta_amd_mi250_minitoy_train_ROCm6_2_kineto.json.gz")), dir.filePath(QStringLiteral("zz.json.gz")));
    const TorchTrace withOthers = parseTorchTrace(dir.path());
    QVERIFY(withOthers.referenceFileFound);
    QCOMPARE(withOthers.file.relativePath, QStringLiteral("torch_profile.json"));
    QCOMPARE(withOthers.timeline.files.size(), size_t(3));
    QCOMPARE(withOthers.timeline.files[0].file, QStringLiteral("torch_profile.json"));
    QCOMPARE(withOthers.timeline.files[1].file, QStringLiteral("rank-1.json.gz"));
    QCOMPARE(withOthers.timeline.files[2].file, QStringLiteral("zz.json.gz"));
    QCOMPARE(withOthers.timeline.files[2].rank, std::nullopt);

    QTemporaryDir alone;
    copyInto(fixture(QStringLiteral("gen_none.json")), alone.filePath(QStringLiteral("torch_profile.json")));
    const TorchTrace single = parseTorchTrace(alone.path());
    QCOMPARE(single.timeline.files.size(), size_t(1));
    // The readings do not change with the other files present.
    QCOMPARE(withOthers.reference.stepTimeSeconds, single.reference.stepTimeSeconds);
    QCOMPARE(withOthers.reference.hostBusyFraction, single.reference.hostBusyFraction);
    QCOMPARE(withOthers.workbench.stepTimeSeconds, single.workbench.stepTimeSeconds);
    QCOMPARE(withOthers.workbench.hostBusyFraction, single.workbench.hostBusyFraction);
    QCOMPARE(withOthers.eventCount, single.eventCount);
    QCOMPARE(digest(withOthers.timeline.files[0]), digest(single.timeline.files[0]));
}

QTEST_GUILESS_MAIN(TestKinetoTimeline)
#include "tst_kinetotimeline.moc"
