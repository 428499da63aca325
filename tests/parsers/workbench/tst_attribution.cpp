// Attribution of GPU time to CPU ops (workbench/attributionconsumer, docs/attribution.md) on real
// Kineto traces: AMD and NVIDIA, Kineto 2021 "Operator" traces, record_shapes, CUDA graphs, a
// GPU-only trace. The expected figures are the independent count of scripts/attribution_count.py
// (`python3 scripts/attribution_count.py tests/data/attribution/FILE --expected`), not this code's.
#include "testsupport.h"
#include "torchtraceparser.h"

#include <QtTest>

using namespace goblin;
using goblin::test::dataPath;
using goblin::test::readGunzipped;

namespace {

QString digest(const AttributionScope &s)
{
    QStringList lines;
    lines << QStringLiteral("%1 gpu %2 attributed %3 unattributed %4/%5/%6")
                 .arg(s.label)
                 .arg(s.gpuTimeNs)
                 .arg(s.attributedNs)
                 .arg(s.unattributedNs[0])
                 .arg(s.unattributedNs[1])
                 .arg(s.unattributedNs[2]);
    for (const OpStats &op : s.ops)
        lines << QStringLiteral("op %1 %2 %3 %4 %5 %6 %7 %8")
                     .arg(op.name, op.inputShapes.value_or(QStringLiteral("<none>")))
                     .arg(op.calls)
                     .arg(op.hostSelfNs)
                     .arg(op.hostTotalNs)
                     .arg(op.deviceSelfNs)
                     .arg(op.deviceTotalNs)
                     .arg(op.kernels);
    for (const LaunchNode &n : s.launches.nodes)
        lines << QStringLiteral("frame %1 %2 %3 %4 %5").arg(n.name).arg(int(n.kind)).arg(n.parent).arg(n.gpuNs).arg(n.hostNs);
    for (const KernelOpLink &l : s.kernelOps)
        lines << QStringLiteral("link %1 %2 %3 %4").arg(l.kernelName, l.opName).arg(l.events).arg(l.deviceNs);
    return lines.join(QLatin1Char('\n'));
}

QString digest(const TraceAttribution &a)
{
    QString out = QStringLiteral("%1 %2 %3\n").arg(a.available).arg(a.linkMethod).arg(a.shapesRecorded) + digest(a.wholeTrace);
    for (const AttributionScope &s : a.steps)
        out += QLatin1Char('\n') + digest(s);
    return out;
}

qint64 moduleDevice(const ModuleNode &n) { return n.deviceNs; }

} // namespace

class TestAttribution : public QObject
{
    Q_OBJECT

private slots:
    void counts_data();
    void counts();
    void sameWithByteRanges_data();
    void sameWithByteRanges();
    void modulesAndSteps();
};

void TestAttribution::counts_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<qint64>("gpuNs");
    QTest::addColumn<qint64>("attributedNs");
    QTest::addColumn<qint64>("noRuntimeNs");
    QTest::addColumn<qint64>("graphReplayNs");
    QTest::addColumn<qint64>("noOpNs");
    QTest::addColumn<int>("rows");
    // The op with the most device self time (ties: name, shapes), as the script ranks them.
    QTest::addColumn<QString>("topName");
    QTest::addColumn<QString>("topShapes");  // "" = not recorded
    QTest::addColumn<qint64>("calls");
    QTest::addColumn<qint64>("deviceSelfNs");
    QTest::addColumn<qint64>("deviceTotalNs");
    QTest::addColumn<qint64>("kernels");
    QTest::addColumn<qint64>("hostSelfNs");
    QTest::addColumn<qint64>("hostTotalNs");

    QTest::newRow("AMD MI250, ROCm 6.2, record_shapes")
        << "hta_amd_mi250_minitoy_train_ROCm6_2_kineto.json.gz" << qint64(149042) << qint64(149042) << qint64(0)
        << qint64(0) << qint64(0) << 53 << "aten::copy_" << "[[5,128],[5,128],[]]" << qint64(2) << qint64(38161)
        << qint64(38161) << qint64(2) << qint64(136719) << qint64(136719);
    QTest::newRow("AMD MI300X, python frames and modules")
        << "tracelens_mi300_gaunernst_bert-small-uncased__1016001.json.gz" << qint64(390748) << qint64(390748)
        << qint64(0) << qint64(0) << qint64(0) << 66 << "aten::_flash_attention_forward"
        << "[[1,141,8,64],[1,141,8,64],[1,141,8,64],[],[],[],[],[],[],[],[],[],[],[],[]]" << qint64(4)
        << qint64(113656) << qint64(113656) << qint64(4) << qint64(84014) << qint64(159836);
    QTest::newRow("NVIDIA H100, runtime and driver launches")
        << "tracelens_h100_gaunernst_bert-small-uncased__1016001.json.gz" << qint64(309437) << qint64(309437)
        << qint64(0) << qint64(0) << qint64(0) << 65 << "aten::addmm" << "[[512],[141,512],[512,512],[],[]]"
        << qint64(17) << qint64(98718) << qint64(98718) << qint64(17) << qint64(440978) << qint64(485398);
    QTest::newRow("NVIDIA V100, CUDA graphs, record_shapes, 2022")
        << "hta_v100_rank1of2_cudagraph_record_shapes.json.gz" << qint64(963762000) << qint64(894964000)
        << qint64(56517000) << qint64(0) << qint64(12281000) << 1275 << "record_param_comms" << "" << qint64(102)
        << qint64(229034000) << qint64(229034000) << qint64(60) << qint64(6170000) << qint64(6170000);
    QTest::newRow("Kineto 2021 Operator/Runtime/Kernel, External id = correlation")
        << "kineto_2021_resnet50_worker0.json.gz" << qint64(603558000) << qint64(603558000) << qint64(0) << qint64(0)
        << qint64(0) << 580 << "aten::cudnn_batch_norm_backward"
        << "[[32,256,56,56],[32,256,56,56],[256],[256],[256],[256],[256],[],[0]]" << qint64(24) << qint64(16151000)
        << qint64(16151000) << qint64(24) << qint64(1279000) << qint64(2177000);
    QTest::newRow("MI210, GPU and runtime only: no op to attribute to")
        << "tracelens_mi210_gpu_only_trace.json.gz" << qint64(5343422) << qint64(0) << qint64(0) << qint64(0)
        << qint64(5343422) << 0 << "" << "" << qint64(0) << qint64(0) << qint64(0) << qint64(0) << qint64(0) << qint64(0);
}

void TestAttribution::counts()
{
    QFETCH(QString, file);
    const TorchTrace trace = parseTorchTraceFile(dataPath(QStringLiteral("attribution/") + file), file);
    const TraceAttribution &a = trace.attribution;
    const AttributionScope &whole = a.wholeTrace;
    QFETCH(qint64, gpuNs);
    QFETCH(qint64, attributedNs);
    QFETCH(qint64, noRuntimeNs);
    QFETCH(qint64, graphReplayNs);
    QFETCH(qint64, noOpNs);
    QFETCH(int, rows);
    QCOMPARE(whole.gpuTimeNs, gpuNs);
    QCOMPARE(whole.attributedNs, attributedNs);
    QCOMPARE(whole.unattributedNs[int(UnattributedReason::NoRuntimeEvent)], noRuntimeNs);
    QCOMPARE(whole.unattributedNs[int(UnattributedReason::GraphReplayWithoutCorrelation)], graphReplayNs);
    QCOMPARE(whole.unattributedNs[int(UnattributedReason::NoEnclosingOp)], noOpNs);
    QCOMPARE(int(whole.ops.size()), rows);

    // Attributed + unattributed = GPU time, for the whole trace and every step; the ops' device
    // self time is the attributed time, split.
    for (const AttributionScope *s = &whole; s; s = nullptr) {
        qint64 sum = s->attributedNs;
        for (const qint64 ns : s->unattributedNs)
            sum += ns;
        QCOMPARE(sum, s->gpuTimeNs);
    }
    for (const AttributionScope &s : a.steps) {
        qint64 sum = s.attributedNs;
        for (const qint64 ns : s.unattributedNs)
            sum += ns;
        QCOMPARE(sum, s.gpuTimeNs);
    }
    qint64 selfSum = 0;
    qint64 kernelSum = 0;
    for (const OpStats &op : whole.ops) {
        selfSum += op.deviceSelfNs;
        kernelSum += op.kernels;
        QVERIFY2(op.deviceTotalNs >= op.deviceSelfNs, qPrintable(op.name));
        QVERIFY2(op.hostTotalNs >= 0, qPrintable(op.name));
    }
    QCOMPARE(selfSum, attributedNs);
    qint64 linkSum = 0;
    for (const KernelOpLink &l : whole.kernelOps)
        linkSum += l.deviceNs;
    QCOMPARE(linkSum, attributedNs);
    if (!whole.launches.nodes.empty())
        QCOMPARE(whole.launches.nodes[0].gpuNs, attributedNs);

    QFETCH(QString, topName);
    if (topName.isEmpty()) {
        QVERIFY(whole.ops.empty());
        QVERIFY(!a.available);
        return;
    }
    QVERIFY(a.available);
    QFETCH(QString, topShapes);
    const OpStats &top = whole.ops.front();
    QCOMPARE(top.name, topName);
    QCOMPARE(top.inputShapes.value_or(QString()), topShapes);
    QCOMPARE(top.inputShapes.has_value(), !topShapes.isEmpty());
    QFETCH(qint64, calls);
    QFETCH(qint64, deviceSelfNs);
    QFETCH(qint64, deviceTotalNs);
    QFETCH(qint64, kernels);
    QFETCH(qint64, hostSelfNs);
    QFETCH(qint64, hostTotalNs);
    QCOMPARE(top.calls, calls);
    QCOMPARE(top.deviceSelfNs, deviceSelfNs);
    QCOMPARE(top.deviceTotalNs, deviceTotalNs);
    QCOMPARE(top.kernels, kernels);
    QCOMPARE(top.hostSelfNs, hostSelfNs);
    QCOMPARE(top.hostTotalNs, hostTotalNs);
}

void TestAttribution::sameWithByteRanges_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<qint64>("rangeBytes");
    // Ranges of a few KB on the small traces; ~1 MB on the 2021 one (tens of MB plain).
    QTest::newRow("AMD MI250") << "hta_amd_mi250_minitoy_train_ROCm6_2_kineto.json.gz" << qint64(3000);
    QTest::newRow("NVIDIA H100") << "tracelens_h100_gaunernst_bert-small-uncased__1016001.json.gz" << qint64(20000);
    QTest::newRow("AMD MI300X") << "tracelens_mi300_gaunernst_bert-small-uncased__1016001.json.gz" << qint64(50000);
    QTest::newRow("Kineto 2021") << "kineto_2021_resnet50_worker0.json.gz" << (qint64(1) << 20);
}

void TestAttribution::sameWithByteRanges()
{
    QFETCH(QString, file);
    QFETCH(qint64, rangeBytes);
    const QByteArray plain = readGunzipped(dataPath(QStringLiteral("attribution/") + file));
    QVERIFY(!plain.isEmpty());
    const QString oneThread = digest(parseTorchTraceBytes(plain, file, {}, TorchReadPlan{size_t(1) << 20, 0}).attribution);
    QVERIFY(oneThread.size() > 100);
    // Byte ranges of a few KB: the cuts fall inside the ops' and calls' blocks, and each range's
    // names are interned apart, then merged.
    for (const TorchReadPlan plan : {TorchReadPlan{4096, rangeBytes}, TorchReadPlan{64 * 1024, rangeBytes * 3}}) {
        const TorchTrace trace = parseTorchTraceBytes(plain, file, {}, plan);
        QVERIFY2(trace.parallelRanges > 1, "the plan must really cut the trace into ranges");
        QCOMPARE(digest(trace.attribution), oneThread);
    }
}

void TestAttribution::modulesAndSteps()
{
    // The H100 trace has nn.Module frames (with_modules) and one ProfilerStep.
    const TorchTrace trace = parseTorchTraceFile(
        dataPath(QStringLiteral("attribution/tracelens_h100_gaunernst_bert-small-uncased__1016001.json.gz")), QStringLiteral("h100"));
    const TraceAttribution &a = trace.attribution;
    QVERIFY(!a.wholeTrace.modules.children.empty());
    QVERIFY(moduleDevice(a.wholeTrace.modules) <= a.wholeTrace.attributedNs);
    bool sawModule = false;
    for (const ModuleNode &m : a.wholeTrace.modules.children)
        sawModule = sawModule || m.kind == FrameKind::Module;
    QVERIFY(sawModule);
    QCOMPARE(int(a.steps.size()), 1);
    QVERIFY(a.steps[0].label.startsWith(QLatin1String("ProfilerStep#")));
    QVERIFY(a.steps[0].gpuTimeNs <= a.wholeTrace.gpuTimeNs);
}

QTEST_GUILESS_MAIN(TestAttribution)
#include "tst_attribution.moc"
